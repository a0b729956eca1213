import Testing
@testable import SwitchboardConfig

/// Errors of form: text outside the TOML subset, each naming the line (and the key when known).
@Suite struct SyntaxErrorTests {
    @Test(arguments: [
        // (text, line, key, part of the message)
        ("[server]\necho = true\necho = false\n", 3, "server.echo", "duplicate key (first set on line 2)"),
        ("[log]\n[server]\n[log]\n", 3, "log", "duplicate section [log] (first defined on line 1)"),
        ("[server]\ntls_cert = \"a\\qb\"\n", 2, "server.tls_cert", "invalid escape \"\\q"),
        ("[server]\ntls_cert = \"\\u12\"\n", 2, "server.tls_cert", "needs 4 hexadecimal digits"),
        ("[server]\ntls_cert = \"\\uD800\"\n", 2, "server.tls_cert", "not a Unicode scalar value"),
        ("[server]\ntls_cert = \"open\n", 2, "server.tls_cert", "unterminated string"),
        ("[server]\n\ntls_cert = \"open", 3, "server.tls_cert", "unterminated string"),
        ("[server]\ntls_cert = \"a\u{1}b\"\n", 2, "server.tls_cert", "control character"),
        ("[server]\ntls_cert = 'x'\n", 2, "server.tls_cert", "literal strings"),
        ("[server]\ntls_cert = \"\"\"x\"\"\"\n", 2, "server.tls_cert", "multi-line strings"),
        ("[server]\nevent_loops = 1.5\n", 2, "server.event_loops", "floating-point"),
        ("[server]\nevent_loops = 1e3\n", 2, "server.event_loops", "floating-point"),
        ("[server]\nevent_loops = 0x10\n", 2, "server.event_loops", "hexadecimal"),
        ("[server]\nevent_loops = 1__0\n", 2, "server.event_loops", "between two digits"),
        ("[server]\nevent_loops = 10_\n", 2, "server.event_loops", "between two digits"),
        ("[server]\nevent_loops = 012\n", 2, "server.event_loops", "leading zeros"),
        ("[server]\nevent_loops = 99999999999999999999\n", 2, "server.event_loops", "does not fit in 64 bits"),
        ("[server]\nevent_loops = 1979-05-27\n", 2, "server.event_loops", "dates"),
        ("[server]\necho = yes\n", 2, "server.echo", "invalid value \"yes\""),
        ("[server]\necho = truely\n", 2, "server.echo", "invalid value"),
        ("[server]\necho =\n", 2, "server.echo", "missing value"),
        ("[server]\necho = # none\n", 2, "server.echo", "missing value"),
        ("[server]\necho true\n", 2, "server.echo", "expected \"=\""),
        ("[server]\necho = true false\n", 2, "server.echo", "unexpected \"false\""),
        ("[server]\nserver.echo = true\n", 2, "server.server", "dotted keys"),
        ("[server]\n\"echo\" = true\n", 2, nil, "quoted keys"),
        ("[server]\n= true\n", 2, nil, "expected a key name"),
        ("[server]\necho = {}\n", 2, "server.echo", "inline tables"),
        ("[[server]]\n", 1, nil, "arrays of tables"),
        ("[server\necho = true\n", 1, nil, "in section header"),
        ("[]\n", 1, nil, "expected a key name"),
        ("[server] echo = true\n", 1, nil, "unexpected"),
        ("[websocket]\nsubprotocols = [\"a\", 1]\n", 2, "websocket.subprotocols", "only arrays of strings"),
        ("[websocket]\nsubprotocols = [[\"a\"]]\n", 2, "websocket.subprotocols", "nested arrays"),
        ("[websocket]\nsubprotocols = [\"a\" \"b\"]\n", 2, "websocket.subprotocols", "expected \",\" or \"]\""),
        ("[websocket]\nsubprotocols = [\n\"a\",\n", 2, "websocket.subprotocols", "unterminated array (opened on line 2)"),
        ("[server]\necho = true\rlisten = \"\"\n", 2, nil, "carriage return"),
        ("# comment \u{7F}\n", 1, nil, "control character"),
    ] as [(String, Int, String?, String)])
    func syntaxErrorNamesLineAndKey(text: String, line: Int, key: String?, messagePart: String) throws {
        let error = try #require(parseError(text, fileName: "s.toml"))
        #expect(error.file == "s.toml")
        #expect(error.line == line, "\(error)")
        #expect(error.key == key, "\(error)")
        #expect(error.message.contains(messagePart), "\(error)")
    }

    @Test func errorInsideAMultiLineArrayNamesTheElementLine() throws {
        let error = try #require(parseError("[websocket]\nsubprotocols = [\n  \"a\",\n  true,\n]\n"))
        #expect(error.line == 4 && error.key == "websocket.subprotocols")
    }

    @Test func keyDuplicatingASectionNameIsRejected() throws {
        let error = try #require(parseError("[websocket]\ncompression = true\n[websocket.compression]\n"))
        #expect(error.line == 3 && error.key == "websocket.compression")
        #expect(error.message.contains("first defined on line 2"))
    }
}
