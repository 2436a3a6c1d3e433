// SPDX-License-Identifier: GPL-3.0-or-later
// Blackwell's block-scaled instructions (docs/behaviour.md, "Machines").
#include "fpx/machines/block_scaled_dot.h"

#include "fpx/data/tensor_view.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/quantization/tensor_quantizer.h"

#include <stdexcept>

namespace fpx {
namespace {

// A scale's exponent as the instruction aligns by it; none for a zero scale, whose run adds
// nothing and sets no alignment.
std::optional<std::int64_t> scaleExponent(const ExactValue& scale, const FormatSpec& format) {
    if (!scale.isFinite() || scale.isZero())
        return std::nullopt;
    return alignmentExponent(scale, format);
}

} // namespace

FusedStep blockScaledDotAdd(std::span<const ExactValue> a, std::span<const ExactValue> b,
                            std::span<const ExactValue> scaleA, std::span<const ExactValue> scaleB,
                            const FormatSpec& element, const FormatSpec& scale, const ExactValue& c,
                            const FusedStepModel& model, int subBlock) {
    if (a.size() != b.size() || scaleA.size() != a.size() || scaleB.size() != b.size())
        throw std::invalid_argument("blockScaledDotAdd: the vectors differ in length");
    std::vector<FusedTerm> terms;
    terms.push_back(fusedTerm(c, outputFormat(model.output)));
    for (std::size_t i = 0; i < a.size(); ++i)
        if (scaleA[i].isNaN() || scaleB[i].isNaN())
            terms.push_back({ExactValue::nan(), 0, {}, false, false});
    if (subBlock <= 0) {
        for (std::size_t i = 0; i < a.size(); ++i) {
            ExactValue product = a[i] * b[i] * scaleA[i] * scaleB[i];
            const std::optional<std::int64_t> sa = scaleExponent(scaleA[i], scale);
            const std::optional<std::int64_t> sb = scaleExponent(scaleB[i], scale);
            const bool aligns = product.isFinite() && !product.isZero() && sa && sb;
            const std::int64_t exponent = aligns ? alignmentExponent(a[i], element) +
                                                       alignmentExponent(b[i], element) + *sa + *sb
                                                 : 0;
            terms.push_back({std::move(product), exponent, {}, false, aligns});
        }
        return fuseTerms(std::move(terms), model);
    }
    const std::size_t run = static_cast<std::size_t>(subBlock);
    for (std::size_t begin = 0; begin < a.size(); begin += run) {
        const std::size_t end = std::min(a.size(), begin + run);
        ExactValue sum;
        for (std::size_t i = begin; i < end; ++i)
            sum = sum + a[i] * b[i];
        const ExactValue& sa = scaleA[begin];
        const ExactValue& sb = scaleB[begin];
        const std::optional<std::int64_t> ea = scaleExponent(sa, scale);
        const std::optional<std::int64_t> eb = scaleExponent(sb, scale);
        ExactValue term = sum * sa * sb;
        const bool aligns = term.isFinite() && ea && eb;
        terms.push_back({std::move(term), aligns ? *ea + *eb : 0, {}, false, aligns});
    }
    return fuseTerms(std::move(terms), model);
}

std::optional<BlockScaledOperand>
quantizeOperand(const BlockFormat& format, std::span<const float> values, std::string& error) {
    if (!format.scale)
        throw std::invalid_argument("quantizeOperand: " + format.id + " has no block scale");
    TensorView view;
    view.name = "operand";
    view.shape = {values.size()};
    view.floats = values;
    const std::optional<QuantizedTensor> quantized = quantizeTensor(format, view, error);
    if (!quantized)
        return std::nullopt;
    BlockScaledOperand operand;
    operand.values.reserve(values.size());
    operand.scales.reserve(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        operand.values.push_back(decodeCode(format.element, quantized->code(i)).value);
        operand.scales.push_back(
            decodeCode(*format.scale, quantized->scaleCodes.at(quantized->blockOf(i))).value);
    }
    operand.tensorScale = ExactValue::dyadic(false, 1, 0);
    if (format.scheme == BlockScheme::Nvfp4 && quantized->tensorScale)
        operand.tensorScale = exactFromDouble(double(*quantized->tensorScale));
    return operand;
}

} // namespace fpx
