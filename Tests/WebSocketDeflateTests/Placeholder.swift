import Testing
@testable import WebSocketDeflate
