import CarplayJSON
import VehicleKit

extension IntentResolver {
    /// `SetSeatSettingsInCar`.
    ///
    /// - `seat` absent -> `needsValue`; the CarSeat's physical seats (`driverSide`) that the
    ///   profile lists; none -> `unsupported`. The success value is the array of physical seats.
    /// - `enableHeating` / `enableCooling` / `enableMassage`: `unsupported` when none of the
    ///   chosen seats has the feature ("the rear left seat has no cooling"); otherwise the
    ///   feature is applied to the chosen seats that have it. `false` sets the level to 0;
    ///   `true` without a level keeps a seat's current level if it is on, else level 1.
    ///   Heating and cooling both `true` -> `unsupported` on `enableCooling`.
    /// - The feature `level` / `relativeLevelSetting` apply to: the one feature given as
    ///   `true`; with none given, the feature the chosen seats have if there is only one;
    ///   otherwise `disambiguation` on `level` with options `{"feature":"heating","level":2}`
    ///   (on `relativeLevelSetting`: `{"feature":…,"relativeLevelSetting":…}`). A level with
    ///   only `enable…: false` flags -> `unsupported`.
    /// - `level`: 0...highest level of the feature among the chosen seats, else clamped and
    ///   `confirmationRequired`; each seat gets min(level, its own maximum).
    /// - `relativeLevelSetting`: per seat, lowest = 1, highest = its maximum, lower/higher =
    ///   current `seat.<seat>.<feature>` ∓ 1 within 0...maximum (`needsValue` when unknown).
    ///   Success value `{seat: level}`. With `level` too -> `unsupported`.
    /// - Heating and cooling are exclusive: a seat whose cooling goes on gets heating 0 in the
    ///   action, and the other way round.
    /// - Nothing to do (no feature flag, no level) -> `needsValue` on `level`.
    static func resolveSeat(_ p: SetSeatSettingsInCarParameters, _ context: inout ResolutionContext) {
        context.carName(p.carName)
        let flags: [(feature: SeatFeature, name: String, value: Bool?)] = [
            (.heating, "enableHeating", p.enableHeating), (.cooling, "enableCooling", p.enableCooling), (.massage, "enableMassage", p.enableMassage),
        ]
        let nothingToDo = flags.allSatisfy { $0.value == nil } && p.level == nil && p.relativeLevelSetting == nil
        guard let seat = p.seat else {
            context.results["seat"] = .needsValue(reason: "which seat?")
            for flag in flags { if let value = flag.value { context.results[flag.name] = .success(.bool(value)) } }
            if let level = p.level { context.results["level"] = .success(.integer(level)) }
            // Relative to the current level of a seat: which seat decides it.
            if p.relativeLevelSetting != nil { context.results["relativeLevelSetting"] = .needsValue(reason: "which seat?") }
            return
        }
        let chosen = seat.physicalSeats(driverSide: context.profile.driverSide).compactMap { context.profile.seat($0) }
        guard !chosen.isEmpty else {
            context.results["seat"] = .unsupported(reason: "\(context.car) has no \(seat.spokenName) with heating, cooling or massage")
            return
        }
        context.results["seat"] = .success(.array(chosen.map { .string($0.seat.rawValue) }))
        if nothingToDo {
            context.results["level"] = .needsValue(reason: "give a level or a feature to switch on or off")
            return
        }
        func fitted(_ feature: SeatFeature) -> [SeatCapabilities] { chosen.filter { $0.maximum(feature) > 0 } }
        let seatWord = seat.isPlural ? "\(seat.spokenName) have" : "\(seat.spokenName) has"

        for flag in flags {
            guard let value = flag.value else { continue }
            context.results[flag.name] =
                fitted(flag.feature).isEmpty
                ? .unsupported(reason: "the \(seatWord) no \(flag.feature.rawValue)") : .success(.bool(value))
        }
        if p.enableHeating == true, p.enableCooling == true {
            context.results["enableCooling"] = .unsupported(reason: "heating and cooling cannot both be on")
        }

        // Which feature a level refers to.
        var levelFeature: SeatFeature?
        var ambiguous: [SeatFeature] = []
        var levelConflict = false
        if p.level != nil || p.relativeLevelSetting != nil {
            let on = flags.filter { $0.value == true }.map(\.feature)
            if on.count == 1 {
                levelFeature = on[0]
            } else if on.count > 1 {
                ambiguous = on.filter { !fitted($0).isEmpty }
            } else if flags.contains(where: { $0.value == false }) {
                levelConflict = true
            } else {
                let available = SeatFeature.allCases.filter { !fitted($0).isEmpty }
                if available.count == 1 { levelFeature = available[0] } else { ambiguous = available }
            }
            if ambiguous.count == 1 {
                levelFeature = ambiguous[0]
                ambiguous = []
            }
        }

        if let level = p.level {
            if levelConflict {
                context.results["level"] = .unsupported(reason: "a level was given while switching a feature off")
            } else if !ambiguous.isEmpty {
                context.results["level"] = .disambiguation(ambiguous.map { .object(["feature": .string($0.rawValue), "level": .integer(level)]) })
            } else if let feature = levelFeature, !fitted(feature).isEmpty {
                let highest = fitted(feature).map { $0.maximum(feature) }.max()!
                let clamped = min(max(level, 0), highest)
                if level > highest {
                    context.results["level"] = .confirmationRequired(
                        .integer(highest), reason: "level \(level) is above the highest \(feature.rawValue) level \(highest)")
                } else if level < 0 {
                    context.results["level"] = .confirmationRequired(.integer(0), reason: "level \(level) is below 0 (off)")
                } else {
                    context.results["level"] = .success(.integer(level))
                }
                for s in fitted(feature) { context.targets[.seat(s.seat, feature)] = .integer(min(clamped, s.maximum(feature))) }
            } else {
                context.results["level"] = .success(.integer(level))
            }
        }

        if let relative = p.relativeLevelSetting {
            if p.level != nil {
                context.results["relativeLevelSetting"] = .unsupported(reason: "give either a level or a relative setting")
            } else if levelConflict {
                context.results["relativeLevelSetting"] = .unsupported(reason: "a relative level was given while switching a feature off")
            } else if !ambiguous.isEmpty {
                context.results["relativeLevelSetting"] = .disambiguation(
                    ambiguous.map {
                        .object(["feature": .string($0.rawValue), "relativeLevelSetting": .string(relative.rawValue)])
                    })
            } else if let feature = levelFeature, !fitted(feature).isEmpty {
                var values: [String: JSONValue] = [:]
                var targets: [PropertyKey: PropertyValue] = [:]
                var unknown: CarSeat?
                for s in fitted(feature) {
                    let key = PropertyKey.seat(s.seat, feature)
                    let highest = s.maximum(feature)
                    var level: Int?
                    switch relative {
                    case .lowest: level = 1
                    case .highest: level = highest
                    case .lower, .higher:
                        if let current = context.integer(key) { level = min(max(current + (relative == .lower ? -1 : 1), 0), highest) }
                    }
                    guard let level else {
                        unknown = s.seat
                        break
                    }
                    values[s.seat.rawValue] = .integer(level)
                    targets[key] = .integer(level)
                }
                if let unknown {
                    context.results["relativeLevelSetting"] = .needsValue(reason: "current \(feature.rawValue) level of the \(unknown.spokenName) unknown")
                } else {
                    context.results["relativeLevelSetting"] = .success(.object(values))
                    context.targets.merge(targets) { _, new in new }
                }
            } else {
                // No seat has a level of that feature: the seat's or the flag's result says
                // which; nothing to set.
                context.results["relativeLevelSetting"] = .unsupported(reason: "no seat has a \(levelFeature?.rawValue ?? "heating, cooling or massage") level")
            }
        }

        // Flags without a level of their own.
        for flag in flags {
            guard let value = flag.value else { continue }
            for s in fitted(flag.feature) {
                let key = PropertyKey.seat(s.seat, flag.feature)
                if !value {
                    context.targets[key] = .integer(0)
                } else if context.targets[key] == nil {
                    let current = context.integer(key) ?? 0
                    context.targets[key] = .integer(current > 0 ? min(current, s.maximum(flag.feature)) : 1)
                }
            }
        }

        // Heating and cooling exclude each other.
        for s in chosen {
            for (on, off) in [(SeatFeature.cooling, SeatFeature.heating), (.heating, .cooling)] {
                if case let .integer(level)? = context.targets[.seat(s.seat, on)], level > 0, s.maximum(off) > 0 {
                    let key = PropertyKey.seat(s.seat, off)
                    if context.targets[key] == nil { context.implied.insert(key) }
                    context.targets[key] = .integer(0)
                }
            }
        }
    }

    /// `SetDefrosterSettingsInCar`.
    ///
    /// - `enable` absent -> `needsValue`.
    /// - `defroster` absent: a car with one defroster -> `success(it)`; with several ->
    ///   `disambiguation` of the ones the head unit can switch plus "all" (one it can
    ///   switch: that one; none: `unsupported`); none fitted -> `unsupported`.
    ///   `all` -> every defroster; one the car lacks -> `unsupported`.
    static func resolveDefroster(_ p: SetDefrosterSettingsInCarParameters, _ context: inout ResolutionContext) {
        context.carName(p.carName)
        let fitted = context.profile.defrosters.filter { $0 != .all }
        context.results["enable"] = p.enable.map { .success(.bool($0)) } ?? .needsValue(reason: "switch the defroster on or off?")
        var chosen: [CarDefroster] = []
        if fitted.isEmpty {
            context.results["defroster"] = .unsupported(reason: "\(context.car) has no defroster")
        } else if let defroster = p.defroster {
            if defroster == .all {
                chosen = fitted
                context.results["defroster"] = .success(.string(defroster.rawValue))
            } else if fitted.contains(defroster) {
                chosen = [defroster]
                context.results["defroster"] = .success(.string(defroster.rawValue))
            } else {
                context.results["defroster"] = .unsupported(reason: "\(context.car) has no \(defroster.rawValue) defroster")
            }
        } else if fitted.count == 1 {
            chosen = fitted
            context.results["defroster"] = .success(.string(fitted[0].rawValue))
        } else {
            // Only the defrosters the head unit can switch are worth asking about.
            let switchable = fitted.filter { !context.profile.isReadOnly(.defroster($0)) }
            switch switchable.count {
            case 0: context.results["defroster"] = .unsupported(reason: "\(context.car) reports its defrosters but takes no command for them on its bus")
            case 1:
                chosen = switchable
                context.results["defroster"] = .success(.string(switchable[0].rawValue))
            default: context.results["defroster"] = .disambiguation((switchable + [.all]).map { .string($0.rawValue) })
            }
        }
        if let enable = p.enable {
            for defroster in chosen { context.targets[.defroster(defroster)] = .bool(enable) }
        }
    }

    /// `SetAudioSourceInCar`.
    ///
    /// - Both absent -> `needsValue` on `audioSource`; both given -> `unsupported` on the
    ///   relative reference.
    /// - `audioSource` not in `profile.audioSources` -> `unsupported`.
    /// - next / previous: the source after / before the current `audio.source` in
    ///   `profile.audioSources`, wrapping around; `needsValue` when the current source is
    ///   unknown (or not one of the car's).
    static func resolveAudioSource(_ p: SetAudioSourceInCarParameters, _ context: inout ResolutionContext) {
        let sources = context.profile.audioSources
        switch (p.audioSource, p.relativeAudioSourceReference) {
        case (nil, nil):
            context.results["audioSource"] = .needsValue(reason: "which audio source?")
        case let (source?, relative):
            if sources.contains(source) {
                context.results["audioSource"] = .success(.string(source.rawValue))
                context.targets[.audioSource] = .enumeration(source.rawValue)
            } else {
                context.results["audioSource"] = .unsupported(reason: "\(context.car) has no \(source.rawValue) audio source")
            }
            if relative != nil {
                context.results["relativeAudioSourceReference"] = .unsupported(reason: "give either an audio source or next/previous")
            }
        case let (nil, relative?):
            guard !sources.isEmpty else {
                context.results["relativeAudioSourceReference"] = .unsupported(reason: "\(context.car) has no audio sources")
                return
            }
            guard case let .enumeration(name)? = context.state[.audioSource], let current = CarAudioSource(rawValue: name),
                let index = sources.firstIndex(of: current)
            else {
                context.results["relativeAudioSourceReference"] = .needsValue(reason: "current audio source unknown")
                return
            }
            let next = sources[(index + (relative == .next ? 1 : sources.count - 1)) % sources.count]
            context.results["relativeAudioSourceReference"] = .success(.string(next.rawValue))
            context.targets[.audioSource] = .enumeration(next.rawValue)
        }
    }

    /// `SaveProfileInCar`.
    ///
    /// - A car without profile slots -> `unsupported` on `profileNumber`.
    /// - `profileNumber` in 1...carProfileSlots -> `success`, else `unsupported`.
    /// - `profileNumber` absent: the slot of a saved profile whose name equals `profileName`
    ///   (case-insensitive), else the first free slot, else `needsValue`.
    /// - The action `saveCarProfile(slot:name:)` carries `profileName`, or the name already
    ///   saved in that slot when no name is given.
    static func resolveSaveProfile(_ p: SaveProfileInCarParameters, _ context: inout ResolutionContext) {
        let slots = context.profile.carProfileSlots
        if let name = p.profileName { context.results["profileName"] = .success(.string(name)) }
        guard slots > 0 else {
            context.results["profileNumber"] = .unsupported(reason: "\(context.car) has no profile memory")
            return
        }
        var slot: Int?
        if let number = p.profileNumber {
            if (1...slots).contains(number) {
                slot = number
                context.results["profileNumber"] = .success(.integer(number))
            } else {
                context.results["profileNumber"] = .unsupported(reason: "\(context.car) has profiles 1…\(slots), not \(number)")
            }
        } else {
            let wanted = p.profileName?.trimmingSpaces.lowercased()
            if let wanted, let saved = context.savedCarProfiles.first(where: { $0.name?.lowercased() == wanted && (1...slots).contains($0.slot) }) {
                slot = saved.slot
            } else {
                let used = Set(context.savedCarProfiles.map(\.slot))
                slot = (1...slots).first { !used.contains($0) }
            }
            context.results["profileNumber"] =
                slot.map { .success(.integer($0)) }
                ?? .needsValue(reason: "all \(slots) profiles are in use; say which one to overwrite")
        }
        if let slot {
            let name = p.profileName ?? context.savedCarProfiles.first { $0.slot == slot }?.name
            context.action = .saveCarProfile(slot: slot, name: name)
        }
    }

    /// `SetProfileInCar`.
    ///
    /// - The slot: `profileNumber` (1...carProfileSlots), else `profileName` (a saved profile's
    ///   name, case-insensitive: several -> `disambiguation` of `{"profileNumber","profileName"}`,
    ///   none -> `unsupported`), else `isDefaultProfile: true` -> slot 1. None of them ->
    ///   `needsValue` on `profileNumber`. A name that does not match the given number ->
    ///   `unsupported` on `profileName`.
    /// - A slot with nothing saved -> `unsupported("profile 2 is empty")`.
    static func resolveSetProfile(_ p: SetProfileInCarParameters, _ context: inout ResolutionContext) {
        context.carName(p.carName)
        let slots = context.profile.carProfileSlots
        guard slots > 0 else {
            context.results[p.profileName != nil && p.profileNumber == nil ? "profileName" : "profileNumber"] =
                .unsupported(reason: "\(context.car) has no profile memory")
            return
        }
        func saved(_ slot: Int) -> SavedCarProfile? { context.savedCarProfiles.first { $0.slot == slot } }
        var slot: Int?
        var slotParameter = "profileNumber"
        if let number = p.profileNumber {
            if !(1...slots).contains(number) {
                context.results["profileNumber"] = .unsupported(reason: "\(context.car) has profiles 1…\(slots), not \(number)")
            } else {
                slot = number
            }
        }
        if let name = p.profileName {
            let wanted = name.trimmingSpaces.lowercased()
            let matches = context.savedCarProfiles.filter { $0.name?.lowercased() == wanted && (1...slots).contains($0.slot) }.sorted { $0.slot < $1.slot }
            if let number = p.profileNumber {
                context.results["profileName"] =
                    matches.contains { $0.slot == number }
                    ? .success(.string(name)) : .unsupported(reason: "profile \(number) is not called \(name)")
            } else if matches.count == 1 {
                slot = matches[0].slot
                slotParameter = "profileName"
                context.results["profileName"] = .success(.string(matches[0].name ?? name))
            } else if matches.isEmpty {
                context.results["profileName"] = .unsupported(reason: "no profile is called \(name)")
            } else {
                context.results["profileName"] = .disambiguation(
                    matches.map {
                        .object(["profileNumber": .integer($0.slot), "profileName": $0.name.map(JSONValue.string) ?? .null])
                    })
            }
        }
        if let isDefault = p.isDefaultProfile {
            context.results["isDefaultProfile"] = .success(.bool(isDefault))
            if isDefault, p.profileNumber == nil, p.profileName == nil {
                slot = 1
                slotParameter = "isDefaultProfile"
            }
        }
        if p.profileNumber == nil, p.profileName == nil, slot == nil {
            context.results["profileNumber"] = .needsValue(reason: "which profile?")
        }
        guard let slot else { return }
        if saved(slot) == nil {
            context.results[slotParameter] = .unsupported(reason: "profile \(slot) is empty")
        } else {
            if slotParameter == "profileNumber" { context.results["profileNumber"] = .success(.integer(slot)) }
            context.action = .restoreCarProfile(slot: slot)
        }
    }

    /// `SetCarLockStatus`: a car without a lock -> `unsupported`; `locked` absent ->
    /// `needsValue`; action `set(lock.locked)`.
    static func resolveSetLock(_ p: SetCarLockStatusParameters, _ context: inout ResolutionContext) {
        context.carName(p.carName)
        if !context.profile.hasLock {
            context.results["locked"] = .unsupported(reason: "\(context.car) has no remote lock")
        } else if let locked = p.locked {
            context.results["locked"] = .success(.bool(locked))
            context.targets[.locked] = .bool(locked)
        } else {
            context.results["locked"] = .needsValue(reason: "lock or unlock?")
        }
    }

    /// `GetCarLockStatus`: action `readLockStatus`. The intent's only parameter is
    /// `carName`, so a car without a lock answers `unsupported` there.
    static func resolveGetLock(_ p: CarNameParameters, _ context: inout ResolutionContext) {
        context.carName(p.carName)
        if !context.profile.hasLock {
            context.results["carName"] = .unsupported(reason: "\(context.car) has no lock")
        } else {
            context.action = .readLockStatus
        }
    }

    /// `GetCarPowerLevelStatus`: action `readPowerLevel`; a car that reports no power
    /// reading at all (no fuel or charge level, no range) answers `unsupported` on `carName`.
    static func resolvePowerLevel(_ p: CarNameParameters, _ context: inout ResolutionContext) {
        context.carName(p.carName)
        if PowerLevel.readings(of: context.profile).isEmpty {
            context.results["carName"] = .unsupported(reason: "\(context.car) reports no fuel or charge level and no range")
        } else {
            context.action = .readPowerLevel
        }
    }

    /// `ActivateCarSignal`: `signals` absent or empty -> `needsValue`. The signals the car
    /// can give are done, as SiriKit's resolution allows (success with those: the response's
    /// `signals` names what was activated); when it can give none of them, `unsupported`
    /// naming why. Action `activateSignals` (duplicates removed).
    static func resolveSignals(_ p: ActivateCarSignalParameters, _ context: inout ResolutionContext) {
        context.carName(p.carName)
        guard let signals = p.signals, !signals.isEmpty else {
            context.results["signals"] = .needsValue(reason: "flash the lights, sound the horn, or both?")
            return
        }
        let doable = signals.filter { context.profile.carSignals.contains($0) && !context.profile.isReadOnly(.signal($0)) }
        guard !doable.isEmpty else {
            let first = signals[0]
            let what = first == .audible ? "sound its horn" : "flash its lights"
            let reason =
                context.profile.carSignals.contains(first)
                ? "\(context.car) reports signal.\(first.rawValue) but takes no command for it on its bus"
                : "\(context.car) cannot \(what) (no \(first.rawValue) signal)"
            context.results["signals"] = .unsupported(reason: reason)
            return
        }
        var unique: [CarSignal] = []
        for signal in doable where !unique.contains(signal) { unique.append(signal) }
        context.results["signals"] = .success(.array(unique.map { .string($0.rawValue) }))
        context.action = .activateSignals(unique)
    }
}
