import ArgumentParser
import COperations
import Glibc

/// `switchboard keygen`: secrets and key pairs for `auth.hs256_secret` and `auth.es256_public_key_file`.
struct Keygen: ParsableCommand {
    enum Algorithm: String, ExpressibleByArgument, CaseIterable { case hs256, es256 }

    static let configuration = CommandConfiguration(
        abstract: "Generate an HS256 secret or an ES256 key pair for client tokens.",
        discussion: """
            hs256: 32 random bytes as 64 hex digits, written to --out (mode 0600) or printed; put it in \
            auth.hs256_secret and give the same secret to your app backend. es256: a P-256 key pair, \
            --out PREFIX writes PREFIX.key (private, PKCS#8 PEM, mode 0600: for your backend) and PREFIX.pub \
            (public PEM: auth.es256_public_key_file). Existing files are never overwritten.
            """)

    @Argument(help: "hs256 or es256.") var algorithm: Algorithm
    @Option(help: "hs256: the secret file (default: print it). es256: the path prefix for PREFIX.key and PREFIX.pub (required).")
    var out: String?

    func validate() throws {
        if algorithm == .es256 && (out ?? "").isEmpty { throw ValidationError("keygen es256 needs --out PREFIX") }
    }

    func run() throws {
        switch algorithm {
        case .hs256:
            var generator = SystemRandomNumberGenerator()
            let hex = (0..<32).map { _ in
                let byte = UInt8.random(in: 0...255, using: &generator)
                return String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)
            }.joined()
            guard let out else { return print(hex) }
            let fd = open(out, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            guard fd >= 0 else {
                printError("switchboard: cannot create \(out) (it must not exist yet): \(String(cString: strerror(errno)))")
                throw ExitStatus.runtimeFailure
            }
            let line = hex + "\n"
            let written = line.withCString { write(fd, $0, strlen($0)) }
            close(fd)
            guard written == line.utf8.count else { printError("switchboard: cannot write \(out)"); throw ExitStatus.runtimeFailure }
            print("wrote \(out)")
        case .es256:
            let prefix = out ?? ""
            var error = [CChar](repeating: 0, count: 512)
            guard coperations_generate_p256(prefix + ".key", prefix + ".pub", &error, UInt(error.count)) == 0 else {
                printError("switchboard: \(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
                throw ExitStatus.runtimeFailure
            }
            print("wrote \(prefix).key (private, for the app backend) and \(prefix).pub (auth.es256_public_key_file)")
        }
    }
}
