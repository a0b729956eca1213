@testable import GatewayRuntime
@testable import Server
import SwitchboardConfig
import Testing

/// Which address a request is limited under: the peer, or the client a trusted proxy names; IPv6 by /64.
@Suite struct SourceAddressTests {
    @Test func anIPv4AddressIsItsOwnGroupAndAnIPv6AddressGroupsByItsSlash64() {
        #expect(SourceAddress.group("203.0.113.7") == "203.0.113.7")
        #expect(SourceAddress.group("2001:db8:1:2::5") == "2001:db8:1:2::/64")
        #expect(SourceAddress.group("2001:0db8:0001:0002:ffff:1:2:3") == "2001:db8:1:2::/64")
        #expect(SourceAddress.group("2001:db8:1:3::5") == "2001:db8:1:3::/64")
        #expect(SourceAddress.group("::ffff:198.51.100.4") == "198.51.100.4")
    }

    @Test func forwardedForIsHonouredOnlyFromTrustedPeers() {
        let trusted = TrustedProxies(["127.0.0.1", "10.0.0.0/8", "fd00::/8"])
        // From an untrusted peer the header is the attacker's choice.
        #expect(SourceAddress.resolve(peer: "198.51.100.9", forwardedFor: ["203.0.113.7"], trusted: trusted) == "198.51.100.9")
        #expect(SourceAddress.resolve(peer: "127.0.0.1", forwardedFor: ["203.0.113.7"], trusted: trusted) == "203.0.113.7")
        // The rightmost untrusted hop is the client; what it claims to its left is not believed.
        #expect(SourceAddress.resolve(peer: "127.0.0.1", forwardedFor: ["1.2.3.4, 203.0.113.7, 10.1.2.3"], trusted: trusted) == "203.0.113.7")
        #expect(SourceAddress.resolve(peer: "fd12::1", forwardedFor: ["2001:db8::1", "10.0.0.2"], trusted: trusted) == "2001:db8::1")
        // Nothing usable: the last good hop.
        #expect(SourceAddress.resolve(peer: "127.0.0.1", forwardedFor: [], trusted: trusted) == "127.0.0.1")
        #expect(SourceAddress.resolve(peer: "127.0.0.1", forwardedFor: ["10.0.0.5, not-an-ip"], trusted: trusted) == "127.0.0.1")
        #expect(SourceAddress.resolve(peer: "127.0.0.1", forwardedFor: ["unknown, 10.0.0.5"], trusted: trusted) == "10.0.0.5")
    }

    @Test func trustedProxiesFromTheConfigurationFileAreApplied() {
        var configuration = SwitchboardConfiguration()
        configuration.server.trustedProxies = ["127.0.0.1", "10.0.0.0/8"]
        let settings = ServerSettings(configuration)
        #expect(settings.trustedNetworks.contains("127.0.0.1"))
        #expect(settings.trustedNetworks.contains("10.1.2.3"))
        #expect(!settings.trustedNetworks.contains("192.0.2.1"))
    }

    @Test func trustedNetworksMatchByPrefix() {
        let trusted = TrustedProxies(["10.0.0.0/8", "192.168.1.1", "fd00::/8", "2001:db8::/127"])
        #expect(trusted.contains("10.255.0.1"))
        #expect(!trusted.contains("11.0.0.1"))
        #expect(trusted.contains("192.168.1.1") && !trusted.contains("192.168.1.2"))
        #expect(trusted.contains("fdff::1") && !trusted.contains("fe00::1"))
        #expect(trusted.contains("2001:db8::1") && !trusted.contains("2001:db8::2"))
        #expect(trusted.contains("::ffff:10.1.1.1"))
        #expect(!TrustedProxies([]).contains("127.0.0.1"))
    }
}
