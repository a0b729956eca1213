extension String {
    /// The UTF-8 text of a C buffer up to its first NUL (or all of it), as `gethostname` and `fgets` fill it.
    /// Replaces `String(cString: [CChar])`, which is deprecated because it trusts the array to hold a NUL.
    init(nulTerminated buffer: [CChar]) {
        self.init(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
