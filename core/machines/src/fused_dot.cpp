// SPDX-License-Identifier: GPL-3.0-or-later
// One matrix-engine instruction, term by term (docs/behaviour.md, "Machines").
#include "fpx/machines/fused_dot.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace fpx {
namespace {

FormatSpec formatNamed(const char* name) {
    const FormatLookup lookup = findFormat(name);
    if (!lookup)
        throw std::logic_error(std::string("fused dot: no format ") + name);
    return *lookup.spec;
}

RoundingMode outputRounding(FusedOutput output) {
    switch (output) {
    case FusedOutput::Fp32TowardZero:
    case FusedOutput::E8M13TowardZero:
        return RoundingMode::TowardZero;
    case FusedOutput::Fp16NearestEven:
    case FusedOutput::Fp32NearestEven:
        return RoundingMode::NearestEven;
    }
    return RoundingMode::NearestEven;
}

} // namespace

std::int64_t alignmentExponent(const ExactValue& x, const FormatSpec& format) {
    return std::max<std::int64_t>(x.floorLog2(), format.minExponent());
}

ExactValue cutToQuantum(const ExactValue& x, std::int64_t q, TermCut cut, bool* dropped) {
    if (!x.isFinite() || x.isZero()) {
        if (dropped)
            *dropped = false;
        return x;
    }
    const Truncation t = truncateAt(x, q);
    if (dropped)
        *dropped = t.inexact();
    BigInt kept = t.kept;
    if (cut == TermCut::TowardNegative && x.isNegative() && t.inexact())
        kept += 1; // a larger magnitude below zero is further down
    if (kept == 0)
        return ExactValue::zero(x.isNegative());
    return ExactValue::dyadic(x.isNegative(), kept, q);
}

std::optional<ExactValue> specialSum(const std::vector<FusedTerm>& terms) {
    bool positive = false, negative = false;
    for (const FusedTerm& t : terms) {
        if (t.value.isNaN())
            return ExactValue::nan();
        if (t.value.isInfinity())
            (t.value.isNegative() ? negative : positive) = true;
    }
    if (positive && negative)
        return ExactValue::nan();
    if (positive || negative)
        return ExactValue::infinity(negative);
    return std::nullopt;
}

const FormatSpec& outputFormat(FusedOutput output) {
    switch (output) {
    case FusedOutput::Fp32TowardZero:
    case FusedOutput::Fp32NearestEven:
        return fp32Spec();
    case FusedOutput::E8M13TowardZero: {
        static const FormatSpec e8m13 = formatNamed("e8m13");
        return e8m13;
    }
    case FusedOutput::Fp16NearestEven: {
        static const FormatSpec fp16 = formatNamed("fp16");
        return fp16;
    }
    }
    return fp32Spec();
}

std::string_view outputRoundingId(FusedOutput output) {
    return outputRounding(output) == RoundingMode::TowardZero ? "toward-zero" : "nearest-even";
}

std::string_view termCutId(TermCut cut) {
    return cut == TermCut::TowardZero ? "toward-zero" : "toward-negative";
}

FusedStep fusedDotAdd(std::span<const ExactValue> a, std::span<const ExactValue> b,
                      const FormatSpec& element, const ExactValue& c, const FusedStepModel& model) {
    if (a.size() != b.size())
        throw std::invalid_argument("fusedDotAdd: the vectors differ in length");
    std::vector<FusedTerm> terms;
    terms.reserve(a.size() + 1);
    terms.push_back(fusedTerm(c, outputFormat(model.output)));
    for (std::size_t i = 0; i < a.size(); ++i) {
        ExactValue product = a[i] * b[i];
        const bool nonzero = product.isFinite() && !product.isZero();
        const std::int64_t exponent =
            nonzero ? alignmentExponent(a[i], element) + alignmentExponent(b[i], element) : 0;
        terms.push_back({std::move(product), exponent, {}, false, nonzero});
    }
    return fuseTerms(std::move(terms), model);
}

FusedTerm fusedTerm(const ExactValue& x, const FormatSpec& format) {
    const bool aligns = x.isFinite() && !x.isZero();
    return {x, aligns ? alignmentExponent(x, format) : 0, {}, false, aligns};
}

FusedStep fuseTerms(std::vector<FusedTerm> terms, const FusedStepModel& model) {
    FusedStep step;
    step.terms = std::move(terms);
    std::optional<std::int64_t> largest;
    for (const FusedTerm& t : step.terms)
        if (t.aligns)
            largest = std::max(largest.value_or(t.exponent), t.exponent);
    if (std::optional<ExactValue> special = specialSum(step.terms)) {
        step.sum = *special;
        step.output = *special;
        return step;
    }
    if (!largest) {
        // Only zeros: −0 when every term is −0, as IEEE addition gives.
        const bool negative = std::all_of(step.terms.begin(), step.terms.end(),
                                          [](const FusedTerm& t) { return t.value.isNegative(); });
        for (FusedTerm& t : step.terms)
            t.kept = t.value;
        step.sum = ExactValue::zero(negative);
        step.output = step.sum;
        return step;
    }
    step.alignment = *largest;
    const std::int64_t quantum = *largest - model.fractionBits;
    ExactValue sum;
    for (FusedTerm& t : step.terms) {
        t.kept = cutToQuantum(t.value, quantum, model.cut, &t.cut);
        sum = sum + t.kept;
    }
    step.sum = sum;
    RoundingOptions rounding;
    rounding.mode = outputRounding(model.output);
    step.output = roundedInto(sum, outputFormat(model.output), rounding);
    return step;
}

} // namespace fpx
