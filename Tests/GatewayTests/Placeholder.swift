import Testing
@testable import Gateway
