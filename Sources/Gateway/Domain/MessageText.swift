import GatewayProtocol

/// The text rules direct and group messages share: trimmed of surrounding white space, then 1…limit characters
/// (`GatewaySettings.maxMessageCharacters`; characters, not bytes).
enum MessageText {
    enum Refusal: Error, Equatable {
        case empty
        case tooLong(count: Int, limit: Int)
    }

    /// The trimmed text, or why it is refused.
    static func check(_ raw: String, maxCharacters: Int) -> Result<String, Refusal> {
        let trimmed = raw.trimmedOfWhitespace
        guard !trimmed.isEmpty else { return .failure(.empty) }
        guard trimmed.count <= maxCharacters else { return .failure(.tooLong(count: trimmed.count, limit: maxCharacters)) }
        return .success(trimmed)
    }
}

extension GatewayError {
    /// The wire error for a refused text (`text_empty`, `text_too_long`).
    init(_ refusal: MessageText.Refusal) {
        switch refusal {
        case .empty: self.init(.textEmpty, "text is empty after trimming white space")
        case .tooLong(let count, let limit): self.init(.textTooLong, "text has \(count) characters; the limit is \(limit)")
        }
    }
}
