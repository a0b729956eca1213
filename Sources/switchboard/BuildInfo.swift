import COperations

/// What this binary is: its version, the commit and date it was built from (stamped by scripts/build-stamp; "unknown"
/// for a plain `swift build`) and the C libraries it runs with.
struct BuildInfo {
    static let version = "0.1.0"

    let version = BuildInfo.version
    let commit = String(cString: coperations_git_commit())
    let buildDate = String(cString: coperations_build_date())
    let openssl = String(cString: coperations_openssl_version())
    let zlib = String(cString: coperations_zlib_version())
    let sqlite = String(cString: coperations_sqlite_version())
    let curl = String(cString: coperations_curl_version())

    /// `switchboard version`: one `name: value` line each.
    var text: String {
        """
        switchboard \(version)
        commit: \(commit)
        built: \(buildDate)
        openssl: \(openssl)
        zlib: \(zlib)
        sqlite: \(sqlite)
        libcurl: \(curl)
        """
    }

    /// `switchboard_build_info` for `/metrics`: the usual constant-1 gauge whose labels carry the build.
    var metricText: String {
        let labels = [("version", version), ("commit", commit), ("build_date", buildDate), ("openssl", openssl),
                      ("zlib", zlib), ("sqlite", sqlite), ("libcurl", curl)]
            .map { "\($0.0)=\"\(Self.escapeLabel($0.1))\"" }.joined(separator: ",")
        return """
            # HELP switchboard_build_info The running build (labels); always 1.
            # TYPE switchboard_build_info gauge
            switchboard_build_info{\(labels)} 1

            """
    }

    private static func escapeLabel(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}
