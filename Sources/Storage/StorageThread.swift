import Glibc

/// Starts a joinable thread running `body` (the store's writer and checkpointer); the error is `pthread_create`'s.
func startThread(_ body: @escaping () -> Void) -> Result<pthread_t, ThreadStartError> {
    // A C thread entry cannot capture, so the closure travels boxed through the thread's argument.
    let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
    var tid = pthread_t()
    let rc = pthread_create(&tid, nil, { raw in
        Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().body()
        return nil
    }, context)
    guard rc == 0 else {
        Unmanaged<ThreadBody>.fromOpaque(context).release()
        return .failure(ThreadStartError(errno: rc))
    }
    return .success(tid)
}

/// `pthread_create` failed with `errno`.
struct ThreadStartError: Error, CustomStringConvertible {
    let errno: Int32
    var description: String { "\(errno)" }
}

/// Names the calling thread (`/proc/thread-self/comm`, 15 bytes kept) so per-thread profiles (`perf stat
/// --per-thread`, `top -H`) tell the writer and checkpointer from the event loops; Glibc's Swift module lacks
/// `pthread_setname_np`.
func nameCurrentThread(_ name: String) {
    let fd = open("/proc/thread-self/comm", O_WRONLY)
    guard fd >= 0 else { return }
    _ = Array(name.utf8.prefix(15)).withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

/// What a thread runs (retained until the thread takes it).
private final class ThreadBody {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}
