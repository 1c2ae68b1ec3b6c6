import CANKit
import CarplayJSON
import Testing

@testable import VehicleKit

/// `profile draft` reads names the way people write them (issue 35): snake_case and
/// camelCase, German and French words, state signals with ON/OFF choices; qualifiers
/// are never values, and the wrong guesses it made on real DBCs stay fixed. The names
/// are the real ones, from the opendbc DBC named beside each.
@Suite struct ProfileDraftNameTests {
    /// A draft of one message (sent by `BCM`) with these `SG_` lines, then `extra` (`VAL_`
    /// lines, more messages).
    static func draft(_ signals: String, extra: String = "", message: String = "Body") throws
        -> ProfileDraft.Draft
    {
        let text = "VERSION \"\"\n\nBU_: BCM HU\n\nBO_ 256 \(message): 8 BCM\n\(signals)\n\n\(extra)\n"
        let bytes = Array(text.utf8)
        let database = try DBCDatabase(parsing: bytes, source: "test.dbc")
        let draft = ProfileDraft.draft(
            database, dbcFile: "test.dbc", bytes: bytes, role: nil, name: "test")
        // Every draft loads again.
        let files = ["d/profile.json": Array(draft.json.serialized().utf8), "d/test.dbc": bytes]
        _ = try ProfileLoader.load(directory: "d") { files[$0] }
        return draft
    }

    /// The bound signal of a property, `nil` when it is not bound.
    static func bound(_ draft: ProfileDraft.Draft, _ key: PropertyKey) -> String? {
        draft.bindings[key]?.signal
    }

    /// The status object the draft wrote for a property.
    static func status(_ draft: ProfileDraft.Draft, _ key: PropertyKey) -> [String: JSONValue]? {
        draft.json.objectValue?["bindings"]?.objectValue?[key.rawValue]?.objectValue?["status"]?
            .objectValue
    }

    // MARK: Qualifiers are never values

    /// `*_QBit`, `*_Qual`, `*_Invalid`, `*V` (GMLAN validity), `*_Fehler`, `*_defekt`: each
    /// says whether another signal holds, and none is taken for the value.
    @Test func qualifiersAreNeverValues() throws {
        let draft = try Self.draft(
            """
             SG_ BlowerSpeed_QBit : 0|1@1+ (1,0) [0|1] "" HU
             SG_ OutsideTemp_Invalid : 1|1@1+ (1,0) [0|1] "" HU
             SG_ FuelLevelPct_Qual : 2|2@1+ (1,0) [0|3] "%" HU
             SG_ RrWndDfgOnV : 4|1@1+ (1,0) [0|1] "" HU
             SG_ Heckscheibenheizung_Fehler : 5|1@1+ (1,0) [0|1] "" HU
             SG_ ZV_verriegelt_defekt : 6|1@1+ (1,0) [0|1] "" HU
             SG_ InCarTempQF : 8|2@1+ (1,0) [0|3] "" HU
             SG_ RrWndDfgOn : 7|1@1+ (1,0) [0|1] "" HU
            """)
        #expect(
            draft.bindings.map { "\($0.key.rawValue) \($0.value.signal)" } == [
                "defroster.rear RrWndDfgOn"
            ])
    }

    // MARK: Wrong guesses, each from a real DBC

    /// vw_mqb.dbc: the power steering's qualifier bit `EPS_BLW_QBit` is no fan.
    @Test func aSteeringQualifierIsNoFan() throws {
        let draft = try Self.draft(
            " SG_ EPS_BLW_QBit : 0|1@1+ (1,0) [0|1] \"\" HU", message: "LH_EPS_03")
        #expect(Self.bound(draft, .fan) == nil)
    }

    /// vw_mqb.dbc: German `def` is defekt (defective): a trailer's failed indicator
    /// `AAG_Blinker_HL_def` is no defroster.
    @Test func germanDefIsDefective() throws {
        let draft = try Self.draft(
            """
             SG_ AAG_Blinker_HL_def : 0|1@1+ (1,0) [0|1] "" HU
             SG_ AAG_Schlusslicht_HR_def : 1|1@1+ (1,0) [0|1] "" HU
             SG_ KBI_Tankfuellstand_Prozent : 8|7@1+ (1,0) [0|100] "Unit_PerCent" HU
            """, message: "Anhaenger_01")
        #expect(
            Self.bound(draft, .defroster(.front)) == nil && Self.bound(draft, .defroster(.rear)) == nil,
            "\(draft.bindings)")
    }

    /// vw_pq.dbc: "low beam front left defective" (`GK1_Abbl_VL_def`) is no defroster.
    @Test func aDefectiveLowBeamIsNoDefroster() throws {
        let draft = try Self.draft(
            " SG_ GK1_Abbl_VL_def : 0|1@1+ (1,0) [0|1] \"\" HU", message: "Gate_Komf_1")
        #expect(draft.bindings.isEmpty, "\(draft.bindings)")
    }

    /// hyundai_2015_ccan.dbc: how loud the doors chirp when locked (`CF_Gway_DrLockSoundRValue`,
    /// a user setting) is not whether they are locked.
    @Test func aLockSoundSettingIsNoLock() throws {
        let draft = try Self.draft(
            " SG_ CF_Gway_DrLockSoundRValue : 0|2@1+ (1,0) [0|3] \"\" HU", message: "CGW_USM1")
        #expect(Self.bound(draft, .locked) == nil)
    }

    /// ford_lincoln_base_pt.dbc: a raw 10-bit count of the fuel sender (0-1023, "Unitless")
    /// is no percentage; the gauge's "Percent" beside it is.
    @Test func aRawFuelCountIsNoPercentage() throws {
        let raw = try Self.draft(
            " SG_ FuelLvlActvSide_No_Raw : 49|10@0+ (1,0) [0|1023] \"Unitless\" HU",
            message: "Cluster_Info_3_FD1")
        #expect(Self.bound(raw, .fuelPercent) == nil)
        let both = try Self.draft(
            """
             SG_ FuelLvlActvSide_No_Raw : 49|10@0+ (1,0) [0|1023] "Unitless" HU
             SG_ FuelLvl_Pc_Dsply : 1|10@0+ (0.108696,-5.217408) [-5.217408|105.9786] "Percent" HU
            """, message: "Cluster_Info_3_FD1")
        #expect(Self.bound(both, .fuelPercent) == "FuelLvl_Pc_Dsply")
    }

    /// ford_cgea1_2_ptcan_2011.dbc: the anti-lock brakes' lamp (`DrvAntiLckLamp_D_Rq`, and
    /// as a status) and a differential lock (`RearDiffLckLamp_D_Rq`, `Diff_Lock`, German
    /// `Quersperre`, `Sperre`) are no door locks, neither bound nor listed as lock requests.
    @Test func brakesAndDifferentialLocksAreNoDoorLocks() throws {
        let draft = try Self.draft(
            """
             SG_ DrvAntiLckLamp_D_Rq : 17|2@0+ (1,0) [0|0] "" HU
             SG_ DrvAntiLckLamp_D_Stat : 20|2@1+ (1,0) [0|3] "" HU
             SG_ RearDiffLckLamp_D_Rq : 25|2@0+ (1,0) [0|3] "" HU
             SG_ Diff_Lock : 2|1@1+ (1,0) [0|1] "" HU
             SG_ RearDiffLck_D_Stat : 3|2@1+ (1,0) [0|3] "" HU
             SG_ VL1_Quersperre : 5|1@1+ (1,0) [0|1] "" HU
             SG_ Diff_Sperre_Status : 6|1@1+ (1,0) [0|1] "" HU
            """)
        #expect(Self.bound(draft, .locked) == nil, "\(draft.bindings)")
        #expect(!draft.notes.contains { $0.property == PropertyKey.locked.rawValue }, "\(draft.notes)")
    }

    /// ford_cgea1_2_bodycan_2011.dbc: the front camera's defogger (`CamraDefog_B_Actl`) is
    /// not the windscreen's.
    /// The same on vw_mqb.dbc: the lane camera's windscreen heater (`LDW_02.LDW_Frontscheibenheizung_aktiv`).
    @Test func aCamerasDefogIsNoFrontDefroster() throws {
        let draft = try Self.draft(" SG_ CamraDefog_B_Actl : 0|1@1+ (1,0) [0|1] \"\" HU")
        #expect(Self.bound(draft, .defroster(.front)) == nil)
        let vw = try Self.draft(
            " SG_ LDW_Frontscheibenheizung_aktiv : 0|1@1+ (1,0) [0|1] \"\" HU", message: "LDW_02")
        #expect(Self.bound(vw, .defroster(.front)) == nil)
    }

    /// ford_cgea1_2_ptcan_2011.dbc: the power manager shedding the rear defroster's load
    /// (`RrDefHtdMirrLdShedStat`) is not the rear defroster's state.
    @Test func aLoadShedIsNoRearDefroster() throws {
        let draft = try Self.draft(" SG_ RrDefHtdMirrLdShedStat : 0|1@1+ (1,0) [0|1] \"\" HU")
        #expect(Self.bound(draft, .defroster(.rear)) == nil)
    }

    /// Automatic high beams (cadillac_ct6_object.dbc), auto hold (ford_lincoln_base_pt.dbc),
    /// automatic volume (hyundai_2015_mcan.dbc), automatic lane changes (tesla_can.dbc) and
    /// the fan's automatic mode (ford_cgea1_2_bodycan_2011.dbc) are not the automatic climate
    /// nor the fan; `CF_Datc_AutoDisp` is.
    @Test func automaticIsTheClimatesOnlyBesideAClimateWord() throws {
        let draft = try Self.draft(
            """
             SG_ AutoHgBmSts : 0|1@1+ (1,0) [0|1] "" HU
             SG_ AutoHoldSwtch_D_Stat : 1|2@1+ (1,0) [0|3] "" HU
             SG_ AMP_AutoVolumeState : 3|1@1+ (1,0) [0|1] "" HU
             SG_ DAS_autoLaneChangeState : 4|2@1+ (1,0) [0|3] "" HU
             SG_ Front_AUTO_FAN_Indicator : 6|1@1+ (1,0) [0|1] "" HU
            """)
        #expect(draft.bindings.isEmpty, "\(draft.bindings)")
        let datc = try Self.draft(
            " SG_ CF_Datc_AutoDisp : 0|2@1+ (1,0) [0|3] \"\" HU", message: "DATC13")
        #expect(Self.bound(datc, .autoMode) == "CF_Datc_AutoDisp")
    }

    /// hyundai_2015_ccan.dbc: the engine's A/C compressor relay (`EMS11.RLY_AC`) cycles with
    /// the compressor, and the telematics unit's `CF_Tmu_AirconCtr` asks: the climate
    /// controller's display `CF_Datc_AcDisp` is the A/C's state.
    @Test func theACIsTheDisplayNotTheCompressorRelayOrARequest() throws {
        let draft = try Self.draft(
            " SG_ RLY_AC : 0|1@1+ (1,0) [0|1] \"\" HU",
            extra: """
                BO_ 257 TMU11: 8 BCM
                 SG_ CF_Tmu_AirconCtr : 0|1@1+ (1,0) [0|1] "" HU

                BO_ 258 DATC13: 8 BCM
                 SG_ CF_Datc_AcDisp : 0|2@1+ (1,0) [0|3] "" HU
                """, message: "EMS11")
        #expect(Self.bound(draft, .airConditioner) == "CF_Datc_AcDisp")
        #expect(draft.notes.contains { $0.kind == .request && $0.signal == "CF_Tmu_AirconCtr" })
    }

    /// hyundai_2015_ccan.dbc: the mirror's outside temperature sensor and the engine's
    /// modelled ambient temperature come after the climate controller's displayed one.
    @Test func theDisplayedOutsideTemperatureComesFirst() throws {
        let draft = try Self.draft(
            " SG_ C_MirOutTempSns : 24|8@1+ (0.5,-40.5) [-40|60] \"deg\" HU",
            extra: """
                BO_ 257 EMS19: 8 BCM
                 SG_ CF_Ems_ModeledAmbTemp : 0|8@1+ (0.75,-48) [-48|143.25] "deg C" HU

                BO_ 258 DATC11: 8 BCM
                 SG_ CR_Datc_OutTempC : 24|8@1+ (0.5,-41) [-41|86.5] "deg" HU
                """, message: "CGW3")
        #expect(Self.bound(draft, .outsideTemperature) == "CR_Datc_OutTempC")
    }

    /// A fan's maximum or limit (hyundai `CF_Fatc_BlwrMax`, Ford `Voice_Blower_Limit`) is no
    /// fan state, and a massage seat's front-left cushion in % (`SeatCshnDrvFL_Pc_Actl`) no
    /// fuel level.
    @Test func limitsAndSeatCushionsAreNoValues() throws {
        let draft = try Self.draft(
            """
             SG_ CF_Fatc_BlwrMax : 0|1@1+ (1,0) [0|1] "" HU
             SG_ Voice_Blower_Limit : 1|1@1+ (1,0) [0|1] "" HU
            """,
            extra: """
                BO_ 257 MassageSeat_Data3: 8 BCM
                 SG_ SeatCshnDrvFL_Pc_Actl : 0|7@1+ (1,0) [0|100] "%" HU
                """)
        #expect(draft.bindings.isEmpty, "\(draft.bindings)")
    }

    /// Locks of other things are not the doors': a 4WD lock (`_4WD11.LOCK_ACT`), a tailgate
    /// (`DrTgateLck_D_Stat`), a soft top (VW `GK2_VD_entriegelt`), a rear climate panel's
    /// lockout (`Rear_HVAC_Control_Status.Rear_Lock_Ind_State`), a seat back
    /// (`Ruecksitzlehne_HL_verr`), a substitute-value flag (VW `ZV_02_alt`), a flash pattern.
    @Test func locksOfOtherThingsAreNoDoorLocks() throws {
        let draft = try Self.draft(
            " SG_ LOCK_ACT : 0|1@1+ (1,0) [0|1] \"\" HU",
            extra: """
                BO_ 257 BCM_Lamp_Stat_FD1: 8 BCM
                 SG_ DrTgateLck_D_Stat : 0|2@1+ (1,0) [0|3] "" HU

                BO_ 258 Rear_HVAC_Control_Status: 8 BCM
                 SG_ Rear_Lock_Ind_State : 0|1@1+ (1,0) [0|1] "" HU
                """, message: "_4WD11")
        #expect(Self.bound(draft, .locked) == nil, "\(draft.bindings)")
        let german = try Self.draft(
            """
             SG_ GK2_VD_entriegelt : 0|1@1+ (1,0) [0|1] "" HU
             SG_ Ruecksitzlehne_HL_verr : 1|1@1+ (1,0) [0|1] "" HU
             SG_ ZV_02_alt : 2|1@1+ (1,0) [0|1] "" HU
             SG_ ZV_FT_offen : 3|1@1+ (1,0) [0|1] "" HU
            """, message: "Gate_Komf_2")
        #expect(Self.bound(german, .locked) == nil, "\(german.bindings)")
        // The indicators' flash pattern when the car locks (Blinkmodi: flash modes).
        let flash = try Self.draft(
            " SG_ BM_ZV_zu : 0|1@1+ (1,0) [0|1] \"\" HU", message: "Blinkmodi_01")
        #expect(Self.bound(flash, .locked) == nil, "\(flash.bindings)")
    }

    /// Further from the corpus: the engine's induction air temperature (hyundai_i30_2014.dbc
    /// `CR_Ems_IndAirTemp`) and a cruise speed set point (psa `P221_Speed_setPoint_Typ`) are
    /// no set temperatures; a radar's range to the car ahead (`CPSTOSClosestInPthVehRng`) is
    /// no fuel range; a second tank (`FlLvlTank2Pct`) comes after the main one.
    @Test func otherSystemsValuesAreNotTheCars() throws {
        let draft = try Self.draft(
            """
             SG_ CR_Ems_IndAirTemp : 0|8@1+ (0.75,-48) [-48|143.25] "deg" HU
             SG_ P221_Speed_setPoint_Typ : 8|8@1+ (1,0) [0|255] "" HU
             SG_ CPSTOSClosestInPthVehRng : 16|12@1+ (0.1,0) [0|409.5] "m" HU
            """, message: "EMS_DCT2")
        #expect(draft.bindings.isEmpty, "\(draft.bindings)")
        let fuel = try Self.draft(
            " SG_ FlLvlTank2Pct : 0|8@1+ (0.392157,0) [0|100] \"%\" HU",
            extra: """
                BO_ 257 Fuel_Information: 8 BCM
                 SG_ FlLvlPct : 0|8@1+ (0.392157,0) [0|100] "%" HU
                """, message: "Alternative_Fuel_Information_LS")
        #expect(Self.bound(fuel, .fuelPercent) == "FlLvlPct")
    }

    // MARK: Names it missed

    /// tesla_model3_vehicle.dbc: a 3-bit state whose choices say ON and OFF is a
    /// defroster's state; the binding names them (SNA and FAULT read as no value).
    @Test func aStateWithOnOffChoicesIsBound() throws {
        let draft = try Self.draft(
            " SG_ VCRIGHT_rearDefrostState : 11|3@1+ (1,0) [0|4] \"\" HU",
            extra:
                "VAL_ 256 VCRIGHT_rearDefrostState 2 \"HEATER_STATE_OFF\" 4 \"HEATER_STATE_FAULT\" 1 \"HEATER_STATE_ON\" 0 \"HEATER_STATE_SNA\" 3 \"HEATER_STATE_OFF_UNAVAILABLE\" ;"
        )
        #expect(Self.bound(draft, .defroster(.rear)) == "VCRIGHT_rearDefrostState")
        #expect(
            Self.status(draft, .defroster(.rear))?["values"]
                == .object([
                    "true": .string("HEATER_STATE_ON"),
                    "false": .array([.string("HEATER_STATE_OFF"), .string("HEATER_STATE_OFF_UNAVAILABLE")]),
                ]))
    }

    /// mazda_2017.dbc: `DOORS_UNLOCKED` is the lock, read the other way round.
    @Test func unlockedIsTheLockInverted() throws {
        let draft = try Self.draft(" SG_ DOORS_UNLOCKED : 30|1@0+ (1,0) [0|255] \"\" HU")
        #expect(Self.bound(draft, .locked) == "DOORS_UNLOCKED")
        #expect(
            Self.status(draft, .locked)?["values"]
                == .object(["true": .integer(0), "false": .integer(1)]))
    }

    /// mazda_2017.dbc: `OUTDOOR_TEMP`, unit "cel", is the outside temperature. Its DBC range
    /// [0|255] refuses anything below 0 °C (and its scale reaches 0.75 °C), so the loader
    /// drops it, with that reason; with a scale and range that carry outside temperatures,
    /// it is bound.
    @Test func outdoorIsOutside() throws {
        let mazda = try Self.draft(" SG_ OUTDOOR_TEMP : 63|8@0+ (0.25,-63) [0|255] \"cel\" HU")
        #expect(
            mazda.notes.contains {
                $0.kind == .dropped && $0.property == PropertyKey.outsideTemperature.rawValue
                    && $0.signal == "OUTDOOR_TEMP" && $0.reason.contains("0")
            }, "\(mazda.notes)")
        let ranged = try Self.draft(" SG_ OUTDOOR_TEMP : 63|8@0+ (0.5,-40) [-40|87.5] \"cel\" HU")
        #expect(Self.bound(ranged, .outsideTemperature) == "OUTDOOR_TEMP")
    }

    /// vw_mqb.dbc: the alarm's status STS_01 says armed (the car locked from outside), horn
    /// and flashers: what the shipped vw-mqb profile binds.
    @Test func theAlarmStatusOfAVWIsFound() throws {
        let draft = try Self.draft(
            """
             SG_ STS_01_CRC : 0|8@1+ (1,0) [0|255] "" HU
             SG_ STS_01_BZ : 8|4@1+ (1,0) [0|15] "" HU
             SG_ STS_Car_not_under_theft : 12|1@1+ (1,0) [0|1] "" HU
             SG_ STS_Car_under_theft : 13|1@1+ (1,0) [0|1] "" HU
             SG_ STS_Anlassersperre : 15|1@1+ (1,0) [0|1] "" HU
             SG_ STS_Alarm_still : 26|1@1+ (1,0) [0|1] "" HU
             SG_ STS_Alarm_Blinker : 50|1@1+ (1,0) [0|1] "" HU
             SG_ STS_Signalhorn : 55|1@1+ (1,0) [0|1] "" HU
            """, message: "STS_01")
        #expect(Self.bound(draft, .locked) == "STS_Car_under_theft")
        #expect(Self.bound(draft, .signal(.audible)) == "STS_Signalhorn")
        #expect(Self.bound(draft, .signal(.visible)) == "STS_Alarm_Blinker")
        #expect(
            draft.json.objectValue?["carSignals"] == .array([.string("audible"), .string("visible")]))
    }

    /// Hyundai's climate displays: "off" displays are the climate's own on/off (read the
    /// other way round; the rear's a zone of its own), `TempDispUnit` the display unit
    /// (0 = °C assumed), `AutoDefogSysOff` automatic defogging, the seat warmers and
    /// ventilated seats (hyundai_2015_mcan.dbc).
    @Test func hyundaiClimateDisplaysAreRead() throws {
        let draft = try Self.draft(
            """
             SG_ DATC_OffDisp : 0|2@1+ (1,0) [0|3] "" HU
             SG_ DATC_Rear_Off_Disp : 2|2@1+ (1,0) [0|3] "" HU
             SG_ CF_Datc_TempDispUnit : 4|2@1+ (1,0) [0|3] "" HU
             SG_ DATC_AutoDefogSysOff_Disp : 6|2@1+ (1,0) [0|3] "" HU
             SG_ DATC_DrSeatWarmerDisp : 22|3@0+ (1,0) [0|0] "" HU
             SG_ DATC_PSVentSeatDisp : 46|3@0+ (1,0) [0|0] "" HU
            """,
            message: "DATC_PE_05")
        #expect(Self.bound(draft, .climateControl) == "DATC_OffDisp")
        #expect(
            Self.status(draft, .climateControl)?["values"]
                == .object(["true": .integer(0), "false": .integer(1)]))
        #expect(Self.bound(draft, .climateControl(zone: "rear")) == "DATC_Rear_Off_Disp")
        #expect(Self.bound(draft, .temperatureUnit) == "CF_Datc_TempDispUnit")
        #expect(Self.bound(draft, .autoDefog) == "DATC_AutoDefogSysOff_Disp")
        #expect(Self.bound(draft, .seat(.frontLeft, .heating)) == "DATC_DrSeatWarmerDisp")
        #expect(Self.bound(draft, .seat(.frontRight, .cooling)) == "DATC_PSVentSeatDisp")
        let climate = draft.json.objectValue?["climate"]?.objectValue
        #expect(climate?["climateControl"] == .bool(true))
        #expect(
            climate?["climateControlZones"]
                == .array([
                    .object([
                        "id": .string("rear"), "seats": .array([.string("rearLeft"), .string("rearRight")]),
                    ])
                ]))
        #expect(
            draft.json.objectValue?["seats"]
                == .array([
                    .object(["seat": .string("frontLeft"), "heating": .integer(3)]),
                    .object(["seat": .string("frontRight"), "cooling": .integer(3)]),
                ]))
    }

    /// hyundai_kia_generic.dbc: a defogger's relay with no place named is the rear window's
    /// (a windscreen is cleared by air; a heated grid is the rear window's).
    @Test func aDefoggerRelayIsTheRearWindows() throws {
        let draft = try Self.draft(
            " SG_ CF_Gway_DefoggerRly : 36|1@1+ (1,0) [0|1] \"\" HU", message: "CGW1")
        #expect(Self.bound(draft, .defroster(.rear)) == "CF_Gway_DefoggerRly")
    }

    /// tesla_can.dbc: `AirTemp_Insd`, `AirTemp_Outsd`, the horn `Hrn_On`.
    @Test func teslasAbbreviationsAreRead() throws {
        let draft = try Self.draft(
            """
             SG_ AirTemp_Insd : 47|8@0+ (0.25,0) [0|63.5] "C" HU
             SG_ AirTemp_Outsd : 63|8@0+ (0.5,-40) [-40|86.5] "C" HU
             SG_ Hrn_On : 26|1@0+ (1,0) [0|1] "" HU
            """, message: "BODY_R1")
        #expect(Self.bound(draft, .cabinTemperature) == "AirTemp_Insd")
        #expect(Self.bound(draft, .outsideTemperature) == "AirTemp_Outsd")
        #expect(Self.bound(draft, .signal(.audible)) == "Hrn_On")
    }

    /// ford_cgea1_2_bodycan_2011.dbc: a 3-bit fan display with no DBC range ([0|0]) has 7
    /// levels, not 8 it cannot carry (the loader refused it).
    @Test func fanLevelsAreWhatTheSignalCarries() throws {
        let draft = try Self.draft(
            " SG_ Front_Fan_Bars_Disply : 39|3@0+ (1,0) [0|0] \"\" HU", message: "RCCM_CC_MBP_Press_Stat")
        #expect(Self.bound(draft, .fanSpeed) == "Front_Fan_Bars_Disply")
        #expect(draft.json.objectValue?["climate"]?.objectValue?["fanSpeedLevels"] == .integer(7))
    }

    /// vw_meb.dbc: a bit with one choice, its 1 (`Fahrzeug_aussen_verriegelt_Istzustand`),
    /// reads 0 as the other state; the target (`_soll`) is no status, and double locking
    /// (`gesafet`) comes after the plain lock.
    @Test func aBitWithOneChoiceIsBound() throws {
        let draft = try Self.draft(
            """
             SG_ ZV_gesafet_extern_ist : 16|1@1+ (1,0) [0|1] "" HU
             SG_ ZV_verriegelt_extern_ist : 17|1@1+ (1,0) [0|1] "" HU
             SG_ ZV_verriegelt_extern_soll : 19|1@1+ (1,0) [0|1] "" HU
            """,
            extra: """
                VAL_ 256 ZV_verriegelt_extern_ist 1 "Fahrzeug_aussen_verriegelt_Istzustand" ;
                VAL_ 256 ZV_gesafet_extern_ist 1 "Fahrzeug aussen gesafet; Istzustand" ;
                """, message: "ZV_02")
        #expect(Self.bound(draft, .locked) == "ZV_verriegelt_extern_ist")
        #expect(
            Self.status(draft, .locked)?["values"]
                == .object(["true": .string("Fahrzeug_aussen_verriegelt_Istzustand"), "false": .integer(0)])
        )
    }

    /// German names: compounds (`Sitzheizung`, `Heckscheibenheizung`, `Aussentemp`,
    /// `Tankfuellstand`), umlauts written out (`Geblaese`, `Tuer`), `Schalter` a switch.
    @Test func germanNamesAreRead() throws {
        let draft = try Self.draft(
            """
             SG_ Sitzheizung_Fahrer_Stufe : 0|2@1+ (1,0) [0|3] "" HU
             SG_ Heckscheibenheizung_Status : 2|1@1+ (1,0) [0|1] "" HU
             SG_ Frontscheibenheizung_Status : 3|1@1+ (1,0) [0|1] "" HU
             SG_ Aussentemp : 8|8@1+ (0.5,-50) [-50|77] "°C" HU
             SG_ Geblaese_Stufe : 16|3@1+ (1,0) [0|7] "" HU
             SG_ Tuer_Verriegelung_Status : 19|1@1+ (1,0) [0|1] "" HU
             SG_ Tankfuellstand_Prozent : 24|7@1+ (1,0) [0|100] "%" HU
             SG_ Reichweite : 32|10@1+ (1,0) [0|1000] "km" HU
             SG_ Klima_AC_Schalter : 20|1@1+ (1,0) [0|1] "" HU
            """, message: "Komfort_01")
        #expect(Self.bound(draft, .seat(.frontLeft, .heating)) == "Sitzheizung_Fahrer_Stufe")
        #expect(Self.bound(draft, .defroster(.rear)) == "Heckscheibenheizung_Status")
        #expect(Self.bound(draft, .defroster(.front)) == "Frontscheibenheizung_Status")
        #expect(Self.bound(draft, .outsideTemperature) == "Aussentemp")
        #expect(Self.bound(draft, .fanSpeed) == "Geblaese_Stufe")
        #expect(Self.bound(draft, .locked) == "Tuer_Verriegelung_Status")
        #expect(Self.bound(draft, .fuelPercent) == "Tankfuellstand_Prozent")
        #expect(Self.bound(draft, .distanceRemaining) == "Reichweite")
        // A switch is a press: a request candidate, not the A/C's state.
        #expect(Self.bound(draft, .airConditioner) == nil)
        #expect(draft.notes.contains { $0.kind == .request && $0.signal == "Klima_AC_Schalter" })
    }

    /// French names, accents written or not: dégivrage, chauffage siège, verrouillage,
    /// carburant, autonomie, `TEMP_EXT`.
    @Test func frenchNamesAreRead() throws {
        let draft = try Self.draft(
            """
             SG_ ETAT_DEGIVRAGE_AR : 0|1@1+ (1,0) [0|1] "" HU
             SG_ CHAUFFAGE_SIEGE_CONDUCTEUR : 1|2@1+ (1,0) [0|3] "" HU
             SG_ ETAT_VERROUILLAGE_PORTES : 3|1@1+ (1,0) [0|1] "" HU
             SG_ NIVEAU_CARBURANT : 8|7@1+ (1,0) [0|100] "%" HU
             SG_ AUTONOMIE_KM : 16|10@1+ (1,0) [0|1000] "km" HU
             SG_ TEMP_EXT : 32|8@1+ (0.5,-40) [-40|87] "degC" HU
             SG_ VITESSE_VENTILATION : 40|3@1+ (1,0) [0|7] "" HU
             SG_ ETAT_CLIMATISATION : 43|1@1+ (1,0) [0|1] "" HU
            """, message: "ETAT_HABITACLE")
        #expect(Self.bound(draft, .defroster(.rear)) == "ETAT_DEGIVRAGE_AR")
        #expect(Self.bound(draft, .seat(.frontLeft, .heating)) == "CHAUFFAGE_SIEGE_CONDUCTEUR")
        #expect(Self.bound(draft, .locked) == "ETAT_VERROUILLAGE_PORTES")
        #expect(Self.bound(draft, .fuelPercent) == "NIVEAU_CARBURANT")
        #expect(Self.bound(draft, .distanceRemaining) == "AUTONOMIE_KM")
        #expect(Self.bound(draft, .outsideTemperature) == "TEMP_EXT")
        #expect(Self.bound(draft, .fanSpeed) == "VITESSE_VENTILATION")
        #expect(Self.bound(draft, .airConditioner) == "ETAT_CLIMATISATION")
    }

    /// The same words in snake_case, camelCase and capitals, and the words spelled with
    /// their accents and umlauts (as a comment or a choice would).
    @Test func spellingsReadAlike() {
        let language = ProfileDraft.Language.english
        let senses = [
            "rearDefrostState", "rear_defrost_state", "REAR_DEFROST_STATE", "RearDefrostState",
        ].map {
            ProfileDraft.read($0, language: language).senses
        }
        #expect(Set(senses).count == 1 && senses[0].isSuperset(of: [.rear, .defrost, .status]))
        #expect(
            ProfileDraft.read("Gebläse", language: .german).senses
                == ProfileDraft.read("Geblaese", language: .german).senses)
        #expect(ProfileDraft.read("Tür", language: .german).senses.contains(.door))
        #expect(ProfileDraft.read("dégivrage", language: .french).senses.contains(.defrost))
        #expect(ProfileDraft.read("siège", language: .french).senses.contains(.seat))
    }
}
