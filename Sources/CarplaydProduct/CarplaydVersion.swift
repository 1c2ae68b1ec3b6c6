/// carplayd's version, written once: `carplayd --version`, Varlink GetInfo of carplayd
/// and carplay-ecu, and the Debian package (the Makefile reads this line).
public enum CarplaydVersion {
    public static let current = "0.4.0"
}
