@testable import Gateway
import GatewayProtocol
import GatewayTestSupport
import Testing

/// Idempotency keys answered from memory: a retry costs no store read, a key the node forgot (bound, restart) is
/// answered from the store exactly as before, and nothing is ever stored twice. Messages are never looked up first
/// (their commit's claim is the look-up); publishes are (`readFirst`).
@Suite struct IdempotencyMemoryTests {
    let store = DeferredStore()
    let scheduler = ManualScheduler()

    /// A hub (a fresh process: nothing remembered) on the test's store, with ann and bob as contacts.
    func startHub(memoryKeys: Int = 4_096) throws -> GatewayHub {
        var settings = GatewaySettings()
        settings.idempotencyMemoryKeys = memoryKeys
        let hub = GatewayHub(store: store, scheduler: scheduler, clock: scheduler, settings: settings)
        try hub.start()
        if hub.user("ann") == nil {
            for id in ["ann", "bob"] { hub.upsertUser(id: id, displayName: nil) { _ in } }
            hub.addContact("ann", "bob") { _ in }
            store.flush()
        }
        return hub
    }

    /// Sends from ann to bob (through the wire command) and returns the reply's result, or its error code.
    func send(_ hub: GatewayHub, _ client: FakeClient, id: String, text: String, key: String) -> (messageId: Int64?, error: String?) {
        hub.handle(Array(#"{"id":"\#(id)","type":"send_message","to":"bob","text":"\#(text)","clientMessageId":"\#(key)"}"#.utf8), from: client)
        store.flush()
        let result = client.reply(id)?["result"] as? [String: Any]
        return (result?["messageId"] as? Int64, client.errorCode(id))
    }

    func bobsMessageEvents() throws -> Int { try store.inner.events(userId: "bob", after: 0, limit: 100).filter { $0.type == "message" }.count }

    func storedMessages() throws -> [MessageRecord] { try store.inner.messages(between: "ann", and: "bob", before: nil, limit: 100) }

    @Test func aRetryIsAnsweredFromMemoryWithoutAStoreRead() throws {
        let hub = try startHub()
        let ann = FakeClient("ann", "phone", "ios")
        hub.connect(ann, resumeAfter: nil)
        let first = send(hub, ann, id: "1", text: "hello", key: "m-1")
        #expect(first.messageId != nil && store.idempotencyReads == 0)   // a new key: claimed in the commit, not read
        let retry = send(hub, ann, id: "2", text: "hello", key: "m-1")
        #expect(retry.messageId == first.messageId)
        #expect(store.idempotencyReads == 0)                             // answered from memory
        #expect(try storedMessages().count == 1)
        #expect(try bobsMessageEvents() == 1)
        // The digest of the request is checked for a remembered key too.
        #expect(send(hub, ann, id: "3", text: "something else", key: "m-1").error == "idempotency_key_reused")
        #expect(store.idempotencyReads == 0)
    }

    @Test func aRetryAfterARestartIsAnsweredWithTheOriginalMessage() throws {
        let before = try startHub()
        let ann = FakeClient("ann", "phone", "ios")
        before.connect(ann, resumeAfter: nil)
        let first = try #require(send(before, ann, id: "1", text: "hello", key: "m-1").messageId)
        // The process restarts: the new hub remembers nothing and must ask the store.
        let after = try startHub()
        let annAgain = FakeClient("ann", "phone", "ios")
        let bob = FakeClient("bob", "laptop", "web")
        after.connect(annAgain, resumeAfter: nil)
        after.connect(bob, resumeAfter: nil)
        // Its commit's claim finds the key taken: the batch is rolled back and the stored response answers.
        #expect(send(after, annAgain, id: "2", text: "hello", key: "m-1").messageId == first)
        #expect(try storedMessages().map(\.id) == [first])                              // not stored twice
        #expect(try bobsMessageEvents() == 1)
        #expect(bob.events("message").isEmpty)                                         // nor delivered twice
        // A different request under the forgotten key is refused from the stored digest.
        #expect(send(after, annAgain, id: "3", text: "other", key: "m-1").error == "idempotency_key_reused")
        #expect(try storedMessages().map(\.id) == [first])
        // Remembered from then on: answered without a commit.
        let commits = store.commits
        #expect(send(after, annAgain, id: "4", text: "hello", key: "m-1").messageId == first)
        #expect(store.commits == commits)
        #expect(store.idempotencyReads == 0)
    }

    @Test func aKeyForgottenToStayWithinTheBoundIsReadFromTheStoreAgain() throws {
        let hub = try startHub(memoryKeys: 4)
        let ann = FakeClient("ann", "phone", "ios")
        hub.connect(ann, resumeAfter: nil)
        var ids: [Int64] = []
        for n in 1...6 { ids.append(try #require(send(hub, ann, id: "s\(n)", text: "text \(n)", key: "k\(n)").messageId)) }
        #expect(hub.idempotency.rememberedCount <= 4)
        let commits = store.commits
        #expect(send(hub, ann, id: "r6", text: "text 6", key: "k6").messageId == ids[5])   // recent: remembered
        #expect(store.commits == commits)
        #expect(send(hub, ann, id: "r1", text: "text 1", key: "k1").messageId == ids[0])   // forgotten: claimed again, refused
        #expect(store.commits == commits + 1)
        #expect(try storedMessages().count == 6)
    }

    @Test func noMemoryMeansEveryRetryIsReadFromTheStore() throws {
        let hub = try startHub(memoryKeys: 0)
        let ann = FakeClient("ann", "phone", "ios")
        hub.connect(ann, resumeAfter: nil)
        let first = send(hub, ann, id: "1", text: "hello", key: "m-1").messageId
        #expect(send(hub, ann, id: "2", text: "hello", key: "m-1").messageId == first)
        #expect(store.idempotencyReads == 0)
        #expect(try storedMessages().count == 1)
        #expect(try bobsMessageEvents() == 1)
    }

    /// Publishes look their key up first (`readFirst`): once per key the node does not remember.
    @Test func aForgottenPublishKeyIsReadFromTheStoreOnce() throws {
        let before = try startHub()
        var first: Result<Int64, GatewayError>?
        before.publish(userId: "ann", name: "build", payload: nil, idempotencyKey: "p-1") { first = $0 }
        store.flush()
        #expect(store.idempotencyReads == 1)                            // a new key: looked up before the commit
        let offset = try #require(try first?.get())
        let after = try startHub()
        let commits = store.commits
        for round in 1...2 {
            var again: Result<Int64, GatewayError>?
            after.publish(userId: "ann", name: "build", payload: nil, idempotencyKey: "p-1") { again = $0 }
            store.flush()
            #expect(try again?.get() == offset)
            #expect(store.idempotencyReads == 2)                        // read after the restart, then remembered
            #expect(store.commits == commits, "round \(round)")       // and never committed again
        }
        #expect(try store.inner.events(userId: "ann", after: 0, limit: 100).filter { $0.type == "custom" }.count == 1)
    }

    @Test func theMemoryKeepsTheRecentlyUsedHalfAndNeverMoreThanItsBound() {
        var memory = IdempotencyMemory(capacity: 4)
        let record = { (n: Int) in IdempotencyRecord(response: [UInt8(n)], requestHash: "h\(n)") }
        for n in 1...3 { memory.remember("k\(n)", record(n)) }
        #expect(memory.record("k1") == record(1))          // used again
        memory.remember("k4", record(4))
        #expect(memory.record("k1") == record(1) && memory.record("k2") == nil)   // k1 kept, k2 (older use) forgotten
        for n in 5...9 {
            memory.remember("k\(n)", record(n))
            #expect(memory.count <= 4)
        }
        #expect(memory.record("k9") == record(9) && memory.record("k8") == record(8))
        #expect(memory.record("k2") == nil && memory.record("k3") == nil)
        var none = IdempotencyMemory(capacity: 0)
        none.remember("k", record(1))
        #expect(none.record("k") == nil && none.count == 0)
    }
}
