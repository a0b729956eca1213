import Testing
@testable import HTTP1

@Suite struct HTTPHeadersTests {
    @Test func lookupsAreCaseInsensitiveAndOrdered() {
        var headers = HTTPHeaders([(name: "Accept", value: "a"), (name: "X-Id", value: "1")])
        headers.add(name: "ACCEPT", value: "b")
        #expect(headers["accept"] == "a")
        #expect(headers.values("Accept") == ["a", "b"])
        #expect(headers["missing"] == nil)
        #expect(headers.values("missing").isEmpty)
        #expect(headers.map(\.name) == ["Accept", "X-Id", "ACCEPT"])
        #expect(headers.contains("x-id"))
        #expect(headers.count == 3)
    }

    @Test func containsTokenSplitsListsAcrossLines() {
        let headers = HTTPHeaders([(name: "Connection", value: "keep-alive,  Upgrade "), (name: "connection", value: "x, CLOSE")])
        #expect(headers.containsToken("upgrade", in: "Connection"))
        #expect(headers.containsToken("close", in: "connection"))
        #expect(headers.containsToken("KEEP-ALIVE", in: "Connection"))
        #expect(!headers.containsToken("keep", in: "Connection"))
        #expect(!headers.containsToken("upgrade", in: "Upgrade"))
    }

    @Test func replaceAndRemove() {
        var headers = HTTPHeaders([(name: "A", value: "1"), (name: "b", value: "2"), (name: "a", value: "3")])
        headers.replaceOrAdd(name: "A", value: "9")
        #expect(headers.values("a") == ["9"])
        #expect(headers.map(\.name) == ["b", "A"])
        headers.remove(name: "B")
        #expect(headers.count == 1)
    }

    @Test func equalityIgnoresNameCaseButNotValuesOrOrder() {
        let base = HTTPHeaders([(name: "A", value: "x"), (name: "B", value: "y")])
        #expect(base == HTTPHeaders([(name: "a", value: "x"), (name: "b", value: "y")]))
        #expect(base != HTTPHeaders([(name: "A", value: "X"), (name: "B", value: "y")]))
        #expect(base != HTTPHeaders([(name: "B", value: "y"), (name: "A", value: "x")]))
        #expect(base != HTTPHeaders([(name: "A", value: "x")]))
    }
}
