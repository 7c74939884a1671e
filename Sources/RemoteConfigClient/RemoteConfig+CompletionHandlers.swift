import Foundation

/// Firebase's completion-handler forms, for code written against Firebase's iOS SDK.
///
/// The handlers have no default value on purpose: with `= nil`, `try await remoteConfig.fetch()` in top-level code
/// (a script, `main.swift`) matched the completion-handler form, which returned at once and fetched nothing, with only
/// a warning. Without it, `fetch()` can only mean the `async` form. Handlers are called on an arbitrary thread; hop
/// to the main actor before touching the UI.
extension RemoteConfig {
    /// Firebase's `fetch(completionHandler:)`: the status (`.success`, or `lastFetchStatus` on failure) and the error.
    public func fetch(completionHandler: (@Sendable (RemoteConfigFetchStatus, (any Error)?) -> Void)?) {
        Task {
            do {
                completionHandler?(try await fetch(), nil)
            } catch {
                completionHandler?(lastFetchStatus, error)
            }
        }
    }

    /// Firebase's `fetch(withExpirationDuration:completionHandler:)`: `0` always asks the server.
    public func fetch(
        withExpirationDuration expirationDuration: TimeInterval,
        completionHandler: (@Sendable (RemoteConfigFetchStatus, (any Error)?) -> Void)?
    ) {
        Task {
            do {
                completionHandler?(try await fetch(withExpirationDuration: expirationDuration), nil)
            } catch {
                completionHandler?(lastFetchStatus, error)
            }
        }
    }

    /// Firebase's `activate(completion:)`: whether the active values changed, and an error (never, here).
    public func activate(completion: (@Sendable (Bool, (any Error)?) -> Void)?) {
        Task {
            do {
                completion?(try await activate(), nil)
            } catch {
                completion?(false, error)
            }
        }
    }

    /// Firebase's `fetchAndActivate(completionHandler:)`: reports `.error` with the error instead of throwing.
    public func fetchAndActivate(
        completionHandler: (@Sendable (RemoteConfigFetchAndActivateStatus, (any Error)?) -> Void)?
    ) {
        Task {
            do {
                completionHandler?(try await fetchAndActivate(), nil)
            } catch {
                completionHandler?(.error, error)
            }
        }
    }
}
