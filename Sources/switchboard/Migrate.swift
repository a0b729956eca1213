import ArgumentParser
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
        let latest = SchemaStatus.latestVersion
        let lock: InstanceLock
        do {
            lock = try InstanceLock(database: path)
        } catch {
            printError("switchboard: \(error)")
            throw ExitStatus.runtimeFailure
        }
        defer { withExtendedLifetime(lock) {} }
        let current: Int?
        do {
            current = access(path, F_OK) == 0 ? try SchemaStatus.currentVersion(path: path) : nil
        } catch {
            printError("switchboard: \(error)")
            throw ExitStatus.runtimeFailure
        }
        let from = current ?? 0
        print("\(path): schema version \(current.map(String.init) ?? "none (new database)"), this build's is \(latest)")
        if from > latest {
            printError("switchboard: the database is newer than this build; use a newer switchboard")
            throw ExitStatus.runtimeFailure
        }
        if from == latest { return print("nothing to do") }
        let pending = (from + 1...latest).map(String.init).joined(separator: ", ")
        if dryRun { return print("would apply migration(s) \(pending)") }
        do {
            let store = try SQLiteGatewayStore(options: SQLiteStoreOptions(path: path))
            store.close()
        } catch {
            printError("switchboard: migration failed: \(error)")
            throw ExitStatus.runtimeFailure
        }
        print("applied migration(s) \(pending); schema version is now \(latest)")
    }

    /// The same steps on the shared PostgreSQL database (no instance lock: other nodes may keep serving).
    private func migratePostgres(_ config: SwitchboardConfiguration) throws {
        var options = GatewayRuntime.Options(config)
        let latest = PostgresGatewayStore.latestSchemaVersion
        let current: Int?
        let postgres: PostgresStoreOptions
        do {
            try options.loadPostgresPassword(config.cluster, environmentPassword: getenv("SWITCHBOARD_POSTGRES_PASSWORD").map { String(cString: $0) })
            postgres = options.postgres!
            current = try PostgresGatewayStore.schemaVersion(options: postgres)
        } catch {
            printError("switchboard: \(error)")
            throw ExitStatus.runtimeFailure
        }
        let from = current ?? 0
        print("\(postgres.redactedURL): schema version \(current.map(String.init) ?? "none (new database)"), this build's is \(latest)")
        if from > latest {
            printError("switchboard: the database is newer than this build; use a newer switchboard")
            throw ExitStatus.runtimeFailure
        }
        if from == latest { return print("nothing to do") }
        let pending = (from + 1...latest).map(String.init).joined(separator: ", ")
        if dryRun { return print("would apply migration(s) \(pending)") }
        do {
            try PostgresGatewayStore(options: postgres).close()
        } catch {
            printError("switchboard: migration failed: \(error)")
            throw ExitStatus.runtimeFailure
        }
        print("applied migration(s) \(pending); schema version is now \(latest)")
    }
}
