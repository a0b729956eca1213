import Foundation
@testable import GatewayRuntime
import HTTP1
@testable import Server
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
    }

    static func head(_ method: String, _ headers: [(String, String)] = []) throws -> HTTPRequestHead {
        var text = "\(method) /v1/client.js HTTP/1.1\r\nHost: x\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        var parser = HTTPRequestParser()
        let bytes = Array((text + "\r\n").utf8)
        let parsed = try bytes.withUnsafeBytes { try parser.parse($0) }
        return try #require(parsed.request).head
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
