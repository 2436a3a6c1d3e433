// SPDX-License-Identifier: GPL-3.0-or-later
// Dot products with separate element, product and accumulator formats, every step through the
// exact core (a dot product on the command line is short; the long sums are accumulate()'s).
#include "fpx/accumulation/accumulation.h"

#include "fpx/exact/arithmetic.h"
#include "fpx/exact/format_catalogue.h"

#include <array>
#include <stdexcept>

namespace fpx {

namespace {

// One operation: rounded into `spec` when there is one, exact otherwise (IEEE rules for zero
// signs, infinities and NaN either way).
ExactValue operate(Operation op, const ExactValue& a, const ExactValue& b,
                   const std::optional<FormatSpec>& spec, const RoundingOptions& rounding,
                   std::uint64_t& counter) {
    const std::array<ExactValue, 2> operands{a, b};
    if (!spec)
        return exactOperation(op, operands, FormatSpec{}, rounding.mode).value;
    RoundingOptions options = rounding;
    options.randomBits = stochasticBits(rounding.randomBits, counter++);
    return applyOperation(op, operands, *spec, options).value;
}

} // namespace

DotResult dotProduct(const TermSequence& a, const TermSequence& b, const DotOptions& options) {
    if (a.size() != b.size())
        throw std::invalid_argument("dotProduct: the vectors differ in length");
    for (const auto& spec : {options.product, options.accumulator})
        if (spec)
            if (auto why = arithmeticUnsupported(*spec))
                throw std::invalid_argument("dotProduct: " + *why);
    const FormatSpec& fp32 = fp32Spec();
    const bool isBlocked = options.blockSize > 0;
    const std::optional<FormatSpec> totalFormat = fp32;

    DotResult result;
    std::uint64_t counter = 0;
    ExactValue exact;
    ExactValue sum;   // the accumulator (the current block's, when blocked)
    ExactValue total; // blocked: the FP32 total
    std::size_t inBlock = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const ExactValue x = a.at(i);
        const ExactValue y = b.at(i);
        exact = operate(Operation::Add, exact,
                        operate(Operation::Multiply, x, y, std::nullopt, options.rounding, counter),
                        std::nullopt, options.rounding, counter);
        const ExactValue product =
            operate(Operation::Multiply, x, y, options.product, options.rounding, counter);
        sum = operate(Operation::Add, sum, product, options.accumulator, options.rounding, counter);
        if (isBlocked && ++inBlock == options.blockSize) {
            total = operate(Operation::Add, total, sum, totalFormat, options.rounding, counter);
            sum = ExactValue::zero();
            inBlock = 0;
        }
    }
    if (isBlocked) {
        if (inBlock > 0)
            total = operate(Operation::Add, total, sum, totalFormat, options.rounding, counter);
        result.value = total;
        result.resultFormat = fp32;
    } else {
        result.value = sum;
        result.resultFormat = options.accumulator;
    }
    if (result.resultFormat)
        result.bits = roundToFormat(result.value, *result.resultFormat).code;
    result.exact = exact;
    result.error = result.value - exact;
    result.relativeError = exact.isFinite() && !exact.isZero() && !result.error.isNaN()
                               ? result.error / exact.abs()
                               : ExactValue::nan();
    return result;
}

} // namespace fpx
