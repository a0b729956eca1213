import Testing
@testable import WebSocketCodec
