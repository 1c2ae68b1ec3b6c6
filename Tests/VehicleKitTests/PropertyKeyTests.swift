import Testing

@testable import VehicleKit

@Suite struct PropertyKeyTests {
    @Test func vocabularyKinds() {
        #expect(PropertyKey.temperature(zone: "left").kind == .number)
        #expect(PropertyKey.seat(.rearLeft, .massage).kind == .integer)
        #expect(PropertyKey("seat.driver.heating").kind == nil, "seat keys name physical seats")
        #expect(PropertyKey.locked.kind == .bool)
        #expect(PropertyKey.audioSource.kind == .enumeration(EnumerationCases(CarAudioSource.self)))
        #expect(PropertyKey("climate.nonsense").kind == nil)
        #expect(PropertyKey.fuelPercent.isStatusOnly)
        #expect(!PropertyKey.fanSpeed.isStatusOnly)
    }

    @Test func seatRoles() {
        #expect(CarSeat.driver.physicalSeats(driverSide: .left) == [.frontLeft])
        #expect(CarSeat.driver.physicalSeats(driverSide: .right) == [.frontRight])
        #expect(CarSeat.rear.physicalSeats(driverSide: .left) == [.rearLeft, .rearRight])
        #expect(CarSeat.all.physicalSeats(driverSide: .left).count == 6)
    }

    @Test func steppedRangeSnapsAndClamps() {
        let fm = SteppedRange(min: 87.5, max: 108, step: 0.1)
        #expect(fm.snap(101.14) == 101.1)
        #expect(fm.snap(120) == 108)
        let celsius = SteppedRange(min: 16, max: 28, step: 0.5)
        #expect(celsius.snap(21.3) == 21.5)
        #expect(celsius.snap(21.2) == 21.0)
        #expect(!celsius.contains(30))
    }
}
