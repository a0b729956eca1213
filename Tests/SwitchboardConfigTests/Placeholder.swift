import Testing
@testable import SwitchboardConfig
