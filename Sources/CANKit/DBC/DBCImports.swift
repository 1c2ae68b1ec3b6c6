/// `CM_ "IMPORT file.dbc";`: opendbc's source form of a DBC, which includes a common
/// file's messages (its generator writes them out in the shipped files). The imported
/// file is read relative to the importing one, before it: what the importing file
/// declares itself wins. A cycle, or a file that cannot be read, is an unreadable
/// statement at the IMPORT comment; the rest loads.
extension DBCDatabase {
    /// Loads the DBC at `path`, following its imports; `read` gives a file's bytes (nil:
    /// it cannot be read).
    public static func load(path: String, read: (String) -> [UInt8]?) throws(DBCParseError) -> DBCDatabase {
        guard let bytes = read(path) else {
            throw DBCParseError(file: path, line: 1, column: 1, expected: "a readable DBC file", found: "")
        }
        return try DBCDatabase(parsing: bytes, source: path, read: read)
    }

    /// Parses `bytes` (the file `source`), following its imports with `read`.
    public init(parsing bytes: [UInt8], source: String, read: (String) -> [UInt8]?) throws(DBCParseError) {
        let declarations = Self.declarations(of: bytes, source: source, including: [source], read: read)
        var assembler = DBCAssembler(source: source, declarations: declarations)
        self = try assembler.assemble()
    }

    static func declarations(of bytes: [UInt8], source: String, including chain: [String], read: (String) -> [UInt8]?) -> DBCDeclarations {
        var parser = DBCParser(bytes: bytes, source: source)
        var own = parser.parse()
        guard !own.imports.isEmpty else { return own }
        var merged = DBCDeclarations()
        for entry in own.imports {
            let path = Self.path(entry.file, relativeTo: source)
            if chain.contains(path) {
                own.unreadableStatements.append(
                    DBCParseError(
                        file: source, line: entry.line, column: entry.column,
                        expected: "an IMPORT without a cycle: " + (chain + [path]).joined(separator: " -> "), found: ""))
                continue
            }
            guard let imported = read(path) else {
                own.unreadableStatements.append(
                    DBCParseError(file: source, line: entry.line, column: entry.column, expected: "a readable file to IMPORT: \(path)", found: ""))
                continue
            }
            merged.append(Self.declarations(of: imported, source: path, including: chain + [path], read: read))
        }
        merged.append(own)
        return merged
    }

    /// `file` as seen from the directory of `source` (absolute paths stay as they are).
    static func path(_ file: String, relativeTo source: String) -> String {
        guard !file.hasPrefix("/"), let slash = source.lastIndex(of: "/") else { return file }
        return String(source[...slash]) + file
    }
}

extension DBCDeclarations {
    /// Adds `other`'s declarations after these: where both declare the same thing, the
    /// later wins, as within one file.
    mutating func append(_ other: DBCDeclarations) {
        version = other.version ?? version
        for node in other.nodes where !nodes.contains(node) { nodes.append(node) }
        messages += other.messages
        if let comment = other.busComment { busComment = (busComment ?? "") + comment }
        signalComments.merge(other.signalComments) { mine, theirs in mine.merging(theirs) { $1 } }
        messageComments.merge(other.messageComments) { $1 }
        nodeComments.merge(other.nodeComments) { $1 }
        attributeDefinitions += other.attributeDefinitions
        attributeDefaults.merge(other.attributeDefaults) { $1 }
        attributes += other.attributes
        choices += other.choices
        valueTables += other.valueTables
        signalTypes += other.signalTypes
        multiplexerValues += other.multiplexerValues
        messageSenders.merge(other.messageSenders) { $0 + $1 }
        signalGroups.merge(other.signalGroups) { $0 + $1 }
        warnings += other.warnings
        unreadableMessages += other.unreadableMessages
        unreadableStatements += other.unreadableStatements
    }
}
