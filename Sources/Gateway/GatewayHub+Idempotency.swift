import FoundationEssentials
import GatewayProtocol

/// Idempotent operations (approval requests, publishes, messages with a `clientMessageId`): a retry gets the first
/// result and stores nothing — also when it overlaps the first call, which is still reading the store or
/// committing. While a key is in flight, later callers wait for its result instead of starting their own.
extension GatewayHub {
    /// Runs `perform` at most once per (scope, key): when the store already holds a response it is returned; when
    /// the same key is in flight, the caller waits for that call's result. `perform` must store the response in its
    /// commit (`.putIdempotency`) so later callers find it. Hub thread only.
    func idempotent<T: Codable>(scope: String, key: String,
                                perform: @escaping (@escaping (Result<T, GatewayError>) -> Void) -> Void,
                                completion: @escaping (Result<T, GatewayError>) -> Void) {
        let slot = scope + "\u{0}" + key
        let decoder = self.decoder
        let waiter: (Result<[UInt8], GatewayError>) -> Void = { result in
            completion(result.flatMap { bytes in
                guard let value = try? decoder.decode(T.self, from: bytes) else {
                    return .failure(GatewayError(.internalError, "the stored response for this idempotency key is unreadable"))
                }
                return .success(value)
            })
        }
        if idempotencyWaiters[slot] != nil {
            idempotencyWaiters[slot]!.append(waiter)
            return
        }
        idempotencyWaiters[slot] = [waiter]
        let finish: (Result<[UInt8], GatewayError>) -> Void = { [self] result in
            for waiter in idempotencyWaiters.removeValue(forKey: slot) ?? [] { waiter(result) }
        }
        let store = self.store
        let box = UncheckedBox(finish)
        let performBox = UncheckedBox(perform)
        scheduler.runBlocking { [self] in
            let stored = Result { try store.idempotentResponse(scope: scope, key: key) }
            scheduler.execute { [self] in
                switch stored {
                case .success(let bytes?):
                    box.value(.success(bytes))
                case .success(nil):
                    performBox.value { result in box.value(result.map { self.encode($0) }) }
                case .failure(let error):
                    box.value(.failure(GatewayError(.storageFailed, "\(error)")))
                }
            }
        }
    }
}
