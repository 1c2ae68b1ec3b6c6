import CANKit
import CarplayClient
import CarplayJSON
import CarplayProtocol
import Foundation
import TestSupport
import Testing

@testable import CarplayDash

/// The dash without a terminal or a daemon: the model from Describe, GetState and
/// Monitor replies and key presses, and the renderer's lines for a size.
@Suite struct DashTests {
    static let describe = SedanReplies.describe
    static let getState = SedanReplies.getState

    static func object(_ text: String) throws -> [String: JSONValue] { try SedanReplies.object(text) }

    static func sedan() throws -> DashModel {
        var model = DashModel(vehicle: DashVehicle(describe: try DescribeReply(["vehicle": .object(object(describe))]).vehicle))
        model.apply(state: try GetStateReply(object(getState)), now: 100)
        return model
    }

    static func monitor(_ frame: String, _ state: [String: JSONValue]) throws -> MonitorReply {
        try MonitorReply(["frame": .string(frame), "keys": .array(state.keys.sorted().map { .string($0) }), "state": .object(state)])
    }

    // MARK: - Model

    @Test func describeGivesZonesSeatsAndRanges() throws {
        let vehicle = try Self.sedan().vehicle
        #expect(vehicle.name == "Example Sedan")
        #expect(vehicle.zones == [.init(id: "left", seats: ["frontLeft", "rearLeft"]), .init(id: "right", seats: ["frontRight", "rearRight"])])
        #expect(vehicle.selectableSeats.map(\.name) == ["frontLeft", "frontRight"])
        #expect(vehicle.temperatureStep == 0.5 && vehicle.fanSpeedLevels == 7)
        #expect(vehicle.station(band: "FM", frequency: 102.2) == "Jazz FM")
    }

    @Test func monitorRepliesUpdateValuesAndFrames() throws {
        var model = try Self.sedan()
        model.apply(monitor: try Self.monitor("(1.000000) vcan0 400#0102", ["climate.temperature.left": .number(23)]), now: 101)
        model.apply(monitor: try Self.monitor("(2.000000) vcan0 3F0#AA", ["lock.locked": .bool(true)]), now: 101.5)
        model.apply(monitor: try Self.monitor("(3.000000) vcan0 400#0304", ["climate.cabinTemperature": .number(22.5)]), now: 102)
        #expect(model.values["climate.temperature.left"] == .number(23))
        #expect(model.values["lock.locked"] == .bool(true))
        // In ID order, with the last payload and the keys it changed.
        #expect(model.frames.messages.map(\.idText) == ["3F0", "400"])
        let climate = model.frames.messages[1]
        #expect(climate.dataText == "0304" && climate.keys == ["climate.cabinTemperature"])
        #expect(model.frames.rate(of: climate) == 0, "no GetBusTraffic reading yet")
        // GetState right after does not undo what the stream just said.
        model.apply(state: try GetStateReply(Self.object(Self.getState)), now: 102.2)
        #expect(model.values["climate.temperature.left"] == .number(23))
        model.apply(state: try GetStateReply(Self.object(Self.getState)), now: 110)
        #expect(model.values["climate.temperature.left"] == .number(21))
    }

    static func traffic(_ uptime: Double, _ messages: [(id: String, name: String, received: Int, untrusted: Int, sent: Int, data: String?)]) throws
        -> GetBusTrafficReply
    {
        let entries: [JSONValue] = messages.map { message in
            var entry: [String: JSONValue] = [
                "id": .string(message.id), "name": .string(message.name), "received": .integer(message.received),
                "untrusted": .integer(message.untrusted), "sent": .integer(message.sent),
            ]
            if let data = message.data { entry["lastFrame"] = .string("(1.000000) vcan0 \(message.id)#\(data)") }
            return .object(entry)
        }
        return try GetBusTrafficReply(["messages": .array(entries), "uptime": .number(uptime)])
    }

    @Test func busTrafficGivesEveryIDWithItsRateAndCounts() throws {
        var model = try Self.sedan()
        model.apply(traffic: try Self.traffic(5, [("400", "ClimateStatus", 50, 0, 0, "0102"), ("300", "ClimateCommand", 0, 0, 2, nil)]))
        model.apply(
            traffic: try Self.traffic(
                7, [("400", "ClimateStatus", 70, 3, 0, "0304"), ("300", "ClimateCommand", 0, 0, 2, nil), ("18FEF100", "Extended", 1, 0, 0, "")]))
        #expect(model.frames.messages.map(\.idText) == ["300", "400", "18FEF100"])
        let status = model.frames.messages[1]
        #expect(status.name == "ClimateStatus" && status.received == 70 && status.untrusted == 3 && status.dataText == "0304")
        #expect(model.frames.rate(of: status) == 10.0)  // 20 frames in 2 s of the daemon's uptime
        #expect(model.frames.messages[0].sent == 2 && model.frames.rate(of: model.frames.messages[0]) == 0)
        #expect(model.frames.messages[2].id.isExtended)
        // Readings older than the window leave it.
        model.apply(traffic: try Self.traffic(17, [("400", "ClimateStatus", 170, 3, 0, "0506")]))
        #expect(model.frames.rate(of: model.frames.messages[1]) == 10.0)
        #expect(model.frames.messages[1].readings.count == 2)
        // A new session (a reload) counts from 0 again: no negative rate.
        model.apply(traffic: try Self.traffic(1, [("400", "ClimateStatus", 10, 0, 0, "0708")]))
        #expect(model.frames.rate(of: model.frames.messages[1]) == 0)
        let pane = DashRenderer.framePane(model, columns: 80, rows: 5).map(\.text)
        #expect(pane[1].hasPrefix("  300       ClimateCommand     0.0") && pane[1].contains("sent 2"), "\(pane)")
        #expect(pane[2].hasPrefix("  400       ClimateStatus      0.0  0708"), "\(pane)")
    }

    /// The frame detail names each key the frame set by its VSS paths (io.carplayd.VSS).
    @Test func theFrameDetailNamesTheVSSPaths() throws {
        var model = try Self.sedan()
        model.vssPaths = ["lock.locked": ["Vehicle.Cabin.Door.Row1.DriverSide.IsLocked", "Vehicle.Cabin.Door.Row1.PassengerSide.IsLocked"]]
        model.apply(monitor: try Self.monitor("(2.000000) vcan0 430#AA", ["lock.locked": .bool(true)]), now: 101.5)
        let message = try #require(model.frames.messages.first { $0.idText == "430" })
        let lines = DashRenderer.signalLines(model, message).map(\.text)
        #expect(lines.first?.contains("lock.locked=on") == true, "\(lines)")
        #expect(
            lines.last == "      lock.locked → Vehicle.Cabin.Door.Row1.DriverSide.IsLocked, Vehicle.Cabin.Door.Row1.PassengerSide.IsLocked", "\(lines)")
    }

    @Test func candumpIDsReadBack() {
        #expect(CANID(candump: "400") == CANID(standard: 0x400))
        #expect(CANID(candump: "18FEF100") == CANID(extended: 0x18FE_F100))
        #expect(CANID(candump: "00000400")?.isExtended == true)
        #expect(CANID(candump: "800") == nil && CANID(candump: "4000") == nil && CANID(candump: "") == nil && CANID(candump: "+40") == nil)
    }

    @Test func aRequestIsPendingUntilTheVehicleShowsIt() throws {
        var model = try Self.sedan()
        let request = try #require(DashKeys.handle(.character("+"), &model))
        #expect(request.intent == .setClimateSettingsInCar)
        #expect(request.parameters == ["temperature": .object(["value": .number(21.5), "unit": .string("celsius")]), "climateZone": .string("frontLeft")])
        let number = model.begin(request, now: 100)
        #expect(model.wanted["climate.temperature.left"]?.phase == .pending)
        // A second press starts from what is wanted, not from what is shown.
        #expect(DashKeys.handle(.character("+"), &model)?.targets == ["climate.temperature.left": .number(22)])
        model.apply(monitor: try Self.monitor("(1.0) vcan0 400#00", ["climate.temperature.left": .number(21.5)]), now: 100.1)
        #expect(model.wanted["climate.temperature.left"] == nil)
        model.finish(number, .confirmed(sentence: "Front left zone set to 21.5 °C (confirmed by the vehicle)", state: [:]), now: 100.2)
        #expect(model.note == DashNote(text: "✓ Front left zone set to 21.5 °C (confirmed by the vehicle)", kind: .confirmed))
    }

    @Test func aRefusedRequestKeepsItsReasonUntilTheStatusSettles() throws {
        var model = try Self.sedan()
        let request = try #require(DashKeys.handle(.character("l"), &model))
        #expect(request.intent == .setCarLockStatus && request.parameters == ["locked": .bool(true)])
        let number = model.begin(request, now: 100)
        model.finish(number, .failed(reason: "SetCarLockStatus needs an unlocked device"), now: 100.5)
        #expect(model.wanted["lock.locked"]?.phase == .failed("SetCarLockStatus needs an unlocked device"))
        #expect(model.note?.kind == .failed)
        model.expire(now: 105)
        #expect(model.wanted["lock.locked"] != nil)
        model.expire(now: 100.5 + DashModel.failedMarkSeconds)
        #expect(model.wanted["lock.locked"] == nil)
        // Or sooner, when the value changes (someone else locked it).
        let again = model.begin(try #require(DashKeys.handle(.character("l"), &model)), now: 110)
        model.finish(again, .failed(reason: "no"), now: 110.5)
        model.apply(monitor: try Self.monitor("(1.0) vcan0 3F0#01", ["lock.locked": .bool(true)]), now: 111)
        #expect(model.wanted["lock.locked"] == nil)
    }

    static func command(_ id: Int, _ status: String, _ targets: [String: JSONValue], detail: String? = nil) throws -> MonitorReply {
        var command: [String: JSONValue] = [
            "id": .integer(id), "intent": .string("SetSeatSettingsInCar"), "status": .string(status), "targets": .object(targets),
        ]
        if let detail { command["detail"] = .string(detail) }
        return try MonitorReply(["command": .object(command)])
    }

    @Test func anotherClientsCommandIsPendingThenConfirmed() throws {
        var model = try Self.sedan()
        model.apply(monitor: try Self.command(7, "pending", ["seat.frontLeft.heating": .integer(2)]), now: 100)
        #expect(model.wanted["seat.frontLeft.heating"] == DashWanted(target: .integer(2), phase: .pending, origin: .command(7), since: 100))
        #expect(model.note == DashNote(text: "… SetSeatSettingsInCar: seat.frontLeft.heating=2, waiting for the vehicle", kind: .pending))
        // The status frame shows the target (clears the mark), then the daemon says confirmed.
        model.apply(monitor: try Self.monitor("(1.0) vcan0 410#02", ["seat.frontLeft.heating": .integer(2)]), now: 101)
        #expect(model.wanted["seat.frontLeft.heating"] == nil)
        model.apply(monitor: try Self.command(7, "confirmed", ["seat.frontLeft.heating": .integer(2)]), now: 101)
        #expect(model.note == DashNote(text: "✓ SetSeatSettingsInCar: seat.frontLeft.heating=2 confirmed", kind: .confirmed))
        #expect(model.commandsShown.isEmpty)
    }

    @Test func anotherClientsFailedCommandKeepsItsReason() throws {
        var model = try Self.sedan()
        model.apply(monitor: try Self.command(8, "pending", ["seat.frontRight.heating": .integer(3)]), now: 100)
        model.apply(
            monitor: try Self.command(8, "failed", ["seat.frontRight.heating": .integer(3)], detail: "the vehicle rejected SeatCommand: Rejected"), now: 100.5)
        #expect(model.wanted["seat.frontRight.heating"]?.phase == .failed("the vehicle rejected SeatCommand: Rejected"))
        #expect(model.note?.kind == .failed)
        model.expire(now: 100.5 + DashModel.failedMarkSeconds)
        #expect(model.wanted["seat.frontRight.heating"] == nil)
    }

    @Test func theDashsOwnRequestStaysItsOwnWhenTheDaemonAnnouncesIt() throws {
        var model = try Self.sedan()
        let request = try #require(DashKeys.handle(.character("h"), &model))
        let number = model.begin(request, now: 100)
        let key = try #require(request.targets.keys.first)
        model.apply(monitor: try Self.command(9, "pending", request.targets), now: 100.01)
        #expect(model.wanted[key]?.origin == .request(number))
        model.apply(monitor: try Self.command(9, "confirmed", request.targets), now: 100.2)
        // The request's own outcome writes the note (the verbs' sentence).
        #expect(model.note?.kind == .pending)
        // A command that asks for what is shown already marks nothing.
        model.apply(monitor: try Self.command(10, "pending", ["lock.locked": .bool(false)]), now: 101)
        #expect(model.wanted["lock.locked"] == nil && model.commandsShown.isEmpty)
    }

    @Test func aLostStreamDropsTheMarksOfCommands() throws {
        var model = try Self.sedan()
        model.apply(monitor: try Self.command(11, "pending", ["seat.frontLeft.heating": .integer(1)]), now: 100)
        model.lost("carplayd ended the Monitor stream")
        #expect(model.wanted.isEmpty && model.commandsShown.isEmpty)
    }

    @Test func keysSelectAndSend() throws {
        var model = try Self.sedan()
        #expect(DashKeys.handle(.tab, &model) == nil && model.pane == .frames)
        #expect(DashKeys.handle(.tab, &model) == nil && model.pane == .cabin)
        _ = DashKeys.handle(.character("z"), &model)
        #expect(model.selectedZone?.id == "right")
        #expect(DashKeys.handle(.character("-"), &model)?.parameters["climateZone"] == .string("frontRight"))
        _ = DashKeys.handle(.character("s"), &model)
        #expect(model.selectedSeat?.name == "frontRight")
        #expect(DashKeys.handle(.character("h"), &model)?.parameters == ["seat": .string("frontRight"), "enableHeating": .bool(true), "level": .integer(1)])
        model.values["seat.frontRight.heating"] = .integer(3)
        #expect(DashKeys.handle(.character("h"), &model)?.parameters == ["seat": .string("frontRight"), "enableHeating": .bool(false)])
        #expect(DashKeys.handle(.character("c"), &model) == nil && model.note?.text == "this car has no cooling on frontRight")
        #expect(DashKeys.handle(.character("f"), &model)?.parameters == ["fanSpeedIndex": .integer(4)])
        #expect(DashKeys.handle(.character("r"), &model)?.parameters == ["airCirculationMode": .string("recirculateAir")])
        #expect(DashKeys.handle(.character("D"), &model)?.parameters == ["defroster": .string("rear"), "enable": .bool(true)])
        _ = DashKeys.handle(.character("?"), &model)
        #expect(model.showHelp)
        _ = DashKeys.handle(.character("x"), &model)
        #expect(!model.showHelp && !model.quit)
        _ = DashKeys.handle(.interrupt, &model)
        #expect(model.quit)
    }

    @Test func panelModeSendsTheDriversOwnChange() throws {
        var model = try Self.sedan()
        #expect(DashKeys.handle(.character("p"), &model) == nil && model.mode == .panel)
        let status = DashRenderer.render(model, columns: 80, rows: 24, now: 100).map(\.text)
        #expect(status[0].hasPrefix(" Example Sedan  PANEL (driver)  ● reachable"))
        #expect(status[23].hasPrefix(" PANEL: you are the driver  p intents"))
        // The same keys, the same targets: now the driver's, not an intent's.
        let warmer = try #require(DashKeys.handle(.character("+"), &model))
        #expect(warmer.asDriver && warmer.targets == ["climate.temperature.left": .number(21.5)])
        let heat = try #require(DashKeys.handle(.character("h"), &model))
        #expect(heat.asDriver && heat.targets == ["seat.frontLeft.heating": .integer(1)])
        let lock = try #require(DashKeys.handle(.character("l"), &model))
        #expect(lock.asDriver && lock.targets == ["lock.locked": .bool(true)])
        // Pending until the status frames show it, as an intent is.
        let number = model.begin(warmer, now: 100)
        #expect(model.note?.text == "… the driver sets climate.temperature.left=21.5")
        #expect(model.wanted["climate.temperature.left"]?.phase == .pending)
        model.apply(monitor: try Self.monitor("(1.0) vcan0 400#00", ["climate.temperature.left": .number(21.5)]), now: 100.1)
        #expect(model.wanted["climate.temperature.left"] == nil && model.values["climate.temperature.left"] == .number(21.5))
        model.finish(number, .confirmed(sentence: "the driver set climate.temperature.left=21.5", state: [:]), now: 100.2)
        // Back to intents.
        #expect(DashKeys.handle(.character("p"), &model) == nil && model.mode == .intents)
        #expect(DashKeys.handle(.character("+"), &model)?.asDriver == false)
    }

    @Test func bytesBecomeKeys() {
        #expect(
            DashKey.parse(Array("\t+\u{1B}[A\u{1B}OB\u{1B}[Z\u{03}q\r\u{1B}".utf8)) == [
                .tab, .character("+"), .up, .down, .backTab, .interrupt, .character("q"), .enter, .escape,
            ])
        #expect(DashKey.parse(Array("\u{1B}[15~h".utf8)) == [.character("h")])
    }

    // MARK: - Renderer

    @Test func an80x24RenderOfTheSedan() throws {
        var model = try Self.sedan()
        model.apply(monitor: try Self.monitor("(1.000000) vcan0 400#4437171A2B007C00", ["climate.cabinTemperature": .number(23)]), now: 99)
        model.apply(
            traffic: try Self.traffic(10, [("400", "ClimateStatus", 100, 0, 0, "4437171A2B007C00"), ("410", "SeatStatus", 10, 0, 0, "6D09010000000000")]))
        model.apply(
            traffic: try Self.traffic(
                11,
                [
                    ("300", "ClimateCommand", 0, 0, 1, nil), ("400", "ClimateStatus", 110, 0, 0, "4437171A2B007C00"),
                    ("410", "SeatStatus", 11, 0, 0, "6D09010000000000"),
                ]))
        let number = model.begin(try #require(DashKeys.handle(.character("+"), &model)), now: 100)
        _ = number
        let lines = DashRenderer.render(model, columns: 80, rows: 24, now: 100).map(\.text)
        let expected = [
            " Example Sedan  ● reachable  bus vcan0 (embedded) error-active  untrusted 0",
            "─[Cabin]────────────────────────────────────────────────────────────────────────",
            "  front defroster off                    doors unlocked",
            "  ┌▸left · driver ────────────────────┐  ┌ right ────────────────────────────┐",
            "  │ set 21 °C → 21.5 °C …             │  │ set 21 °C                         │",
            "  │▸frontLeft     heat 0              │  │ frontRight    heat 0              │",
            "  │ rearLeft      –                   │  │ rearRight     –                   │",
            "  └───────────────────────────────────┘  └───────────────────────────────────┘",
            "  rear defroster off",
            "  cabin 23 °C  fan on 3/7  A/C on  auto off  climate on  air fresh",
            "  audio radio · FM 102.2 MHz Jazz FM                   fuel 62 % · range 420 km",
            "─ Frames ─ 3 CAN IDs on the bus · untrusted 0 ──────────────────────────────────",
            "  ID        message             Hz  data              changed",
            "  300       ClimateCommand     0.0                    sent 1",
            "  400       ClimateStatus       10  4437171A2B007C00  climate.cabinTemperature",
            "  410       SeatStatus         1.0  6D09010000000000",
            "", "", "", "", "", "",
            " … SetClimateSettingsInCar sent, waiting for the vehicle",
            " Tab frames  z zone  s seat  +/- temp  h heat  f/F fan  l lock  ? help  q quit",
        ]
        #expect(lines.count == 24)
        for (index, line) in lines.enumerated() {
            #expect(line.count == 80, "row \(index) is \(line.count) wide")
            #expect(trimmed(line) == expected[index], "row \(index)")
        }
    }

    @Test func everySizeGetsExactlyItsRowsAndColumns() throws {
        var model = try Self.sedan()
        for index in 0..<30 {
            model.apply(monitor: try Self.monitor("(1.0) vcan0 \(String(0x100 + index, radix: 16))#00", ["climate.fanSpeed": .integer(3)]), now: 100)
        }
        for (columns, rows) in [(80, 24), (40, 10), (132, 50), (20, 5), (1, 1)] {
            for pane in [DashPane.cabin, .frames] {
                model.pane = pane
                model.frameIndex = 29
                let lines = DashRenderer.render(model, columns: columns, rows: rows, now: 101)
                #expect(lines.count == rows && lines.allSatisfy { $0.width == columns }, "\(columns)x\(rows)")
            }
        }
        // The selected message stays in view in a short pane.
        model.pane = .frames
        #expect(DashRenderer.render(model, columns: 80, rows: 24, now: 101).contains { $0.text.hasPrefix("▸ 11D") })
    }

    @Test func unknownSourcesAndPowerKeysAreShownAsTheyCome() throws {
        var model = try Self.sedan()
        model.apply(
            monitor: try Self.monitor(
                "", ["audio.source": .string("sourceCarPlay"), "power.batteryTemperature": .number(31), "power.chargePercent": .number(80)]),
            now: 101)
        let text = DashRenderer.plainText(model).joined(separator: "\n")
        #expect(text.contains("audio sourceCarPlay"))
        #expect(text.contains("fuel 62 % · charge 80 % · range 420 km · batteryTemperature 31"))
    }

    /// Issue 25, item 7: what carplayd reads that no SiriKit intent carries is shown on a
    /// line of its own, marked `ext`.
    @Test func extensionsHaveALineOfTheirOwn() throws {
        let describe = Self.describe.replacingOccurrences(
            of: #""audio.source","#, with: #""audio.source","extension.autoDefog","extension.outsideTemperature","#)
        var model = DashModel(vehicle: DashVehicle(describe: try DescribeReply(["vehicle": .object(Self.object(describe))]).vehicle))
        model.apply(state: try GetStateReply(Self.object(Self.getState)), now: 100)
        model.apply(monitor: try Self.monitor("", ["extension.outsideTemperature": .number(12.5), "extension.autoDefog": .bool(true)]), now: 101)
        let text = DashRenderer.plainText(model)
        #expect(text.contains { $0.hasPrefix("  ext   outside 12.5 °C  auto defog on") }, "\(text.joined(separator: "\n"))")
    }

    @Test func helpListsTheKeys() throws {
        var model = try Self.sedan()
        model.showHelp = true
        let lines = DashRenderer.render(model, columns: 80, rows: 24, now: 100).map(\.text)
        #expect(lines.contains { $0.hasPrefix("  Tab           switch between the cabin and the frame pane") })
    }

    func trimmed(_ line: String) -> String {
        var line = line
        while line.last == " " { line.removeLast() }
        return line
    }
}
