import ArgumentParser
import Glibc
import GatewayProtocol
import JSON

/// `switchboard-load decode`: a microbenchmark of the gateway's command reading, in process (no server). For a
/// `send_message` frame as the `messages` scenario sends it and an `ack` frame it times, in CPU time of this thread:
///
/// - `parse`: the strict parse alone (`JSONValue.parse`), the floor of any reading built on the parsed value;
/// - `one-pass`: what the gateway does, `CommandFrame.decode` (parse + typed command read by hand, ids checked);
/// - `decoder` (the path before the one-pass read, rebuilt here as it was): the parse, the envelope through
///   `StrictJSONDecoder` (a `Decoder`), a walk of the members for id-named fields, then the body through the
///   `Decoder` again.
///
/// Rounds alternate the variants so a busy machine slows them alike; the median round is reported.
struct DecodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decode",
        abstract: "Microbenchmark: client command frames decoded per CPU-second (no server).",
        discussion: "Example: switchboard-load decode --iterations 200000 --rounds 5")

    @Option(help: "Frames decoded per variant per round.")
    var iterations = 200_000

    @Option(help: "Rounds (the median is reported).")
    var rounds = 5

    static let frames: [(name: String, bytes: [UInt8])] = [
        ("send_message", Array(#"{"id":"1742","type":"send_message","to":"u-1337","text":"17 42 1764000000000000000","clientMessageId":"17-42"}"#.utf8)),
        ("ack", Array(#"{"id":"1743","type":"ack","offset":123456}"#.utf8)),
    ]

    func run() throws {
        print("frame         variant    commands per CPU-s (median of \(rounds) rounds)   ns per command")
        for frame in Self.frames {
            var results: [String: [Double]] = [:]
            for _ in 0..<rounds {
                for (variant, body) in Self.variants {
                    let start = Self.threadCPUNanoseconds()
                    var sink = 0
                    for _ in 0..<iterations { sink &+= body(frame.bytes) }
                    let elapsed = Double(Self.threadCPUNanoseconds() - start)
                    guard sink == iterations else { throw ValidationError("\(variant) failed to read \(frame.name)") }
                    results[variant, default: []].append(Double(iterations) / (elapsed / 1e9))
                }
            }
            for (variant, _) in Self.variants {
                let median = results[variant]!.sorted()[rounds / 2]
                let name = frame.name.padding(toLength: 13, withPad: " ", startingAt: 0)
                let kind = variant.padding(toLength: 10, withPad: " ", startingAt: 0)
                print("\(name) \(kind) \(Int(median).formatted)".padding(toLength: 70, withPad: " ", startingAt: 0) + String(Int(1e9 / median)))
            }
        }
    }

    /// Each returns 1 when the frame was read (so the work cannot be optimised away and a failure is seen).
    static let variants: [(String, @Sendable ([UInt8]) -> Int)] = [
        ("parse", { bytes in (try? JSONValue.parse(bytes)) == nil ? 0 : 1 }),
        ("one-pass", { bytes in (try? CommandFrame.decode(bytes)) == nil ? 0 : 1 }),
        ("decoder", { bytes in (try? DecoderPath.decode(bytes)) == nil ? 0 : 1 }),
    ]

    static func threadCPUNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}

/// The command reading the gateway did before the one-pass read, kept here only to measure against.
private enum DecoderPath {
    struct Envelope: Decodable { var id: String; var type: String }
    struct Ack: Decodable { var offset: Int64 }
    struct SendMessage: Decodable { var to: String; var text: String; var clientMessageId: String? }
    static let idFields: Set<String> = [
        "to", "with", "userId", "sessionId", "groupId", "contactId", "userA", "userB", "fromUserId", "ownerId", "inviterId",
    ]

    static func decode(_ bytes: [UInt8]) throws -> Int {
        let decoder = StrictJSONDecoder()
        let value = try StrictJSONDecoder.parse(bytes)
        let envelope = try decoder.decode(Envelope.self, from: value)
        if case .object(let members) = value {
            for (name, member) in members where idFields.contains(name) {
                if case .string(let id) = member { try Identifier.check(id, field: "field \"\(name)\"") }
            }
        }
        switch envelope.type {
        case "ack": return try decoder.decode(Ack.self, from: value).offset == 0 ? 0 : 1
        case "send_message": return try decoder.decode(SendMessage.self, from: value).to.isEmpty ? 0 : 1
        default: return 0
        }
    }
}

private extension Int {
    /// Thousands separated by spaces, as docs/BENCHMARKS.md writes figures.
    var formatted: String {
        let digits = Array(String(self))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(" ") }
            out.append(digit)
        }
        return out
    }
}
