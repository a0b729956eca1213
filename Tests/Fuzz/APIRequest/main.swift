import HTTP1
import JSON

// Fuzz target: an API request from the byte stream to typed fields, without sockets. Compiled into the
// GatewayProtocol module (next to HTTP1 and JSON): the HTTP parser takes the stream, then what the server API and the
// gateway do with every request before a domain decision — the path's segments against the id grammar, the numbers
// in the query (`wait`, `offset`) through the one checked conversion, and the body read as every client command and
// every command body the server API shares (CommandFrame and each ClientCommand type), the way the server reads them.
//
// Input: byte 0 picks the command type the body is also read as; the rest is the request stream. Invariants beyond
// "no crash" (a trapping numeric conversion is a crash):
// - a number that converts is finite, integral and in its range; `wait` clamps to 0...60 000 ms;
// - every refusal of a body is one of the documented codes (`invalid_json`, `missing_field`, `invalid_field`,
//   `invalid_id`, `unknown_type`);
// - an id the grammar accepts is what a command's id field returns.

/// A sample of the command types (the body is also read as one of them, whatever its own `type` says).
private let commandTypes = [
    "auth", "ack", "send_message", "history", "unread_counts", "mark_read", "set_presence", "presence",
    "session_attach", "session_get", "session_list", "approve", "deny", "approvals_pending", "push_register",
    "push_unregister", "notification_settings", "set_notification_settings", "group_create", "group_get",
    "group_list", "group_leave", "group_remove_member", "group_send_message", "invite_create", "invite_redeem",
]

private let bodyErrors: Set<GatewayErrorCode> = [.invalidJSON, .missingField, .invalidField, .invalidID, .unknownType]

private func checkNumbers(_ head: HTTPRequestHead) {
    for name in ["wait", "offset", "timeoutSeconds"] {
        guard let text = head.queryItem(name), let value = WholeNumber.decimal(text) else { continue }
        fuzzRequire(!value.isNaN, "\(name)=\(text) read as NaN")
        if let ms = WholeNumber.rounded(min(max(value, 0), 60), scale: 1000, in: 0...60_000) {
            fuzzRequire((0...60_000).contains(ms), "\(name)=\(text) clamped to \(ms)")
        } else {
            fuzzRequire(false, "\(name)=\(text): a clamped finite value did not convert")
        }
        if let whole = WholeNumber.rounded(value, scale: 1000, in: 1_000...600_000) {
            fuzzRequire((1_000...600_000).contains(whole), "\(name)=\(text) out of its range: \(whole)")
        }
        _ = WholeNumber.rounded(value, in: .min ... .max)
    }
}

private func checkBody(_ body: [UInt8], as type: String) {
    do {
        _ = try CommandFrame.decode(body)
    } catch {
        switch error {
        case .unreadable(_, let reason), .invalid(_, let reason):
            fuzzRequire(bodyErrors.contains(reason.code), "undocumented refusal \(reason.code)")
        }
    }
    guard let fields = try? JSONFields.parse(body, what: "body") else { return }
    do {
        _ = try ClientCommand(type: type, fields: fields)
    } catch {
        fuzzRequire(bodyErrors.contains(error.code), "undocumented refusal \(error.code) of a \(type) body")
    }
    if let id = try? fields.id("userId") { fuzzRequire(Identifier.isValid(id), "an id outside the grammar: \(id)") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAPIRequest(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let type = commandTypes[Int(input.byte()) % commandTypes.count]
    var parser = HTTPRequestParser(limits: HTTPLimits(maxBodyBytes: 16_384))
    var rest = input.rest
    while !rest.isEmpty {
        let parsed = rest.withUnsafeBytes { raw in Result { () throws(HTTPParseError) in try parser.parse(raw) } }
        guard case .success(let (consumed, request)) = parsed, consumed > 0 || request != nil else { break }
        rest.removeFirst(consumed)
        guard let request else { continue }
        let head = request.head
        if let segments = head.pathSegments() {
            for segment in segments where Identifier.isValid(segment) { fuzzRequire(!segment.isEmpty, "an empty id") }
        }
        checkNumbers(head)
        checkBody(request.body, as: type)
    }
    return 0
}
