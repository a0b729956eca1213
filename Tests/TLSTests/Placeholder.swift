import Testing
@testable import TLS
