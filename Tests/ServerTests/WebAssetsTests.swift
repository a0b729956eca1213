import Foundation
@testable import GatewayRuntime
import HTTP1
@testable import Server
import Synchronization
import Testing

/// The embedded web files equal the files in Sources/GatewayRuntime/Web/assets/ (scripts/embed-web regenerates them), and
/// are served with validators.
@Suite struct WebAssetsTests {
    static func asset(_ name: String) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/GatewayRuntime/Web/assets/\(name)")
        return try String(contentsOf: url, encoding: .utf8)
    }

    @Test func embeddedFilesMatchTheAssets() throws {
        #expect(WebAssets.clientJS == (try Self.asset("client.js")), "run scripts/embed-web after editing client.js")
        #expect(WebAssets.demoHTML == (try Self.asset("demo.html")), "run scripts/embed-web after editing demo.html")
        #expect(WebAssets.clientDTS == (try Self.asset("client.d.ts")), "run scripts/embed-web after editing client.d.ts")
    }

    static func request(_ method: String, _ path: String = "/v1/client.js", _ headers: [(String, String)] = []) throws -> HTTPRequest {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: x\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        var parser = HTTPRequestParser()
        let bytes = Array((text + "\r\n").utf8)
        let parsed = try bytes.withUnsafeBytes { try parser.parse($0) }
        return try #require(parsed.request)
    }

    static func head(_ method: String, _ headers: [(String, String)] = []) throws -> HTTPRequestHead {
        try request(method, "/v1/client.js", headers).head
    }

    /// Answers every request the routes pass on with 404, and records that it was asked.
    final class Fallback: HTTPApplication, @unchecked Sendable {
        // @unchecked: `asked` is only touched by the test's own thread (the routes answer synchronously).
        var asked: [String] = []
        func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) -> Bool {
            asked.append(request.head.path)
            respond(.jsonError(status: 404, code: "not_found", message: "nothing here"))
            return true
        }
    }

    @Test func theModuleAndItsDeclarationsAreServedWithTheSameCORS() throws {
        let fallback = Fallback()
        let routes = WebRoutes(next: fallback, demo: nil)
        let answers = Mutex<[String: HTTPResponse]>([:])
        for path in ["/v1/client.js", "/v1/client.d.ts", "/v1/client.ts"] {
            #expect(routes.handle(try Self.request("GET", path)) { response in answers.withLock { $0[path] = response } })
        }
        let (module, declarations, other) = try answers.withLock { answers in
            (try #require(answers["/v1/client.js"]), try #require(answers["/v1/client.d.ts"]), try #require(answers["/v1/client.ts"]))
        }
        #expect(declarations.status == 200 && declarations.body == Array(WebAssets.clientDTS.utf8))
        #expect(declarations.headers["Content-Type"] == "application/typescript; charset=utf-8")
        #expect(declarations.headers["Access-Control-Allow-Origin"] == module.headers["Access-Control-Allow-Origin"])
        #expect(module.headers["Access-Control-Allow-Origin"] == "*" && declarations.headers["ETag"] != module.headers["ETag"])
        #expect(other.status == 404 && fallback.asked == ["/v1/client.ts"])
        #expect(WebAssets.clientJS.hasPrefix("// @ts-self-types=\"./client.d.ts\""), "the module names its declarations for Deno and JSR tools")
    }

    @Test func validatorsAndMethods() throws {
        let asset = StaticAsset("export const x = 1;\n", contentType: "text/javascript; charset=utf-8")
        let full = asset.response(to: try Self.head("GET"))
        #expect(full.status == 200 && full.body == Array("export const x = 1;\n".utf8))
        #expect(full.headers["ETag"] == asset.etag && full.headers["Cache-Control"] == "no-cache")
        #expect(asset.response(to: try Self.head("GET", [("If-None-Match", asset.etag)])).status == 304)
        #expect(asset.response(to: try Self.head("GET", [("If-None-Match", "\"old\", W/\(asset.etag)")])).status == 304)
        #expect(asset.response(to: try Self.head("GET", [("If-None-Match", "*")])).status == 304)
        #expect(asset.response(to: try Self.head("GET", [("If-None-Match", "\"old\"")])).status == 200)
        // A HEAD gets the GET response; the server leaves the body out of every HEAD response (HeadAndContinueTests).
        #expect(asset.response(to: try Self.head("HEAD")) == full)
        let post = asset.response(to: try Self.head("POST", [("Content-Length", "0")]))
        #expect(post.status == 405 && post.headers["Allow"] == "GET, HEAD")
        #expect(StaticAsset("other", contentType: "text/plain").etag != asset.etag)
    }
}
