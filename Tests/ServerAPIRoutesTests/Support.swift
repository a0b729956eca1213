import HTTP1
@testable import ServerAPIRoutes

/// A request as the HTTP parser would hand it over.
func request(_ method: String, _ target: String, body: String = "", headers: [(String, String)] = []) -> HTTPRequest {
    HTTPRequest(head: HTTPRequestHead(method: method, target: target, headers: HTTPHeaders(headers)), body: Array(body.utf8))
}

/// The typed request a backend call makes, or the refusal (standalone registration on).
func typed(_ method: String, _ target: String, body: String = "", headers: [(String, String)] = []) -> Result<APIRequest, APIRefusal> {
    APIRoutes.request(request(method, target, body: body, headers: headers), standalone: true)
}

/// The refusal of a request that must be refused (nil when it was accepted).
func refusal(_ method: String, _ target: String, body: String = "") -> APIRefusal? {
    if case .failure(let refusal) = typed(method, target, body: body) { return refusal }
    return nil
}
