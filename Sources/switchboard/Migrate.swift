import ArgumentParser
import Glibc
import Storage

/// `switchboard migrate`: bring the database's schema up to this build's, explicitly (serve also does it at start).
struct Migrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Apply pending database schema migrations (serve also applies them at start).",
        discussion: "Takes the same lock as serve: it refuses to run while a server uses the database. Back up the database and its .key file first.")

    @OptionGroup var common: ConfigOptions
    @Flag(name: .customLong("dry-run"), help: "Only print the database's schema version and what would be applied.")
    var dryRun = false

    func run() throws {
        let path = try common.load().storage.path
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
}
