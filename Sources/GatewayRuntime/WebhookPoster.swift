import Dispatch
import Logging
import Push

/// POSTs JSON bodies to one `http://` or `https://` URL through libcurl (a `PushDispatcher` of its own: the project's
/// one HTTP client, never an event loop, never a request path): three attempts, 200 then 400 ms apart, then logged and
/// dropped. For best-effort notifications whose source of truth stays in Switchboard (approval outcomes, invite texts);
/// push-grade delivery (outbox, signatures) is the `Push` target's job.
final class WebhookPoster: Sendable {
    static let attempts = 3
    private let url: String
    private let logger: Logger
    private let dispatcher: PushDispatcher
    private let retryDelayMs: Int
    /// Only waits out retry delays; requests run on the dispatcher's thread.
    private let timers: DispatchQueue

    /// nil when `url` is not an `http://` or `https://` URL with a host, or libcurl cannot start.
    init?(url: String, label: String, logger: Logger, retryDelayMs: Int = 200) {
        guard let scheme = ["http://", "https://"].first(where: url.hasPrefix),
              let first = url.dropFirst(scheme.count).first, first != "/" else { return nil }
        guard let dispatcher = try? PushDispatcher(maxInFlight: 4) else { return nil }
        self.url = url
        self.logger = logger
        self.dispatcher = dispatcher
        self.retryDelayMs = retryDelayMs
        timers = DispatchQueue(label: label)
    }

    deinit {
        dispatcher.shutdown()
    }

    /// Sends `body` in the background; `what` names it in the warning logged when every attempt failed.
    func post(_ body: [UInt8], what: String) {
        send(body, what: what, attempt: 1)
    }

    private func send(_ body: [UInt8], what: String, attempt: Int) {
        let request = PushHTTPRequest(url: url, headers: [("Content-Type", "application/json"), ("User-Agent", "switchboard")],
                                      body: body, timeoutMilliseconds: 5_000)
        dispatcher.submit(request) { [self] result in
            let failure: String
            switch result {
            case .response(let response) where (200..<300).contains(response.status): return
            case .response(let response): failure = "status \(response.status)"
            case .failure(let message): failure = message
            case .invalidRequest(let message):
                logger.warning("webhook \(url) cannot be sent for \(what): \(message)")
                return
            }
            guard attempt < Self.attempts else {
                logger.warning("webhook \(url) failed \(Self.attempts) times for \(what) (last: \(failure))")
                return
            }
            timers.asyncAfter(deadline: .now() + .milliseconds(retryDelayMs * attempt)) {
                self.send(body, what: what, attempt: attempt + 1)
            }
        }
    }
}
