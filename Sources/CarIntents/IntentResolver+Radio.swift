import CarplayJSON
import VehicleKit

extension IntentResolver {
    /// `SetRadioStation`.
    ///
    /// - No radio -> every given parameter (or `radioType`) `unsupported`.
    /// - `radioType`: a band the car lacks -> `unsupported`. Absent: inferred from the
    ///   preset, the station, or the bands whose range holds the frequency / channel
    ///   (`success` with the inferred band); several bands hold it -> `disambiguation` of
    ///   those bands; nothing to infer from -> `needsValue`.
    /// - `presetNumber`: the preset's station; no such preset -> `unsupported`.
    /// - `stationName` (the vocabulary `profile.radio.stations`, of the given band if any),
    ///   case-insensitive: an exact name -> `success`; otherwise the names in which every
    ///   spoken word starts a word: one -> `success`, several -> `disambiguation` (names),
    ///   none -> `unsupported`.
    /// - `frequency`: must be in the band's range (else `unsupported`), snapped to its step;
    ///   a band that tunes by channel -> `unsupported`.
    /// - `channel`: an integer within a satellite/DAB band's range; otherwise `unsupported`.
    /// - Precedence presetNumber, stationName, frequency, channel: the first given one picks
    ///   the station; a later one that disagrees with it -> `unsupported` on the later one.
    /// - Action: `radio.band`, then `radio.frequency` (AM/FM/HD) or `radio.channel`
    ///   (satellite/DAB), and `audio.source = sourceRadio` when it is one of the car's sources.
    ///   `radioType` alone switches the band.
    /// - Satellite without a subscription still resolves; the confirm phase answers
    ///   `failureNotSubscribed`.
    static func resolveRadio(_ p: SetRadioStationParameters, _ context: inout ResolutionContext) {
        let given: [(String, Bool)] = [
            ("radioType", p.radioType != nil), ("frequency", p.frequency != nil), ("stationName", p.stationName != nil),
            ("channel", p.channel != nil), ("presetNumber", p.presetNumber != nil),
        ]
        guard let radio = context.profile.radio else {
            let reason = "\(context.car) has no radio"
            for (name, isGiven) in given where isGiven { context.results[name] = .unsupported(reason: reason) }
            if !given.contains(where: \.1) { context.results["radioType"] = .unsupported(reason: reason) }
            return
        }
        guard given.contains(where: \.1) else {
            context.results["radioType"] = .needsValue(reason: "give a station, a frequency, a channel, a preset or a band")
            return
        }
        if let type = p.radioType {
            context.results["radioType"] =
                radio.band(type) == nil
                ? .unsupported(reason: "\(context.car) has no \(type.rawValue) radio") : .success(.string(type.rawValue))
        }

        /// The station picked so far, and by which parameter.
        var target: RadioStation?
        var pickedBy = ""
        func agrees(_ station: RadioStation) -> Bool {
            guard let target else { return true }
            guard station.type == target.type else { return false }
            if let a = station.frequency, let b = target.frequency { return abs(a - b) < 1e-6 }
            if let a = station.channel, let b = target.channel { return a == b }
            return true
        }
        func pick(_ station: RadioStation, by parameter: String, success: JSONValue) {
            if agrees(station) {
                if target == nil {
                    target = station
                    pickedBy = parameter
                }
                context.results[parameter] = .success(success)
            } else {
                context.results[parameter] = .unsupported(reason: "\(describe(station)) does not match the \(pickedBy) (\(describe(target!)))")
            }
        }
        func describe(_ station: RadioStation) -> String {
            let unit = radio.band(station.type)?.unit ?? ""
            if let frequency = station.frequency { return "\(station.type.rawValue) \(formatNumber(frequency)) \(unit)" }
            if let channel = station.channel { return "\(station.type.rawValue) channel \(channel)" }
            return station.type.rawValue
        }

        if let number = p.presetNumber {
            if let preset = radio.presets.first(where: { $0.number == number }) {
                if let type = p.radioType, type != preset.station.type {
                    context.results["presetNumber"] = .unsupported(reason: "preset \(number) is \(describe(preset.station)), not \(type.rawValue)")
                } else {
                    pick(preset.station, by: "presetNumber", success: .integer(number))
                }
            } else {
                context.results["presetNumber"] = .unsupported(reason: "\(context.car) has no preset \(number)")
            }
        }

        if let name = p.stationName {
            let pool = radio.stations.filter { p.radioType == nil || $0.type == p.radioType }
            let wanted = name.trimmingSpaces.lowercased()
            let words = wanted.split(whereSeparator: \.isWhitespace)
            let exact = pool.filter { $0.name.lowercased() == wanted }
            let matches =
                exact.isEmpty
                ? pool.filter { station in
                    let nameWords = station.name.lowercased().split(whereSeparator: \.isWhitespace)
                    return !words.isEmpty && words.allSatisfy { word in nameWords.contains { $0.hasPrefix(word) } }
                }
                : exact
            var names: [String] = []
            for station in matches where !names.contains(station.name) { names.append(station.name) }
            if names.count == 1 {
                pick(matches[0], by: "stationName", success: .string(matches[0].name))
            } else if names.count > 1 {
                context.results["stationName"] = .disambiguation(names.map(JSONValue.string))
            } else {
                let band = p.radioType.map { " on \($0.rawValue)" } ?? ""
                context.results["stationName"] = .unsupported(reason: "no station called \(name)\(band)")
            }
        }

        var type = p.radioType ?? target?.type
        var typeOptions: [RadioType] = []

        if let frequency = p.frequency {
            if type == nil {
                let candidates = radio.bands.filter { !$0.tunesByChannel && $0.range.contains(frequency) }.map(\.type)
                if candidates.count == 1 { type = candidates[0] } else { typeOptions = candidates }
            }
            if let type, let band = radio.band(type) {
                if band.tunesByChannel {
                    context.results["frequency"] = .unsupported(reason: "\(type.rawValue) radio tunes by channel, not frequency")
                } else if !band.range.contains(frequency) {
                    context.results["frequency"] = .unsupported(
                        reason:
                            "\(formatNumber(frequency)) \(band.unit) is outside the \(type.rawValue) band \(formatNumber(band.range.min))…\(formatNumber(band.range.max)) \(band.unit)"
                    )
                } else {
                    let snapped = band.range.snap(frequency)
                    pick(RadioStation(name: "", type: type, frequency: snapped), by: "frequency", success: .number(snapped))
                }
            } else if type == nil, typeOptions.isEmpty {
                context.results["frequency"] = .unsupported(reason: "no band of \(context.car) includes \(formatNumber(frequency))")
            } else {
                context.results["frequency"] = .success(.number(frequency))
            }
        }

        if let text = p.channel {
            if let channel = Int(text.trimmingSpaces) {
                if type == nil {
                    let candidates = radio.bands.filter { $0.tunesByChannel && $0.range.contains(Double(channel)) }.map(\.type)
                    if candidates.count == 1 { type = candidates[0] } else if typeOptions.isEmpty { typeOptions = candidates }
                }
                if let type, let band = radio.band(type) {
                    if !band.tunesByChannel {
                        context.results["channel"] = .unsupported(reason: "\(type.rawValue) radio tunes by frequency, not channel")
                    } else if !band.range.contains(Double(channel)) {
                        context.results["channel"] = .unsupported(
                            reason:
                                "channel \(channel) is outside \(type.rawValue) channels \(formatNumber(band.range.min))…\(formatNumber(band.range.max))")
                    } else {
                        pick(RadioStation(name: "", type: type, channel: channel), by: "channel", success: .string(String(channel)))
                    }
                } else if type == nil, typeOptions.isEmpty {
                    context.results["channel"] = .unsupported(reason: "no band of \(context.car) has channel \(channel)")
                } else {
                    context.results["channel"] = .success(.string(text))
                }
            } else {
                context.results["channel"] = .unsupported(reason: "channel \"\(text)\" is not a channel number")
            }
        }

        if p.radioType == nil {
            if let type {
                context.results["radioType"] = .success(.string(type.rawValue))
            } else if typeOptions.count > 1 {
                context.results["radioType"] = .disambiguation(typeOptions.map { .string($0.rawValue) })
            } else {
                context.results["radioType"] = .needsValue(reason: "which band?")
            }
        }

        guard let type, radio.band(type) != nil else { return }
        context.targets[.radioBand] = .enumeration(type.rawValue)
        if let target {
            if let frequency = target.frequency { context.targets[.radioFrequency] = .number(frequency) }
            if let channel = target.channel { context.targets[.radioChannel] = .integer(channel) }
        }
        if context.profile.audioSources.contains(.sourceRadio) { context.targets[.audioSource] = .enumeration(CarAudioSource.sourceRadio.rawValue) }
    }
}
