// SPDX-License-Identifier: GPL-3.0-or-later
// Which fast path quantizes a format, with what parameters (quantizer_plan.h).
#include "quantizer_plan.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_limits.h"
#include "fpx/kernels/x86_hardware.h"
#include "scale_grid.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace fpx::quantizer {

using kernels::BlockQuantLoops;
using kernels::BlockQuantParams;
using kernels::BlockTally;

const BlockQuantLoops& fastestLoops() {
    if (kernels::hasAvx512())
        if (const BlockQuantLoops* loops = kernels::avx512BlockQuantLoops())
            return *loops;
    if (kernels::hasAvx2())
        if (const BlockQuantLoops* loops = kernels::avx2BlockQuantLoops())
            return *loops;
    return kernels::baselineBlockQuantLoops();
}

namespace {

// A value known to be a double (element and scale format values), through the exact core.
std::optional<double> exactDouble(const ExactValue& value) {
    const Conversion c = roundToFormat(value, fp64Spec());
    if (c.flags.inexact || c.flags.overflow)
        return std::nullopt;
    return std::bit_cast<double>(static_cast<std::uint64_t>(c.code));
}

std::optional<std::uint32_t> fp32BitsOf(double value) {
    const float f = static_cast<float>(value);
    if (static_cast<double>(f) != value)
        return std::nullopt;
    return std::bit_cast<std::uint32_t>(f);
}

constexpr RoundingOptions kNearestSaturating{RoundingMode::NearestEven, OverflowPolicy::Saturate};

// The thresholds between adjacent values of an element format, in code order (values must
// ascend with the code), a tie on threshold i rounding to the even code of i and i + 1.
bool fillThresholds(const std::vector<double>& values, kernels::ThresholdSet& set) {
    if (values.size() < 2 || values.size() - 1 > kernels::ThresholdSet::kMax)
        return false;
    set.count = static_cast<int>(values.size() - 1);
    for (std::size_t i = 0; i + 1 < values.size(); ++i) {
        if (!(values[i] < values[i + 1]))
            return false;
        // The midpoint of two FP32 values of the same sign, or of a value and 0, is exact in
        // a double; checked rather than assumed.
        const double mid = (values[i] + values[i + 1]) / 2;
        if (mid - values[i] != values[i + 1] - mid)
            return false;
        set.thresholds[i] = mid;
        set.tieUp[i] = i % 2 != 0;
        set.tieMask[i] = set.tieUp[i] ? ~0u : 0u;
    }
    return true;
}

// Significant bits of a double.
int significantBits(double x) {
    const std::uint64_t bits = std::bit_cast<std::uint64_t>(x);
    const std::uint64_t significand =
        (bits & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1} << 52);
    return x == 0 ? 0 : 53 - std::countr_zero(significand);
}

// Signed integer elements of at most 8 bits whose scale is 2^−F: F, or nullopt.
std::optional<int> integerFractionBits(const FormatSpec& spec) {
    if (spec.kind != FormatKind::Integer || !spec.isSigned || spec.integerBits < 2 ||
        spec.integerBits > 8 || !spec.scale.isDyadic() || spec.scale.numerator() != 1 ||
        spec.scale.isNegative() || spec.scale.exponent2() > 0 || spec.scale.exponent2() < -30)
        return std::nullopt;
    return static_cast<int>(-spec.scale.exponent2());
}

void setIntegerElements(const FormatSpec& spec, BlockQuantParams& p) {
    p.qmax = (1 << (spec.integerBits - 1)) - 1;
    p.codeMask = (1u << spec.integerBits) - 1u;
}

std::optional<Plan> mxPlan(const BlockFormat& f) {
    Plan plan{f.scheme, {}, "MX blocks", nullptr};
    BlockQuantParams& p = plan.params;
    const FormatLimits limits = deriveLimits(f.element);
    const std::optional<double> elementMax = exactDouble(limits.max);
    if (!elementMax || !f.scale || f.scale->id != "fp8_e8m0")
        return std::nullopt;
    p.elementEmax = f.elementEmax;
    p.elementMax = *elementMax;
    p.scaleRule = static_cast<int>(f.scaleRule);
    if (const std::optional<int> fraction = integerFractionBits(f.element)) {
        p.integerElements = true;
        p.integerFractionBits = *fraction;
        setIntegerElements(f.element, p);
        p.evenPrecision = f.element.integerBits - 1;
        return plan;
    }
    const std::optional<kernels::EncodeParams> encode = encodeParams(f.element, kNearestSaturating);
    if (f.element.kind != FormatKind::BinaryFloat || !encode || f.element.totalBits() > 8)
        return std::nullopt;
    p.element = *encode;
    p.elementSymmetric = kernels::symmetricSpecials(*encode, RoundingMode::NearestEven);
    p.evenPrecision = f.element.precision();
    return plan;
}

// The positive values of a binary float element by magnitude code (0, 1, … up to max).
std::optional<std::vector<double>> magnitudeValues(const FormatSpec& element) {
    const FormatLimits limits = deriveLimits(element);
    std::vector<double> values;
    for (Code code = 0; code <= limits.maxCode; ++code) {
        const std::optional<double> v = exactDouble(decodeCode(element, code).value);
        if (!v)
            return std::nullopt;
        values.push_back(*v);
    }
    return values;
}

std::optional<Plan> nvfp4Plan(const BlockFormat& f) {
    Plan plan{f.scheme, {}, "NVFP4 blocks", nullptr};
    BlockQuantParams& p = plan.params;
    const FormatSpec& element = f.element;
    if (element.kind != FormatKind::BinaryFloat || element.totalBits() > 8 || !f.scale ||
        f.scale->kind != FormatKind::BinaryFloat || element.specials != SpecialEncoding::None)
        return std::nullopt;
    const std::optional<std::vector<double>> values = magnitudeValues(element);
    // E2M1: 8 magnitudes, 7 thresholds (the loops count them at compile time).
    if (!values || !fillThresholds(*values, p.levels) || p.levels.count != 7)
        return std::nullopt;
    const FormatLimits limits = deriveLimits(element);
    p.elementMax = values->back();
    // Beyond max after rounding (the exact core's overflow flag): from max + ulp/2 on, the
    // tie going past max where max's code is odd (its significand ends in 1).
    const double ulp = p.elementMax - (*values)[values->size() - 2];
    p.clipThreshold = p.elementMax + ulp / 2;
    p.clipAtOrAbove = (limits.maxCode & 1u) != 0;
    if (ulp != std::ldexp(1.0, limits.maxExponent - element.fractionBits))
        return std::nullopt;
    p.signCode = static_cast<std::uint32_t>(element.signBit());
    const std::optional<kernels::EncodeParams> scaleEncode =
        encodeParams(*f.scale, kNearestSaturating);
    const std::optional<double> scaleMax = exactDouble(deriveLimits(*f.scale).max);
    if (!scaleEncode || !scaleMax || f.scale->totalBits() > 8)
        return std::nullopt;
    p.scaleEncoder = *scaleEncode;
    p.scalePrecision = f.scale->precision();
    p.scaleMinExponent = f.scale->minExponent();
    p.scaleMax = *scaleMax;
    p.scaleCodesOnGrid = gridCodesAgree(p);
    return plan;
}

std::optional<Plan> nf4Plan(const BlockFormat& f) {
    Plan plan{f.scheme, {}, "NF4 thresholds", nullptr};
    BlockQuantParams& p = plan.params;
    if (f.doubleQuantized && (!f.scale || f.scale->kind != FormatKind::Integer ||
                              !f.scale->isSigned || f.scale->integerBits > 8))
        return std::nullopt;
    if (f.element.kind != FormatKind::Lookup || f.element.table.size() > 16 ||
        !(f.element.scale == ExactValue::integer(1)))
        return std::nullopt;
    std::vector<double> levels;
    for (const ExactValue& level : f.element.table) {
        const std::optional<double> v = exactDouble(level);
        if (!v || !fp32BitsOf(*v))
            return std::nullopt;
        levels.push_back(*v);
    }
    // 16 levels, 15 thresholds (the loops count them at compile time).
    if (!fillThresholds(levels, p.levels) || p.levels.count != 15)
        return std::nullopt;
    // Threshold times an FP32 absmax (24 significant bits) must be exact in a double.
    for (int i = 0; i < p.levels.count; ++i)
        if (significantBits(p.levels.thresholds[i]) > 29)
            return std::nullopt;
    const auto zero = std::find(levels.begin(), levels.end(), 0.0);
    if (zero == levels.end())
        return std::nullopt;
    p.zeroLevelCode = static_cast<std::uint32_t>(zero - levels.begin());
    return plan;
}

std::optional<Plan> integerPlan(const BlockFormat& f) {
    Plan plan{f.scheme, {}, "integer absmax", nullptr};
    const std::optional<int> fraction = integerFractionBits(f.element);
    if (!fraction || *fraction != 0)
        return std::nullopt;
    setIntegerElements(f.element, plan.params);
    return plan;
}

} // namespace

std::optional<Plan> planFor(const BlockFormat& format, const TensorView& input) {
    if (input.isDouble() || input.size() == 0)
        return std::nullopt;
    if (format.blocks.kind == BlockLayout::Kind::Row && input.shape.empty())
        return std::nullopt; // the exact core says why
    switch (format.scheme) {
    case BlockScheme::Mx:
        return mxPlan(format);
    case BlockScheme::Nvfp4:
        return nvfp4Plan(format);
    case BlockScheme::Nf4:
        return nf4Plan(format);
    case BlockScheme::IntAbsmax:
        return integerPlan(format);
    case BlockScheme::Direct:
        if (std::optional<DirectCast> cast = DirectCast::create(format.element)) {
            Plan plan{format.scheme, {}, "cast by " + cast->encoderName(), nullptr};
            plan.cast = std::make_shared<const DirectCast>(std::move(*cast));
            return plan;
        }
        break;
    }
    return std::nullopt;
}

// Elements per block of `format` on `input`: the layout's, at most the tensor, at least one.
std::size_t blockSizeFor(const BlockFormat& format, const TensorView& input) {
    const std::size_t n = input.size();
    return std::min(n,
                    std::max<std::size_t>(1, format.blocks.elementsPerBlock(n, input.rowLength())));
}

// Blocks [first, first + count) of a chunk that holds a NaN or ±∞ (first a multiple of the block
// size): runs of finite blocks through the kernel loop, runs of blocks holding a NaN or ±∞
// through the exact core, quantized alone and spliced in. That is the whole-tensor reference's
// answer: quantizeExactly cuts any tensor into consecutive blocks of blockSize (the layout
// only sets that size), and for MX, NF4 and integer blocks it works each block out from that
// block's elements alone; a run starting on a block boundary, given the same block size as
// Elements, is cut the same way (a run that ends the tensor ends with the same ragged block).
// NVFP4 blocks also read the tensor scale, but not a block holding a NaN or ±∞: the reference
// stores its NaN scale and zeros before it looks at the tensor scale, so the run's own tensor
// scale (which is left out) changes nothing.
void blocksAroundNonFinite(const BlockQuantLoops::BlockLoop loop, const BlockQuantLoops& loops,
                           BlockQuantParams p, const BlockFormat& format, std::size_t blockSize,
                           const TensorView& input, std::size_t first, std::size_t count,
                           std::uint8_t* codes, std::uint32_t* scales, Tally& tally) {
    p.scalesHoldAmaxes = false; // the loop that stopped has stored scale codes over some
    const auto* in = reinterpret_cast<const std::uint32_t*>(input.floats.data());
    const auto finite = [&](std::size_t start) {
        return loops.maxMagnitude(in + start, std::min(blockSize, first + count - start)) <
               0x7f800000u;
    };
    BlockFormat alone = format;
    alone.blocks = BlockLayout{BlockLayout::Kind::Elements, blockSize};
    // nf4_dq: the run's FP32 absmaxes (NaN for these blocks), as the NF4 loop stores them;
    // the double quantization comes after, over every block (nf4DoubleQuantization).
    alone.doubleQuantized = false;
    for (std::size_t start = first; start < first + count;) {
        const bool runFinite = finite(start);
        std::size_t end = start + blockSize;
        while (end < first + count && finite(end) == runFinite)
            end += blockSize;
        end = std::min(end, first + count);
        if (runFinite) {
            BlockTally t;
            loop(p, in + start, end - start, blockSize, codes + (start - first),
                 scales + (start - first) / blockSize, t);
            tally.add(t);
        } else {
            TensorView run;
            run.name = input.name;
            run.shape = {end - start};
            run.floats = input.floats.subspan(start, end - start);
            std::string error;
            const std::optional<QuantizedTensor> exact = quantizeExactly(alone, run, error);
            if (!exact || exact->codes.size() != end - start) {
                tally.nonFinite = true; // cannot happen; the exact core redoes the tensor
                return;
            }
            std::copy(exact->codes.begin(), exact->codes.end(), codes + (start - first));
            std::copy(exact->scaleCodes.begin(), exact->scaleCodes.end(),
                      scales + (start - first) / blockSize);
            tally.add(
                Tally{exact->clipped, exact->flushed, exact->nanInputs, exact->infInputs, false});
        }
        start = end;
    }
}

float tensorScaleFor(const BlockFormat& format, std::uint32_t amax, BlockQuantParams& p) {
    const float a = std::bit_cast<float>(amax);
    float scale = 1.0f;
    if (format.scheme == BlockScheme::Nvfp4) {
        // s_t = FP32(amax / (scale max · element max)): IEEE division rounds the exact
        // quotient once (the divisor, 448 · 6, is an FP32 value); amax 0 gives 1, and a
        // quotient that rounds to 0 the smallest FP32 number.
        const float divisor = static_cast<float>(p.scaleMax * p.elementMax);
        scale = amax == 0 ? 1.0f : a / divisor;
        if (scale == 0.0f)
            scale = std::bit_cast<float>(1u);
        p.tensorScale = scale;
    } else {
        scale = amax == 0 ? 1.0f : a / static_cast<float>(p.qmax);
        if (scale == 0.0f)
            scale = std::bit_cast<float>(1u);
    }
    return scale;
}

} // namespace fpx::quantizer
