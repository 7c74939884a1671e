import Testing

@testable import RemoteConfigStore

@Suite struct SQLScriptTests {
    @Test func splitsOnSemicolonsOutsideQuotesCommentsAndDollarBodies() {
        let script = """
            -- a comment; with a semicolon
            CREATE TABLE a (x text DEFAULT 'a;b');
            /* block; comment */ CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'no; way'; END;
            $$;
            SELECT "odd;name" FROM a;
            """
        let statements = SQLScript.statements(script)
        #expect(statements.count == 3)
        #expect(statements[0] == "CREATE TABLE a (x text DEFAULT 'a;b')")
        #expect(statements[1].hasSuffix("END;\n$$"))
        #expect(statements[2] == "SELECT \"odd;name\" FROM a")
    }

    @Test func theShippedMigrationsSplit() throws {
        for migration in try Migration.bundled() {
            #expect(!SQLScript.statements(migration.sql).isEmpty)
        }
    }
}
