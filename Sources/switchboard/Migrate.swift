import ArgumentParser
import GatewayRuntime
import Glibc
import Server
import Storage
import SwitchboardConfig

/// `switchboard migrate`: bring the database's schema up to this build's, explicitly (serve also does it at start).
struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply pending database schema migrations (serve also applies them at start).",
        discussion: """
            SQLite: takes the same lock as serve, so it refuses to run while a server uses the database; back up the \
            database and its .key file first. PostgreSQL ([cluster] postgres_url): runs while nodes serve; nodes \
            migrating at the same time apply each step once (an advisory lock); back up the database first.
            """)

    @OptionGroup var common: ConfigOptions
    @Flag(name: .customLong("dry-run"), help: "Only print the database's schema version and what would be applied.")
    var dryRun = false

    func run() throws {
        let config = try common.load()
        if config.cluster.usesPostgres { return try migratePostgres(config) }
        let path = config.storage.path
        let lock: InstanceLock
        do {
            lock = try InstanceLock(database: path)
        } catch {
            printError("switchboard: \(error)")
            throw ExitStatus.runtimeFailure
        }
        defer { withExtendedLifetime(lock) {} }
        try migrate(name: path, latest: SchemaStatus.latestVersion,
                    current: { () throws(StorageError) in access(path, F_OK) == 0 ? try SchemaStatus.currentVersion(path: path) : nil },
                    apply: { () throws(StorageError) in try SQLiteGatewayStore(options: SQLiteStoreOptions(path: path)).close() })
    }

    /// The same steps on the shared PostgreSQL database (no instance lock: other nodes may keep serving).
    private func migratePostgres(_ config: SwitchboardConfiguration) throws {
        var options = GatewayRuntime.Options(config)
        do {
            try options.loadPostgresPassword(config.cluster, environmentPassword: getenv("SWITCHBOARD_POSTGRES_PASSWORD").map { String(cString: $0) })
        } catch {
            printError("switchboard: \(error)")
            throw ExitStatus.runtimeFailure
        }
        let postgres = options.postgres!
        try migrate(name: postgres.redactedURL, latest: PostgresGatewayStore.latestSchemaVersion,
                    current: { () throws(StorageError) in try PostgresGatewayStore.schemaVersion(options: postgres) },
                    apply: { () throws(StorageError) in try PostgresGatewayStore(options: postgres).close() })
    }

    /// Reports the database's version against this build's and applies the pending steps (opening the store runs them).
    private func migrate(name: String, latest: Int, current readCurrent: () throws(StorageError) -> Int?,
                         apply: () throws(StorageError) -> Void) throws {
        let current: Int?
        do {
            current = try readCurrent()
        } catch {
            printError("switchboard: \(error)")
            throw ExitStatus.runtimeFailure
        }
        let from = current ?? 0
        print("\(name): schema version \(current.map(String.init) ?? "none (new database)"), this build's is \(latest)")
        if from > latest {
            printError("switchboard: the database is newer than this build; use a newer switchboard")
            throw ExitStatus.runtimeFailure
        }
        if from == latest { return print("nothing to do") }
        let pending = (from + 1...latest).map(String.init).joined(separator: ", ")
        if dryRun { return print("would apply migration(s) \(pending)") }
        do {
            try apply()
        } catch {
            printError("switchboard: migration failed: \(error)")
            throw ExitStatus.runtimeFailure
        }
        print("applied migration(s) \(pending); schema version is now \(latest)")
    }
}
