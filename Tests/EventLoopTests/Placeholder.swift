import Testing
@testable import EventLoop
