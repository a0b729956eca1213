/// A non-empty set that holds a single element inline and allocates a `Set` only from the second on.
///
/// `DeviceMap`'s index from a device id to the users having it maps nearly every id to exactly one user, and a
/// one-element `Set` is a heap allocation of ≈ 100 bytes per connected device. Empty is
/// not a state: an index drops the key instead (`removing` returns nil).
enum OneOrMoreSet<Element: Hashable>: Sequence {
    case one(Element)
    case more(Set<Element>)

    init(_ element: Element) { self = .one(element) }

    /// Adds `element` (nothing when it is there already).
    mutating func insert(_ element: Element) {
        switch self {
        case .one(let first):
            guard first != element else { return }
            self = .more([first, element])
        case .more(var set):
            self = .one(element)  // drops this enum's reference to `set`, so the insert below does not copy it
            set.insert(element)
            self = .more(set)
        }
    }

    /// The set without `element`, or nil when nothing is left.
    func removing(_ element: Element) -> OneOrMoreSet? {
        switch self {
        case .one(let only):
            return only == element ? nil : self
        case .more(var set):
            set.remove(element)
            if set.count == 1, let last = set.first { return .one(last) }
            return set.isEmpty ? nil : .more(set)
        }
    }

    func contains(_ element: Element) -> Bool {
        switch self {
        case .one(let only): return only == element
        case .more(let set): return set.contains(element)
        }
    }

    var count: Int {
        switch self {
        case .one: return 1
        case .more(let set): return set.count
        }
    }

    func makeIterator() -> AnyIterator<Element> {
        switch self {
        case .one(let only):
            var done = false
            return AnyIterator {
                if done { return nil }; done = true; return only
            }
        case .more(let set):
            var iterator = set.makeIterator()
            return AnyIterator { iterator.next() }
        }
    }
}

extension Dictionary {
    /// Adds `element` to the set at `key`, creating it.
    mutating func insert<E: Hashable>(_ element: E, at key: Key) where Value == OneOrMoreSet<E> {
        if self[key] == nil { self[key] = OneOrMoreSet(element) } else { self[key]!.insert(element) }
    }

    /// Removes `element` from the set at `key`, dropping the key once its set is empty.
    mutating func remove<E: Hashable>(_ element: E, at key: Key) where Value == OneOrMoreSet<E> {
        guard let set = self[key] else { return }
        self[key] = set.removing(element)
    }
}
