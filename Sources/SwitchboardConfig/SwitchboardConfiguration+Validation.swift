/// Range and cross-field rules, shared by file parsing and command-line overrides.
extension SwitchboardConfiguration {
    /// Re-checks every value's range and the cross-field rules; call it after applying
    /// command-line overrides. Errors name the key, `file` `"command line"` and line `nil`.
    ///
    /// Rules beyond types and ranges: at least one of `server.listen` / `server.tls_listen` is
    /// enabled; `server.tls_listen` requires `server.tls_cert` and `server.tls_key`; the two
    /// listeners differ unless on port 0. `websocket.max_frame_bytes` ≤ `max_message_bytes` is
    /// deliberately not required (each limit applies on its own).
    /// - Throws: ``ConfigError`` for the first rule broken.
    public func validate() throws(ConfigError) {
        try validate(fileName: "command line", lines: [:])
    }

    /// `lines` maps keys set in the file to their lines; cross-field errors point at the line of
    /// the key that made the rule apply (e.g. `server.tls_listen` for a missing certificate).
    func validate(fileName: String, lines: [String: Int]) throws(ConfigError) {
        func failure(_ key: String, _ message: String, at lineKey: String? = nil) -> ConfigError {
            ConfigError(file: fileName, line: lines[lineKey ?? key], key: key, message: message)
        }
        for key in ConfigSchema.keys {
            if let problem = key.check(self) { throw failure(key.name, problem) }
        }
        if server.listen == nil && server.tlsListen == nil {
            throw failure("server.listen", "no listener enabled; set server.listen or server.tls_listen")
        }
        if let tlsListen = server.tlsListen {
            if server.tlsCert.isEmpty {
                throw failure("server.tls_cert", "required when server.tls_listen is set (\(tlsListen))", at: "server.tls_listen")
            }
            if server.tlsKey.isEmpty {
                throw failure("server.tls_key", "required when server.tls_listen is set (\(tlsListen))", at: "server.tls_listen")
            }
            // Port 0 picks a fresh port per listener, so equal addresses do not collide there.
            if tlsListen == server.listen && tlsListen.port != 0 {
                throw failure("server.tls_listen", "same address as server.listen (\(tlsListen)); a port serves one listener")
            }
        }
        let g = gateway
        if g.approvalMinTimeoutMs > g.approvalMaxTimeoutMs {
            throw failure("gateway.approval_min_timeout_ms", "must not exceed gateway.approval_max_timeout_ms (\(g.approvalMaxTimeoutMs))")
        }
        if g.approvalTimeoutMs < g.approvalMinTimeoutMs || g.approvalTimeoutMs > g.approvalMaxTimeoutMs {
            throw failure("gateway.approval_timeout_ms",
                          "must lie between gateway.approval_min_timeout_ms and approval_max_timeout_ms (\(g.approvalMinTimeoutMs)...\(g.approvalMaxTimeoutMs))")
        }
        if storage.path.isEmpty { throw failure("storage.path", "must not be empty") }
        let r = relationships
        // The line of the default when the file sets it, else of the maximum that broke the rule against its default.
        if r.defaultInviteHours > r.maxInviteHours {
            throw failure("relationships.default_invite_hours", "must not exceed relationships.max_invite_hours (\(r.maxInviteHours))",
                          at: lines["relationships.default_invite_hours"] == nil ? "relationships.max_invite_hours" : nil)
        }
        if r.defaultGroupMembers > r.maxGroupMembers {
            throw failure("relationships.default_group_members", "must not exceed relationships.max_group_members (\(r.maxGroupMembers))",
                          at: lines["relationships.default_group_members"] == nil ? "relationships.max_group_members" : nil)
        }
        if !push.apnsKeyFile.isEmpty {
            for (key, value) in [("push.apns_team_id", push.apnsTeamID), ("push.apns_key_id", push.apnsKeyID),
                                 ("push.apns_bundle_id", push.apnsBundleID)] where value.isEmpty {
                throw failure(key, "required when push.apns_key_file is set", at: "push.apns_key_file")
            }
        }
        let c = cluster
        if !c.postgresURL.isEmpty && !ClusterSection.isPostgresURL(c.postgresURL) {
            throw failure("cluster.postgres_url", "expected a URL starting with \"postgresql://\" or \"postgres://\"")
        }
        if !c.postgresPasswordFile.isEmpty && c.postgresURL.isEmpty {
            throw failure("cluster.postgres_password_file", "set without cluster.postgres_url")
        }
        if !c.redisURL.isEmpty && !ClusterSection.isRedisURL(c.redisURL) {
            throw failure("cluster.redis_url", "expected a URL starting with \"redis://\" or \"unix:///\" (rediss://, TLS, is not supported yet)")
        }
        if !c.redisURL.isEmpty && c.postgresURL.isEmpty {
            throw failure("cluster.redis_url", "set without cluster.postgres_url (nodes share events through the database)")
        }
        if c.presenceTtlMs < 2 * c.presenceRefreshMs {
            // The line of the TTL when the file sets it, else of the refresh that broke the rule against its default.
            throw failure("cluster.presence_ttl_ms",
                          "must be at least twice cluster.presence_refresh_ms (\(c.presenceRefreshMs)): one late repeat must not count a live node's devices out",
                          at: lines["cluster.presence_ttl_ms"] == nil ? "cluster.presence_refresh_ms" : nil)
        }
        if !ClusterSection.isNodeID(c.nodeID) {
            throw failure("cluster.node_id", "at most 64 letters, digits, '.', '_' or '-'")
        }
        if c.usesPostgres && auth.hs256Secret.isEmpty {
            throw failure("auth.hs256_secret", "required when cluster.postgres_url is set (every node must verify the same tokens)",
                          at: "cluster.postgres_url")
        }
        if gateway.webhookSecret.isEmpty, let url = ["gateway.approval_webhook_url", "relationships.invite_webhook_url"].first(where: {
            !($0.hasPrefix("gateway") ? gateway.approvalWebhookURL : relationships.inviteWebhookURL).isEmpty
        }) {
            throw failure("gateway.webhook_secret", "required when \(url) is set (backend webhooks are signed)", at: url)
        }
        if gateway.presenceWebhook && gateway.approvalWebhookURL.isEmpty {
            throw failure("gateway.presence_webhook", "needs gateway.approval_webhook_url (where the events are sent)")
        }
        if !push.webhookURL.isEmpty && push.webhookSecret.isEmpty {
            throw failure("push.webhook_secret", "required when push.webhook_url is set (pushes are signed)", at: "push.webhook_url")
        }
    }
}
