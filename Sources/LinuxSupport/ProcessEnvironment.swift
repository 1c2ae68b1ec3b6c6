#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The process's environment variables (environ(7)).
public enum ProcessEnvironment {
    /// The variables as they are now.
    public static func current() -> [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return result
    }

    /// Sets `name` for this process and those it starts.
    public static func set(_ name: String, to value: String) { setenv(name, value, 1) }
}
