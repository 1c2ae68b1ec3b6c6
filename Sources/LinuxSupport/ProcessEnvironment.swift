#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Sets the environment variable `name` for this process and those it starts (read it
/// back with `CarplaydPaths.environment()`).
public func setEnvironmentVariable(_ name: String, to value: String) { setenv(name, value, 1) }
