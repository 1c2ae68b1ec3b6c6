import CANKit

/// How `profile draft` reads a signal name: its words (snake_case, camelCase, compounds),
/// and what each says by the vocabulary below, in English, German and French.
extension ProfileDraft {
    /// What a word of a name says.
    enum Sense: Sendable, Hashable {
        // What the signal is about.
        case temperature, setPoint, outside, inside, unit
        case climate, airConditioner, fan, level, automatic, mode, recirculation, fresh
        case defrost, heating, cooling, window, windscreen, rearWindow
        case seat, lock, unlock, door, open, theft
        case fuel, percent, range, distance
        case horn, hazard, alarm, flasher
        // Where.
        case front, rear, left, right, driver, passenger
        // How it travels: asked for, reported, a press on a switch.
        case request, status, press
        // Choice names.
        case on, off, negation
        /// Says whether another value holds (valid, faulty, available, allowed): never a value.
        case qualifier
        /// Another system's (engine, battery, steering, brakes, a differential, a camera, a
        /// trailer): its temperatures, fans and locks are not the cabin's or the doors'.
        case other
        /// A bulb or a tell-tale: an ABS lamp is no lock, a low beam no defroster.
        case lamp
        /// A user setting or a sound: the lock's chirp is not the lock.
        case setting
        /// The power manager shedding a load: not the load's state.
        case loadShed
        /// A part of a system (relay, compressor, pump, pressure): not the system's state.
        case part
        /// A relay: a compressor's cycles with it (no A/C state), a heated window's is its state.
        case relay
        /// A raw sensor: a displayed value beside it is the better status.
        case sensor
        /// A raw count: not a physical value.
        case raw
        case warning
        /// A second tank, an auxiliary unit, a double lock: the main one first.
        case secondary
    }

    enum Language: String, Sendable {
        /// Abbreviations every DBC uses, whatever its language: AC, Temp, Auto, Status, Lock.
        case any
        case english, german, french
    }

    /// One row of the vocabulary: spellings (lowercase; umlauts and accents written out:
    /// `ae`, `e`), what they say, in which language. `only`: the spelling says it only
    /// beside one of these senses (`def` is a defroster beside a window or a climate word,
    /// else a defect).
    struct Term: Sendable {
        var sense: Sense
        var language: Language
        var spellings: [String]
        var only: Set<Sense> = []

        init(_ sense: Sense, _ language: Language, _ spellings: [String], only: Set<Sense> = []) {
            self.sense = sense
            self.language = language
            self.spellings = spellings
            self.only = only
        }
    }

    /// The vocabulary. A spelling may have several rows (`dr`: driver and door); each
    /// rule of `matches` asks for the senses it needs.
    static let vocabulary: [Term] = [
        Term(.temperature, .any, ["temp", "tmp", "tmpr", "tempr", "temperature", "temperatur"]),
        Term(.setPoint, .english, ["setpt", "setpoint", "trgt", "target"]),
        Term(.setPoint, .german, ["soll", "sollwert"]),
        Term(.setPoint, .french, ["consigne"]),
        Term(.outside, .english, ["out", "ots", "outsd", "outside", "outdoor", "amb", "ambient", "ext", "exterior"]),
        Term(.outside, .german, ["aussen", "aussenluft"]),
        Term(.outside, .french, ["ext", "exterieur", "exterieure"]),
        Term(.inside, .english, ["incar", "insd", "inside", "interior", "cabin"]),
        Term(.inside, .german, ["innen", "innenraum"]),
        Term(.inside, .french, ["habitacle", "interieur", "interieure"]),
        Term(.unit, .english, ["unit", "units"]),
        Term(.unit, .german, ["einheit"]),
        Term(.unit, .french, ["unite"]),

        Term(.climate, .english, ["clim", "climate", "clm", "clmt", "datc", "fatc", "hvac"]),
        Term(.climate, .german, ["klima"]),
        Term(.climate, .french, ["clim", "climatisation"]),
        Term(.airConditioner, .any, ["ac"]),
        Term(.airConditioner, .english, ["aircon", "aircnd", "aircond", "airconditioner", "airconditioning"]),
        Term(.airConditioner, .german, ["klimaanlage"]),
        Term(.airConditioner, .french, ["climatisation"]),
        Term(.fan, .english, ["fan", "blower", "blw", "blwr"]),
        Term(.fan, .german, ["geblaese", "luefter"]),
        Term(.fan, .french, ["ventilateur", "pulseur", "ventilation"]),
        Term(.level, .english, ["lvl", "level", "lev", "spd", "speed", "sp", "bars"]),
        Term(.level, .german, ["stufe", "fuellstand", "inhalt", "pegel"]),
        Term(.level, .french, ["niveau", "vitesse"]),
        Term(.automatic, .any, ["auto"]),
        Term(.automatic, .english, ["automatic"]),
        Term(.automatic, .german, ["automatik"]),
        Term(.automatic, .french, ["automatique"]),
        Term(.mode, .english, ["mode", "md"]),
        Term(.mode, .german, ["modus"]),
        Term(.recirculation, .english, ["recirc", "rcrc", "recirculation", "recirculate", "intake", "intk"]),
        Term(.recirculation, .german, ["umluft"]),
        Term(.recirculation, .french, ["recyclage", "recirculation"]),
        Term(.fresh, .english, ["fresh"]),
        Term(.fresh, .german, ["frischluft", "frisch"]),
        Term(.fresh, .french, ["frais"]),

        Term(.defrost, .english, ["defrost", "defr", "dfrst", "defog", "dfg", "defogger", "defroster", "demist", "demister"]),
        // English "def" is a defroster only beside a window, climate or position word:
        // alone (ABS_DEF, CF_Esc_Def) it is a defect, as German "def" (defekt) and
        // French "def" (défaut) always are.
        Term(.defrost, .english, ["def"], only: [.window, .windscreen, .rearWindow, .climate, .front, .rear]),
        Term(.defrost, .german, ["entfrostung", "enteisung", "defrost"]),
        Term(.defrost, .french, ["degivrage", "desembuage", "degivr"]),
        Term(.heating, .english, ["heat", "heated", "heater", "heating", "htd", "htr", "warmer"]),
        Term(.heating, .german, ["heiz", "heizung", "beheizt", "beheizung"]),
        Term(.heating, .french, ["chauffage", "chauffant", "chauff"]),
        Term(.cooling, .english, ["cool", "cooling", "cooled", "ventilated"]),
        Term(.cooling, .english, ["vent"], only: [.seat]),
        Term(.cooling, .german, ["kuehlung", "kuehl", "lueftung", "belueftung"]),
        Term(.cooling, .french, ["refroidissement", "ventile"]),
        Term(.window, .english, ["window", "wnd", "wndw", "glass", "glss"]),
        Term(.window, .german, ["scheibe", "scheiben"]),
        Term(.window, .french, ["vitre", "glace"]),
        Term(.windscreen, .english, ["windscreen", "windshield", "wndshld", "wshld", "ws"]),
        Term(.windscreen, .german, ["windschutzscheibe", "windschutz", "frontscheibe", "frontscheiben"]),
        Term(.windscreen, .french, ["parebrise"]),
        Term(.rearWindow, .english, ["backlite", "backglass"]),
        Term(.rearWindow, .german, ["heckscheibe", "heckscheiben"]),
        Term(.rearWindow, .french, ["lunette"]),

        Term(.seat, .english, ["seat", "seats", "massage"]),
        Term(.seat, .german, ["sitz", "sitze", "ruecksitz", "lehne", "sitzlehne", "ruecksitzlehne"]),
        Term(.seat, .french, ["siege", "sieges"]),
        Term(.lock, .any, ["lock", "locked", "locking"]),
        Term(.lock, .english, ["lck", "lk", "lckd"]),
        Term(.lock, .german, ["verriegelt", "verriegelung", "verr", "zv", "zentralverriegelung", "gesichert"]),
        Term(.lock, .french, ["verrouillage", "verrouille", "verrouillee", "condamnation", "condamne"]),
        Term(.unlock, .any, ["unlock", "unlocked"]),
        Term(.unlock, .english, ["unlck", "ulck", "unlk"]),
        Term(.unlock, .german, ["entriegelt", "entriegelung"]),
        Term(.unlock, .french, ["deverrouillage", "deverrouille", "decondamnation"]),
        Term(.door, .any, ["door", "doors"]),
        Term(.door, .english, ["dr"]),
        Term(.door, .german, ["tuer", "tuere", "tueren"]),
        Term(.door, .french, ["porte", "portes", "portiere", "ouvrant", "ouvrants"]),
        Term(.open, .english, ["open", "opened", "ajar"]),
        Term(.open, .german, ["offen", "geoeffnet", "auf"]),
        Term(.open, .french, ["ouvert", "ouverte"]),
        // The alarm armed: the car locked from outside (vw-mqb's STS_Car_under_theft).
        Term(.theft, .english, ["theft"]),
        Term(.theft, .german, ["diebstahl"]),
        Term(.theft, .french, ["antivol"]),

        Term(.fuel, .english, ["fuel", "fl"]),
        Term(.fuel, .any, ["tank"]),
        Term(.fuel, .german, ["kraftstoff"]),
        Term(.fuel, .french, ["carburant", "essence", "reservoir"]),
        Term(.percent, .any, ["pct", "percent", "pc"]),
        Term(.percent, .german, ["prozent"]),
        Term(.percent, .french, ["pourcent", "pourcentage"]),
        Term(.range, .english, ["dte", "disttoempty"]),
        // A range alone may be a radar's (CPSTOSClosestInPthVehRng): a fuel range says fuel.
        Term(.range, .english, ["range", "rng"], only: [.fuel, .distance]),
        Term(.range, .german, ["reichweite"]),
        Term(.range, .french, ["autonomie"]),
        Term(.distance, .english, ["dist", "distance"]),
        Term(.horn, .english, ["horn", "hrn"]),
        Term(.horn, .german, ["signalhorn", "hupe"]),
        Term(.horn, .french, ["klaxon", "avertisseur"]),
        Term(.hazard, .english, ["hazard", "hazards", "haz"]),
        Term(.hazard, .german, ["warnblinker", "warnblink", "warnblinklicht"]),
        Term(.hazard, .french, ["detresse"]),
        Term(.alarm, .any, ["alarm"]),
        Term(.alarm, .french, ["alarme"]),
        Term(.flasher, .english, ["flash", "flasher", "flashing", "blinker"]),
        Term(.flasher, .german, ["blinker"]),
        Term(.flasher, .french, ["clignotant", "clignotants"]),

        Term(.front, .english, ["front", "fr", "frnt", "frt"]),
        Term(.front, .german, ["vorne", "vorn"]),
        Term(.front, .french, ["avant", "av"]),
        Term(.rear, .english, ["rear", "rr", "back"]),
        Term(.rear, .german, ["hinten", "heck", "hinter"]),
        Term(.rear, .french, ["arriere", "ar"]),
        Term(.left, .english, ["left", "lft", "lt", "l"]),
        Term(.left, .german, ["links", "li"]),
        Term(.left, .french, ["gauche"]),
        Term(.right, .english, ["right", "rt", "r"]),
        Term(.right, .german, ["rechts", "re"]),
        Term(.right, .french, ["droit", "droite"]),
        Term(.driver, .english, ["driver", "drv", "dr", "dvr"]),
        Term(.driver, .german, ["fahrer"]),
        Term(.driver, .french, ["conducteur", "cond"]),
        Term(.passenger, .english, ["passenger", "pass", "psgr", "psngr", "ps"]),
        Term(.passenger, .german, ["beifahrer"]),
        Term(.passenger, .french, ["passager"]),

        Term(.request, .english, ["req", "rq", "rqst", "request", "cmd", "command", "ctr", "up", "dn", "down", "increment", "decrement", "voice"]),
        // "set" asks, except in a set point (a value, reported as well as asked).
        Term(.request, .english, ["set"]),
        Term(.request, .german, ["anf", "anforderung", "abschalten", "einschalten", "ausschalten"]),
        Term(.request, .french, ["demande", "cde", "commande"]),
        Term(.status, .any, ["status", "stat", "state", "led"]),
        Term(.status, .english, ["disp", "disply", "dsply", "display", "stt", "sts", "ind", "indicator", "io", "actl"]),
        Term(.status, .german, ["zustand", "ist", "anzeige"]),
        Term(.status, .french, ["etat", "affichage"]),
        Term(.press, .english, ["sw", "switch", "btn", "button", "bttn", "key", "keyfob", "fob", "rke", "passive", "access"]),
        Term(.press, .german, ["schalter", "taster", "taste", "betaetigt", "mfl", "smls"]),
        Term(.press, .french, ["bouton", "interrupteur", "touche"]),

        Term(.on, .any, ["on", "active"]),
        Term(.on, .german, ["aktiv", "ein", "eingeschaltet"]),
        Term(.on, .french, ["actif", "marche"]),
        Term(.off, .any, ["off", "inactive"]),
        Term(.off, .german, ["aus", "inaktiv", "ausgeschaltet"]),
        Term(.off, .french, ["inactif", "arret"]),
        Term(.negation, .any, ["not"]),
        Term(.negation, .german, ["nicht", "kein"]),
        Term(.negation, .french, ["non", "pas"]),

        Term(.qualifier, .any, ["qbit", "qual", "qualifier", "qf", "invalid", "valid", "validity", "error", "err", "fault", "diag"]),
        Term(.qualifier, .english, ["falt"]),
        Term(.qualifier, .english, ["failure", "fail", "failed", "avail", "available", "inhibit", "inh", "ihbt", "lockout", "ub"]),
        // The result of a request (C_TMULockFeedBack), not the state.
        Term(.qualifier, .english, ["feedback"]),
        Term(.qualifier, .german, ["fehler", "defekt", "def", "gueltig", "ungueltig", "verfuegbar", "freigabe"]),
        // A substitute value sent for a lost frame (VW's ZV_02_alt): English "alt" is a second unit.
        Term(.qualifier, .german, ["alt", "ersatz", "ersatzwert", "fstatus"]),
        Term(.qualifier, .any, ["obd"]),
        Term(.qualifier, .french, ["defaut", "def", "invalide", "disponible"]),
        Term(.other, .english, ["eng", "engine", "motor", "coolant", "clnt", "oil", "batt", "bat", "battery", "trans", "gear", "clutch"]),
        Term(.other, .english, ["steer", "steering", "ste", "strg", "clmn", "column", "antilck", "antilock", "brake", "brk"]),
        Term(.other, .english, ["diff", "differential", "axle", "axl", "awd", "shift", "shft", "park", "prk"]),
        Term(.other, .english, ["camera", "camra", "cam", "cmr", "radar", "rdr", "lidar", "obj", "object", "pth", "closest"]),
        Term(.other, .english, ["trailer", "child", "chld", "pll", "cord", "evp", "evap", "core", "hmdty", "humidity", "tire", "tpms"]),
        Term(.other, .english, ["radiator", "exhaust", "urea", "seatbelt", "belt", "hybrid", "hold", "amp", "audio", "volume", "rse"]),
        // Units named by acronyms, in any language: EMS19.CF_Ems_ModeledAmbTemp, TCU1.FAN_CTRL_TCU,
        // LDW_02.LDW_Frontscheibenheizung_aktiv (the lane camera's window heater), LH_EPS_03.
        Term(
            .other, .any,
            ["ems", "ecm", "pcm", "tcu", "ldw", "lka", "lkas", "eps", "mdps", "abs", "esp", "esc", "tcs", "epb", "acc", "wd", "fwd", "rwd", "scr", "adblue"]),
        Term(.other, .english, ["lane"]),
        // A tailgate's or a soft top's lock is not the doors'.
        Term(.other, .english, ["tgate", "tailgate", "liftgate", "trunk", "convertible"]),
        Term(.other, .german, ["heckklappe", "kofferraum", "verdeck", "vd"]),
        Term(.other, .french, ["coffre", "hayon"]),
        Term(.other, .german, ["getriebe", "kupplung", "lenk", "lenkung", "lenkrad", "lenkhilfe", "bremse", "sperre", "quersperre"]),
        Term(.other, .german, ["differentialsperre", "anhaenger", "aag", "kinder", "kindersicherung", "kuehlmittel", "oel", "kamera"]),
        Term(.other, .german, ["feuchte", "kuehler", "wegfahrsperre", "anlasser", "anlassersperre", "nachlauf", "sth", "standheizung"]),
        Term(.other, .french, ["moteur", "frein", "direction", "remorque", "enfant", "camera", "huile", "batterie"]),
        Term(.lamp, .english, ["lamp", "lmp", "light", "lgt", "beam", "bm", "tt", "telltale", "bulb", "blink"]),
        Term(.lamp, .german, ["lampe", "licht", "leuchte", "abbl", "abblendlicht", "fernlicht", "blinker", "blinkmodi", "blinkmodus"]),
        Term(.lamp, .french, ["feu", "feux", "phare", "lampe", "voyant"]),
        Term(.setting, .english, ["sound", "snd", "beep", "chirp", "usm", "setting", "settings", "cfg", "config", "menu"]),
        // A limit is no state (CF_Fatc_BlwrMax, Voice_Blower_Limit).
        Term(.setting, .english, ["limit", "lmt", "max", "min"]),
        Term(.setting, .german, ["ton", "einstellung", "quittungston"]),
        Term(.setting, .french, ["reglage", "parametrage"]),
        Term(.loadShed, .english, ["shed", "ldshed", "loadshed"]),
        Term(.loadShed, .german, ["lastabwurf"]),
        Term(.loadShed, .french, ["delestage"]),
        Term(.relay, .english, ["rly", "relay"]),
        Term(.relay, .german, ["relais"]),
        Term(.relay, .french, ["relais"]),
        Term(.part, .english, ["comp", "compressor", "cmp", "load", "ld", "prs", "pressure", "press", "pump", "pmp", "actuator"]),
        Term(.part, .english, ["filter", "filt", "cut", "cutoff", "flow", "flw", "inj", "econ", "consmp", "consumption", "alcohol", "alchl"]),
        Term(.part, .english, ["cap", "inlet", "filler", "flap", "door"], only: [.fuel]),
        Term(.part, .german, ["kompressor", "druck", "pumpe", "filter", "verbrauch", "deckel", "klappe", "tankklappe", "last", "aktuator", "aktor", "komp"]),
        Term(.part, .french, ["compresseur", "pression", "pompe", "filtre", "consommation", "trappe"]),
        Term(.sensor, .english, ["sns", "snsr", "sensor", "sender", "modeled", "modelled"]),
        Term(.sensor, .german, ["fuehler", "geber", "sensor", "ungef", "ungefiltert"]),
        Term(.sensor, .french, ["capteur", "sonde"]),
        // A raw count, a display's digit: not the value.
        Term(.raw, .english, ["raw", "count", "counter", "dig", "digit"]),
        Term(.raw, .german, ["roh", "zaehler"]),
        Term(.raw, .french, ["brut", "compteur"]),
        Term(.warning, .english, ["warn", "warning", "wrn", "wrnng", "low", "reserve"]),
        Term(.warning, .german, ["warnung", "reserve"]),
        Term(.warning, .french, ["alerte", "reserve"]),
        Term(.secondary, .english, ["alt", "alternative", "secondary", "secnd", "second", "aux", "auxiliary"]),
        Term(.secondary, .german, ["zusatz"]),
        // Double locking (VW "gesafet", Ford LOCK_DBL) beside the plain lock: the plain one first.
        Term(.secondary, .english, ["deadlock", "deadlocked", "dbl", "double"]),
        Term(.secondary, .german, ["gesafet", "safe"]),
    ]

    /// Spelling -> its rows.
    static let lexicon: [String: [Term]] = {
        var lexicon: [String: [Term]] = [:]
        for term in vocabulary { for spelling in term.spellings { lexicon[spelling, default: []].append(term) } }
        return lexicon
    }()

    /// A name read: its words, what they say, and the German and French words recognized
    /// (for the report).
    struct Reading: Sendable {
        var words: [String]
        var senses: Set<Sense>
        var foreign: [String]

        func has(_ sense: Sense) -> Bool { senses.contains(sense) }
        func hasAny(_ these: Sense...) -> Bool { these.contains { senses.contains($0) } }
        var text: String { words.joined(separator: " ") + (foreign.isEmpty ? "" : " (\(foreign.joined(separator: ", ")))") }
    }

    /// The rows of a spelling that count in a DBC of `language`: those of its language or
    /// of none; another language's when spelled out (5 letters or more), for an
    /// abbreviation is read in the DBC's own language (`def`: English defroster, German
    /// defekt; `BLW`: a blower only in English). `.any`: every row (a choice name, `aus`
    /// or `Off`).
    static func terms(_ spelling: String, language: Language) -> [Term] {
        let rows = lexicon[spelling] ?? []
        if language == .any { return rows }
        let own = rows.filter { $0.language == language || $0.language == .any }
        if !own.isEmpty || spelling.count < 5 { return own }
        return rows
    }

    /// Reads a name: its words, each looked up, then pairs and triples of words joined
    /// (`In_Car`, `Q_Bit`, `pare_brise`), then compounds split (`Sitzheizung` is sitz
    /// heizung, `Heckscheibenheizung` heckscheiben heizung).
    static func read(_ name: String, language: Language) -> Reading {
        let words = Self.words(name)
        var found: [(word: String, term: Term)] = []
        for index in words.indices {
            let rows = terms(words[index], language: language)
            if rows.isEmpty {
                for piece in compound(words[index], language: language) ?? [] { found += terms(piece, language: language).map { (piece, $0) } }
            } else {
                found += rows.map { (words[index], $0) }
            }
            for length in 2...3 where index + length <= words.count {
                let joined = words[index..<(index + length)].joined()
                found += terms(joined, language: language).map { (joined, $0) }
            }
        }
        var senses = Set(found.map(\.term.sense))
        // A word that counts only beside another sense, and "set" in a set point.
        senses = Set(found.filter { $0.term.only.isEmpty || !$0.term.only.isDisjoint(with: senses) }.map(\.term.sense))
        if senses.contains(.setPoint), !found.contains(where: { $0.term.sense == .request && $0.word != "set" }) { senses.remove(.request) }
        var foreign: [String] = []
        for (word, term) in found where term.language == .german || term.language == .french {
            let note = "\(word) = \(term.sense) (\(term.language == .german ? "German" : "French"))"
            if !foreign.contains(note), term.only.isEmpty || !term.only.isDisjoint(with: senses) { foreign.append(note) }
        }
        return Reading(words: words, senses: senses, foreign: foreign)
    }

    /// A compound led by a German, French or common word (English joins its words with `_`
    /// or case: `modeled` is no mode and led): known words of 3 letters or more, German
    /// linking letters `s`, `n`, `en` between them, or a known word of 5 letters or more
    /// and the rest. `nil` when neither.
    static func compound(_ word: String, language: Language) -> [String]? {
        let characters = Array(word)
        guard characters.count >= 6 else { return nil }
        for length in stride(from: characters.count - 1, through: 3, by: -1) {
            let head = String(characters[..<length])
            guard terms(head, language: language).contains(where: { $0.language != .english }) else { continue }
            let rest = String(characters[length...])
            for link in ["", "s", "n", "en"] where rest.hasPrefix(link) {
                let tail = String(rest.dropFirst(link.count))
                if tail.count >= 3, !terms(tail, language: language).isEmpty { return [head, tail] }
                if let more = compound(tail, language: language) { return [head] + more }
            }
            if length >= 5 { return [head] }
        }
        return nil
    }

    /// The language a DBC's names are written in: the one most names have a word of 4
    /// letters or more of (shorter ones are abbreviations in any language); English when
    /// none or tied.
    static func language(of database: DBCDatabase) -> Language {
        var counts: [Language: Int] = [:]
        for message in database.messages {
            for signal in message.signals {
                let languages = Set(words(signal.name).filter { $0.count >= 4 }.flatMap { (lexicon[$0] ?? []).map(\.language) })
                for language in languages where language != .any { counts[language, default: 0] += 1 }
            }
        }
        let english = counts[.english] ?? 0
        let best = [Language.german, .french].max { counts[$0] ?? 0 < counts[$1] ?? 0 }!
        return (counts[best] ?? 0) > english ? best : .english
    }
}
