import GatewayProtocol
import Testing

/// A frame becomes a typed command in one pass: the strict parse, then the fields read by hand with the precise
/// error a client developer needs (the code, and a message naming the field).
@Suite struct ClientCommandDecodingTests {
    static func failure(_ frame: String) -> CommandDecodingError? {
        do {
            _ = try CommandFrame.decode(Array(frame.utf8))
            return nil
        } catch {
            return error
        }
    }

    static func code(_ frame: String) -> GatewayErrorCode? {
        switch failure(frame) {
        case .unreadable(_, let error)?, .invalid(_, let error)?: error.code
        case nil: nil
        }
    }

    static func message(_ frame: String) -> String? {
        switch failure(frame) {
        case .unreadable(_, let error)?, .invalid(_, let error)?: error.message
        case nil: nil
        }
    }

    @Test func aSendMessageFrameBecomesItsTypedCommand() throws {
        let read = try CommandFrame.decode(
            Array(#"{"id":"c1","type":"send_message","to":"bob","text":"hi","clientMessageId":"k"}"#.utf8))
        #expect(read.id == "c1")
        guard case .sendMessage(let command) = read.command else { Issue.record("\(read.command)"); return }
        #expect(command.to == "bob" && command.text == "hi" && command.clientMessageId == "k")

        let ack = try CommandFrame.decode(Array(#"{"type":"ack","offset":41,"id":"c2"}"#.utf8))
        guard case .ack(let offset) = ack.command else { Issue.record("\(ack.command)"); return }
        #expect(ack.id == "c2" && offset.offset == 41)
    }

    @Test(arguments: [("foreground", AppStateCommand.State.foreground), ("background", .background)])
    func appStateBecomesItsTypedState(_ wire: String, _ state: AppStateCommand.State) throws {
        let read = try CommandFrame.decode(Array(#"{"id":"a1","type":"app_state","state":"\#(wire)"}"#.utf8))
        guard case .appState(let command) = read.command else { Issue.record("\(read.command)"); return }
        #expect(read.id == "a1" && command.state == state)
    }

    @Test(arguments: [
        (#"{"id":"a","type":"app_state"}"#, GatewayErrorCode.missingField, #"missing field "state""#),
        (
            #"{"id":"a","type":"app_state","state":"suspended"}"#, .invalidField,
            #"field "state" must be "foreground" or "background""#
        ),
        (
            #"{"id":"a","type":"app_state","state":"Foreground"}"#, .invalidField,
            #"field "state" must be "foreground" or "background""#
        ),
        (
            #"{"id":"a","type":"app_state","state":""}"#, .invalidField,
            #"field "state" must be "foreground" or "background""#
        ),
        (#"{"id":"a","type":"app_state","state":1}"#, .invalidField, #"field "state" must be of type String"#),
        (#"{"id":"a","type":"app_state","state":null}"#, .invalidField, #"field "state" must be a String, not null"#)
    ])
    func aBadAppStateIsRefusedWithItsIdAndTheField(_ frame: String, _ code: GatewayErrorCode, _ message: String) {
        guard case .invalid(let id, let error)? = Self.failure(frame) else { Issue.record("accepted \(frame)"); return }
        #expect(id == "a")
        #expect(error.code == code)
        #expect(error.message == message)
    }

    @Test func relationshipCommandsAreTypedToo() throws {
        let read = try CommandFrame.decode(
            Array(#"{"id":"g","type":"group_create","name":"fam","roleLimits":{"parent":2},"maxMembers":null}"#.utf8))
        guard case .relationship(.groupCreate(let command)) = read.command else {
            Issue.record("\(read.command)"); return
        }
        #expect(command.name == "fam" && command.roleLimits == ["parent": 2] && command.maxMembers == nil)
        let cancel = try CommandFrame.decode(Array(#"{"id":"x","type":"friend_request_cancel","requestId":"r1"}"#.utf8))
        guard case .relationship(.friendRequestCancel(let answer)) = cancel.command else {
            Issue.record("\(cancel.command)"); return
        }
        #expect(answer.requestId == "r1")
    }

    @Test(arguments: [
        #"{"id":"d","type":"send_message","to":"bob","to":"carol","text":"x"}"#,  // duplicate member
        #"{"id":"d","type":"ack","offset":1,}"#,  // trailing comma
        #"{"id":"d","id":"e","type":"presence"}"#,  // duplicate id
        #"["id","type"]"#,  // not an object
        "not json"
    ])
    func aFrameTheStrictParserRefusesIsInvalidJSONWithoutAnId(_ frame: String) {
        guard case .unreadable(let id, let error)? = Self.failure(frame) else {
            Issue.record("accepted \(frame)"); return
        }
        #expect(error.code == .invalidJSON)
        #expect(id == nil)
    }

    @Test func anEnvelopeWithoutATypeKeepsItsIdInTheError() {
        guard case .unreadable(let id, let error)? = Self.failure(#"{"id":"c9","text":"x"}"#) else {
            Issue.record("accepted"); return
        }
        #expect(id == "c9")
        #expect(error.code == .missingField && error.message == #"missing field "type""#)
        #expect(Self.code(#"{"type":"presence"}"#) == .missingField)
        #expect(Self.message(#"{"id":7,"type":"presence"}"#) == #"field "id" must be of type String"#)
    }

    @Test(
        arguments: [
            (#"{"id":"1","type":"fly"}"#, GatewayErrorCode.unknownType, #"unknown command type "fly""#),
            (#"{"id":"1","type":"send_message","to":"bob"}"#, .missingField, #"missing field "text""#),
            (
                #"{"id":"1","type":"send_message","to":"bob","text":null}"#, .invalidField,
                #"field "text" must be a String, not null"#
            ),
            (#"{"id":"1","type":"ack","offset":"ten"}"#, .invalidField, #"field "offset" must be of type Int64"#),
            (#"{"id":"1","type":"ack","offset":1.5}"#, .invalidField, #"field "offset" must be of type Int64"#),
            (
                #"{"id":"1","type":"history","with":"bob","limit":1e30}"#, .invalidField,
                #"field "limit" must be of type Int"#
            ),
            (#"{"id":"1","type":"history","with":"bob","limit":9223372036854775807}"#, .none, ""),
            (
                #"{"id":"1","type":"connect_code","regenerate":"yes"}"#, .invalidField,
                #"field "regenerate" must be of type Bool"#
            ),
            (
                #"{"id":"1","type":"discover","numbers":["+1",2]}"#, .invalidField,
                #"field "numbers.1" must be of type String"#
            ),
            (
                #"{"id":"1","type":"discover","hashes":"abc"}"#, .invalidField,
                #"field "hashes" must be of type Array<String>"#
            ),
            (
                #"{"id":"1","type":"group_create","name":"g","roleLimits":{"parent":"2"}}"#, .invalidField,
                #"field "roleLimits.parent" must be of type Int"#
            )
        ] as [(String, GatewayErrorCode?, String)])
    func aBadFieldIsNamedWithItsCommandId(_ frame: String, _ code: GatewayErrorCode?, _ message: String) {
        guard let code else {
            #expect(Self.failure(frame) == nil)
            return
        }
        guard case .invalid(let id, let error)? = Self.failure(frame) else {
            Issue.record("\(frame): \(String(describing: Self.failure(frame)))"); return
        }
        #expect(id == "1")
        #expect(error.code == code)
        #expect(error.message == message)
    }

    @Test(arguments: [
        (#"{"id":"1","type":"send_message","to":"bob smith","text":"hi"}"#, "to"),
        (#"{"id":"1","type":"history","with":"a/b"}"#, "with"),
        (#"{"id":"1","type":"session_get","sessionId":".."}"#, "sessionId"),
        (#"{"id":"1","type":"contact_pause","userId":""}"#, "userId"),
        (#"{"id":"1","type":"group_remove_member","groupId":"g1","userId":"zoë"}"#, "userId"),
        (#"{"id":"1","type":"send_event","groupId":"g#1","name":"ping"}"#, "groupId"),
        (#"{"id":"1","type":"push_unregister","kind":"apns","sessionId":"s 1"}"#, "sessionId")
    ])
    func anIdOutsideTheGrammarIsInvalidIDNamingTheField(_ frame: String, _ field: String) {
        guard case .invalid(_, let error)? = Self.failure(frame) else { Issue.record("accepted \(frame)"); return }
        #expect(error.code == .invalidID)
        #expect(error.message.hasPrefix("field \"\(field)\" is not a valid id"))
    }

    @Test func membersNotAskedForAreIgnoredAndNullOptionalsAreAbsent() throws {
        let read = try CommandFrame.decode(
            Array(#"{"id":"1","type":"send_message","to":"bob","text":"hi","clientMessageId":null,"extra":[1]}"#.utf8))
        guard case .sendMessage(let command) = read.command else { Issue.record("\(read.command)"); return }
        #expect(command.clientMessageId == nil)
    }

    @Test func anAPIBodyIsReadTheSameWay() throws {
        #expect(throws: GatewayError.self) {
            try JSONFields.parse(Array(#"{"userId":"a","userId":"b"}"#.utf8), what: "body")
        }
        do {
            _ = try JSONFields.parse(Array("[1]".utf8), what: "body")
            Issue.record("accepted an array body")
        } catch {
            #expect(error.code == .invalidJSON && error.message == "the body is not a JSON object")
        }
        let fields = try JSONFields.parse(Array(#"{"userId":"ann","payload":{"k":[true]}}"#.utf8), what: "body")
        #expect(try fields.id("userId") == "ann")
        #expect(fields.optionalJSON("payload") == .object(["k": .array([.bool(true)])]))
        #expect(throws: GatewayError(.missingField, #"missing field "userA""#)) { try fields.id("userA") }
    }
}
