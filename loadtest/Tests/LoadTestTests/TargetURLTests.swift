import Testing
@testable import switchboard_load

/// `--url` parsing.
struct TargetURLTests {
    @Test func plainURLWithPortAndPath() throws {
        let url = try TargetURL(parsing: "ws://127.0.0.1:7420/echo?x=1")
        #expect(!url.isSecure)
        #expect(url.host == "127.0.0.1")
        #expect(url.port == 7420)
        #expect(url.path == "/echo?x=1")
        #expect(url.hostHeader == "127.0.0.1:7420")
    }

    @Test func defaultsPortsAndPath() throws {
        let plain = try TargetURL(parsing: "ws://example.test")
        #expect(plain.port == 80 && plain.path == "/" && plain.hostHeader == "example.test")
        let secure = try TargetURL(parsing: "wss://example.test?q")
        #expect(secure.isSecure && secure.port == 443 && secure.path == "/?q")
    }

    @Test func ipv6Literal() throws {
        let url = try TargetURL(parsing: "ws://[::1]:9001/")
        #expect(url.host == "::1")
        #expect(url.port == 9001)
        #expect(url.hostHeader == "[::1]:9001")
        #expect(url.description == "ws://[::1]:9001/")
    }

    @Test(arguments: ["http://x/", "ws://", "ws://:80/", "ws://host:0/", "ws://host:70000/", "ws://[::1/", "ws://h:p/"])
    func rejectsBadURLs(_ text: String) {
        #expect(throws: LoadTestError.self) { try TargetURL(parsing: text) }
    }
}
