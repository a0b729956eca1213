/// One key of the schema: its full dotted name, how a file value is stored into a
/// configuration, and how the stored value is re-checked after command-line overrides.
///
/// Both closures return `nil` on success or the message of a ``ConfigError`` (the caller adds
/// file, line and key). Built fresh by ``ConfigSchema/keys``; never shared across threads.
struct ConfigKey {
    typealias Configuration = SwitchboardConfiguration

    /// Full dotted name, e.g. `"websocket.max_message_bytes"`.
    let name: String
    /// Converts and range-checks a file value, then stores it.
    let assign: (inout Configuration, TOMLValue) -> String?
    /// Checks the value currently stored (which command-line flags may have replaced).
    let check: (Configuration) -> String?

    static func integer(_ name: String, _ path: WritableKeyPath<Configuration, Int>, _ range: ClosedRange<Int>) -> ConfigKey {
        let expected = "expected an integer between \(range.lowerBound) and \(range.upperBound)"
        return ConfigKey(
            name: name,
            assign: { config, value in
                guard case .integer(let number) = value, range.contains(number) else { return "\(expected), got \(value.rendered)" }
                config[keyPath: path] = number
                return nil
            },
            check: { config in range.contains(config[keyPath: path]) ? nil : "\(expected), got \(config[keyPath: path])" })
    }

    static func boolean(_ name: String, _ path: WritableKeyPath<Configuration, Bool>) -> ConfigKey {
        ConfigKey(
            name: name,
            assign: { config, value in
                guard case .boolean(let flag) = value else { return "expected true or false, got \(value.rendered)" }
                config[keyPath: path] = flag
                return nil
            },
            check: { _ in nil })
    }

    static func string(_ name: String, _ path: WritableKeyPath<Configuration, String>) -> ConfigKey {
        ConfigKey(
            name: name,
            assign: { config, value in
                guard case .string(let text) = value else { return "expected a string in double quotes, got \(value.rendered)" }
                config[keyPath: path] = text
                return nil
            },
            check: { _ in nil })
    }

    /// A `host:port` string; `""` stores `nil` (listener disabled).
    static func listen(_ name: String, _ path: WritableKeyPath<Configuration, ListenAddress?>) -> ConfigKey {
        let expected = "expected \"host:port\" (IPv4, [IPv6] or hostname; port 0...65535) or \"\" to disable"
        return ConfigKey(
            name: name,
            assign: { config, value in
                guard case .string(let text) = value else { return "\(expected), got \(value.rendered)" }
                if text.isEmpty {
                    config[keyPath: path] = nil
                    return nil
                }
                guard let address = ListenAddress.parse(text) else { return "\(expected), got \(value.rendered)" }
                config[keyPath: path] = address
                return nil
            },
            check: { config in
                // Overrides may build an address directly; it must still be one the parser accepts.
                guard let address = config[keyPath: path] else { return nil }
                if ListenAddress.parse(address.description) == address { return nil }
                return "\(expected), got \(TOMLValue.quote(address.description))"
            })
    }

    /// One of an enumeration's raw values.
    static func choice<Choice: RawRepresentable & CaseIterable>(
        _ name: String, _ path: WritableKeyPath<Configuration, Choice>
    ) -> ConfigKey where Choice.RawValue == String {
        let names = Choice.allCases.map(\.rawValue).joined(separator: ", ")
        return ConfigKey(
            name: name,
            assign: { config, value in
                guard case .string(let text) = value, let choice = Choice(rawValue: text) else {
                    return "expected one of \(names), got \(value.rendered)"
                }
                config[keyPath: path] = choice
                return nil
            },
            check: { _ in nil })
    }

    /// `"auto"` or an array of origins (``CORSOrigins``).
    static func corsOrigins(_ name: String, _ path: WritableKeyPath<Configuration, CORSOrigins>) -> ConfigKey {
        let expected = "expected \"auto\" or an array of origins like [\"https://app.example.com\"]"
        let checkItems = { (items: [String]) -> String? in
            guard let bad = items.first(where: { !CORSOrigins.isValidItem($0) }) else { return nil }
            return "each value must be \(CORSOrigins.itemRule), got \(TOMLValue.quote(bad))"
        }
        return ConfigKey(
            name: name,
            assign: { config, value in
                switch value {
                case .string("auto"): config[keyPath: path] = .auto
                case .stringArray(let items):
                    if let problem = checkItems(items) { return problem }
                    config[keyPath: path] = .list(items)
                default: return "\(expected), got \(value.rendered)"
                }
                return nil
            },
            check: { config in
                guard case .list(let items) = config[keyPath: path] else { return nil }
                return checkItems(items)
            })
    }

    /// `true`, `false` or `"auto"`: a switch whose default depends on other settings.
    static func autoSwitch(_ name: String, _ path: WritableKeyPath<Configuration, StandaloneModeName>) -> ConfigKey {
        ConfigKey(
            name: name,
            assign: { config, value in
                switch value {
                case .boolean(let flag): config[keyPath: path] = flag ? .on : .off
                case .string("auto"): config[keyPath: path] = .auto
                default: return "expected true, false or \"auto\", got \(value.rendered)"
                }
                return nil
            },
            check: { _ in nil })
    }

    /// An array of strings, each of which must satisfy `isValid` (described by `itemRule`).
    static func strings(
        _ name: String, _ path: WritableKeyPath<Configuration, [String]>,
        itemRule: String, isValid: @escaping (String) -> Bool
    ) -> ConfigKey {
        let checkItems = { (items: [String]) -> String? in
            guard let bad = items.first(where: { !isValid($0) }) else { return nil }
            return "each value must be \(itemRule), got \(TOMLValue.quote(bad))"
        }
        return ConfigKey(
            name: name,
            assign: { config, value in
                guard case .stringArray(let items) = value else {
                    return "expected an array of strings like [\"a\", \"b\"], got \(value.rendered)"
                }
                if let problem = checkItems(items) { return problem }
                config[keyPath: path] = items
                return nil
            },
            check: { config in checkItems(config[keyPath: path]) })
    }
}
