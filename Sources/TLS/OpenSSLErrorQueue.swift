import COpenSSL
import Glibc

/// Access to OpenSSL's per-thread error queue.
///
/// OpenSSL reports failures by pushing entries onto a thread-local queue; `SSL_get_error` is only
/// meaningful if the queue was empty before the call, so every engine operation clears it first.
enum OpenSSLErrorQueue {
    /// Discards every queued entry on the calling thread.
    static func clear() {
        ERR_clear_error()
    }

    /// Removes every queued entry on the calling thread and renders each as
    /// `reason (extra data)`, oldest first. Returns an empty array if the queue was empty.
    static func drain() -> [String] {
        var lines: [String] = []
        while true {
            var data: UnsafePointer<CChar>? = nil
            var flags: Int32 = 0
            let code = ERR_get_error_all(nil, nil, nil, &data, &flags)
            if code == 0 { break }
            var line = reasonText(code)
            // Extra data is only text when OpenSSL says so; e.g. "calling fopen(/x.pem, r)".
            if let data, flags & ERR_TXT_STRING != 0 {
                let extra = String(cString: data)
                if !extra.isEmpty { line += " (" + extra + ")" }
            }
            if !lines.contains(line) { lines.append(line) }
        }
        // "system lib", "PEM lib"…: markers of where an error passed through, noise next to
        // the entry that says what actually went wrong.
        let specific = lines.filter { !$0.hasSuffix(" lib") }
        return specific.isEmpty ? lines : specific
    }

    /// OpenSSL's short reason string ("certificate verify failed"), or the long
    /// `error:0A000086:…` form when the library has no string for the code.
    private static func reasonText(_ code: UInt) -> String {
        // OpenSSL 3 packs errno values as ERR_SYSTEM_FLAG (INT_MAX + 1) | errno.
        let systemFlag: UInt = 0x8000_0000
        if code & systemFlag != 0, let text = strerror(Int32(truncatingIfNeeded: code & (systemFlag - 1))) {
            return String(cString: text)
        }
        if let reason = ERR_reason_error_string(code) {
            return String(cString: reason)
        }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
            ERR_error_string_n(code, buffer.baseAddress, buffer.count)
            return String(cString: buffer.baseAddress!)
        }
    }
}
