// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/conversion.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace fpx {

// The operations a machine whose arithmetic type is a format performs. Each is computed
// exactly on the operands' values and rounded once into the format (docs/behaviour.md,
// "Arithmetic").
enum class Operation {
    Add,
    Subtract,
    Multiply,
    Divide,
    Negate,
    Abs,
    Min, // IEEE 754-2019 minimumNumber: a NaN operand is ignored, −0 < +0
    Max, // IEEE 754-2019 maximumNumber
    Fma, // a × b + c, one rounding
    Sqrt,
};

// "+", "-", "*", "/", "neg", "abs", "min", "max", "fma", "sqrt".
std::string_view operationSymbol(Operation op);
int operandCount(Operation op);

// The five IEEE 754 exception flags of one operation.
struct ArithmeticFlags {
    bool inexact = false;
    bool underflow = false;
    bool overflow = false;
    bool divideByZero = false;
    bool invalid = false;

    bool any() const { return inexact || underflow || overflow || divideByZero || invalid; }
    ArithmeticFlags& operator|=(const ArithmeticFlags& other);
    bool operator==(const ArithmeticFlags&) const = default;
};
ArithmeticFlags fromConversionFlags(const ConversionFlags& flags);
// "inexact,divide-by-zero" (empty when no flag is set), in the order of the fields.
std::string arithmeticFlagsToString(const ArithmeticFlags& flags);

// Why a format has no arithmetic (NF4 is a lookup table, E8M0 a bare scale), or nullopt when
// it has.
std::optional<std::string> arithmeticUnsupported(const FormatSpec& spec);

// The exact real result of an operation on exact operands, with IEEE 754's rules for the sign
// of an exact zero (x − x is +0, or −0 when rounding toward −∞), infinities and NaN.
struct ExactResult {
    ExactValue value;
    // True for the square root of a non-square: `value` is then a stand-in that lies strictly
    // inside the same cell of a grid on which every rounding boundary of the format lies, so
    // it rounds like the root in every deterministic mode (stochastic rounding sees a
    // probability within 2^-64 of the true one). See squareRootStandIn.
    bool approximate = false;
    bool divideByZero = false;
    bool invalid = false; // ∞ − ∞, 0 × ∞, 0 / 0, ∞ / ∞, √(negative)
};
// `mode` only decides the sign of an exact zero sum.
ExactResult exactOperation(Operation op, std::span<const ExactValue> operands,
                           const FormatSpec& spec, RoundingMode mode = RoundingMode::NearestEven);

// √x for finite x ≥ 0 that rounds into `spec` as the true root does: the root itself when it
// lies on a grid of step 2^(r − p − 64) for a root in [2^r, 2^(r+1)) (floats) or of at most
// 1/8 of the scale (integer levels), otherwise the middle of the grid cell that holds it.
// Every rounding boundary of the format lies on that grid. `exact` tells which.
ExactValue squareRootStandIn(const ExactValue& x, const FormatSpec& spec, bool& exact);
// √x to `bits` significant bits (truncated, with a sticky bit below them) for the exact
// reference of an expression; `exact` as above.
ExactValue squareRootApproximation(const ExactValue& x, int bits, bool& exact);

// One operation performed in a format.
struct OperationResult {
    ExactResult exact;  // the real-number result of the operation on the operand values
    Conversion rounded; // its code in the format, with the conversion's flags
    ExactValue value;   // the value of that code (NaN for NaN codes)
    ArithmeticFlags flags;
};

// `operands` are values of the format (decoded codes: they may be ±0, ±∞ or NaN); the result
// is what an IEEE 754 machine with that arithmetic type returns. Integer formats compute on
// their levels times their scale. Precondition: arithmeticUnsupported(spec) is nullopt and
// operands.size() == operandCount(op).
OperationResult applyOperation(Operation op, std::span<const ExactValue> operands,
                               const FormatSpec& spec, const RoundingOptions& options = {});

} // namespace fpx
