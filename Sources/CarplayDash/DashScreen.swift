import LinuxSupport

/// The thin terminal layer: the alternate screen, the cursor, and lines written with
/// plain ECMA-48 escape sequences (CUP, EL, SGR, DECTCEM, xterm's alternate screen).
///
/// Why escapes, not ncurses: the dash needs seven sequences that every terminal of the
/// last 30 years understands the same way (xterm, VTE, tmux, screen, the Linux console,
/// Windows' and macOS' terminals over ssh); what ncurses adds -- terminfo look-ups,
/// optimised cursor motion -- buys nothing for them, while it brings what makes a
/// threaded Swift program fragile: global state that is not thread-safe, its own
/// SIGINT/SIGTERM/SIGWINCH/SIGTSTP handlers beside ours, and a C library linked into
/// LinuxSupport, that is into carplayd too. Terminals that are not ANSI (TERM=dumb)
/// get the plain view instead. Raw input and the window size come from LinuxSupport.
/// The dash and `dbc watch` both take the terminal over through it.
/// The terminal cannot be taken over (not a terminal, or raw mode refused).
public struct TerminalUnavailable: Error, CustomStringConvertible {
    public let description: String
}

public final class DashScreen {
    private let output = FileDescriptor.standardOutput
    private let colors: Bool
    private let raw: RawTerminalMode
    /// What each row shows now, to rewrite only the rows that changed (ssh links).
    private var shown: [DashLine] = []
    /// The window's size in cells, as of the last `resized()`.
    package private(set) var size: TerminalSize

    /// Takes the terminal over: raw input, the alternate screen, the cursor hidden.
    /// Every way out must pass `leave()` (q, Ctrl-C as a key in raw mode, SIGINT, SIGTERM).
    public init(colors: Bool) throws(TerminalUnavailable) {
        do { raw = try RawTerminalMode(.standardInput) } catch { throw TerminalUnavailable(description: "cannot switch the terminal to raw input: \(error)") }
        self.colors = colors
        size = Terminal.size(of: .standardOutput) ?? TerminalSize(columns: 80, rows: 24)
        write("\u{1B}[?1049h\u{1B}[?25l\u{1B}[H\u{1B}[2J")
    }

    /// Restores what the terminal showed before: styles off, cursor on, the normal
    /// screen back, cooked input.
    package func leave() {
        write("\u{1B}[0m\u{1B}[?25h\u{1B}[?1049l")
        raw.restore()
    }

    /// After SIGWINCH: the new size, and every row written again on the next `draw`.
    package func resized() {
        size = Terminal.size(of: .standardOutput) ?? size
        invalidate()
    }

    /// Forgets what is shown (after a resize), so the next `draw` writes every row.
    package func invalidate() {
        shown = []
        write("\u{1B}[0m\u{1B}[H\u{1B}[2J")
    }

    package func draw(_ lines: [DashLine]) {
        var text = ""
        for (row, line) in lines.enumerated() where row >= shown.count || shown[row] != line {
            text += "\u{1B}[\(row + 1);1H" + styled(line) + "\u{1B}[0m\u{1B}[K"
        }
        shown = lines
        if !text.isEmpty { write(text) }
    }

    private func styled(_ line: DashLine) -> String {
        line.pieces.map { piece in
            let code = sgr(piece.style)
            return code.isEmpty ? piece.text : "\u{1B}[\(code)m\(piece.text)\u{1B}[0m"
        }.joined()
    }

    /// Bold and reverse are not colour (NO_COLOR keeps them); hues only with colours.
    private func sgr(_ style: DashStyle) -> String {
        switch style {
        case .plain: ""
        case .title: "1"
        case .focused: "1;7"
        case .selected: colors ? "1;36" : "1"
        case .pending: colors ? "33" : ""
        case .failed: colors ? "31" : ""
        case .confirmed: colors ? "32" : ""
        case .dim: colors ? "2" : ""
        }
    }

    private func write(_ text: String) { try? output.writeAll(text) }
}
