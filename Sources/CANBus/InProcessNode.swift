/// A CAN node this process runs on an in-process bus, beside the head unit: the simulated
/// vehicle (VehicleSimulator's `EmbeddedVehicle`) or a replayed candump log. It sends
/// nothing on `bus` before `run()`, so whoever runs it can first open a port on `bus` and
/// receive there, and hear the node's first frames (`VehicleSession` does).
public protocol InProcessNode: Sendable {
    /// The bus the node sends and receives on.
    var bus: VirtualCANBus { get }

    /// Plays the node until the calling task is cancelled (or the node is done). Once.
    func run() async
}
