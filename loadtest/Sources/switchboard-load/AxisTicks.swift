/// Round tick values for a chart axis from 0 to at least `maximum`: steps of 1, 2, 2.5 or 5 times a power of ten,
/// about `target` of them, so labels read 0, 250, 500, … rather than 0, 233.7, 467.4, …. Pure; no I/O.
struct AxisTicks: Equatable {
    /// The tick values, ascending from 0; the last is the axis maximum (≥ the data's maximum).
    let values: [Double]
    let step: Double

    /// `whole`: the values are counts (connections, errors), so no step below 1.
    init(maximum: Double, target: Int = 5, whole: Bool = false) {
        let top = maximum.isFinite && maximum > 0 ? maximum : 1
        let raw = whole ? max(1, top / Double(max(1, target))) : top / Double(max(1, target))
        let magnitude = Double.pow(10, (Double.log10(raw)).rounded(.down))
        let mantissa = [1, 2, 2.5, 5, 10].first { $0 * magnitude >= raw * (1 - 1e-9) } ?? 10
        let step = Self.scaled(mantissa, magnitude)
        let count = Int((top / step - 1e-9).rounded(.up))
        self.step = step
        values = (0...max(1, count)).map { Self.scaled(Double($0) * mantissa, magnitude) }
    }

    /// `value × magnitude` without binary noise: dividing by 10ⁿ is exact where multiplying by 0.1ⁿ is not.
    private static func scaled(_ value: Double, _ magnitude: Double) -> Double {
        magnitude >= 1 ? value * magnitude : value / (1 / magnitude).rounded()
    }

    /// The axis maximum: the last tick.
    var maximum: Double { values.last! }

    /// A tick's label: at most the step's decimals, no trailing zeros, no binary noise (0.30000000000000004 → 0.3).
    func label(_ value: Double) -> String {
        let hundredths = Int((value * 100).rounded())
        let whole = String(hundredths / 100)
        let fraction = hundredths % 100
        if fraction == 0 { return whole }
        return whole + "." + (fraction % 10 == 0 ? String(fraction / 10) : (fraction < 10 ? "0" : "") + String(fraction))
    }
}
