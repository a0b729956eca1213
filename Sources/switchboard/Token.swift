import ArgumentParser
import Auth
import GatewayProtocol
import Glibc
import SwitchboardConfig

/// `switchboard token …`: client tokens for development and testing.
struct Token: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Client tokens for development and testing.", subcommands: [Mint.self])

    struct Mint: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a client token (JWT) as the app backend would sign it.",
            discussion: """
                Signs HS256 with auth.hs256_secret, or when that is empty with the secret the server generated \
                beside the database (<storage.path>.key); with --es256-private-key, ES256 with that key. The \
                token carries sub, device_id, client_type, iat, exp, and aud/iss when auth.audience/auth.issuer are set.
                """)

        @OptionGroup var common: ConfigOptions
        @Option(help: "The user id (sub claim).") var user: String
        @Option(help: "The device id (device_id claim).") var device: String
        @Option(name: .customLong("client-type"), help: "ios, android, desktop or web.") var clientType = "ios"
        @Option(help: "Lifetime in seconds (1…31536000).") var ttl = 3600
        @Option(name: .customLong("es256-private-key"), help: "Sign ES256 with this PEM private key instead of HS256.")
        var es256PrivateKey: String?

        func validate() throws {
            // The server refuses a token whose ids break the id grammar (invalid_claim); refuse to mint one.
            for (flag, id) in [("--user", user), ("--device", device)] where !Identifier.isValid(id) {
                throw ValidationError("\(flag): \"\(id)\" is not a valid id: ids are \(Identifier.rule)")
            }
            guard ["ios", "android", "desktop", "web"].contains(clientType) else {
                throw ValidationError("--client-type: expected ios, android, desktop or web, got \"\(clientType)\"")
            }
            guard (1...31_536_000).contains(ttl) else { throw ValidationError("--ttl: expected 1…31536000 seconds, got \(ttl)") }
        }

        func run() throws {
            let configuration = try common.load()
            let key: JWTKey
            do {
                key = try signingKey(configuration)
            } catch let error as CommandFailure {
                printError("switchboard: \(error)")
                throw ExitStatus.runtimeFailure
            }
            let now = Int64(time(nil))
            var claims: [String: JSONValue] = [
                "sub": .string(user), "device_id": .string(device), "client_type": .string(clientType),
                "iat": .int(now), "exp": .int(now + Int64(ttl)),
            ]
            if !configuration.auth.audience.isEmpty { claims["aud"] = .string(configuration.auth.audience) }
            if !configuration.auth.issuer.isEmpty { claims["iss"] = .string(configuration.auth.issuer) }
            do {
                print(try JWTSigner.sign(claims: claims, key: key))
            } catch {
                printError("switchboard: cannot sign: \(error)")
                throw ExitStatus.runtimeFailure
            }
        }

        private func signingKey(_ configuration: SwitchboardConfiguration) throws -> JWTKey {
            if let es256PrivateKey {
                guard let pem = readText(es256PrivateKey) else { throw CommandFailure("cannot read \(es256PrivateKey)") }
                do { return try JWTKey.ecPrivateKey(pem: pem) } catch { throw CommandFailure("\(es256PrivateKey): \(error)") }
            }
            if !configuration.auth.hs256Secret.isEmpty { return .hmac(secret: Array(configuration.auth.hs256Secret.utf8)) }
            let keyFile = configuration.storage.path + ".key"
            guard let text = readText(keyFile) else {
                throw CommandFailure("no signing secret: auth.hs256_secret is empty and \(keyFile) does not exist "
                                     + "(serve creates it on first start; or pass --config/--storage-path)")
            }
            let secret = Array(text.utf8).filter { $0 > 0x20 }
            guard secret.count >= 32 else { throw CommandFailure("\(keyFile) holds no usable secret") }
            return .hmac(secret: secret)
        }
    }
}

/// A command's work failed (exit status 1), with what to print.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The whole file as UTF-8, nil when it cannot be read.
func readText(_ path: String) -> String? {
    guard let file = fopen(path, "rb") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = fread(&chunk, 1, chunk.count, file)
        if n > 0 { bytes.append(contentsOf: chunk[..<n]) }
        if n < chunk.count { break }
    }
    return ferror(file) == 0 ? String(decoding: bytes, as: UTF8.self) : nil
}
