/// The simulated car plugged in or driving, as the vehicle's own doing: the head unit
/// learns of it only from status frames. Set through `setDriveState` (the daemon's
/// `io.carplayd.Simulator.SetDriveState`, `carplay-ecu --plug-in / --drive`). Here, not
/// in VehicleSimulator, because that interface's clients read it too.
public struct DriveState: Sendable, Hashable {
    /// The connector plugged in (one of the car's `chargingConnectors`), nil when unplugged.
    public var connector: ChargingConnectorType?
    /// km/h; 0 stands still. Never while plugged in.
    public var speedKmh: Double

    public init(connector: ChargingConnectorType? = nil, speedKmh: Double = 0) {
        self.connector = connector
        self.speedKmh = speedKmh
    }

    public static let parked = DriveState()
}
