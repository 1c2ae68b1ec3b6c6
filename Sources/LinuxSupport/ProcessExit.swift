#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Ends the process with `status`, as exit(3) does (stdio flushed, atexit handlers run):
/// the executables' last word, without their own libc import.
public func exitProcess(_ status: Int32) -> Never { exit(status) }
