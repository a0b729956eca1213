import Testing
@testable import SwitchboardConfig

@Suite struct ListenAddressTests {
    @Test(arguments: [
        ("127.0.0.1:7420", "127.0.0.1", 7420), ("0.0.0.0:0", "0.0.0.0", 0), ("255.255.255.255:65535", "255.255.255.255", 65535),
        ("localhost:80", "localhost", 80), ("gw-1.example.com:443", "gw-1.example.com", 443), ("a:1", "a", 1),
        ("[::1]:7420", "::1", 7420), ("[::]:0", "::", 0), ("[2001:db8::8a2e:370:7334]:9", "2001:db8::8a2e:370:7334", 9),
        ("[1:2:3:4:5:6:7:8]:1", "1:2:3:4:5:6:7:8", 1), ("[::ffff:192.0.2.1]:2", "::ffff:192.0.2.1", 2),
        ("[fe80::1%eth0]:3", "fe80::1%eth0", 3), ("[1::]:4", "1::", 4),
    ] as [(String, String, Int)])
    func acceptsValidForms(text: String, host: String, port: Int) throws {
        let address = try #require(ListenAddress.parse(text))
        #expect(address.host == host)
        #expect(Int(address.port) == port)
        // description round-trips through parse.
        #expect(address.description == text)
        #expect(ListenAddress.parse(address.description) == address)
    }

    @Test(arguments: [
        "", "localhost", ":80", "host:", "host:-1", "host:65536", "host:99999999", "host:8o", "host:+80",
        "1.2.3.4.5:1", "1.2.3:1", "256.1.1.1:1", "01.2.3.4:1", "1..3.4:1",
        "::1:80", "[::1]", "[::1]:", "[::1:80", "[::1]x:80", "[1:2:3:4:5:6:7:8:9]:1", "[1::2::3]:1", "[12345::]:1",
        "[1:2:3:4:5:6:7]:1", "[fe80::1%]:1", "[:::]:1", "[::256.0.0.1]:1",
        "-host:1", "host-:1", "ho_st:1", "a..b:1", "a.:1", "exämple.com:1", "\(String(repeating: "a", count: 64)):1",
    ])
    func rejectsInvalidForms(text: String) {
        #expect(ListenAddress.parse(text) == nil, "\(text)")
    }

    @Test func ipv6IsBracketedInDescription() {
        #expect(ListenAddress(host: "::1", port: 5).description == "[::1]:5")
        #expect(ListenAddress(host: "::1", port: 5).isIPv6)
        #expect(ListenAddress(host: "10.0.0.1", port: 5).description == "10.0.0.1:5")
        #expect(!ListenAddress(host: "10.0.0.1", port: 5).isIPv6)
    }

    @Test func hostnameLengthLimits() {
        let label = String(repeating: "a", count: 63)
        #expect(ListenAddress.parse("\(label):1") != nil)
        let name253 = [label, label, label, String(repeating: "b", count: 61)].joined(separator: ".")
        #expect(name253.utf8.count == 253)
        #expect(ListenAddress.parse("\(name253):1") != nil)
        #expect(ListenAddress.parse("\(name253)b:1") == nil)
    }
}
