import CANKit
import CarplayJSON

/// Loads `VehicleProfiles/<vehicle>/`: `profile.json` and the DBC it names, resolves
/// every reference into the DBC and checks the rules of VehicleProfiles/README.md
/// (schema 2). Files are read through `readFile`
/// (nil: the file cannot be read), so VehicleKit does no I/O of its own.
///
/// The work is split by concern: capabilities and policies
/// (`ProfileLoader+Capabilities`), what the profile adds to the DBC's messages
/// (`+Messages`), bindings and their value mappings (`+Bindings`), the command kinds
/// (`+Commands`), frame protection (`+Protection`) and the coverage and range rules
/// (`+Rules`).
public enum ProfileLoader {
    /// The intents a profile's policies may name.
    public static let intentNames: [String] = [
        "SetClimateSettingsInCar", "SetDefrosterSettingsInCar", "SetSeatSettingsInCar", "SetAudioSourceInCar",
        "SetRadioStation", "SaveProfileInCar", "SetProfileInCar", "SetCarLockStatus", "GetCarLockStatus",
        "ActivateCarSignal", "GetCarPowerLevelStatus",
    ]

    /// The profile file inside a vehicle folder.
    public static let profileFileName = "profile.json"

    /// The schema version this loader reads.
    public static let schema = 2

    /// Why a schema 1 profile is refused, and where its author learns to move it.
    static let schema1Refusal =
        "schema 1 is no longer read; move the profile to schema 2 as VehicleProfiles/README.md, \"Moving from schema 1\", explains (e2e becomes messages.<name>.protection, binding values go onto command and status)"

    public static func load(directory: String, readFile: (String) -> [UInt8]?) throws(ProfileError) -> VehicleProfile {
        try withoutActuallyEscaping(readFile) { (readFile) throws(ProfileError) -> VehicleProfile in
            var reader = ProfileReader(directory: directory, readFile: readFile)
            return try reader.load()
        }
    }

    static func join(_ directory: String, _ name: String) -> String {
        if directory.isEmpty || name.hasPrefix("/") { return name }
        return directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }
}

/// A binding's signal, found in the DBC.
struct ResolvedSignal {
    let message: DBCMessage
    let signal: DBCSignal
    /// JSON path of the reference object, e.g. `bindings["climate.fan"].command`.
    let path: String

    var reference: SignalReference { SignalReference(message: message.name, signal: signal.name) }
}

struct ResolvedBinding {
    let key: PropertyKey
    let path: String
    /// Every command signal, with the path that names it.
    let commandSignals: [ResolvedSignal]
    let status: ResolvedSignal
    /// The status's validity qualifier (`status.valid.signal`).
    let qualifier: ResolvedSignal?
    let binding: PropertyBinding

    var commandMessage: DBCMessage? { commandSignals.first?.message }
}

/// One profile being read: the file, the DBC so far.
struct ProfileReader {
    let directory: String
    let readFile: (String) -> [UInt8]?
    let file: String
    var dbcName = ""

    init(directory: String, readFile: @escaping (String) -> [UInt8]?) {
        self.directory = directory
        self.readFile = readFile
        self.file = ProfileLoader.join(directory, ProfileLoader.profileFileName)
    }

    func fail(_ path: String, _ reason: String) -> ProfileError { ProfileError(file: file, path: path, reason: reason) }

    /// The keys of the root. `e2e` (schema 1's) is known only to be refused saying where its entries go.
    static let rootKeys = [
        "schema", "name", "carNames", "driverSide", "dbc", "climate", "defrosters", "seats", "radio", "audioSources",
        "profileSlots", "lock", "carSignals", "power", "policies", "messages", "bindings", "acknowledgement", "car", "e2e",
    ]

    mutating func load() throws(ProfileError) -> VehicleProfile {
        guard let bytes = readFile(file) else { throw fail("", "cannot read the file") }
        let root = try JSONNode(parsing: bytes, file: file).object(known: Self.rootKeys)

        let schemaNode = try root.required("schema")
        let schema = try schemaNode.integer()
        if schema == 1 { throw schemaNode.error(ProfileLoader.schema1Refusal) }
        guard schema == ProfileLoader.schema else {
            throw schemaNode.error("unsupported schema version \(schema); this loader reads schema \(ProfileLoader.schema)")
        }
        if root.has("e2e") {
            throw fail(root.path("e2e"), "e2e is schema 1; in schema 2 each message declares its protection in messages.<name>.protection")
        }

        let displayName = try root.required("name").nonEmptyString()
        let carNamesNode = try root.required("carNames")
        var carNames: [String] = []
        for item in try carNamesNode.array() {
            let name = try item.nonEmptyString()
            // Spoken alike, the same name: "my SUV" and "My S.U.V." cannot be told apart.
            guard !SpokenName.key(name).isEmpty else { throw item.error("a car name needs letters or digits") }
            if let same = carNames.first(where: { SpokenName.key($0) == SpokenName.key(name) }) {
                throw item.error("duplicate car name \"\(name)\" (spoken as \"\(same)\")")
            }
            carNames.append(name)
        }
        guard !carNames.isEmpty else { throw carNamesNode.error("must name the car at least once") }
        let driverSide = try root.required("driverSide").enumeration(DriverSide.self, what: "driver side")

        let climate = try root.optional("climate").map { node throws(ProfileError) in try parseClimate(node) }
        let defrosters = try parseDefrosters(root.optional("defrosters"))
        let seats = try parseSeats(root.optional("seats"))
        let radio = try root.optional("radio").map { node throws(ProfileError) in try parseRadio(node) }
        let audioSources = try uniqueList(root.optional("audioSources"), CarAudioSource.self, what: "audio source")
        let carProfileSlots = try root.optional("profileSlots")?.integer() ?? 0
        guard carProfileSlots >= 0 else { throw fail(root.path("profileSlots"), "must not be negative") }
        let hasLock = try root.optional("lock")?.bool() ?? false
        let carSignals = try uniqueList(root.optional("carSignals"), CarSignal.self, what: "car signal")
        var power = PowerCapabilities(fuel: false, battery: false)
        if let node = root.optional("power") { power = try parsePower(node) }
        let policies = try parsePolicies(root.required("policies"))
        let car = try root.optional("car").map { node throws(ProfileError) in try parseCar(node) } ?? .none

        // The DBC.
        let dbcNode = try root.required("dbc")
        dbcName = try dbcNode.nonEmptyString()
        let dbcPath = ProfileLoader.join(directory, dbcName)
        guard let dbcBytes = readFile(dbcPath) else { throw dbcNode.error("cannot read the DBC file \"\(dbcPath)\"") }
        var database: DBCDatabase
        do {
            database = try DBCDatabase(parsing: dbcBytes, source: dbcPath, read: readFile)
        } catch {
            throw dbcNode.error(error.description)
        }

        // What the profile adds to the DBC comes first: bindings may name its choices.
        var declared = DeclaredMessages()
        if let node = root.optional("messages") { declared = try parseMessages(node, database: &database) }

        var profile = VehicleProfile(
            identifier: Self.identifier(of: directory), displayName: displayName, carNames: carNames, driverSide: driverSide,
            database: database, climate: climate, defrosters: defrosters, seats: seats, radio: radio,
            audioSources: audioSources, carProfileSlots: carProfileSlots, hasLock: hasLock, carSignals: carSignals, power: power,
            bindings: [:], protection: declared.protection, acknowledgement: nil, messages: declared.settings, policies: policies)
        profile.car = car

        let resolved = try resolveBindings(try root.required("bindings"), profile: profile)
        profile.bindings = resolved.mapValues { $0.binding }
        profile.acknowledgement = try resolveAcknowledgement(root.optional("acknowledgement"), database: database, bindings: resolved)
        try checkCoverage(profile: profile, bindings: resolved)
        try checkWrites(profile: profile)
        try checkSharedCommandSignals(bindings: resolved)
        try checkRanges(profile: profile, bindings: resolved, root: root)
        return profile
    }

    static func identifier(of directory: String) -> String {
        var trimmed = directory
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
        let last = trimmed.split(separator: "/").last.map(String.init) ?? trimmed
        return last == "." || last.isEmpty ? "vehicle" : last
    }
}
