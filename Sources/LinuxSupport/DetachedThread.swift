import CCarplayLinux

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A detached POSIX thread running `body` once: the event loops (which read the
/// Varlink and CAN sockets), which block in epoll_wait and so must not sit on the
/// cooperative pool. (Foundation's
/// `Thread` does the same; this keeps Foundation out of the daemon.)
public enum DetachedThread {
    /// Starts the thread; `name` (at most 15 bytes, as the kernel keeps it) shows in
    /// `ps -L` and `top -H`.
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) throws(Errno) {
        let box = Unmanaged.passRetained(Body(name: name, body))
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { context in
                let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
                _ = carplay_name_thread(body.name)
                body.run()
                return nil
            }, box.toOpaque())
        guard result == 0 else {
            box.release()
            throw Errno(result)
        }
        pthread_detach(thread)
    }

    /// Blocks the calling thread for `duration`: for a detached thread, never a task on
    /// the cooperative pool (a task sleeps on its `MonotonicClock`).
    public static func sleep(for duration: Duration) {
        let (seconds, attoseconds) = duration.components
        guard seconds > 0 || attoseconds > 0 else { return }
        var time = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        withUnsafeMutablePointer(to: &time) { time in
            // Interrupted, nanosleep writes what is left into the same timespec: the
            // retry sleeps the rest.
            _ = try? retryingOnInterrupt { nanosleep(time, time) }
        }
    }

    private final class Body {
        let name: String
        let run: @Sendable () -> Void
        init(name: String, _ run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }
}
