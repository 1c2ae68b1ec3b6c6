import CarplayJSON

/// The example sedan as carplayd's Describe and GetState give it: the replies the dash's
/// and carplayctl's status tests read without a daemon.
public enum SedanReplies {
    /// The example sedan as carplayd's Describe and GetState give it.
    public static let describe =
        #"{"audioSources":["sourceRadio","sourceBluetooth","sourceUSB","sourceAUX","sourceCarPlay"],"carNames":["Sedan","my sedan","the saloon"],"carSignals":["audible","visible"],"climate":{"airConditioner":true,"autoMode":true,"celsius":{"max":28.0,"min":16.0,"step":0.5},"climateControl":true,"climateControlZones":[],"fahrenheit":{"max":82.0,"min":61.0,"step":1.0},"fanSpeedLevels":7,"recirculation":true,"zones":[{"id":"left","seats":["frontLeft","rearLeft"]},{"id":"right","seats":["frontRight","rearRight"]}]},"defrosters":["front","rear"],"driverSide":"left","identifier":"sedan","lock":true,"name":"Example Sedan","policies":{"confirmationTimeoutMs":300,"refusedWhileCarLocked":[]},"power":{"battery":false,"fuel":true},"profileSlots":3,"properties":["audio.source","climate.airCirculation","climate.airConditioner","climate.autoMode","climate.cabinTemperature","climate.climateControl","climate.fan","climate.fanSpeed","climate.temperature.left","climate.temperature.right","defroster.front","defroster.rear","lock.locked","power.distanceRemaining","power.fuelPercent","profile.active","radio.band","radio.frequency","seat.frontLeft.heating","seat.frontRight.heating","signal.audible","signal.visible"],"radio":{"bands":[{"max":108.0,"min":87.5,"step":0.1,"type":"FM","unit":"MHz"},{"max":1710.0,"min":530.0,"step":10.0,"type":"AM","unit":"kHz"}],"presets":[{"number":1,"station":{"frequency":102.2,"name":"Jazz FM","type":"FM"}},{"number":2,"station":{"frequency":105.7,"name":"Smooth Jazz","type":"FM"}},{"number":3,"station":{"frequency":94.9,"name":"City News","type":"FM"}},{"number":4,"station":{"frequency":97.3,"name":"Classic Rock","type":"FM"}},{"number":5,"station":{"frequency":660.0,"name":"Talk 660","type":"AM"}},{"number":6,"station":{"frequency":1050.0,"name":"Sports 1050","type":"AM"}}],"satelliteSubscribed":true,"stations":[{"frequency":102.2,"name":"Jazz FM","type":"FM"},{"frequency":105.7,"name":"Smooth Jazz","type":"FM"},{"frequency":94.9,"name":"City News","type":"FM"},{"frequency":97.3,"name":"Classic Rock","type":"FM"},{"frequency":100.9,"name":"Classic FM","type":"FM"},{"frequency":660.0,"name":"Talk 660","type":"AM"},{"frequency":1050.0,"name":"Sports 1050","type":"AM"}]},"seats":[{"cooling":0,"heating":3,"massage":0,"seat":"frontLeft"},{"cooling":0,"heating":3,"massage":0,"seat":"frontRight"},{"cooling":0,"heating":0,"massage":0,"seat":"rearLeft"},{"cooling":0,"heating":0,"massage":0,"seat":"rearRight"}]}"#
    public static let getState =
        #"{"bus":{"droppedFrames":0,"errorFrames":0,"interface":"vcan0","kind":"embedded","restarts":0,"state":"error-active","untrustedFrames":0},"reachable":true,"state":{"audio.source":"radio","climate.airCirculation":"freshAir","climate.airConditioner":true,"climate.autoMode":false,"climate.cabinTemperature":23.0,"climate.climateControl":true,"climate.fan":true,"climate.fanSpeed":3,"climate.temperature.left":21.0,"climate.temperature.right":21.0,"defroster.front":false,"defroster.rear":false,"lock.locked":false,"power.distanceRemaining":420.0,"power.fuelPercent":62.0,"profile.active":0,"radio.band":"FM","radio.frequency":102.2,"seat.frontLeft.heating":0,"seat.frontRight.heating":0,"signal.audible":false,"signal.visible":false}}"#

    public static func object(_ text: String) throws -> [String: JSONValue] {
        guard let object = try JSONValue(parsing: text).objectValue else { throw ReplyFixtureError(text: text) }
        return object
    }
}

/// A fixture text that is not a JSON object.
public struct ReplyFixtureError: Error, CustomStringConvertible {
    public let text: String
    public var description: String { "not a JSON object: \(text.prefix(60))" }
}
