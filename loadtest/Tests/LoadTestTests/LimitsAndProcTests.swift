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

    @Test func samplesOurOwnProcess() throws {
        let sampler = try ServerProcessSampler(pid: getpid())
        let sample = try #require(sampler.sample())
        #expect(sample.rssBytes > 1_000_000)
        #expect(sample.cpuSeconds >= 0)
        #expect(throws: LoadTestError.self) { try ServerProcessSampler(pid: 999_999_999) }
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
