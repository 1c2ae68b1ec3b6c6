import CANKit
import Synchronization
import Testing

@testable import CANBus

/// A candump log played back (CANKit's CandumpReplay: offsets; CandumpPlayer: sending).
@Suite struct CandumpReplayTests {
    static let log = """
        (1700000000.500000) can0 400#0102030405060708
        # a comment
        (1700000000.600000) can0 401#AA
        (1700000000.550000) can1 402#BB
        (1700000000.900000) can0 20000004#0004000000000000
        403#CC
        (1700000001.300000) can0 404#DD

        """

    @Test func offsetsAreRelativeToTheFirstFrame() throws {
        let replay = try CandumpReplay(parsing: Array(Self.log.utf8))
        #expect(replay.entries.map(\.frame.id.rawValue) == [0x400, 0x401, 0x402, 0x403, 0x404], "the error frame is not replayed")
        // Time never runs backwards; a line without a timestamp keeps the time of the line before.
        #expect(replay.entries.map(\.offset) == [.zero, .milliseconds(100), .milliseconds(100), .milliseconds(100), .milliseconds(800)])
        #expect(replay.entries[0].frame.data == [1, 2, 3, 4, 5, 6, 7, 8])
        // A pass: the last offset plus the mean interval (800 ms / 4).
        #expect(replay.period == .milliseconds(1000))
        #expect(replay.time(of: 1, pass: 2) == .milliseconds(2100))
        // Deterministic: the same text, the same replay.
        #expect(try CandumpReplay(parsing: Array(Self.log.utf8)) == replay)
        #expect(try CandumpReplay(parsing: Array("123#00\n".utf8)).period == .seconds(1))
    }

    @Test func malformedLogNamesTheLine() {
        #expect(throws: CandumpParseError.self) { try CandumpReplay(parsing: Array("(1.0) can0 400#00\nnot a frame\n".utf8)) }
        do {
            _ = try CandumpReplay(parsing: Array("(1.0) can0 400#00\nnot a frame\n".utf8))
        } catch {
            #expect(error.line == 2)
        }
    }

    /// Timing kept: each frame arrives about its offset after the start, in order.
    @Test func playerKeepsTheRecordedTiming() async throws {
        let replay = try CandumpReplay(parsing: Array(Self.log.utf8))
        let bus = VirtualCANBus(interface: "vcan9")
        let listener = bus.makePort()
        let listened = listener.receivedFrames()
        let clock = ContinuousClock()
        let start = clock.now
        let result = await CandumpPlayer(replay: replay, port: bus.makePort()).play(clock: clock)
        #expect(result == (sent: 5, failed: 0))
        var arrivals: [(UInt32, Duration)] = []
        for await received in listened {
            arrivals.append((received.frame.id.rawValue, clock.now - start))
            if arrivals.count == 5 { break }
        }
        #expect(arrivals.map(\.0) == [0x400, 0x401, 0x402, 0x403, 0x404])
        // Never early (a sleep can only be late: under load no upper bound holds).
        for ((_, arrived), entry) in zip(arrivals, replay.entries) {
            #expect(arrived >= entry.offset - .milliseconds(1), "\(arrived) before its offset \(entry.offset)")
        }
        #expect(clock.now - start >= .milliseconds(800), "the last frame 800 ms after the first")
        listener.close()
    }

    @Test func loopAndStep() async throws {
        let replay = try CandumpReplay(parsing: Array("(0.000000) can0 400#01\n(0.010000) can0 401#02\n".utf8))
        let bus = VirtualCANBus(interface: "vcan9")
        let listener = bus.makePort()
        let listened = listener.receivedFrames()
        // Looping: passes follow each other (period 20 ms) until cancelled.
        let looping = Task { await CandumpPlayer(replay: replay, port: bus.makePort(), loop: true).play() }
        var ids: [UInt32] = []
        for await received in listened {
            ids.append(received.frame.id.rawValue)
            if ids.count == 6 { break }
        }
        looping.cancel()
        _ = await looping.value
        #expect(ids == [0x400, 0x401, 0x400, 0x401, 0x400, 0x401])
        // Step mode: one frame per step; the step's false stops.
        let steps = Mutex(0)
        let stepped = await CandumpPlayer(replay: replay, port: bus.makePort(), loop: true).play(step: { _, _ in
            steps.withLock { count in
                count += 1
                return count <= 3
            }
        })
        #expect(stepped == (sent: 3, failed: 0))
        listener.close()
    }
}
