import Testing
@testable import Server
