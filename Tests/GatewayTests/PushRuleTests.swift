import Foundation
@testable import Gateway
import Testing

/// `PushRule`: one rule per durable event kind, and docs/PUSH.md's table saying the same.
@Suite struct PushRuleTests {
    @Test func whatAPersonMustSeeOrAnswerIsAnAlert() {
        #expect(PushRule.rule(for: .message) == .alert(.standard))
        #expect(PushRule.rule(for: .groupMessage) == .alert(.standard))
        #expect(PushRule.rule(for: .friendRequest) == .alert(.standard))
        #expect(PushRule.rule(for: .approvalRequest) == .alert(.approval))
    }

    @Test func theRecipientsOwnActionIsNeverAnAlert() {
        #expect(PushRule.rule(for: .message, ownAction: true) == .never)
        #expect(PushRule.rule(for: .groupMessage, ownAction: true) == .never)
        #expect(PushRule.rule(for: .friendRequest, ownAction: true) == .background(.contactUpdates))
        #expect(PushRule.rule(for: .contactPaused, ownAction: true) == .never)
        for type in LogEventType.allCases {
            if case .alert = PushRule.rule(for: type, notification: true, ownAction: true), type != .approvalRequest,
               ![LogEventType.custom, .sessionEvent, .groupEvent].contains(type) {
                Issue.record("\(type.rawValue) alerts the user for its own action")
            }
        }
    }

    @Test func backendEventsArePushedOnlyWithANotification() {
        for type in [LogEventType.custom, .sessionEvent, .groupEvent] {
            #expect(PushRule.rule(for: type) == .never)
            #expect(PushRule.rule(for: type, notification: true) == .alert(.standard))
        }
        // A notification object on any other kind changes nothing.
        #expect(PushRule.rule(for: .userBlocked, notification: true) == .never)
    }

    @Test func decisionsAndEndingsKeepAShownAlertTrueWhateverTheSettings() {
        for type in [LogEventType.approvalResolved, .approvalTimeout, .sessionHandoff, .sessionEnded] {
            #expect(PushRule.rule(for: type) == .background(.always))
        }
    }

    @Test func relationshipChangesAreBackgroundForUsersWhoOptedIn() {
        for type in [LogEventType.contactAdded, .contactRemoved, .friendRequestAccepted, .friendRequestCancelled,
                     .groupCreated, .groupMemberJoined, .groupMemberLeft, .contactPaused, .contactResumed] {
            #expect(PushRule.rule(for: type) == .background(.contactUpdates))
        }
        for type in [LogEventType.friendRequestRejected, .userBlocked, .userUnblocked, .contactEvent, .connectCodeChanged,
                     .inviteCreated, .sessionCreated] {
            #expect(PushRule.rule(for: type) == .never)
        }
    }

    /// docs/PUSH.md, "Push rule per event kind": a row per `LogEventType`, whose second column is the rule for an
    /// event the user did not cause and without a notification.
    @Test func theDocumentedTableHasARowPerEventKindSayingTheRule() throws {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)   // PushRuleTests.swift, GatewayTests, Tests
        let text = try String(contentsOfFile: (parts + ["docs", "PUSH.md"]).joined(separator: "/"), encoding: .utf8)
        guard let section = text.range(of: "## Push rule per event kind") else { Issue.record("no such section"); return }
        var rows: [String: String] = [:]
        for line in text[section.upperBound...].split(separator: "\n") {
            if line.hasPrefix("## ") { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 3, cells[0].hasPrefix("`") else { continue }
            for name in cells[0].split(separator: ",") {
                rows[name.trimmingCharacters(in: CharacterSet(charactersIn: " `"))] = cells[1]
            }
        }
        #expect(Set(rows.keys) == Set(LogEventType.allCases.map(\.rawValue)))
        for type in LogEventType.allCases {
            let word = switch PushRule.rule(for: type) {
            case .alert(.approval): "alert (approval delay)"
            case .alert(.standard): "alert"
            case .background(.always): "background"
            case .background(.contactUpdates): "background (`contactUpdates`)"
            case .never: "never"
            }
            #expect(rows[type.rawValue] == word, "\(type.rawValue): documented \(rows[type.rawValue] ?? "nothing"), rule \(word)")
        }
    }
}
