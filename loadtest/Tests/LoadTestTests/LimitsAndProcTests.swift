import Foundation
import Glibc
import Metrics
import Testing
@testable import switchboard_load

/// Machine-limit checks and /proc parsing.
struct LimitsAndProcTests {
    @Test func portsSuffixWithEnoughSourceAddresses() throws {
        let range = 32768...60999  // 28 232 ports, Linux's default
        try ResourceLimits.ensurePorts(for: 28_000, sourceCount: 0, range: range)
        try ResourceLimits.ensurePorts(for: 56_000, sourceCount: 2, range: range)
        #expect(throws: LoadTestError.self) { try ResourceLimits.ensurePorts(for: 30_000, sourceCount: 1, range: range) }
        do {
            try ResourceLimits.ensurePorts(for: 60_000, sourceCount: 1, range: range)
            Issue.record("expected a limits error")
        } catch {
            // The advice names how many sources are needed.
            #expect(error.description.contains("at least 3 loopback addresses"))
        }
    }

    @Test func thisMachinesPortRangeIsReadable() {
        let range = ResourceLimits.ephemeralPortRange()
        #expect(range != nil)
        if let range { #expect(range.lowerBound >= 1 && range.upperBound <= 65535) }
    }

    @Test func descriptorLimitIsRaisedOrExplained() throws {
        try ResourceLimits.ensureDescriptors(for: 10, workers: 1)
        #expect(throws: LoadTestError.self) { try ResourceLimits.ensureDescriptors(for: 1 << 40, workers: 1) }
    }

    @Test func statParsingCopesWithParenthesesInTheName() {
        let stat = "4242 (evil) (name) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 75 0 0 20 0 4 0 123 0 0"
        #expect(ServerProcessSampler.cpuTicks(fromStat: stat) == 325)
        #expect(ServerProcessSampler.cpuTicks(fromStat: "garbage") == nil)
    }

    /// A TCP socket listening on a free loopback port; closed by the caller.
    static func listeningSocket() throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 1) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard fd >= 0, bound else { throw LoadTestError.runtime("cannot listen on 127.0.0.1") }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    @Test func samplesAProcessThatListensAndSaysWhatItMeasures() throws {
        let (fd, port) = try Self.listeningSocket()
        defer { close(fd) }
        let sampler = try ServerProcessSampler(pid: getpid())
        let sample = try #require(sampler.sample())
        #expect(sample.rssBytes > 1_000_000)
        #expect(sample.cpuSeconds >= 0)
        #expect(sampler.description.hasPrefix("pid \(getpid()) ("))
        #expect(sampler.description.contains("listening on TCP") && sampler.description.contains("\(port)"))
        #expect(throws: LoadTestError.self) { try ServerProcessSampler(pid: 999_999_999) }
    }

    @Test func refusesAProcessThatListensOnNothing() throws {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/bin/sleep")
        child.arguments = ["60"]
        try child.run()
        defer { kill(child.processIdentifier, SIGKILL); child.waitUntilExit() }
        do {
            _ = try ServerProcessSampler(pid: child.processIdentifier)
            Issue.record("a process with no listening socket was accepted")
        } catch {
            #expect("\(error)".contains("(sleep) listens on no TCP port"))
        }
    }

    @Test func listeningSocketsAreReadFromTheProcTable() {
        let table = """
              sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 0100007F:1CFC 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 4242 1 0 100 0 0 10 0
               1: 0100007F:1CFC 0100007F:9C40 01 00000000:00000000 00:00000000 00000000     0        0 4243 1 0 20 4 30 10 -1
            """
        #expect(ListeningPorts.listening(inTable: table) == [4242: 7420])   // the established connection is not listening
        #expect(ListeningPorts.socketInode(link: "socket:[4242]") == 4242)
        #expect(ListeningPorts.socketInode(link: "/dev/null") == nil)
    }

    @Test func statusFieldReadsKilobytes() {
        let status = "Name:\tswitchboard\nVmPeak:\t  2000 kB\nVmRSS:\t  12345 kB\n"
        #expect(ProcFile.statusField("VmRSS", in: status) == 12345)
        #expect(ProcFile.statusField("VmSwap", in: status) == nil)
    }
}

/// The warning about the kernel's slow port search past half the range.
struct PortSearchWarningTests {
    @Test func warnsPastHalfTheRangeAndSuggestsEnoughSources() throws {
        let range = 32768...60999  // 28 232 ports: half is 14 116
        #expect(ResourceLimits.portSearchWarning(for: 14_000, sourceCount: 0, range: range) == nil)
        #expect(ResourceLimits.portSearchWarning(for: 19_000, sourceCount: 2, range: range) == nil)
        let warning = try #require(ResourceLimits.portSearchWarning(for: 19_000, sourceCount: 1, range: range))
        #expect(warning.contains("--source-addresses with 2 or more"))
    }
}
