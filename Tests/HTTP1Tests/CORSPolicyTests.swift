import Testing
@testable import HTTP1

/// The CORS answers of the browser endpoints: which origins may read them, and the preflight.
@Suite struct CORSPolicyTests {
    let listed = CORSPolicy(allowedOrigins: ["https://app.example.com"])

    @Test func listedOriginIsEchoedWithVary() {
        let headers = listed.responseHeaders(origin: "https://APP.example.com")
        #expect(headers["Access-Control-Allow-Origin"] == "https://APP.example.com")
        #expect(headers["Vary"] == "Origin")
    }

    @Test func otherOriginGetsVaryButNoAllowOrigin() {
        let headers = listed.responseHeaders(origin: "https://evil.example")
        #expect(headers["Access-Control-Allow-Origin"] == nil)
        #expect(headers["Vary"] == "Origin")
        #expect(CORSPolicy(allowedOrigins: []).responseHeaders(origin: "https://app.example.com")["Access-Control-Allow-Origin"] == nil)
    }

    @Test func wildcardAllowsAnyOrigin() {
        #expect(CORSPolicy(allowedOrigins: ["*"]).responseHeaders(origin: "http://127.0.0.1:9")["Access-Control-Allow-Origin"] == "http://127.0.0.1:9")
    }

    @Test func preflightOfAnAllowedOrigin() {
        let response = listed.preflight(origin: "https://app.example.com", methods: ["POST"])
        #expect(response.status == 204 && response.body.isEmpty)
        #expect(response.headers["Access-Control-Allow-Origin"] == "https://app.example.com")
        #expect(response.headers["Access-Control-Allow-Methods"] == "POST, OPTIONS")
        #expect(response.headers["Access-Control-Allow-Headers"] == "Authorization, Content-Type")
        #expect(response.headers["Access-Control-Max-Age"] == "600")
        #expect(response.headers["Vary"] == "Origin")
    }

    @Test func preflightOfAnotherOriginIsAPreciseError() {
        let response = listed.preflight(origin: "https://evil.example", methods: ["PUT"])
        #expect(response.status == 403)
        #expect(response.headers["Access-Control-Allow-Origin"] == nil)
        let body = String(decoding: response.body, as: UTF8.self)
        #expect(body.contains("\"code\":\"origin_not_allowed\"") && body.contains("http.cors_allowed_origins"), "\(body)")
    }

    @Test func optionsWithoutOriginListsTheMethods() {
        let response = listed.preflight(origin: nil, methods: ["PUT"])
        #expect(response.status == 204 && response.headers["Allow"] == "PUT, OPTIONS")
        #expect(response.headers["Access-Control-Allow-Origin"] == nil)
    }
}
