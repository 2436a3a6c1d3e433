// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/kernels/bulk_conversion.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_encoding.h"
#include "fpx/exact/format_limits.h"
#include "fpx/exact/packed_codes.h"
#include "fpx/kernels/fp32_kernel.h"
#include "fpx/kernels/x86_hardware.h"
#include "loop_set.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace fpx {

namespace {

ExactValue fp32Value(std::uint32_t bits) {
    return decodeCode(fp32Spec(), bits).value;
}

std::uint32_t coreCode(const FormatSpec& target, const ExactValue& value,
                       const RoundingOptions& options) {
    return static_cast<std::uint32_t>(roundToFormat(value, target, options).code);
}

// The exact core's answers for the inputs every kernel hands over: ±0, ±∞, ±NaN and a value
// far beyond any format's range (overflow results depend only on sign, mode and policy).
template <typename Params>
void fillSpecialCodes(Params& p, const FormatSpec& target, const RoundingOptions& options) {
    for (int negative = 0; negative < 2; ++negative) {
        const bool n = negative != 0;
        p.nanCode[negative] = coreCode(target, ExactValue::nan(n), options);
        if constexpr (requires { p.zeroCode; }) {
            p.zeroCode[negative] = coreCode(target, ExactValue::zero(n), options);
            p.infinityCode[negative] = coreCode(target, ExactValue::infinity(n), options);
            p.overflowCode[negative] = coreCode(target, ExactValue::dyadic(n, 1, 4096), options);
        }
    }
}

std::uint32_t orderedBits(std::int32_t key) {
    return key >= 0 ? static_cast<std::uint32_t>(key)
                    : (0x80000000u | static_cast<std::uint32_t>(-(key + 1)));
}

bool ieeeModeOnly(const RoundingOptions& o) {
    return o.mode == RoundingMode::NearestEven || o.mode == RoundingMode::TowardZero ||
           o.mode == RoundingMode::TowardPositive || o.mode == RoundingMode::TowardNegative;
}

// The widest loop set this CPU runs.
const kernels::LoopSet& bestLoops() {
    if (kernels::hasAvx512())
        if (const kernels::LoopSet* set = kernels::avx512Loops())
            return *set;
    if (kernels::hasAvx2())
        if (const kernels::LoopSet* set = kernels::avx2Loops())
            return *set;
    return kernels::baselineLoops();
}

} // namespace

std::optional<kernels::EncodeParams> encodeParams(const FormatSpec& target,
                                                  const RoundingOptions& options) {
    // The loops compare all 64 random bits with the discarded fraction; stochastic rounding
    // with N of them (sr:N) is the exact core's.
    if (options.mode == RoundingMode::Stochastic && options.stochastic.count != 0)
        return std::nullopt;
    kernels::EncodeParams p;
    if (target.kind == FormatKind::BinaryFloat) {
        const int m = target.fractionBits;
        const int minExponent = target.minExponent();
        // Normal results must come from FP32 normals and the shift must drop at least a bit.
        // P3109's ∞ below the NaN and its even-code ties at precision 1 are the exact core's.
        if (!target.isSigned || target.explicitIntegerBit || !target.exponentZeroIsSubnormal ||
            target.exponentBits > 8 || m > 22 || minExponent < -126 || target.bias > 127 ||
            target.totalBits() > 32 || target.infinityAtTop || target.evenCodeTies)
            return std::nullopt;
        // Nearest-even adds 2^(emin − M + 23) in FP32, and twice it must be finite too. Only
        // formats with a negative bias (e4m3b-120: emin = 121) fall outside; the exact core
        // converts those.
        if (options.mode == RoundingMode::NearestEven && minExponent - m + 24 > 127)
            return std::nullopt;
        p.kind = kernels::EncodeKind::BinaryFloat;
        p.fractionShift = static_cast<std::uint32_t>(23 - m);
        p.normalRebias = static_cast<std::uint32_t>((127 - target.bias)) << m;
        p.minNormalBits = static_cast<std::uint32_t>(minExponent + 127) << 23;
        p.smallShiftBase = 23 - m + minExponent + 127;
        // Both wrap modulo 2^32 by design: see encodeElementOf's nearest-even path.
        p.nearestEvenAddend =
            ((1u << (22 - m)) - 1u) - (static_cast<std::uint32_t>(127 - target.bias) << 23);
        p.subnormalMagicBits = static_cast<std::uint32_t>(minExponent - m + 23 + 127) << 23;
        p.maxMagnitude = static_cast<std::uint32_t>(deriveLimits(target).maxCode);
        p.maxNegativeMagnitude = p.maxMagnitude;
        p.signBit = static_cast<std::uint32_t>(target.signBit());
        p.codeMask = static_cast<std::uint32_t>(target.codeMask());
    } else if (target.kind == FormatKind::Integer) {
        // Scale 2^k / K with K ≤ 127: the code is round(x · K · 2^−k).
        const ExactValue& scale = target.scale;
        const int n = target.integerBits;
        if (!target.isSigned || n < 2 || n > 16 || !scale.isFinite() || scale.isZero() ||
            scale.isNegative() || scale.numerator() != 1 || scale.denominator() > 127 ||
            scale.exponent2() < -64 || scale.exponent2() > 64)
            return std::nullopt;
        p.kind = kernels::EncodeKind::SignedInteger;
        p.multiplier = static_cast<std::uint32_t>(scale.denominator());
        p.reciprocalScale = std::ldexp(static_cast<double>(p.multiplier), -scale.exponent2());
        p.smallShiftBase = 150 + static_cast<std::int32_t>(scale.exponent2());
        p.maxMagnitude = (1u << (n - 1)) - 1u;
        p.maxNegativeMagnitude = 1u << (n - 1);
        p.codeMask = static_cast<std::uint32_t>(target.codeMask());
        p.minNormalBits = 0xffffffffu; // never the normal path
    } else {
        return std::nullopt;
    }
    fillSpecialCodes(p, target, options);
    return p;
}

std::optional<kernels::LookupParams> lookupParams(const FormatSpec& target,
                                                  const RoundingOptions& options) {
    if (target.totalBits() > 6 || options.mode == RoundingMode::Stochastic)
        return std::nullopt;
    kernels::LookupParams p;
    for (std::int32_t& key : p.breakpoints)
        key = 0x7fffffff; // above every key: unused
    fillSpecialCodes(p, target, options);
    auto codeAt = [&](std::int32_t key) {
        return coreCode(target, fp32Value(orderedBits(key)), options);
    };
    // Walk the ordered FP32 keys from −∞ to +∞; each breakpoint is found by bisection, the
    // first key whose result differs from the current segment's. Rounding is monotone, so a
    // segment's code never comes back further up (checked below).
    const std::int32_t lowest = kernels::orderedKey(0xff800000u);
    const std::int32_t highest = kernels::orderedKey(0x7f800000u);
    std::int32_t start = lowest;
    p.codes[0] = codeAt(lowest);
    while (codeAt(highest) != p.codes[p.count]) {
        if (p.count == 32)
            return std::nullopt;
        std::int64_t lo = start, hi = highest; // codeAt(lo) is current, codeAt(hi) is not
        while (hi - lo > 1) {
            const std::int64_t mid = lo + (hi - lo) / 2;
            (codeAt(static_cast<std::int32_t>(mid)) == p.codes[p.count] ? lo : hi) = mid;
        }
        start = static_cast<std::int32_t>(hi);
        p.breakpoints[p.count] = start;
        ++p.count;
        p.codes[p.count] = codeAt(start);
        for (std::uint32_t i = 0; i + 1 < p.count; ++i)
            if (p.codes[i] == p.codes[p.count])
                return std::nullopt; // not monotone: a code returned
    }
    return p;
}

// The exact core's FP32 answers for NaN and ±∞ (±FLT_MAX when saturating), by sign.
struct Fp32Specials {
    std::uint32_t nan[2] = {0, 0};
    std::uint32_t infinity[2] = {0, 0};
    // Whether the negative answers are the positive ones with the sign bit: the decode loops
    // choose a magnitude and OR the sign in (they do for every policy the core has).
    bool mirrored() const {
        return (nan[0] >> 31) == 0u && nan[1] == (nan[0] | 0x80000000u) &&
               (infinity[0] >> 31) == 0u && infinity[1] == (infinity[0] | 0x80000000u);
    }
};

Fp32Specials fp32Specials(const RoundingOptions& options) {
    Fp32Specials s;
    for (int negative = 0; negative < 2; ++negative) {
        s.nan[negative] = coreCode(fp32Spec(), ExactValue::nan(negative != 0), options);
        s.infinity[negative] = coreCode(fp32Spec(), ExactValue::infinity(negative != 0), options);
    }
    return s;
}

std::optional<kernels::WidenParams> widenParams(const FormatSpec& source,
                                                const RoundingOptions& options) {
    if (source.kind != FormatKind::BinaryFloat || source.exponentBits != 8 || source.bias != 127 ||
        source.specials != SpecialEncoding::Ieee || source.explicitIntegerBit ||
        !source.exponentZeroIsSubnormal || !source.isSigned || source.fractionBits > 22)
        return std::nullopt;
    kernels::WidenParams p;
    p.codeMask = static_cast<std::uint32_t>(source.codeMask());
    p.shift = static_cast<std::uint32_t>(23 - source.fractionBits);
    const Fp32Specials specials = fp32Specials(options);
    if (!specials.mirrored())
        return std::nullopt;
    std::copy(std::begin(specials.nan), std::end(specials.nan), p.nanBits);
    std::copy(std::begin(specials.infinity), std::end(specials.infinity), p.infinityBits);
    return p;
}

std::optional<kernels::FloatDecodeParams> floatDecodeParams(const FormatSpec& source,
                                                            const RoundingOptions& options) {
    const int m = source.fractionBits;
    if (source.kind != FormatKind::BinaryFloat || !source.isSigned || source.explicitIntegerBit ||
        !source.exponentZeroIsSubnormal || source.exponentBits > 8 || m > 23 ||
        source.totalBits() > 32 || source.infinityAtTop)
        return std::nullopt;
    // Every value must be an FP32 value built by the formula: the largest binade at most
    // FP32's (2^127), and subnormals either FP32 normals (emin − M ≥ −126) or, with BF16's
    // bias 127, FP32 subnormals in place.
    const long long topExponentField = static_cast<long long>(source.exponentFieldMax()) -
                                       (source.specials == SpecialEncoding::Ieee ? 1 : 0);
    const long long maxExponent = topExponentField - source.bias;
    const bool subnormalsInPlace = source.bias == 127;
    // (And c = 2^(emin − M + 23), subtracted to decode subnormals, must be an FP32 number.)
    if (maxExponent > 127 || source.bias > 127 ||
        (!subnormalsInPlace &&
         (source.minExponent() - m < -126 || source.minExponent() - m + 23 > 127)))
        return std::nullopt;
    kernels::FloatDecodeParams p;
    p.codeMask = static_cast<std::uint32_t>(source.codeMask());
    p.signShift = static_cast<std::uint32_t>(source.totalBits() - 1);
    p.magnitudeMask = static_cast<std::uint32_t>(source.codeMask() >> 1);
    p.fractionShift = static_cast<std::uint32_t>(23 - m);
    p.rebias = static_cast<std::uint32_t>(127 - source.bias) << 23;
    // emin = −126: the subnormals are FP32 subnormals, shifted into place like normals.
    p.minNormalMagnitude = subnormalsInPlace ? 0u : (1u << m);
    p.subnormalMagicBits =
        subnormalsInPlace ? 0u
                          : static_cast<std::uint32_t>(source.minExponent() - m + 23 + 127) << 23;
    const std::uint32_t allOnesExponent = static_cast<std::uint32_t>(source.exponentFieldMax())
                                          << m;
    switch (source.specials) {
    case SpecialEncoding::Ieee:
        p.specialMagnitude = allOnesExponent;
        p.infinityMagnitude = allOnesExponent;
        break;
    case SpecialEncoding::NanAtAllOnes:
        p.specialMagnitude = p.magnitudeMask;
        break;
    case SpecialEncoding::NanAtNegativeZero:
        p.specialMagnitude = p.magnitudeMask + 1; // no magnitude is special
        p.negativeZeroNaN = static_cast<std::uint32_t>(source.signBit());
        break;
    case SpecialEncoding::None:
        p.specialMagnitude = p.magnitudeMask + 1;
        break;
    }
    const Fp32Specials specials = fp32Specials(options);
    if (!specials.mirrored())
        return std::nullopt;
    p.nanMagnitude = specials.nan[0];
    p.infinityMagnitudeBits = specials.infinity[0];
    p.negativeZeroNaNBits = specials.nan[1];
    return p;
}

// Byte p of entry c at planes[256·p + c]; zeros past the table's end.
void splitIntoBytePlanes(const std::vector<std::uint32_t>& table,
                         std::uint8_t (&planes)[kernels::kTablePlaneBytes]) {
    std::fill(std::begin(planes), std::end(planes), std::uint8_t{0});
    for (std::size_t c = 0; c < std::min<std::size_t>(table.size(), 256); ++c)
        for (std::size_t p = 0; p < 4; ++p)
            planes[256 * p + c] = static_cast<std::uint8_t>(table[c] >> (8 * p));
}

std::vector<std::uint32_t> decodeTable(const FormatSpec& source, const RoundingOptions& options) {
    if (source.totalBits() > 16)
        return {};
    std::vector<std::uint32_t> table(std::size_t{1} << source.totalBits());
    for (std::size_t code = 0; code < table.size(); ++code)
        table[code] = coreCode(fp32Spec(), decodeCode(source, code).value, options);
    return table;
}

void encodeWithExactCore(const FormatSpec& target, const RoundingOptions& options,
                         const std::uint32_t* in, void* out, std::size_t count, std::uint64_t seed,
                         std::uint64_t firstIndex) {
    const int bytes = packedBytes(target);
    RoundingOptions o = options;
    for (std::size_t i = 0; i < count; ++i) {
        if (o.mode == RoundingMode::Stochastic)
            o.randomBits = stochasticBits(seed, firstIndex + i);
        writePackedCode(out, bytes, i, roundToFormat(fp32Value(in[i]), target, o).code);
    }
}

void decodeWithExactCore(const FormatSpec& source, const RoundingOptions& options, const void* in,
                         std::uint32_t* out, std::size_t count) {
    const int bytes = packedBytes(source);
    for (std::size_t i = 0; i < count; ++i)
        out[i] = coreCode(fp32Spec(), decodeCode(source, readPackedCode<Code>(in, bytes, i)).value,
                          options);
}

// ---------------------------------------------------------------------------------------
// Bulk converters
// ---------------------------------------------------------------------------------------

enum class Strategy {
    BitTrick,        // encodeElement in the widest loop set
    Lookup,          // lookupElement (breakpoints)
    F16c,            // vcvtps2ph / vcvtph2ps
    Avx512Bf16,      // vcvtneps2bf16
    Avx512Fp16,      // vcvtps2phx / vcvtph2psx
    ScalarReference, // Fp32Kernel, or the exact core, one element at a time
    BucketLookup,    // breakpoints in buckets (kernels::avx512BucketLookup)
    Table,           // decode: table[code]
    ByteTable,       // decode: table[code] by byte planes, 64 codes at a time (AVX512-VBMI)
    Widen,           // decode: code << shift
    FloatDecode,     // decode: decodeFloatElement
};

struct BulkConverterImpl {
    Strategy strategy = Strategy::BitTrick;
    KernelPath path;
    int bytes = 1;
    FormatSpec format;
    RoundingOptions options;
    std::uint64_t seed = 0;
    const kernels::LoopSet* loops = nullptr;
    kernels::EncodeParams encode;
    // BitTrick: chosen once, by setEncode; [OutputStores].
    kernels::LoopSet::EncodeLoop encodeLoop[2] = {nullptr, nullptr};

    kernels::LookupParams lookup;
    kernels::BucketedBreakpoints buckets;
    kernels::WidenParams widen;
    kernels::FloatDecodeParams floatDecode;
    std::vector<std::uint32_t> table;
    // ByteTable: the table's four byte planes (kernels::avx512VbmiTableDecode).
    std::uint8_t tablePlanes[kernels::kTablePlaneBytes] = {};
    std::uint32_t nanCode[2] = {0, 0};
    std::optional<Fp32Kernel> scalar;
};

namespace {

using Impl = std::unique_ptr<BulkConverterImpl>;

// A copy whose scalar reference points at its own FormatSpec (Fp32Kernel keeps a pointer).
Impl clone(const BulkConverterImpl& other) {
    Impl copy = std::make_unique<BulkConverterImpl>(other);
    if (copy->scalar)
        copy->scalar = Fp32Kernel::create(copy->format, copy->options);
    return copy;
}

Impl makeImpl(const FormatSpec& format, const RoundingOptions& options, std::uint64_t seed,
              Strategy strategy, KernelPath path) {
    auto impl = std::make_unique<BulkConverterImpl>();
    impl->strategy = strategy;
    impl->path = std::move(path);
    impl->format = format;
    impl->options = options;
    impl->seed = seed;
    impl->bytes = packedBytes(format);
    impl->loops = &bestLoops();
    return impl;
}

// The bit-trick parameters and the loop they run in: the symmetric-specials loop where the
// format's answers allow it, decided here rather than on every call.
void setEncode(BulkConverterImpl& impl, const kernels::EncodeParams& p) {
    const int mode = static_cast<int>(impl.options.mode);
    const int width = kernels::widthIndex(impl.bytes);
    impl.encode = p;
    const bool symmetric = kernels::symmetricSpecials(p, impl.options.mode);
    for (int stores = 0; stores < 2; ++stores)
        impl.encodeLoop[stores] =
            symmetric ? impl.loops->encodeSymmetric[stores][mode][width]
                      : impl.loops->encode[stores][mode][static_cast<int>(p.kind)][width];
}

std::string isaLabel(const kernels::LoopSet& loops) {
    return loops.isaName;
}

// Encoders for the format in order of preference, limited by `hardware`.
std::vector<Impl> encodeCandidates(const FormatSpec& target, const RoundingOptions& options,
                                   HardwareUse hardware, std::uint64_t seed, bool withReference) {
    std::vector<Impl> found;
    const bool ieee = options.overflow == OverflowPolicy::Ieee && ieeeModeOnly(options);
    if (hardware != HardwareUse::Never && ieee && isFp16Encoding(target)) {
        std::uint32_t nan[2] = {coreCode(target, ExactValue::nan(false), options),
                                coreCode(target, ExactValue::nan(true), options)};
        if (kernels::hasAvx512Fp16()) {
            Impl impl = makeImpl(target, options, seed, Strategy::Avx512Fp16,
                                 {"AVX512-FP16 vcvtps2phx", true, true, ""});
            std::memcpy(impl->nanCode, nan, sizeof nan);
            found.push_back(std::move(impl));
        }
        if (kernels::hasF16c()) {
            Impl impl =
                makeImpl(target, options, seed, Strategy::F16c, {"F16C vcvtps2ph", true, true, ""});
            std::memcpy(impl->nanCode, nan, sizeof nan);
            found.push_back(std::move(impl));
        }
    }
    if (hardware == HardwareUse::Any && options.mode == RoundingMode::NearestEven &&
        options.overflow == OverflowPolicy::Ieee && isBf16Encoding(target) &&
        kernels::hasAvx512Bf16()) {
        Impl impl =
            makeImpl(target, options, seed, Strategy::Avx512Bf16,
                     {"AVX512-BF16 vcvtneps2bf16", true, false,
                      "the instruction flushes FP32 subnormal inputs to ±0 (denormals-are-zero): "
                      "those inputs differ from the exact core"});
        impl->nanCode[0] = coreCode(target, ExactValue::nan(false), options);
        impl->nanCode[1] = coreCode(target, ExactValue::nan(true), options);
        found.push_back(std::move(impl));
    }
    const kernels::LoopSet& loops = bestLoops();
    const std::optional<kernels::EncodeParams> bitTrick = encodeParams(target, options);
    // Formats of few codes (up to 31 breakpoints) can also be encoded by their breakpoints.
    // With AVX-512 the segment is found by a bisection over registers or, where the
    // breakpoints fit 32 buckets, by one compare: faster than the bit tricks as GCC vectorises
    // them, level with the hand-written nearest-even byte encoders (fpx bench ranks them;
    // docs/behaviour.md, "Benchmarks"). So the breakpoints come first where those do not apply
    // (FP4, INT4 in the other rounding modes; NF4, which has no bit trick); otherwise they are a
    // further path (all paths).
    const bool registerBisection = &loops == kernels::avx512Loops();
    const bool intrinsics = bitTrick && options.mode == RoundingMode::NearestEven &&
                            packedBytes(target) == 1 &&
                            loops.nearestEvenBytesInIntrinsics(*bitTrick);
    const bool breakpointsFirst = registerBisection && !intrinsics;
    std::optional<kernels::LookupParams> breakpoints;
    if (!bitTrick || breakpointsFirst || withReference)
        breakpoints = lookupParams(target, options);
    auto addBreakpoints = [&] {
        if (!breakpoints)
            return;
        // With AVX-512, breakpoints that fall at most one into each of 32 buckets take one
        // compare instead of the bisection.
        const auto buckets = kernels::hasAvx512() && packedBytes(target) == 1
                                 ? kernels::bucketBreakpoints(*breakpoints)
                                 : std::nullopt;
        if (buckets) {
            Impl impl = makeImpl(target, options, seed, Strategy::BucketLookup,
                                 {"breakpoints in buckets (AVX-512)", false, true, ""});
            impl->buckets = *buckets;
            found.push_back(std::move(impl));
        }
        if (!buckets || withReference) {
            Impl impl = makeImpl(target, options, seed, Strategy::Lookup,
                                 {"breakpoints (" + isaLabel(loops) + ")", false, true, ""});
            impl->lookup = *breakpoints;
            found.push_back(std::move(impl));
        }
    };
    if (breakpointsFirst)
        addBreakpoints();
    if (bitTrick) {
        Impl impl = makeImpl(target, options, seed, Strategy::BitTrick,
                             {"bit trick (" + isaLabel(loops) + ")", false, true, ""});
        setEncode(*impl, *bitTrick);
        found.push_back(std::move(impl));
        if (withReference) {
            Impl scalar = makeImpl(target, options, seed, Strategy::BitTrick,
                                   {"bit trick (scalar)", false, true, ""});
            scalar->loops = &kernels::scalarLoops();
            setEncode(*scalar, *bitTrick);
            found.push_back(std::move(scalar));
        }
    }
    if (!breakpointsFirst)
        addBreakpoints();
    if (withReference && !found.empty() && packedBytes(target) <= 4) {
        Impl impl = makeImpl(target, options, seed, Strategy::ScalarReference,
                             {"scalar reference", false, true, ""});
        impl->scalar = Fp32Kernel::create(impl->format, options);
        if (impl->scalar)
            impl->path.note = "one element at a time, branching on its class (Fp32Kernel)";
        else
            impl->path.note = "one element at a time through the exact core";
        found.push_back(std::move(impl));
    }
    return found;
}

std::vector<Impl> decodeCandidates(const FormatSpec& source, const RoundingOptions& options,
                                   HardwareUse hardware, bool withReference) {
    std::vector<Impl> found;
    std::uint32_t nan[2] = {coreCode(fp32Spec(), ExactValue::nan(false), options),
                            coreCode(fp32Spec(), ExactValue::nan(true), options)};
    // The instructions widen ±∞ to ±∞; a saturating policy wants ±FLT_MAX (the table has it).
    if (hardware != HardwareUse::Never && isFp16Encoding(source) &&
        options.overflow == OverflowPolicy::Ieee) {
        if (kernels::hasAvx512Fp16()) {
            Impl impl = makeImpl(source, options, 0, Strategy::Avx512Fp16,
                                 {"AVX512-FP16 vcvtph2psx", true, true, ""});
            std::memcpy(impl->nanCode, nan, sizeof nan);
            found.push_back(std::move(impl));
        }
        if (kernels::hasF16c()) {
            Impl impl =
                makeImpl(source, options, 0, Strategy::F16c, {"F16C vcvtph2ps", true, true, ""});
            std::memcpy(impl->nanCode, nan, sizeof nan);
            found.push_back(std::move(impl));
        }
    }
    if (auto p = widenParams(source, options)) {
        Impl impl = makeImpl(source, options, 0, Strategy::Widen,
                             {"shift (" + isaLabel(bestLoops()) + ")", false, true, ""});
        impl->widen = *p;
        found.push_back(std::move(impl));
    }
    if (auto p = floatDecodeParams(source, options)) {
        Impl impl = makeImpl(source, options, 0, Strategy::FloatDecode,
                             {"bit trick (" + isaLabel(bestLoops()) + ")", false, true, ""});
        impl->floatDecode = *p;
        found.push_back(std::move(impl));
    }
    // 7- and 8-bit codes (FP8, INT8, E8M0): the table split into byte planes, 64 codes at a
    // time, is faster than the bit trick and than the dword table in registers (13 instructions
    // on the permute port per 64 codes instead of about 40). A software kernel like the others (a
    // lookup, no conversion instruction).
    if (source.totalBits() >= 7 && source.totalBits() <= 8 &&
        options.mode != RoundingMode::Stochastic && kernels::hasAvx512Vbmi()) {
        Impl impl = makeImpl(source, options, 0, Strategy::ByteTable,
                             {"table (AVX-512 VBMI byte planes)", false, true, ""});
        impl->table = decodeTable(source, options);
        splitIntoBytePlanes(impl->table, impl->tablePlanes);
        found.insert(found.begin(), std::move(impl));
    }
    // The table, for every format of at most 16 bits: the reference the bit tricks are
    // compared with. With AVX-512 a table of up to 256 entries is held in registers
    // (registerTableLoop); up to 64 entries (FP6, FP4, INT4, NF4), at most two permutes and
    // a blend per 16 codes, that is faster than any bit trick, so it comes first. With AVX2
    // (no AVX-512), tables of byte codes are looked up in two registers (up to 16 entries) or
    // by vpgatherdd, faster than the AVX2 bit trick, so they come first too.
    if (source.totalBits() <= 16 && options.mode != RoundingMode::Stochastic) {
        const bool byteCodes = source.totalBits() <= 8;
        const bool inRegisters = byteCodes && &bestLoops() == kernels::avx512Loops();
        const bool avx2 = byteCodes && &bestLoops() == kernels::avx2Loops();
        const bool fastest = (inRegisters && source.totalBits() <= 6) || avx2;
        const char* label = inRegisters                       ? "table (AVX-512 registers)"
                            : avx2 && source.totalBits() <= 4 ? "table (AVX2 registers)"
                            : avx2                            ? "table (AVX2 gathers)"
                                                              : "table";
        if (withReference || found.empty() || fastest) {
            Impl impl = makeImpl(source, options, 0, Strategy::Table, {label, false, true, ""});
            impl->table = decodeTable(source, options);
            found.insert(fastest ? found.begin() : found.end(), std::move(impl));
        }
    }
    return found;
}

} // namespace

// --- BulkEncoder ---------------------------------------------------------------------

BulkEncoder::BulkEncoder(std::unique_ptr<BulkConverterImpl> impl) : impl_(std::move(impl)) {}
BulkEncoder::~BulkEncoder() = default;
BulkEncoder::BulkEncoder(const BulkEncoder& other) : impl_(clone(*other.impl_)) {}
BulkEncoder& BulkEncoder::operator=(const BulkEncoder& other) {
    impl_ = clone(*other.impl_);
    return *this;
}
BulkEncoder::BulkEncoder(BulkEncoder&&) noexcept = default;
BulkEncoder& BulkEncoder::operator=(BulkEncoder&&) noexcept = default;

std::optional<BulkEncoder> BulkEncoder::create(const FormatSpec& target,
                                               const RoundingOptions& options, HardwareUse hardware,
                                               std::uint64_t seed) {
    std::vector<Impl> candidates = encodeCandidates(target, options, hardware, seed, false);
    if (candidates.empty())
        return std::nullopt;
    return BulkEncoder(std::move(candidates.front()));
}

std::vector<BulkEncoder> BulkEncoder::allPaths(const FormatSpec& target,
                                               const RoundingOptions& options, std::uint64_t seed) {
    std::vector<BulkEncoder> paths;
    for (Impl& impl : encodeCandidates(target, options, HardwareUse::Any, seed, true))
        paths.push_back(BulkEncoder(std::move(impl)));
    return paths;
}

int BulkEncoder::bytesPerElement() const {
    return impl_->bytes;
}
const KernelPath& BulkEncoder::path() const {
    return impl_->path;
}

namespace {

// Outputs larger than this are written with streaming stores: far beyond the cache, a normal
// store first reads the line it writes (read-for-ownership), a quarter to a half more memory
// traffic than the conversion needs. The loops stream themselves (streamsItself below); the
// rest is converted in L1-sized pieces that are then copied out.
constexpr std::size_t kStreamingOutputBytes = std::size_t{8} << 20;
constexpr std::size_t kStreamingPieceBytes = 16384;

template <typename Convert>
void writeStreaming(void* out, std::size_t count, std::size_t outBytes, const Convert& convert) {
    alignas(64) unsigned char piece[kStreamingPieceBytes];
    const std::size_t perPiece = kStreamingPieceBytes / outBytes;
    for (std::size_t start = 0; start < count; start += perPiece) {
        const std::size_t n = std::min(perPiece, count - start);
        convert(start, n, piece);
        kernels::streamingCopy(static_cast<unsigned char*>(out) + start * outBytes, piece,
                               n * outBytes);
    }
    kernels::streamingFence();
}

} // namespace

namespace {

void encodeWith(const BulkConverterImpl& c, const std::uint32_t* in, void* out, std::size_t count,
                std::uint64_t firstIndex, kernels::OutputStores stores) {
    auto* out16 = static_cast<std::uint16_t*>(out);
    switch (c.strategy) {
    case Strategy::BitTrick:
        c.encodeLoop[static_cast<int>(stores)](c.encode, in, out, count, c.seed, firstIndex);
        return;
    case Strategy::Lookup:
        c.loops->lookup[static_cast<int>(stores)][kernels::widthIndex(c.bytes)](c.lookup, in, out,
                                                                                count);
        return;
    case Strategy::BucketLookup:
        kernels::avx512BucketLookup(c.buckets, in, static_cast<std::uint8_t*>(out), count, stores);
        return;
    case Strategy::F16c:
        kernels::f16cEncode(c.options.mode, in, out16, count, c.nanCode, stores);
        return;
    case Strategy::Avx512Fp16:
        kernels::avx512Fp16Encode(c.options.mode, in, out16, count, c.nanCode, stores);
        return;
    case Strategy::Avx512Bf16:
        kernels::avx512Bf16Encode(in, out16, count, c.nanCode, stores);
        return;
    case Strategy::ScalarReference:
        if (c.scalar && c.bytes == 1)
            c.scalar->convert(in, static_cast<std::uint8_t*>(out), count);
        else if (c.scalar && c.bytes == 2)
            c.scalar->convert(in, out16, count);
        else if (c.scalar && c.bytes == 4)
            c.scalar->convert(in, static_cast<std::uint32_t*>(out), count);
        else
            encodeWithExactCore(c.format, c.options, in, out, count, c.seed, firstIndex);
        return;
    case Strategy::Table:
    case Strategy::ByteTable:
    case Strategy::Widen:
    case Strategy::FloatDecode:
        return; // decoders only
    }
}

// Whether the strategy's own loop writes streaming stores to `out`: every loop but the scalar
// reference streams whole lines from the first 64-byte boundary (in interleaved runs, see
// kernels/interleaved_blocks.h), which a code reaches only if `out` is aligned to the code's
// size. The rest is written in pieces by writeStreaming.
bool streamsItself(Strategy strategy, const void* out, std::size_t bytes) {
    const bool aligned = reinterpret_cast<std::uintptr_t>(out) % bytes == 0;
    return aligned && strategy != Strategy::ScalarReference;
}

} // namespace

void BulkEncoder::encode(const std::uint32_t* in, void* out, std::size_t count,
                         std::uint64_t firstIndex) const {
    const BulkConverterImpl& c = *impl_;
    const std::size_t bytes = static_cast<std::size_t>(c.bytes);
    if (count * bytes < kStreamingOutputBytes) {
        encodeWith(c, in, out, count, firstIndex, kernels::OutputStores::Cached);
    } else if (streamsItself(c.strategy, out, bytes)) {
        encodeWith(c, in, out, count, firstIndex, kernels::OutputStores::Streaming);
        kernels::streamingFence();
    } else {
        writeStreaming(out, count, bytes, [&](std::size_t start, std::size_t n, void* piece) {
            encodeWith(c, in + start, piece, n, firstIndex + start, kernels::OutputStores::Cached);
        });
    }
}

// --- BulkDecoder ---------------------------------------------------------------------

BulkDecoder::BulkDecoder(std::unique_ptr<BulkConverterImpl> impl) : impl_(std::move(impl)) {}
BulkDecoder::~BulkDecoder() = default;
BulkDecoder::BulkDecoder(const BulkDecoder& other) : impl_(clone(*other.impl_)) {}
BulkDecoder& BulkDecoder::operator=(const BulkDecoder& other) {
    impl_ = clone(*other.impl_);
    return *this;
}
BulkDecoder::BulkDecoder(BulkDecoder&&) noexcept = default;
BulkDecoder& BulkDecoder::operator=(BulkDecoder&&) noexcept = default;

std::optional<BulkDecoder> BulkDecoder::create(const FormatSpec& source,
                                               const RoundingOptions& options,
                                               HardwareUse hardware) {
    std::vector<Impl> candidates = decodeCandidates(source, options, hardware, false);
    if (candidates.empty())
        return std::nullopt;
    return BulkDecoder(std::move(candidates.front()));
}

std::vector<BulkDecoder> BulkDecoder::allPaths(const FormatSpec& source,
                                               const RoundingOptions& options) {
    std::vector<BulkDecoder> paths;
    for (Impl& impl : decodeCandidates(source, options, HardwareUse::Any, true))
        paths.push_back(BulkDecoder(std::move(impl)));
    return paths;
}

int BulkDecoder::bytesPerElement() const {
    return impl_->bytes;
}
const KernelPath& BulkDecoder::path() const {
    return impl_->path;
}

namespace {

void decodeWith(const BulkConverterImpl& c, const void* in, std::uint32_t* out, std::size_t count,
                kernels::OutputStores stores) {
    const auto* in16 = static_cast<const std::uint16_t*>(in);
    const int storesIndex = static_cast<int>(stores);
    switch (c.strategy) {
    case Strategy::F16c:
        kernels::f16cDecode(in16, out, count, c.nanCode, stores);
        return;
    case Strategy::Avx512Fp16:
        kernels::avx512Fp16Decode(in16, out, count, c.nanCode, stores);
        return;
    case Strategy::Widen:
        c.loops->widen[storesIndex][c.bytes == 2 ? 0 : 1](c.widen, in, out, count);
        return;
    case Strategy::FloatDecode:
        c.loops->floatDecode[storesIndex][kernels::widthIndex(c.bytes)](c.floatDecode, in, out,
                                                                        count);
        return;
    case Strategy::Table:
        c.loops->table[storesIndex][c.bytes == 1 ? 0 : 1](
            c.table.data(), static_cast<std::uint32_t>(c.table.size() - 1), in, out, count);
        return;
    case Strategy::ByteTable:
        kernels::avx512VbmiTableDecode(static_cast<const std::uint8_t*>(in), out, count,
                                       c.table.data(), c.tablePlanes,
                                       static_cast<std::uint8_t>(c.table.size() - 1), stores);
        return;
    default:
        decodeWithExactCore(c.format, c.options, in, out, count);
        return;
    }
}

} // namespace

void BulkDecoder::decode(const void* in, std::uint32_t* out, std::size_t count) const {
    const BulkConverterImpl& c = *impl_;
    if (count * 4 < kStreamingOutputBytes) {
        decodeWith(c, in, out, count, kernels::OutputStores::Cached);
        return;
    }
    // Every decoder has a streaming loop (the exact core's speed no store can change).
    if (reinterpret_cast<std::uintptr_t>(out) % alignof(std::uint32_t) == 0) {
        decodeWith(c, in, out, count, kernels::OutputStores::Streaming);
        kernels::streamingFence();
        return;
    }
    // A misaligned output (possible through a cast from bytes) reaches no 64-byte boundary.
    const std::size_t inBytes = static_cast<std::size_t>(c.bytes);
    writeStreaming(out, count, 4, [&](std::size_t start, std::size_t n, void* piece) {
        decodeWith(c, static_cast<const unsigned char*>(in) + start * inBytes,
                   static_cast<std::uint32_t*>(piece), n, kernels::OutputStores::Cached);
    });
}

} // namespace fpx
