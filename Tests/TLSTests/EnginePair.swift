import Testing
@testable import TLS
@_exported import TestSupport

/// How ciphertext is cut into pieces before being handed to the receiving engine.
enum Delivery: Sendable, CustomStringConvertible {
    case whole
    case byteByByte
    case randomSplits(seed: UInt64)

    var description: String {
        switch self {
        case .whole: return "whole"
        case .byteByByte: return "byte-by-byte"
        case .randomSplits(let seed): return "random splits (seed \(seed))"
        }
    }
}


/// A server engine and a client engine wired together in memory, standing in for two sockets.
///
/// `pump()` moves ciphertext both ways until neither side has any pending, calling
/// `readPlaintext` after every delivered piece. A fatal error on one side is recorded (not
/// thrown) and that side's pending ciphertext — its alert — is still delivered to the other.
final class EnginePair {
    let server: TLSEngine
    let client: TLSEngine
    var delivery: Delivery
    private var random: SplitMix64

    var serverReceived: [UInt8] = []
    var clientReceived: [UInt8] = []
    var serverStatus: TLSReadStatus = .ok
    var clientStatus: TLSReadStatus = .ok
    var serverError: TLSError?
    var clientError: TLSError?

    init(server: TLSContext, client: TLSContext, serverName: String? = "localhost",
         delivery: Delivery = .whole) throws {
        self.server = try TLSEngine(context: server)
        self.client = try TLSEngine(context: client, serverName: serverName)
        self.delivery = delivery
        if case .randomSplits(let seed) = delivery {
            random = SplitMix64(state: seed)
        } else {
            random = SplitMix64(state: 1)
        }
    }

    /// Client sends its ClientHello, then both sides exchange records until quiet.
    func handshake() throws {
        try client.startHandshake()
        pump()
    }

    /// Moves ciphertext until neither engine has anything pending (bounded, so a livelock fails).
    func pump(maxRounds: Int = 10_000) {
        for _ in 0..<maxRounds {
            let movedToServer = transfer(from: client, to: server, toServer: true)
            let movedToClient = transfer(from: server, to: client, toServer: false)
            if !movedToServer && !movedToClient { return }
        }
        Issue.record("pump did not settle")
    }

    /// Delivers one side's pending ciphertext to the other; returns whether anything moved.
    private func transfer(from sender: TLSEngine, to receiver: TLSEngine, toServer: Bool) -> Bool {
        guard sender.hasPendingCiphertext else { return false }
        var ciphertext: [UInt8] = []
        sender.takePendingCiphertext(into: &ciphertext)
        var offset = 0
        while offset < ciphertext.count {
            let size: Int
            switch delivery {
            case .whole: size = ciphertext.count
            case .byteByByte: size = 1
            case .randomSplits: size = Int.random(in: 1...max(1, ciphertext.count / 3), using: &random)
            }
            let end = min(ciphertext.count, offset + size)
            ciphertext[offset..<end].withUnsafeBytes { receiver.receiveCiphertext($0) }
            offset = end
            read(receiver, toServer: toServer)
        }
        return true
    }

    private func read(_ engine: TLSEngine, toServer: Bool) {
        if toServer {
            guard serverError == nil else { return }
            do { serverStatus = try engine.readPlaintext(into: &serverReceived) } catch { serverError = error }
        } else {
            guard clientError == nil else { return }
            do { clientStatus = try engine.readPlaintext(into: &clientReceived) } catch { clientError = error }
        }
    }
}

extension TLSEngine {
    /// Test convenience: writes a byte array.
    func write(_ bytes: [UInt8]) throws(TLSError) {
        // No throwing closure: Swift 6.3.1 crashes in IRGen on a `throws(TLSError)` closure
        // passed to the untyped-rethrows `withUnsafeBytes`.
        var failure: TLSError?
        bytes.withUnsafeBytes { raw in
            do throws(TLSError) { try writePlaintext(raw) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    func write(_ text: String) throws(TLSError) { try write(Array(text.utf8)) }
}

/// Contexts most tests share: a server on the fixture certificate and a client trusting it.
enum Contexts {
    static func server(alpn: [String] = ["http/1.1"]) throws -> TLSContext {
        let fixture = try CertificateFixture.get()
        return try TLSContext.server(certificateChainFile: fixture.certificate,
                                     privateKeyFile: fixture.key, alpn: alpn)
    }

    static func trustingClient(alpn: [String] = ["http/1.1"],
                               maximumVersion: TLSVersion? = nil) throws -> TLSContext {
        let fixture = try CertificateFixture.get()
        return try TLSContext.client(caFile: fixture.certificate, alpn: alpn, maximumVersion: maximumVersion)
    }

    static func pair(delivery: Delivery = .whole) throws -> EnginePair {
        try EnginePair(server: server(), client: trustingClient(), delivery: delivery)
    }
}
