import CCarplayLinux

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A terminal's size in character cells.
public struct TerminalSize: Sendable, Hashable {
    public var columns: Int
    public var rows: Int
    public init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }
}

/// The terminal calls a full-screen view needs: is it a terminal, its size, raw input.
/// (termios and TIOCGWINSZ; the screen itself is written as plain escape sequences.)
public enum Terminal {
    public static func isTerminal(_ descriptor: FileDescriptor) -> Bool { isatty(descriptor.rawValue) == 1 }

    /// The window size, or nil when `descriptor` is not a terminal (or reports 0x0).
    public static func size(of descriptor: FileDescriptor) -> TerminalSize? {
        var rows: Int32 = 0
        var columns: Int32 = 0
        guard carplay_terminal_size(descriptor.rawValue, &rows, &columns) == 0, rows > 0, columns > 0 else { return nil }
        return TerminalSize(columns: Int(columns), rows: Int(rows))
    }
}

/// A terminal switched to raw input (no echo, no line editing, no signals from keys,
/// bytes as they are typed) until `restore()`, which puts back the settings it found.
public final class RawTerminalMode {
    private let descriptor: FileDescriptor
    private var saved: termios
    private var active = true

    public init(_ descriptor: FileDescriptor = .standardInput) throws(Errno) {
        self.descriptor = descriptor
        var settings = termios()
        guard tcgetattr(descriptor.rawValue, &settings) == 0 else { throw Errno.current }
        saved = settings
        // cfmakeraw, but output processing stays on so "\n" still returns the carriage.
        settings.c_iflag &= ~tcflag_t(IGNBRK | BRKINT | PARMRK | ISTRIP | INLCR | IGNCR | ICRNL | IXON)
        settings.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
        settings.c_cflag &= ~tcflag_t(CSIZE | PARENB)
        settings.c_cflag |= tcflag_t(CS8)
        // read() returns each byte at once and blocks for the first.
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        guard tcsetattr(descriptor.rawValue, TCSAFLUSH, &settings) == 0 else { throw Errno.current }
    }

    /// Puts back the settings of `init`; later calls do nothing.
    public func restore() {
        guard active else { return }
        active = false
        _ = tcsetattr(descriptor.rawValue, TCSAFLUSH, &saved)
    }

    deinit { restore() }
}
