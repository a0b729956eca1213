import ArgumentParser

struct Version: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the version, the git commit and build date, and the linked OpenSSL, zlib, SQLite and libcurl versions.")

    func run() throws { print(BuildInfo().text) }
}
