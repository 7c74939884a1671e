import Foundation
import Hummingbird
import NIOCore
import RemoteConfigAPI
import RemoteConfigCore
import RemoteConfigStore

/// `POST …/insights:import` (admin): daily active instances per version from elsewhere, as CSV or JSON, which take
/// the place of the counted ones for their day and platform in every insights route.
struct InsightsImportController {
    let insights: InsightsStore
    let retentionDays: Int
    let access: ProjectAccess

    /// The largest body: 100,000 rows of about 40 bytes, with room for quoting and long versions.
    static let maximumBodyBytes = 16 << 20

    func addRoutes(to routes: Routes) {
        routes.post("/v1/projects/{p}/insights:import", use: importRows)
    }

    @Sendable func importRows(_ request: Request, context: AppRequestContext) async throws -> Response {
        let (project, caller) = try await access.project(request, context, .admin)
        let body = try await request.body.collect(upTo: Self.maximumBodyBytes)
        let days = InsightsImport.Days(retentionDays: retentionDays)
        let rows = try Self.rows(body, contentType: request.headers[.contentType], days: days)
        try await insights.importDays(project, rows, actor: caller.auditActor)
        let dates = rows.map(\.day)
        return try JSONResponse.make(
            InsightsImportResult(
                importedRows: rows.count, firstDate: dates.min().map(InsightsStore.dayText),
                lastDate: dates.max().map(InsightsStore.dayText),
                platforms: Set(rows.map(\.platform.rawValue)).sorted()))
    }

    /// The body's rows, by its content type (`text/csv`, or JSON); 400 naming the line and field of the first
    /// bad row, 415 for another type.
    static func rows(_ body: ByteBuffer, contentType: String?, days: InsightsImport.Days) throws -> [InsightsImport.Row]
    {
        let type = (contentType ?? "").split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        }
        do {
            switch type {
            case "text/csv":
                guard let text = String(validating: body.readableBytesView, as: UTF8.self) else {
                    throw APIError.invalidField("body", reason: "NOT_UTF8", "the CSV file is not UTF-8 text")
                }
                return try InsightsImport.csv(text, days: days)
            case "application/json":
                let value: JSONValue
                do {
                    value = try JSONValue(parsing: body.readableBytesView)
                } catch {
                    throw APIError.invalidField("body", reason: "MALFORMED_JSON", "the request body is not valid JSON")
                }
                return try InsightsImport.json(value, days: days)
            default:
                throw APIError(
                    .unsupportedMediaType, "an import is text/csv or application/json",
                    details: [ErrorDetail(field: "Content-Type", reason: "UNSUPPORTED_MEDIA_TYPE")])
            }
        } catch let problem as InsightsImport.Problem {
            throw APIError.invalidField(problem.field, reason: problem.reason, problem.message)
        }
    }
}
