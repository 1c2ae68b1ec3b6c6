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

    private final class Body {
        let name: String
        let run: @Sendable () -> Void
        init(name: String, _ run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }
}
