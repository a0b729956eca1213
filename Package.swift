// swift-tools-version: 6.0
// Switchboard: a realtime WebSocket gateway on its own epoll event loop (no SwiftNIO), and its Swift client.
// What each target owns and the one direction its dependencies point: docs/ARCHITECTURE.md, "Targets and their
// direction" (the declarations below are the truth; that page explains them).
//
// Two parts. The client (`SwitchboardClient` with `GatewayProtocol` and `JSON`, pure Swift) is declared everywhere;
// the server, its C shims, system libraries and tools are declared only when the manifest is read on Linux, the one
// platform they build on. SwiftPM looks up the pkg-config file of every system-library target a package declares,
// even one no product of the app reaches, so an iOS app adding this package would otherwise get a pkg-config lookup
// (and "install libpq-dev" warnings) for sqlite3, libcurl and libpq on every build. scripts/portability checks both.
import PackageDescription

/// The client's targets: built for apps on Apple platforms (URLSessionWebSocketTask) and on Linux (the project's own
/// event loop, from the Linux part below). Never depends on Server/Gateway/Storage: it speaks only the wire protocol.
var targets: [Target] = [
    // A strict JSON value (duplicate keys and trailing commas rejected), shared by tokens and the wire protocol.
    .target(name: "JSON"),
    .target(name: "GatewayProtocol", dependencies: ["JSON"])
]
var clientDependencies: [Target.Dependency] = ["GatewayProtocol", "JSON"]
var products: [Product] = [
    // The client library for apps (iOS/macOS/watchOS/tvOS/visionOS/Linux): reconnect, resume, acks and typed events.
    .library(name: "SwitchboardClient", targets: ["SwitchboardClient"])
]
var dependencies: [Package.Dependency] = []

#if os(Linux)
clientDependencies += [
    .target(name: "EventLoop", condition: .when(platforms: [.linux])),
    .target(name: "HTTP1", condition: .when(platforms: [.linux])),
    .target(name: "WebSocketCodec", condition: .when(platforms: [.linux])),
    .target(name: "TLS", condition: .when(platforms: [.linux]))
]
products += [
    .executable(name: "switchboard", targets: ["switchboard"]),
    .executable(name: "switchboard-load", targets: ["switchboard-load"])
]
dependencies += [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.1.0")
]
targets += [
    // C shims: Glibc does not export epoll/eventfd/timerfd, and OpenSSL/zlib expose macros Swift cannot call.
    .target(name: "CLinux"),
    .target(name: "COpenSSL", linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]),
    .target(name: "CZlib", linkerSettings: [.linkedLibrary("z")]),
    .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
    // SQLite's default VFS with a WAL file's frames written once per transaction (Storage's write connection).
    .target(name: "CSQLiteWAL", linkerSettings: [.linkedLibrary("sqlite3")]),
    // For the operator commands: build commit/date and linked library versions (`switchboard version`), key pairs.
    .target(
        name: "COperations",
        linkerSettings: [
            .linkedLibrary("ssl"), .linkedLibrary("crypto"), .linkedLibrary("z"),
            .linkedLibrary("sqlite3"), .linkedLibrary("curl")
        ]),
    .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
    .systemLibrary(name: "CPostgres", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
    // No pkgConfig: hiredis.pc adds -D_FILE_OFFSET_BITS=64, which SwiftPM refuses; the header is on the default path.
    .systemLibrary(name: "CHiredis", providers: [.apt(["libhiredis-dev"])]),

    // Pure protocol code: no I/O, no clocks; unit-testable and fuzzable.
    .target(name: "WebSocketCodec"),
    // RFC 4648 base64, both alphabets, strict decoding: the one implementation (handshake, JWS, webhooks).
    .target(name: "Base64"),
    // The one binary min-heap (timers, expiring maps).
    .target(name: "Heap"),
    .target(name: "HTTP1", dependencies: ["Base64", "JSON", "COpenSSL"]),
    .target(name: "SwitchboardConfig"),
    // The server API's route table and bodies: method + path + body -> typed request or precise refusal (fuzzable).
    .target(name: "ServerAPIRoutes", dependencies: ["GatewayProtocol", "HTTP1", "JSON"]),
    // Histograms and counters cheap enough for hot paths, Prometheus text, and /proc readings of a process.
    .target(name: "Metrics"),

    // The gateway domain: sessions, approvals, presence, messages; ports for storage and fan-out; time passed in.
    .target(name: "Gateway", dependencies: ["GatewayProtocol", "Auth", "Metrics", "Heap"]),
    // A blocking libpq client (parameterised queries, transactions, SQLSTATE errors) for a thread of its own.
    .target(name: "Postgres", dependencies: ["CPostgres"]),
    // A blocking hiredis client (commands, publish, subscribe) for a thread of its own: the cluster bus of
    // cross-node delivery (GatewayRuntime's RedisClusterBus, docs/CLUSTER.md).
    .target(name: "Redis", dependencies: ["CHiredis"]),
    // Adapters of the domain's store port: SQLite (WAL, migrations, one writer thread with group commit) and
    // PostgreSQL (several nodes sharing one database), both behind the same group-commit writer.
    .target(name: "Storage", dependencies: ["Gateway", "CSQLite", "CSQLiteWAL", "Postgres", "Auth"]),

    // Adapters over the C libraries.
    .target(name: "WebSocketDeflate", dependencies: ["WebSocketCodec", "CZlib"]),
    .target(name: "EventLoop", dependencies: ["CLinux", "Heap"]),
    .target(name: "TLS", dependencies: ["COpenSSL"]),
    .target(name: "Auth", dependencies: ["COpenSSL", "JSON", "Base64"]),
    // Push providers (APNs, FCM, webhook) over libcurl's HTTP/2 on one dedicated thread.
    .target(name: "Push", dependencies: ["CCurl", "Auth", "COpenSSL", "JSON", "Base64", "Metrics"]),

    // Transport: listeners on the event loops, TLS, HTTP/1.1 and the WebSocket upgrade, per-connection state,
    // the metrics endpoint. Knows nothing of the gateway: it serves any `HTTPApplication`/`WebSocketApplication`.
    .target(
        name: "Server",
        dependencies: [
            "EventLoop", "TLS", "HTTP1", "WebSocketCodec", "WebSocketDeflate", "Metrics",
            .product(name: "Logging", package: "swift-log")
        ]),
    // The gateway's runtime on top of the transport: the hub thread, the /v1/ws endpoint, the server API, the
    // push outbox, the cluster bus over Redis, the web files; settings from the configuration file.
    .target(
        name: "GatewayRuntime",
        dependencies: [
            "Server", "EventLoop", "HTTP1", "WebSocketCodec", "WebSocketDeflate", "SwitchboardConfig",
            "Gateway", "GatewayProtocol", "Storage", "Auth", "Push", "JSON", "Metrics", "Redis", "ServerAPIRoutes",
            .product(name: "Logging", package: "swift-log")
        ], exclude: ["Web/assets"]),  // embedded by scripts/embed-web into Web/WebAssets.swift
    .executableTarget(
        name: "switchboard",
        dependencies: [
            "Server", "GatewayRuntime", "SwitchboardConfig", "JSON", "Auth", "Storage", "EventLoop", "COperations",
            "GatewayProtocol",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log")
        ]),

    // The load generator: a network client of the server, on the same event loop (Server only receives its pushes).
    .executableTarget(
        name: "switchboard-load",
        dependencies: [
            "EventLoop", "WebSocketCodec", "WebSocketDeflate", "HTTP1", "TLS", "Auth", "JSON", "GatewayProtocol",
            "SwitchboardClient", "Metrics",
            "Server",  // only for the `reach` scenario's push receiver, never to drive the gateway
            .product(name: "Histogram", package: "hdrhistogram-swift"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Logging", package: "swift-log")
        ], path: "loadtest/Sources/switchboard-load"),

    // Helpers shared by the test targets (a seeded random generator).
    .target(name: "TestSupport", path: "Tests/TestSupport"),
    // The hand-moved clock and scheduler the gateway's tests drive time with (never shipped in a product).
    .target(name: "GatewayTestSupport", dependencies: ["Gateway"], path: "Tests/GatewayTestSupport"),
    .testTarget(name: "PostgresTests", dependencies: ["Postgres", "TestSupport"]),
    .testTarget(name: "RedisTests", dependencies: ["Redis", "TestSupport"]),
    .testTarget(name: "WebSocketCodecTests", dependencies: ["WebSocketCodec", "TestSupport"]),
    .testTarget(name: "Base64Tests", dependencies: ["Base64", "TestSupport"]),
    .testTarget(name: "HTTP1Tests", dependencies: ["HTTP1", "Base64", "TestSupport"]),
    .testTarget(name: "SwitchboardConfigTests", dependencies: ["SwitchboardConfig", "TestSupport"]),
    .testTarget(name: "ServerAPIRoutesTests", dependencies: ["ServerAPIRoutes", "GatewayProtocol", "HTTP1", "JSON"]),
    .testTarget(name: "WebSocketDeflateTests", dependencies: ["WebSocketDeflate", "WebSocketCodec", "TestSupport"]),
    .testTarget(name: "EventLoopTests", dependencies: ["EventLoop"]),
    .testTarget(name: "HeapTests", dependencies: ["Heap", "TestSupport"]),
    .testTarget(name: "TLSTests", dependencies: ["TLS", "TestSupport"]),
    .testTarget(
        name: "GatewayTests",
        dependencies: ["Gateway", "GatewayTestSupport", "GatewayProtocol", "JSON", "Auth", "TestSupport"]),
    .testTarget(name: "StorageTests", dependencies: ["Storage", "Gateway", "TestSupport"]),
    .testTarget(name: "AuthTests", dependencies: ["Auth", "JSON"]),
    .testTarget(name: "JSONTests", dependencies: ["JSON"]),
    .testTarget(name: "GatewayProtocolTests", dependencies: ["GatewayProtocol", "JSON"]),
    .testTarget(name: "MetricsTests", dependencies: ["Metrics"]),
    .testTarget(
        name: "LoadTestTests",
        dependencies: [
            "switchboard-load", "EventLoop", "WebSocketCodec", "WebSocketDeflate", "HTTP1", "Auth", "JSON",
            "SwitchboardClient", "TestSupport",
            "Metrics"
        ], path: "loadtest/Tests/LoadTestTests"),
    .testTarget(name: "PushTests", dependencies: ["Push", "Auth", "JSON", "TestSupport"], exclude: ["Fixtures"]),
    .testTarget(
        name: "ClientTests",
        dependencies: [
            "SwitchboardClient", "Server", "GatewayRuntime", "TestSupport", "WebSocketCodec", "HTTP1", "TLS",
            "EventLoop", "Auth", "Gateway", "Storage",
            .product(name: "Logging", package: "swift-log")
        ]),
    .testTarget(
        name: "ServerTests",
        dependencies: [
            "Server", "GatewayRuntime", "TestSupport", "WebSocketCodec", "HTTP1", "TLS", "EventLoop", "Auth", "Gateway",
            "Storage",
            "Redis"
        ])
]
#endif

targets.append(.target(name: "SwitchboardClient", dependencies: clientDependencies))

let package = Package(
    name: "Switchboard",
    // The client's minimums: `NSLock.withLock`, `Task.sleep(for:)` and `ContinuousClock` need iOS 16, macOS 13,
    // watchOS 9 and tvOS 16 (visionOS has them from 1.0); AsyncStream and URLSessionWebSocketTask are older. The
    // server ignores these: it builds on Linux only.
    platforms: [.iOS(.v16), .macOS(.v13), .watchOS(.v9), .tvOS(.v16), .visionOS(.v1)],
    products: products,
    dependencies: dependencies,
    targets: targets
)
