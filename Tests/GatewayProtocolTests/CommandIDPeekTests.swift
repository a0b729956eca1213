import GatewayProtocol
import Testing

/// The id of an oversized command is found only where it is unambiguous: a top-level plain string.
@Suite struct CommandIDPeekTests {
    @Test(
        arguments: [
            (#"{"id":"k1","type":"x"}"#, "k1"),
            (#" { "type" : "send_message" , "id" : "k2" , "text":"#, "k2"),
            (#"{"details":{"id":"inner"},"id":"outer""#, "outer"),
            (#"{"list":["id","x"],"id":"after-array"}"#, "after-array"),
            (#"{"text":"\"id\":\"fake\"","id":"real"}"#, "real")
        ] as [(String, String)])
    func findsTheTopLevelStringId(_ frame: String, _ id: String) {
        #expect(CommandIDPeek.id(in: Array(frame.utf8)) == id)
    }

    @Test(arguments: [
        #"{"id":7}"#, #"{"id":"a\"b"}"#, #"["id","x"]"#, #"{"details":{"id":"inner"}"#, #"{"id":"unterminated"#,
        "not json"
    ])
    func givesUpOtherwise(_ frame: String) {
        #expect(CommandIDPeek.id(in: Array(frame.utf8)) == nil)
    }

    @Test func looksNoFurtherThanTheLimit() {
        let frame = #"{"pad":""# + String(repeating: "x", count: 600) + #"","id":"late"}"#
        #expect(CommandIDPeek.id(in: Array(frame.utf8)) == nil)
        #expect(CommandIDPeek.id(in: Array(frame.utf8), limit: 1_000) == "late")
    }
}
