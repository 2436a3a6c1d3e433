// SPDX-License-Identifier: GPL-3.0-or-later
// AMD's matrix cores (docs/behaviour.md, "Machines").
#include "fpx/machines/cdna_dot.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace fpx {
namespace {

constexpr int kProductSumBits = 31;   // the fused products' sum, below E
constexpr int kAccumulatorBits = 24;  // c, below E
constexpr int kAccumulatorReach = 25; // fp8: c below E − 25 is dropped
constexpr std::int64_t kFp32Overflow = 128;

struct PartialSum {
    ExactValue sum;                       // exact sum of the cut products
    std::optional<std::int64_t> exponent; // their largest alignment exponent; none: all zero
};

// Products terms[first], terms[first + stride], … fused at F bits below their largest
// exponent, cutting toward zero.
PartialSum fuseProducts(std::vector<FusedTerm>& terms, std::size_t first, std::size_t stride,
                        int fractionBits) {
    PartialSum partial;
    for (std::size_t i = first; i < terms.size(); i += stride)
        if (terms[i].aligns)
            partial.exponent =
                std::max(partial.exponent.value_or(terms[i].exponent), terms[i].exponent);
    for (std::size_t i = first; i < terms.size(); i += stride) {
        FusedTerm& t = terms[i];
        t.kept = partial.exponent ? cutToQuantum(t.value, *partial.exponent - fractionBits,
                                                 TermCut::TowardZero, &t.cut)
                                  : t.value;
        partial.sum = partial.sum + t.kept;
    }
    return partial;
}

ExactValue floorAt(const ExactValue& x, std::int64_t q) {
    return cutToQuantum(x, q, TermCut::TowardNegative);
}

// ±∞ or NaN when some product reaches FP32's overflow, as the hardware's FP32 products do.
std::optional<ExactValue> overflowingProducts(const std::vector<FusedTerm>& products) {
    bool positive = false, negative = false;
    for (const FusedTerm& t : products)
        if (t.aligns && t.value.floorLog2() >= kFp32Overflow)
            (t.value.isNegative() ? negative : positive) = true;
    if (positive && negative)
        return ExactValue::nan();
    if (positive || negative)
        return ExactValue::infinity(negative);
    return std::nullopt;
}

std::vector<FusedTerm> productTerms(std::span<const ExactValue> a, std::span<const ExactValue> b,
                                    const FormatSpec& element) {
    if (a.size() != b.size())
        throw std::invalid_argument("the vectors differ in length");
    std::vector<FusedTerm> terms;
    terms.reserve(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        ExactValue product = a[i] * b[i];
        const bool aligns = product.isFinite() && !product.isZero();
        const std::int64_t exponent =
            aligns ? alignmentExponent(a[i], element) + alignmentExponent(b[i], element) : 0;
        terms.push_back({std::move(product), exponent, {}, false, aligns});
    }
    return terms;
}

// The pairwise tree of FP32 additions: the first ⌊n/2⌋ products, the rest, then their sum.
//     [p0 p1 p2 p3] → (p0 + p1) + (p2 + p3)
template <typename Settle>
ExactValue pairwiseSum(std::span<const ExactValue> p, const Settle& settle) {
    if (p.size() == 1)
        return p.front();
    const std::size_t half = p.size() / 2;
    return settle(pairwiseSum(p.first(half), settle) + pairwiseSum(p.subspan(half), settle));
}

} // namespace

FusedStep cdnaFusedDotAdd(std::span<const ExactValue> a, std::span<const ExactValue> b,
                          const FormatSpec& element, const ExactValue& c, int fractionBits,
                          bool twoStage) {
    std::vector<FusedTerm> products = productTerms(a, b, element);
    FusedStep step;
    step.terms.push_back(fusedTerm(c, fp32Spec()));
    std::optional<ExactValue> special = specialSum(products);
    if (!special)
        special = specialSum(step.terms);
    if (!special)
        special = overflowingProducts(products);
    if (special) {
        step.terms.insert(step.terms.end(), products.begin(), products.end());
        step.sum = *special;
        step.output = *special;
        return step;
    }
    PartialSum fused;
    if (twoStage) {
        const PartialSum even = fuseProducts(products, 0, 2, fractionBits);
        const PartialSum odd = fuseProducts(products, 1, 2, fractionBits);
        if (even.exponent || odd.exponent) {
            fused.exponent = std::max(even.exponent.value_or(*odd.exponent),
                                      odd.exponent.value_or(*even.exponent));
            const std::int64_t q = *fused.exponent - fractionBits;
            fused.sum = floorAt(even.sum, q) + floorAt(odd.sum, q);
        }
    } else {
        fused = fuseProducts(products, 0, 1, fractionBits);
    }
    step.terms.insert(step.terms.end(), products.begin(), products.end());
    FusedTerm& accumulator = step.terms.front();
    std::optional<std::int64_t> largest = fused.exponent;
    if (accumulator.aligns)
        largest = std::max(largest.value_or(accumulator.exponent), accumulator.exponent);
    if (!largest) {
        // Only zeros: −0 when every term is −0.
        const bool negative = std::all_of(step.terms.begin(), step.terms.end(),
                                          [](const FusedTerm& t) { return t.value.isNegative(); });
        accumulator.kept = accumulator.value;
        step.sum = ExactValue::zero(negative);
        step.output = step.sum;
        return step;
    }
    step.alignment = *largest;
    const bool reaches =
        !twoStage || !accumulator.aligns || accumulator.exponent >= *largest - kAccumulatorReach;
    accumulator.kept = reaches ? floorAt(accumulator.value, *largest - kAccumulatorBits)
                               : ExactValue::zero(accumulator.value.isNegative());
    accumulator.cut = !(accumulator.kept == accumulator.value);
    step.sum = floorAt(fused.sum, *largest - kProductSumBits) + accumulator.kept;
    step.output = roundedInto(step.sum, fp32Spec());
    return step;
}

FusedStep pairwiseDotAdd(std::span<const ExactValue> a, std::span<const ExactValue> b,
                         const FormatSpec& element, const ExactValue& c, bool flushSubnormals) {
    if (a.size() != b.size())
        throw std::invalid_argument("pairwiseDotAdd: the vectors differ in length");
    const FormatSpec& fp32 = fp32Spec();
    const ExactValue smallestNormal = ExactValue::dyadic(false, 1, fp32.minExponent());
    auto subnormal = [](const ExactValue& x, const FormatSpec& format) {
        return x.isFinite() && !x.isZero() && x.floorLog2() < format.minExponent();
    };
    // An operand read by a flushing unit: a subnormal is +0.
    auto read = [&](const ExactValue& x, const FormatSpec& format) {
        return flushSubnormals && subnormal(x, format) ? ExactValue() : x;
    };
    // An FP32 result of a flushing unit: below the smallest normal, a zero of its sign.
    auto settle = [&](const ExactValue& x) {
        const ExactValue rounded = roundedInto(x, fp32);
        if (flushSubnormals && rounded.isFinite() && !rounded.isZero() &&
            compare(rounded.abs(), smallestNormal) < 0)
            return ExactValue::zero(rounded.isNegative());
        return rounded;
    };
    FusedStep step;
    step.terms.push_back({c, 0, read(c, fp32), false, false});
    std::vector<ExactValue> products;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const ExactValue exact = read(a[i], element) * read(b[i], element);
        const ExactValue rounded = settle(exact);
        step.terms.push_back({a[i] * b[i], 0, rounded, !(rounded == exact), false});
        products.push_back(rounded);
    }
    const ExactValue group = products.empty() ? ExactValue() : pairwiseSum(products, settle);
    step.sum = group;
    step.output = settle(step.terms.front().kept + group);
    return step;
}

} // namespace fpx
