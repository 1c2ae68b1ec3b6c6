import Dispatch

#if canImport(Glibc)
import Glibc
#endif

/// POSIX signals delivered as an AsyncStream (the handler never runs in signal context).
public enum Signals {
    public static let terminate = SIGTERM
    public static let interrupt = SIGINT
    public static let hangup = SIGHUP
    /// The terminal's window changed size.
    public static let windowChange = SIGWINCH

    /// Stops the default action of `signals` and yields each delivery.
    public static func stream(_ signals: [Int32]) -> AsyncStream<Int32> {
        let (stream, continuation) = AsyncStream<Int32>.makeStream()
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
        let keep = SignalSources(sources: sources)
        continuation.onTermination = { _ in keep.cancel() }
        return stream
    }

    public static func ignoreBrokenPipes() { signal(SIGPIPE, SIG_IGN) }
}

/// Keeps the dispatch sources alive for as long as the stream is.
/// @unchecked Sendable: the sources are only cancelled, which Dispatch allows from any thread.
private final class SignalSources: @unchecked Sendable {
    let sources: [any DispatchSourceSignal]
    init(sources: [any DispatchSourceSignal]) { self.sources = sources }
    func cancel() { for source in sources { source.cancel() } }
}
