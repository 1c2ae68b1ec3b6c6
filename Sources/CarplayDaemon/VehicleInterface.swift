/// io.carplayd.Vehicle's interface description, served verbatim by
/// org.varlink.service.GetInterfaceDescription: docs/io.carplayd.Vehicle.varlink,
/// embedded at build time (Plugins/EmbedInterfaces).
public enum VehicleInterface {
    public static let description = InterfaceTexts.vehicle
}
