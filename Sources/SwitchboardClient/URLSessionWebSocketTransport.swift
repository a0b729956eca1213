#if canImport(Darwin)
import Foundation

/// The Apple-platform transport: `URLSessionWebSocketTask` (system TLS, proxies, and the OS's networking power
/// management). One task per connection attempt.
/// `@unchecked Sendable`: `task` is set once in `connect` before any other call; URLSession objects are thread-safe.
public final class URLSessionWebSocketTransport: NSObject, WebSocketTransport, URLSessionWebSocketDelegate, @unchecked Sendable {
    private var session: URLSession!
    private var task: URLSessionWebSocketTask?
    private var opened: CheckedContinuation<Void, any Error>?
    private let lock = NSLock()

    public override init() {
        super.init()
        session = URLSession(configuration: .default, delegate: self, delegateQueue: nil)
    }

    public func connect(to url: WebSocketURL) async throws {
        guard let target = URL(string: url.description) else { throw TransportError.connectFailed("bad URL") }
        try await withCheckedThrowingContinuation { (waiter: CheckedContinuation<Void, any Error>) in
            lock.withLock { opened = waiter }
            let task = session.webSocketTask(with: target)
            task.maximumMessageSize = 1 << 20
            self.task = task
            task.resume()
        }
    }

    public func send(text: String) async throws {
        guard let task else { throw TransportError.closed(code: nil) }
        do { try await task.send(.string(text)) } catch { throw ending(of: task) }
    }

    public func receive() async throws -> String {
        guard let task else { throw TransportError.closed(code: nil) }
        do {
            switch try await task.receive() {
            case .string(let text): return text
            case .data(let data): return String(decoding: data, as: UTF8.self)
            @unknown default: return ""
            }
        } catch {
            throw ending(of: task)
        }
    }

    public func close(code: UInt16) async {
        task?.cancel(with: URLSessionWebSocketTask.CloseCode(rawValue: Int(code)) ?? .normalClosure, reason: nil)
        session.finishTasksAndInvalidate()
    }

    /// How the task ended: the server's close code, or nil when it ended without one.
    private func ending(of task: URLSessionWebSocketTask) -> TransportError {
        task.closeCode == .invalid ? .closed(code: nil) : .closed(code: UInt16(task.closeCode.rawValue))
    }

    private func finishOpening(_ result: Result<Void, TransportError>) {
        let waiter = lock.withLock { () -> CheckedContinuation<Void, any Error>? in
            defer { opened = nil }
            return opened
        }
        waiter?.resume(with: result.mapError { $0 as any Error })
    }

    public func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol protocol: String?) {
        finishOpening(.success(()))
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        // Completing before opening means the upgrade failed: a 401 means the token was rejected.
        if let status = (task.response as? HTTPURLResponse)?.statusCode, status != 101 {
            finishOpening(.failure(.upgradeRejected(status: status)))
        } else {
            finishOpening(.failure(.connectFailed(error.map { "\($0)" } ?? "connection ended")))
        }
    }
}
#endif
