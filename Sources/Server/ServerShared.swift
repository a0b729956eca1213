import Logging
import Synchronization
import TLS

/// What every loop of one server shares: immutable settings and collaborators plus a few atomics.
final class ServerShared: Sendable {
    let settings: ServerSettings
    let application: WebSocketApplication?
    let httpApplication: HTTPApplication?
    /// Replaced by `Server.reloadTLS()` (SIGHUP); each accepted TLS connection takes the current one.
    let tlsContext: Mutex<TLSContext?>
    let logger: Logger
    let openConnections = Atomic<Int>(0)
    let draining = Atomic<Bool>(false)
    /// False until the embedding process says everything is in place (`Server.markReady()`): `/readyz` answers 503
    /// `starting` meanwhile, so supervisors and tests never act on a half-started process.
    let ready: Atomic<Bool>
    /// Set once the loops exist; read by `/metrics`.
    let metricsSource = Mutex<MetricsRenderer?>(nil)
    /// More Prometheus text appended to `/metrics` (the gateway's counters).
    let extraMetrics: (@Sendable () -> String)?

    init(settings: ServerSettings, application: WebSocketApplication?, httpApplication: HTTPApplication?,
         tlsContext: TLSContext?, logger: Logger, extraMetrics: (@Sendable () -> String)?, ready: Bool) {
        self.ready = Atomic(ready)
        self.extraMetrics = extraMetrics
        self.settings = settings
        self.application = application
        self.httpApplication = httpApplication
        self.tlsContext = Mutex(tlsContext)
        self.logger = logger
    }
}
