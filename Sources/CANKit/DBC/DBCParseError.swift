/// A DBC file that cannot be loaded: where, and what was expected.
public struct DBCParseError: Error, Sendable, Hashable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    /// What the parser expected, e.g. "'@' and the byte order (0 or 1)".
    public var expected: String
    /// What it found instead, e.g. "'x'" or "end of file"; empty for semantic errors.
    public var found: String

    public init(file: String, line: Int, column: Int, expected: String, found: String) {
        self.file = file
        self.line = line
        self.column = column
        self.expected = expected
        self.found = found
    }

    public var description: String {
        if found.isEmpty {
            return "\(file):\(line):\(column): error: \(expected)"
        }
        return "\(file):\(line):\(column): error: expected \(expected), found \(found)"
    }
}
