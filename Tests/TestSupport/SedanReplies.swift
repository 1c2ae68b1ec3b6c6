import CarplayJSON

/// The example sedan as carplayd's Describe and GetState give it: the replies the dash's
/// and carplayctl's status tests read without a daemon.
public enum SedanReplies {
    /// The example sedan as carplayd's Describe and GetState give it.
    public static let describe =
        #"{"audioSources":["radio","bluetooth","USB","AUX","carPlay"],"carNames":["Sedan"],"climate":{"airConditioner":true,"autoMode":true,"celsius":{"max":28.0,"min":16.0,"step":0.5},"climateControl":true,"fanSpeedLevels":7,"recirculation":true,"zones":[{"id":"left","seats":["frontLeft","rearLeft"]},{"id":"right","seats":["frontRight","rearRight"]}]},"defrosters":["front","rear"],"driverSide":"left","identifier":"sedan","lock":true,"name":"Example Sedan","power":{"battery":false,"fuel":true},"properties":["audio.source","climate.airCirculation","climate.airConditioner","climate.autoMode","climate.cabinTemperature","climate.climateControl","climate.fan","climate.fanSpeed","climate.temperature.left","climate.temperature.right","defroster.front","defroster.rear","lock.locked","power.distanceRemaining","power.fuelPercent","profile.active","radio.band","radio.frequency","seat.frontLeft.heating","seat.frontRight.heating","signal.audible","signal.visible"],"radio":{"stations":[{"frequency":102.2,"name":"Jazz FM","type":"FM"}]},"seats":[{"cooling":0,"heating":3,"massage":0,"seat":"frontLeft"},{"cooling":0,"heating":3,"massage":0,"seat":"frontRight"},{"cooling":0,"heating":0,"massage":0,"seat":"rearLeft"},{"cooling":0,"heating":0,"massage":0,"seat":"rearRight"}]}"#
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
