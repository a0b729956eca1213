@testable import Gateway
import GatewayProtocol
import Testing

/// `DeviceSecretRule` alone: which standalone device secrets are refused, and with which code.
@Suite struct DeviceSecretRuleTests {
    @Test func shortOrRepetitiveSecretsAreTooWeak() {
        #expect(DeviceSecretRule.check("hunter2")?.code == .deviceTokenTooWeak)
        #expect(DeviceSecretRule.check("x")?.code == .deviceTokenTooWeak)
        #expect(DeviceSecretRule.check("0123456789abcde")?.code == .deviceTokenTooWeak)   // 15 bytes
        #expect(DeviceSecretRule.check(String(repeating: "a", count: 64))?.code == .deviceTokenTooWeak)
        #expect(DeviceSecretRule.check(String(repeating: "ab", count: 32))?.code == .deviceTokenTooWeak)
        #expect(DeviceSecretRule.check("abcdefgabcdefgabcdefg")?.code == .deviceTokenTooWeak)   // 7 distinct
    }

    @Test func emptyOrOversizedValuesAreInvalidFields() {
        #expect(DeviceSecretRule.check("")?.code == .invalidField)
        #expect(DeviceSecretRule.check(String(repeating: "0123456789abcdef", count: 33))?.code == .invalidField)
    }

    @Test func randomLookingSecretsPass() {
        #expect(DeviceSecretRule.check("0123456789abcdef") == nil)
        #expect(DeviceSecretRule.check("9b2f4c1e-5d7a-4e0b-8c3f-2a6d1e9f7b40") == nil)
        #expect(DeviceSecretRule.check("c3f1a9e07b6d4258e1f0a3b9c7d2e648") == nil)
        #expect(DeviceSecretRule.check(String(repeating: "0123456789abcdef", count: 32)) == nil)   // 512 bytes
    }
}
