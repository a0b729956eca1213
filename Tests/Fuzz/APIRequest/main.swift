import GatewayProtocol
import HTTP1
import JSON

// Fuzz target: an API request from the byte stream to the typed request, without sockets. Compiled into the
// ServerAPIRoutes module (next to GatewayProtocol, HTTP1 and JSON): the HTTP parser takes the stream, then what the
// server API and the gateway do with every request before a domain decision — the route table (method + path →
// typed request with its ids, or the refusal), the body structs of the server API and the demo API, the numbers in
// the query (`wait`, `offset`) through the one checked conversion, and the body read as every client command
// (CommandFrame and each ClientCommand type), the way the server reads them.
//
// Input: byte 0 picks the command type the body is also read as, byte 1 the API body type it is also read as (and
// whether standalone registration is on); the rest is the request stream. Invariants beyond "no crash" (a trapping
// numeric conversion is a crash):
// - every request under /v1/ gets a typed request or a refusal with a documented status and code: a malformed path
//   `400 invalid_path`/`invalid_id`, a device endpoint's wrong method `405` with `Allow`, no route `404 not_found`, a
//   bad body `400` with `invalid_json`/`missing_field`/`invalid_field`/`invalid_id`; the one-step `APIRoutes.request`
//   agrees with match-then-read; a long-poll's wait is 0...60 000 ms; the demo API likewise;
// - a decoded API body written back (its wire names) reads again, and writes the same JSON a second time;
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

private let headRefusals: Set<String> = ["invalid_path", "invalid_id", "method_not_allowed"]

/// The route table on one request: a typed request or a precise refusal, the same whichever way it is asked.
private func checkRoutes(_ request: HTTPRequest, standalone: Bool) {
    let head = request.head
    let oneStep = APIRoutes.request(request, standalone: standalone)
    switch APIRoutes.match(head, standalone: standalone) {
    case .notMine:
        fuzzRequire(!head.path.hasPrefix(APIRoutes.prefix) || (!standalone && head.pathSegments() == ["v1", "devices", "register"]),
                    "an API path was not matched: \(head.path)")
    case .refused(let refusal):
        fuzzRequire(headRefusals.contains(refusal.code) && (refusal.status == 400 || refusal.status == 405), "head refusal \(refusal)")
        fuzzRequire(refusal.status != 405 || refusal.headers["Allow"] != nil, "405 without Allow")
        fuzzRequire(oneStep == .failure(refusal), "one-step request disagrees with the head's refusal")
    case .noRoute(let refusal):
        fuzzRequire(refusal.status == 404 && refusal.code == "not_found", "no route answered \(refusal)")
        fuzzRequire(oneStep == .failure(refusal), "one-step request disagrees with no route")
    case .route(let route):
        let read = route.request(request)
        fuzzRequire(read == oneStep, "one-step request disagrees with match-then-read")
        switch read {
        case .success(.getApproval(_, let waitMs)):
            fuzzRequire((0...APIRoutes.maxWaitMs).contains(waitMs), "wait \(waitMs) ms out of range")
        case .success:
            break
        case .failure(let refusal):
            fuzzRequire(refusal.status == 400 && bodyErrors.contains(where: { $0.rawValue == refusal.code }), "body refusal \(refusal)")
        }
    }
    if head.path.hasPrefix(DemoRoutes.prefix) {
        switch DemoRoutes.request(request) {
        case .success: break
        case .failure(let refusal):
            fuzzRequire([400, 404, 405].contains(refusal.status), "demo refusal \(refusal)")
        }
    }
}

/// JSON text as the project's serializer writes it (members sorted, numbers canonical): Foundation's encoder and ours
/// may spell one number two ways.
private func canonical(_ bytes: [UInt8]) -> [UInt8]? {
    guard let value = try? JSONValue.parse(bytes) else { return nil }
    return try? value.serialized()
}

/// A body of `type` read from `bytes`, written back and read again: it must read, and write the same JSON again.
private func checkRoundTrip<Body: APIBody>(_ type: Body.Type, _ bytes: [UInt8]) {
    guard let body = try? Body.decode(bytes) else { return }
    let written = ServerFrames.encode(body)
    guard let first = canonical(written) else { return fuzzRequire(false, "\(Body.self) wrote invalid JSON") }
    let again: Body
    do { again = try Body.decode(written) } catch { return fuzzRequire(false, "\(Body.self) does not read back: \(error)") }
    fuzzRequire(canonical(ServerFrames.encode(again)) == first, "\(Body.self) read back as another body")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAPIRequest(_ data: UnsafeRawPointer?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let type = commandTypes[Int(input.byte()) % commandTypes.count]
    let options = Int(input.byte())
    let bodyType = APIBodies.all[(options >> 1) % APIBodies.all.count]
    let standalone = options & 1 == 0
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
        checkRoutes(request, standalone: standalone)
        checkRoundTrip(bodyType, request.body)
    }
    return 0
}
