// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/arithmetic.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace fpx {

std::string_view operationSymbol(Operation op) {
    switch (op) {
    case Operation::Add:
        return "+";
    case Operation::Subtract:
        return "-";
    case Operation::Multiply:
        return "*";
    case Operation::Divide:
        return "/";
    case Operation::Negate:
        return "neg";
    case Operation::Abs:
        return "abs";
    case Operation::Min:
        return "min";
    case Operation::Max:
        return "max";
    case Operation::Fma:
        return "fma";
    case Operation::Sqrt:
        return "sqrt";
    }
    return "?";
}

int operandCount(Operation op) {
    switch (op) {
    case Operation::Negate:
    case Operation::Abs:
    case Operation::Sqrt:
        return 1;
    case Operation::Fma:
        return 3;
    default:
        return 2;
    }
}

ArithmeticFlags& ArithmeticFlags::operator|=(const ArithmeticFlags& other) {
    inexact |= other.inexact;
    underflow |= other.underflow;
    overflow |= other.overflow;
    divideByZero |= other.divideByZero;
    invalid |= other.invalid;
    return *this;
}

ArithmeticFlags fromConversionFlags(const ConversionFlags& flags) {
    ArithmeticFlags result;
    result.inexact = flags.inexact;
    result.underflow = flags.underflow;
    result.overflow = flags.overflow;
    result.invalid = flags.invalid;
    return result;
}

std::string arithmeticFlagsToString(const ArithmeticFlags& flags) {
    std::string text =
        flagsToString(ConversionFlags{flags.inexact, flags.underflow, flags.overflow, false});
    for (const auto& [set, name] :
         {std::pair{flags.divideByZero, "divide-by-zero"}, std::pair{flags.invalid, "invalid"}})
        if (set)
            text += (text.empty() ? "" : ",") + std::string(name);
    return text;
}

std::optional<std::string> arithmeticUnsupported(const FormatSpec& spec) {
    if (spec.kind == FormatKind::Lookup)
        return spec.id + " has no arithmetic: its codes index a table of levels, and a sum of "
                         "two levels is in general no level (dequantize, compute, quantize)";
    if (spec.kind == FormatKind::Posit)
        return spec.id + " has no arithmetic here: a posit's operations round once like a "
                         "float's, but their teaching steps (and the quire) are not modelled";
    if (spec.kind == FormatKind::BinaryFloat && !spec.exponentZeroIsSubnormal)
        return spec.id + " has no arithmetic: it holds only powers of two, as the shared scale "
                         "of a block, and has no zero";
    return std::nullopt;
}

namespace {

ExactResult invalidResult() {
    ExactResult r;
    r.value = ExactValue::nan();
    r.invalid = true;
    return r;
}

// IEEE 754 §6.3: an exact zero sum of operands of opposite signs (or of non-zero operands
// that cancel) is +0, except −0 when rounding toward −∞; x + x keeps the sign of x for zeros.
ExactResult exactSum(const ExactValue& a, const ExactValue& b, RoundingMode mode) {
    if (a.isNaN() || b.isNaN())
        return ExactResult{ExactValue::nan()};
    if (a.isInfinity() && b.isInfinity() && a.isNegative() != b.isNegative())
        return invalidResult();
    if (a.isInfinity())
        return ExactResult{a};
    if (b.isInfinity())
        return ExactResult{b};
    ExactValue sum = a + b;
    if (sum.isZero()) {
        const bool bothZeroSameSign = a.isZero() && b.isZero() && a.isNegative() == b.isNegative();
        sum = ExactValue::zero(bothZeroSameSign ? a.isNegative()
                                                : mode == RoundingMode::TowardNegative);
    }
    return ExactResult{sum};
}

ExactResult exactProduct(const ExactValue& a, const ExactValue& b) {
    if (a.isNaN() || b.isNaN())
        return ExactResult{ExactValue::nan()};
    const bool negative = a.isNegative() != b.isNegative();
    if ((a.isInfinity() && b.isZero()) || (a.isZero() && b.isInfinity()))
        return invalidResult();
    if (a.isInfinity() || b.isInfinity())
        return ExactResult{ExactValue::infinity(negative)};
    return ExactResult{(a * b).withSign(negative)};
}

ExactResult exactQuotient(const ExactValue& a, const ExactValue& b) {
    if (a.isNaN() || b.isNaN())
        return ExactResult{ExactValue::nan()};
    const bool negative = a.isNegative() != b.isNegative();
    if ((a.isZero() && b.isZero()) || (a.isInfinity() && b.isInfinity()))
        return invalidResult();
    if (a.isInfinity())
        return ExactResult{ExactValue::infinity(negative)};
    if (b.isInfinity())
        return ExactResult{ExactValue::zero(negative)};
    if (b.isZero()) {
        ExactResult r{ExactValue::infinity(negative)};
        r.divideByZero = true;
        return r;
    }
    return ExactResult{(a / b).withSign(negative)};
}

// minimumNumber / maximumNumber: NaN only when both are NaN; −0 counts as less than +0.
ExactResult exactMinMax(const ExactValue& a, const ExactValue& b, bool wantMax) {
    if (a.isNaN())
        return ExactResult{b};
    if (b.isNaN())
        return ExactResult{a};
    int order = compare(a, b);
    if (order == 0 && a.isZero())
        order = (a.isNegative() ? -1 : 0) + (b.isNegative() ? 1 : 0);
    const bool takeA = wantMax ? order >= 0 : order <= 0;
    return ExactResult{takeA ? a : b};
}

std::int64_t floorHalf(std::int64_t n) {
    return n >= 0 ? n / 2 : -((-n + 1) / 2);
}

// √y (finite, > 0) on the grid of step 2^cell: t·2^cell when that is the root, otherwise the
// midpoint (t + ½)·2^cell of the cell (t·2^cell, (t+1)·2^cell) that holds it, t = ⌊√y / 2^cell⌋.
//
//   M = ⌊y / 2^(2·cell)⌋,  t = isqrt(M)  (⌊√⌊q⌋⌋ = ⌊√q⌋)
//   exact ⇔ the division left no remainder and t² = M
ExactValue rootOnGrid(const ExactValue& y, std::int64_t cell, bool& exact) {
    const Truncation scaled = truncateAt(y, 2 * cell);
    const BigInt t = boost::multiprecision::sqrt(scaled.kept);
    exact = !scaled.inexact() && t * t == scaled.kept;
    if (exact)
        return ExactValue::dyadic(false, t, cell);
    return ExactValue::dyadic(false, 2 * t + 1, cell - 1);
}

} // namespace

ExactValue squareRootStandIn(const ExactValue& x, const FormatSpec& spec, bool& exact) {
    if (!x.isFinite() || x.isNegative() || x.isZero()) {
        exact = true;
        return x;
    }
    // Scaled formats round √x / scale to a level: work on y = x / scale², whose root is in
    // level units, and scale back. Floats have scale 1.
    const bool scaled = spec.kind == FormatKind::Integer;
    const ExactValue y = scaled ? x / (spec.scale * spec.scale) : x;
    const std::int64_t rootLog2 = floorHalf(y.floorLog2());
    // Floats: every rounding boundary in the root's binade [2^r, 2^(r+1)) is a multiple of
    // 2^(r − p) (half an ULP; coarser below the normal range), so a grid of step
    // 2^(r − p − 64) holds them all. Levels: the boundaries are multiples of ½.
    const std::int64_t cell =
        scaled ? std::min<std::int64_t>(rootLog2 - 64, -3) : rootLog2 - spec.precision() - 64;
    const ExactValue root = rootOnGrid(y, cell, exact);
    return scaled ? root * spec.scale : root;
}

ExactValue squareRootApproximation(const ExactValue& x, int bits, bool& exact) {
    if (!x.isFinite() || x.isNegative() || x.isZero()) {
        exact = true;
        return x;
    }
    return rootOnGrid(x, floorHalf(x.floorLog2()) - bits, exact);
}

ExactResult exactOperation(Operation op, std::span<const ExactValue> operands,
                           const FormatSpec& spec, RoundingMode mode) {
    if (operands.size() != static_cast<std::size_t>(operandCount(op)))
        throw std::invalid_argument("exactOperation: wrong number of operands");
    const ExactValue& a = operands[0];
    switch (op) {
    case Operation::Add:
        return exactSum(a, operands[1], mode);
    case Operation::Subtract:
        return exactSum(a, operands[1].negated(), mode);
    case Operation::Multiply:
        return exactProduct(a, operands[1]);
    case Operation::Divide:
        return exactQuotient(a, operands[1]);
    case Operation::Negate:
        return ExactResult{a.negated()};
    case Operation::Abs:
        return ExactResult{a.abs()};
    case Operation::Min:
        return exactMinMax(a, operands[1], false);
    case Operation::Max:
        return exactMinMax(a, operands[1], true);
    case Operation::Fma: {
        // fma(0, ∞, c) is invalid even when c is NaN (IEEE 754 lets either happen; x86 FMA
        // and this core say invalid).
        const ExactResult product = exactProduct(a, operands[1]);
        if (product.invalid)
            return product;
        return exactSum(product.value, operands[2], mode);
    }
    case Operation::Sqrt: {
        if (a.isNaN() || a.isZero())
            return ExactResult{a};
        if (a.isNegative())
            return invalidResult();
        if (a.isInfinity())
            return ExactResult{a};
        ExactResult r;
        bool exact = true;
        r.value = squareRootStandIn(a, spec, exact);
        r.approximate = !exact;
        return r;
    }
    }
    return invalidResult();
}

OperationResult applyOperation(Operation op, std::span<const ExactValue> operands,
                               const FormatSpec& spec, const RoundingOptions& options) {
    OperationResult result;
    result.exact = exactOperation(op, operands, spec, options.mode);
    result.rounded = roundToFormat(result.exact.value, spec, options);
    result.value = decodeCode(spec, result.rounded.code).value;
    result.flags = fromConversionFlags(result.rounded.flags);
    // A NaN born of the operation is the invalid exception; a NaN operand passes through
    // quietly (rounding a NaN into a format that has none is invalid too).
    result.flags.invalid = result.exact.invalid || result.rounded.flags.invalid;
    result.flags.divideByZero = result.exact.divideByZero;
    return result;
}

} // namespace fpx
