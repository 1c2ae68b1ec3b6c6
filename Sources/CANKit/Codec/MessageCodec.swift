/// A message compiled for decoding and encoding: each signal's bit field and
/// conversion, and the multiplexing tree, following cantools' `_create_codec`.
///
/// A class so that a codec is passed around as one reference. `@unchecked Sendable`:
/// everything is immutable after `init`; `fields` and the tables of `plan` are memory
/// this object owns, written only in `init` and freed in `deinit`. The decode loop reads fields in place through
/// it (no copies, no reference counting per signal).
public final class MessageCodec: @unchecked Sendable {
    public let messageName: String
    public let length: Int
    let fields: UnsafeMutableBufferPointer<SignalField>
    let root: CodecNode
    /// `root` flattened for the decode loop (no reference counting per frame).
    let plan: DecodePlan
    let signalIndex: [String: Int]
    /// Why this message can be neither decoded nor encoded (a signal does not fit, its
    /// multiplexers select each other); cantools' strict mode refuses it.
    let problem: String?
    /// By signal index: the signals that share a bit with it on some multiplexer path
    /// (cantools' strict mode refuses such messages). Reading needs none of this; a frame
    /// may write one signal of each overlapping pair, so such a signal is optional and two
    /// given ones collide (`encode`).
    let overlaps: [[Int]]
    let hasOverlaps: Bool

    /// Problems found while compiling, for the loader's warnings.
    var problems: [String] {
        if let problem { return [problem] }
        guard let first = overlaps.firstIndex(where: { !$0.isEmpty }) else { return [] }
        let count = overlaps.filter { !$0.isEmpty }.count
        return [
            "signals \(fields[first].name) and \(fields[overlaps[first][0]].name) overlap (\(count) signals share bits with others): decoded by position; a frame encodes at most one of two overlapping signals"
        ]
    }

    init(messageName: String, length: Int, signals: [DBCSignal]) {
        self.messageName = messageName
        self.length = length
        let compiled = signals.map(SignalField.init)
        self.fields = .allocate(capacity: compiled.count)
        _ = self.fields.initialize(from: compiled)
        var index: [String: Int] = [:]
        for (position, signal) in signals.enumerated() { index[signal.name] = position }
        self.signalIndex = index

        // Children grouped by their multiplexer signal (nil: the root).
        var byParent: [String?: [(Int, Set<Int>?)]] = [:]
        for (position, signal) in signals.enumerated() {
            byParent[signal.multiplexerSignal, default: []].append((position, signal.multiplexerIDs.map(Set.init)))
        }
        var cycle: String?
        self.root = CodecNode.build(parent: nil, multiplexerID: nil, byParent: byParent, signals: signals, depth: 0, cycle: &cycle)
        self.plan = DecodePlan(root)

        var problem: String?
        for signal in signals {
            let end = signal.sortKey + signal.length
            let bitCount = 8 * length
            let fits = signal.byteOrder == .littleEndian ? signal.startBit + signal.length <= bitCount : end <= bitCount
            if !fits {
                problem = "signal \(signal.name) (line \(signal.line)) does not fit in the \(length)-byte message"
                break
            }
        }
        if let cycle { problem = problem ?? cycle }
        self.problem = problem
        self.overlaps = Self.overlaps(in: root, fields: compiled)
        self.hasOverlaps = overlaps.contains { !$0.isEmpty }
    }

    deinit {
        _ = fields.deinitialize()
        fields.deallocate()
        plan.deallocate()
    }

    /// cantools' strict check, every pair: the signals that share a bit with each signal
    /// on some multiplexer path (signals of sibling branches never meet).
    private static func overlaps(in root: CodecNode, fields: [SignalField]) -> [[Int]] {
        var owners = [[Int]](repeating: [], count: 8 * 64 + 64)
        var found = [Set<Int>](repeating: [], count: fields.count)
        overlaps(node: root, owners: &owners, fields: fields, found: &found)
        return found.map { $0.sorted() }
    }

    private static func overlaps(node: CodecNode, owners: inout [[Int]], fields: [SignalField], found: inout [Set<Int>]) {
        for index in node.signals {
            for bit in fields[index].bitIndices() where bit < owners.count {
                for other in owners[bit] where other != index {
                    found[index].insert(other)
                    found[other].insert(index)
                }
                if !owners[bit].contains(index) { owners[bit].append(index) }
            }
            guard let branches = node.multiplexers.first(where: { $0.signal == index })?.branches else { continue }
            // Each branch starts from the signals before it; the signals after the
            // multiplexer meet those of every branch.
            let before = owners
            for id in branches.keys.sorted() {
                var branchOwners = before
                overlaps(node: branches[id]!, owners: &branchOwners, fields: fields, found: &found)
                for bit in branchOwners.indices {
                    for signal in branchOwners[bit] where !owners[bit].contains(signal) { owners[bit].append(signal) }
                }
            }
        }
    }
}

/// One level of the multiplexing tree: the signals present at this level and, for each
/// multiplexer among them, the subtree selected by each of its values.
struct CodecNode: Sendable {
    var signals: [Int]
    var multiplexers: [(signal: Int, branches: [Int: CodecNode])]

    var hasMultiplexers: Bool { !multiplexers.isEmpty }

    static func build(
        parent: String?, multiplexerID: Int?, byParent: [String?: [(Int, Set<Int>?)]], signals: [DBCSignal], depth: Int, cycle: inout String?
    ) -> CodecNode {
        var node = CodecNode(signals: [], multiplexers: [])
        guard depth < 32 else {
            cycle = "the multiplexers of this message select each other in a cycle"
            return node
        }
        for (index, ids) in byParent[parent] ?? [] {
            if let multiplexerID, ids?.contains(multiplexerID) != true { continue }
            let signal = signals[index]
            if signal.isMultiplexer {
                var childIDs = Set<Int>()
                for (_, ids) in byParent[signal.name] ?? [] { if let ids { childIDs.formUnion(ids) } }
                // A multiplexer's named values select (possibly empty) branches too.
                for choice in signal.choices { if let id = Int(exactly: choice.value) { childIDs.insert(id) } }
                if !childIDs.isEmpty {
                    var branches: [Int: CodecNode] = [:]
                    for id in childIDs {
                        branches[id] = build(parent: signal.name, multiplexerID: id, byParent: byParent, signals: signals, depth: depth + 1, cycle: &cycle)
                    }
                    node.multiplexers.append((index, branches))
                }
            }
            node.signals.append(index)
        }
        return node
    }
}

/// The multiplexing tree as flat tables of integers in memory the codec owns (freed by
/// `MessageCodec.deinit`), so decoding a frame reads it without copying arrays or
/// dictionaries (each copy is reference counting). Node 0 is the root.
struct DecodePlan {
    struct Node {
        /// Signal indices `signals[signalStart ..< signalStart + signalCount]`.
        var signalStart: Int
        var signalCount: Int
        /// Multiplexers `muxes[muxStart ..< muxStart + muxCount]`.
        var muxStart: Int
        var muxCount: Int
    }

    struct Mux {
        var signal: Int
        /// Branches: ascending multiplexer values `branchIDs[branchStart ..< branchStart + branchCount]`
        /// and the node each selects, at the same positions of `branchNodes`.
        var branchStart: Int
        var branchCount: Int
    }

    let nodes: UnsafeMutablePointer<Node>
    let signals: UnsafeMutablePointer<Int>
    let muxes: UnsafeMutablePointer<Mux>
    let branchIDs: UnsafeMutablePointer<Int>
    let branchNodes: UnsafeMutablePointer<Int>

    init(_ root: CodecNode) {
        var nodes: [Node] = []
        var signals: [Int] = []
        var muxes: [Mux] = []
        var branchIDs: [Int] = []
        var branchNodes: [Int] = []
        // Breadth-first: a node's multiplexers and branches are laid out before its children.
        var pending: [(node: CodecNode, index: Int)] = [(root, 0)]
        nodes.append(Node(signalStart: 0, signalCount: 0, muxStart: 0, muxCount: 0))
        while !pending.isEmpty {
            let (node, index) = pending.removeFirst()
            nodes[index] = Node(signalStart: signals.count, signalCount: node.signals.count, muxStart: muxes.count, muxCount: node.multiplexers.count)
            signals.append(contentsOf: node.signals)
            for (signal, branches) in node.multiplexers {
                muxes.append(Mux(signal: signal, branchStart: branchIDs.count, branchCount: branches.count))
                for id in branches.keys.sorted() {
                    branchIDs.append(id)
                    branchNodes.append(nodes.count)
                    pending.append((branches[id]!, nodes.count))
                    nodes.append(Node(signalStart: 0, signalCount: 0, muxStart: 0, muxCount: 0))
                }
            }
        }
        func copy<T>(_ array: [T]) -> UnsafeMutablePointer<T> {
            let pointer = UnsafeMutablePointer<T>.allocate(capacity: max(array.count, 1))
            pointer.initialize(from: array, count: array.count)
            return pointer
        }
        self.nodes = copy(nodes)
        self.signals = copy(signals)
        self.muxes = copy(muxes)
        self.branchIDs = copy(branchIDs)
        self.branchNodes = copy(branchNodes)
    }

    func deallocate() {
        nodes.deallocate()
        signals.deallocate()
        muxes.deallocate()
        branchIDs.deallocate()
        branchNodes.deallocate()
    }

    /// The node the multiplexer value `id` selects (binary search), nil for none.
    @inline(__always)
    func branch(_ mux: Mux, _ id: Int) -> Int? {
        var low = mux.branchStart
        var high = mux.branchStart + mux.branchCount
        while low < high {
            let middle = (low + high) / 2
            let value = branchIDs[middle]
            if value == id { return branchNodes[middle] }
            if value < id { low = middle + 1 } else { high = middle }
        }
        return nil
    }

    func expectedIDs(_ mux: Mux) -> [Int] {
        Array(UnsafeBufferPointer(start: branchIDs + mux.branchStart, count: mux.branchCount))
    }
}

/// How a signal's value is scaled: cantools' Identity, LinearInteger and Linear conversions.
enum Conversion: Sendable {
    case identity
    case integer(scale: Int128, offset: Int128)
    case linear(scale: Double, offset: DBCNumber)
}

/// A signal's bits and conversion, precomputed for fast decoding and encoding.
struct SignalField: Sendable {
    let name: String
    let length: Int
    let bigEndian: Bool
    let valueType: DBCValueType
    /// First and last payload byte the field touches.
    let firstByte: Int
    let lastByte: Int
    /// Right shift of the assembled bytes that brings the field's LSB to bit 0.
    let shift: Int
    let mask: UInt64
    let conversion: Conversion
    let scaleMagnitude: Double
    /// The offset as a float, for the decode path (cantools adds it as a float there).
    let offsetValue: Double
    /// Choices whose raw values fit Int64: the decode path's cheaper lookup.
    let choicesBySmallValue: [Int64: String]
    /// True when some choice value does not fit Int64 (then the 128-bit table is consulted).
    let hasWideChoices: Bool
    /// When every choice value lies in a span of at most 1024 from `denseChoiceBase`: the
    /// names by `raw - denseChoiceBase` (nil: no choice), a lookup without hashing.
    let denseChoices: [String?]
    let denseChoiceBase: Int64
    let minimum: DBCNumber?
    let maximum: DBCNumber?
    let choicesByValue: [Int128: String]
    let choicesByName: [String: Int128]
    let choiceNames: [String]

    init(_ signal: DBCSignal) {
        name = signal.name
        length = signal.length
        bigEndian = signal.byteOrder == .bigEndian
        valueType = signal.valueType
        if bigEndian {
            let first = signal.sortKey
            let last = first + signal.length - 1
            firstByte = first / 8
            lastByte = last / 8
            shift = 7 - last % 8
        } else {
            firstByte = signal.startBit / 8
            lastByte = (signal.startBit + signal.length - 1) / 8
            shift = signal.startBit % 8
        }
        mask = signal.length >= 64 ? .max : (UInt64(1) << UInt64(signal.length)) - 1

        let isFloat = signal.valueType.isFloat
        let scale = signal.scale
        let offset = signal.offset
        if scale.doubleValue == 1, offset.doubleValue == 0 {
            conversion = .identity
        } else if !isFloat, let integerScale = scale.integralValue, let integerOffset = offset.integralValue {
            conversion = .integer(scale: integerScale, offset: integerOffset)
        } else {
            conversion = .linear(scale: scale.doubleValue, offset: offset)
        }
        scaleMagnitude = abs(scale.doubleValue)
        offsetValue = offset.doubleValue
        minimum = signal.minimum
        maximum = signal.maximum
        var byValue: [Int128: String] = [:]
        var byName: [String: Int128] = [:]
        for choice in signal.choices {
            byValue[choice.value] = choice.name
            byName[choice.name] = choice.value
        }
        choicesByValue = byValue
        var small: [Int64: String] = [:]
        for (value, name) in byValue { if let key = Int64(exactly: value) { small[key] = name } }
        choicesBySmallValue = small
        hasWideChoices = small.count != byValue.count
        if !hasWideChoices, let low = small.keys.min(), let high = small.keys.max(),
            case let (span, overflow) = high.subtractingReportingOverflow(low), !overflow, span < 1024
        {
            var dense = [String?](repeating: nil, count: Int(span) + 1)
            for (value, name) in small { dense[Int(value - low)] = name }
            denseChoices = dense
            denseChoiceBase = low
        } else {
            denseChoices = []
            denseChoiceBase = 0
        }
        choicesByName = byName
        choiceNames = signal.choices.map(\.name)
    }

    /// Absolute bit positions (byte * 8 + bit, LSB = 0) this field occupies.
    func bitIndices() -> [Int] {
        var bits: [Int] = []
        bits.reserveCapacity(length)
        if bigEndian {
            // Walk MSB0 (network order) positions from the field's first bit.
            let msb0Start = (lastByte * 8 + 7 - shift) - (length - 1)
            for n in msb0Start..<(msb0Start + length) { bits.append(8 * (n / 8) + 7 - n % 8) }
        } else {
            let start = firstByte * 8 + shift
            for bit in start..<(start + length) { bits.append(bit) }
        }
        return bits
    }
}

extension SignalField {
    // Derived on use rather than stored: a larger field made the decoder measurably
    // slower (a bisection over the encoder work: ~15% on the suv log), while the encoder
    // reads these once per signal.

    /// The factor as a float (`Double(scale)` of an integer conversion).
    var scaleValue: Double {
        switch conversion {
        case .identity: 1
        case let .integer(scale, _): Double(int128: scale)
        case let .linear(scale, _): scale
        }
    }

    /// `minimum` and `maximum` as floats, for the range check (0 when absent).
    var minimumValue: Double { minimum?.doubleValue ?? 0 }
    var maximumValue: Double { maximum?.doubleValue ?? 0 }
    var hasMinimum: Bool { minimum != nil }
    var hasMaximum: Bool { maximum != nil }
    var hasChoices: Bool { !choicesByValue.isEmpty }
}
