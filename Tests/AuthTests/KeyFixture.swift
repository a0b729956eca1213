import Foundation

/// Throwaway keys made once per test run with the `openssl` CLI, as PEM text and files.
struct KeyFixture: Sendable {
    let directory: String
    /// P-256 private key, PKCS#8 ("BEGIN PRIVATE KEY", the `.p8` format), and its file.
    let pkcs8PEM: String
    let pkcs8File: String
    /// The matching SubjectPublicKeyInfo ("BEGIN PUBLIC KEY") and its file.
    let publicPEM: String
    let publicFile: String
    /// An unrelated P-256 key, SEC1 ("BEGIN EC PRIVATE KEY"), and its public key.
    let sec1PEM: String
    let sec1PublicPEM: String
    /// Keys ES256 must refuse.
    let p384PrivatePEM: String
    let p384PublicPEM: String
    let secp256k1PrivatePEM: String
    let ed25519PrivatePEM: String
    let ed25519PublicPEM: String
    let encryptedPKCS8PEM: String

    private static let shared = Result<KeyFixture, any Error> { try generate() }

    static func get() throws -> KeyFixture { try shared.get() }

    private static func generate() throws -> KeyFixture {
        let directory = NSTemporaryDirectory() + "switchboard-auth-tests-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        atexit {
            if let directory = try? KeyFixture.shared.get().directory {
                try? FileManager.default.removeItem(atPath: directory)
            }
        }
        func write(_ name: String, _ text: String) throws -> String {
            let path = directory + "/" + name
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            return path
        }
        let pkcs8 = try ExternalTools.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256"])
        let pkcs8File = try write("p256.p8", pkcs8)
        let publicPEM = try ExternalTools.openssl(["pkey", "-in", pkcs8File, "-pubout"])
        let sec1 = try ExternalTools.openssl(["ecparam", "-name", "prime256v1", "-genkey", "-noout"])
        let p384 = try ExternalTools.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"])
        let ed25519 = try ExternalTools.openssl(["genpkey", "-algorithm", "ED25519"])
        return KeyFixture(
            directory: directory,
            pkcs8PEM: pkcs8,
            pkcs8File: pkcs8File,
            publicPEM: publicPEM,
            publicFile: try write("p256.pub", publicPEM),
            sec1PEM: sec1,
            sec1PublicPEM: try ExternalTools.openssl(["ec", "-pubout"], input: Array(sec1.utf8)),
            p384PrivatePEM: p384,
            p384PublicPEM: try ExternalTools.openssl(["pkey", "-pubout"], input: Array(p384.utf8)),
            secp256k1PrivatePEM: try ExternalTools.openssl(
                ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:secp256k1"]),
            ed25519PrivatePEM: ed25519,
            ed25519PublicPEM: try ExternalTools.openssl(["pkey", "-pubout"], input: Array(ed25519.utf8)),
            encryptedPKCS8PEM: try ExternalTools.openssl(
                ["pkey", "-in", pkcs8File, "-aes256", "-passout", "pass:fixture"]))
    }
}
