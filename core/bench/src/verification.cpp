// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/bench/verification.h"

#include "fpx/exact/code.h"
#include "fpx/exact/packed_codes.h"
#include "fpx/kernels/bulk_conversion.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace fpx::bench {

namespace {

constexpr std::uint32_t kSignBit = 0x80000000u;
constexpr std::uint32_t kMagnitude = 0x7fffffffu;
constexpr std::uint32_t kInfinityBits = 0x7f800000u;
constexpr std::uint32_t kFltMaxBits = 0x7f7fffffu;

bool isNanBits(std::uint32_t bits) {
    return (bits & kMagnitude) > kInfinityBits;
}

std::size_t indexOf(Deviation deviation) {
    return static_cast<std::size_t>(deviation);
}

// The value, its two FP32 neighbours (toward ±∞), both signs.
void pushWithNeighbours(std::vector<std::uint32_t>& out, float value) {
    if (std::isnan(value))
        return;
    for (const float v : {value, std::nextafter(value, std::numeric_limits<float>::infinity()),
                          std::nextafter(value, -std::numeric_limits<float>::infinity())}) {
        out.push_back(std::bit_cast<std::uint32_t>(v));
        out.push_back(std::bit_cast<std::uint32_t>(-v));
    }
}

} // namespace

std::string_view deviationId(Deviation deviation) {
    switch (deviation) {
    case Deviation::NanPayload:
        return "nan-payload";
    case Deviation::NanInputAnyCode:
        return "nan-input-any-code";
    case Deviation::InfinityInput:
        return "infinity-input";
    case Deviation::OverflowInput:
        return "overflow-input";
    case Deviation::NanInputToInfinity:
        return "nan-input-to-infinity";
    case Deviation::SubnormalInputFlushed:
        return "subnormal-input-flushed";
    }
    return "nan-payload";
}

std::string_view deviationDescription(Deviation deviation) {
    switch (deviation) {
    case Deviation::NanPayload:
        return "NaN payloads or signs (both results NaN)";
    case Deviation::NanInputAnyCode:
        return "NaN inputs into a format without NaN (any code)";
    case Deviation::InfinityInput:
        return "infinities not saturated";
    case Deviation::OverflowInput:
        return "overflow rule differs (inputs beyond the largest finite value)";
    case Deviation::NanInputToInfinity:
        return "NaN inputs rounded as numbers (to ±inf or ±max)";
    case Deviation::SubnormalInputFlushed:
        return "subnormal inputs flushed to ±0";
    }
    return "";
}

std::string Deviations::describe() const {
    std::string text;
    for (Deviation d : kDeviations)
        if (contains(d))
            text = joinNotes(text, std::string(deviationDescription(d)));
    return text;
}

RoundingOptions exactCoreOptions(const RoundingOptions& requested, Direction direction) {
    RoundingOptions options = requested;
    if (direction == Direction::Decode && options.mode == RoundingMode::Stochastic)
        options.mode = RoundingMode::NearestEven;
    return options;
}

std::vector<std::uint32_t> adversarialFp32(const FormatSpec& format) {
    return adversarialFp32(format.totalBits() <= 16 ? decodeTable(format)
                                                    : std::vector<std::uint32_t>{});
}

std::vector<std::uint32_t> adversarialFp32(const std::vector<std::uint32_t>& values) {
    std::vector<std::uint32_t> out;

    // Specials: zeros, infinities, quiet and signalling NaNs with payloads, FP32 subnormals.
    for (const std::uint32_t sign : {0u, kSignBit})
        for (const std::uint32_t magnitude :
             {0x0u, 0x7f800000u, 0x7fc00000u, 0x7f800001u, 0x7fbfffffu, 0x7fffffffu, 0x7fc00001u,
              0x7fa00000u, 0x7f802000u, 0x1u, 0x2u, 0x3u, 0x100u, 0x400000u, 0x7fffffu, 0x7f7fffffu,
              0x800000u})
            out.push_back(sign | magnitude);

    // Every exponent, with fractions on, just below and just above every rounding position
    // k (a tie when k bits are dropped) and with an odd or even kept part.
    std::vector<std::uint32_t> fractions = {0u, 0x7fffffu, 0x555555u, 0x2aaaaau, 0x7ffffeu};
    for (std::uint32_t k = 0; k < 23; ++k) {
        const std::uint32_t bit = 1u << k;
        fractions.insert(fractions.end(), {bit, bit - 1u, bit + 1u, (bit - 1u) | 0x400000u,
                                           bit | (bit << 1), (bit | (bit << 1)) - 1u,
                                           (bit | (bit << 1)) + 1u, 0x7fffffu & ~(bit - 1u)});
    }
    for (std::uint32_t exponent = 0; exponent < 256; ++exponent)
        for (const std::uint32_t fraction : fractions)
            for (const std::uint32_t sign : {0u, kSignBit})
                out.push_back(sign | (exponent << 23) | (fraction & 0x7fffffu));

    // Every value of the format, its neighbours, and the midpoints between consecutive values.
    std::vector<float> finite;
    for (const std::uint32_t bits : values) {
        const float v = std::fabs(std::bit_cast<float>(bits));
        if (std::isfinite(v))
            finite.push_back(v);
    }
    std::sort(finite.begin(), finite.end());
    finite.erase(std::unique(finite.begin(), finite.end()), finite.end());
    if (!finite.empty() && finite.front() != 0.0f)
        finite.insert(finite.begin(), 0.0f); // the midpoint below the smallest value
    for (std::size_t i = 0; i < finite.size(); ++i) {
        pushWithNeighbours(out, finite[i]);
        const double next =
            i + 1 < finite.size()
                ? static_cast<double>(finite[i + 1])
                // Past the largest finite value: the next value of an unbounded
                // exponent range, whose midpoint is the overflow tie.
                : 2.0 * finite[i] - (i > 0 ? static_cast<double>(finite[i - 1]) : 0.0);
        const double midpoint = (static_cast<double>(finite[i]) + next) / 2.0;
        if (midpoint < std::numeric_limits<float>::max())
            pushWithNeighbours(out, static_cast<float>(midpoint));
        if (i + 1 == finite.size() && next < std::numeric_limits<float>::max())
            pushWithNeighbours(out, static_cast<float>(next));
    }

    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::vector<std::uint8_t> adversarialCodes(const FormatSpec& format, std::size_t limit) {
    const int bits = format.totalBits();
    const int bytes = packedBytes(format);
    const Code codes = bits >= 128 ? ~Code{0} : Code{1} << bits;
    const std::size_t count = static_cast<std::size_t>(std::min<Code>(codes, limit));
    const Code stride = codes <= limit ? 1 : codes / limit;
    std::vector<std::uint8_t> out(count * static_cast<std::size_t>(bytes));
    for (std::size_t i = 0; i < count; ++i)
        writePackedCode(out.data(), bytes, i, Code{i} * stride);
    return out;
}

AdversarialSet adversarialSet(const FormatSpec& format, const RoundingOptions& options,
                              Direction direction) {
    AdversarialSet set;
    if (direction == Direction::Encode) {
        const std::vector<std::uint32_t> inputs = adversarialFp32(format);
        set.count = inputs.size();
        set.inputs.resize(inputs.size() * 4);
        std::memcpy(set.inputs.data(), inputs.data(), set.inputs.size());
    } else {
        set.inputs = adversarialCodes(format);
        set.count = set.inputs.size() / static_cast<std::size_t>(packedBytes(format));
    }
    set.expected =
        exactCoreOutputs(format, options, direction, set.inputs.data(), set.count, kSeed);
    return set;
}

std::vector<std::uint8_t> exactCoreOutputs(const FormatSpec& format, const RoundingOptions& options,
                                           Direction direction, const void* inputs,
                                           std::size_t count, std::uint64_t seed,
                                           std::uint64_t firstIndex) {
    if (direction == Direction::Encode) {
        std::vector<std::uint8_t> out(count * static_cast<std::size_t>(packedBytes(format)));
        encodeWithExactCore(format, options, static_cast<const std::uint32_t*>(inputs), out.data(),
                            count, seed, firstIndex);
        return out;
    }
    std::vector<std::uint8_t> out(count * 4);
    decodeWithExactCore(format, options, inputs, reinterpret_cast<std::uint32_t*>(out.data()),
                        count);
    return out;
}

std::vector<std::uint8_t> decodeInputs(const FormatSpec& format, const std::uint32_t* fp32Bits,
                                       std::size_t count) {
    const auto source = BulkEncoder::create(format, {});
    if (!source)
        return {};
    std::vector<std::uint8_t> codes(count * static_cast<std::size_t>(packedBytes(format)));
    source->encode(fp32Bits, codes.data(), count);
    return codes;
}

void writeRandomCodes(const FormatSpec& format, std::size_t count, void* codes, std::size_t begin,
                      std::size_t end) {
    const int bytes = packedBytes(format);
    const std::uint64_t seed = randomInputSeed(count);
    const auto mask = static_cast<std::uint32_t>(lowBitsMask(std::min(format.totalBits(), 32)));
    for (std::size_t i = begin; i < end; ++i)
        writePackedCode(codes, bytes, i,
                        static_cast<std::uint32_t>(stochasticBits(seed, i) >> 32) & mask);
}

std::vector<std::uint8_t> randomCodes(const FormatSpec& format, std::size_t count) {
    std::vector<std::uint8_t> codes(count * static_cast<std::size_t>(packedBytes(format)));
    writeRandomCodes(format, count, codes.data(), 0, count);
    return codes;
}

// ---- DeviationJudge ---------------------------------------------------------------------

DeviationJudge::DeviationJudge(const FormatSpec& format, const RoundingOptions& options,
                               Direction direction, Deviations declared)
    : format_(format), options_(options), direction_(direction), declared_(declared),
      codeBytes_(packedBytes(format)) {
    if (direction != Direction::Encode)
        return;
    if (declared.contains(Deviation::OverflowInput) ||
        declared.contains(Deviation::NanInputToInfinity)) {
        // Largest finite magnitude: FLT_MAX rounded toward zero (IEEE overflow in a directed
        // mode toward zero gives the largest finite value), decoded.
        std::uint32_t code = 0;
        encodeWithExactCore(format_, {RoundingMode::TowardZero, OverflowPolicy::Ieee, 0},
                            &kFltMaxBits, &code, 1);
        maxFiniteBits_ = decodeBits(code) & kMagnitude;
    }
    if (declared.contains(Deviation::SubnormalInputFlushed)) {
        const std::uint32_t zeros[2] = {0u, kSignBit};
        encodeWithExactCore(format_, options_, &zeros[0], &zeroCode_[0], 1);
        encodeWithExactCore(format_, options_, &zeros[1], &zeroCode_[1], 1);
    }
}

int DeviationJudge::inputBytes() const {
    return direction_ == Direction::Encode ? 4 : codeBytes_;
}

int DeviationJudge::outputBytes() const {
    return direction_ == Direction::Encode ? codeBytes_ : 4;
}

std::uint32_t DeviationJudge::decodeBits(std::uint32_t code) const {
    std::uint32_t bits = 0;
    decodeWithExactCore(format_, options_, &code, &bits, 1); // little-endian: the code first
    return bits;
}

std::optional<Deviation> DeviationJudge::explain(std::uint32_t input, std::uint32_t got,
                                                 std::uint32_t expected) const {
    if (direction_ == Direction::Decode) {
        if (declared_.contains(Deviation::NanPayload) && isNanBits(expected) && isNanBits(got))
            return Deviation::NanPayload;
        // An infinity code: ±inf where the saturating exact core gives ±FLT_MAX (no finite
        // code of a format a device decodes is FLT_MAX), same sign.
        if (declared_.contains(Deviation::InfinityInput) &&
            (expected & kMagnitude) == kFltMaxBits &&
            got == ((expected & kSignBit) | kInfinityBits))
            return Deviation::InfinityInput;
        return std::nullopt;
    }
    const std::uint32_t magnitude = input & kMagnitude;
    if (declared_.contains(Deviation::NanPayload) && isNanBits(decodeBits(expected)) &&
        isNanBits(decodeBits(got)))
        return Deviation::NanPayload;
    if (declared_.contains(Deviation::NanInputAnyCode) && magnitude > kInfinityBits &&
        !format_.hasNaN())
        return Deviation::NanInputAnyCode;
    if (declared_.contains(Deviation::InfinityInput) && magnitude == kInfinityBits)
        return Deviation::InfinityInput;
    if (declared_.contains(Deviation::NanInputToInfinity) && magnitude > kInfinityBits) {
        // Decoded as IEEE: the saturating policy would read an infinity code as ±FLT_MAX.
        RoundingOptions ieee = options_;
        ieee.overflow = OverflowPolicy::Ieee;
        std::uint32_t gotBits = 0;
        decodeWithExactCore(format_, ieee, &got, &gotBits, 1);
        const std::uint32_t gotMagnitude = gotBits & kMagnitude;
        if ((gotBits & kSignBit) == (input & kSignBit) &&
            (gotMagnitude == kInfinityBits || gotMagnitude == maxFiniteBits_))
            return Deviation::NanInputToInfinity;
    }
    if (declared_.contains(Deviation::OverflowInput) && magnitude < kInfinityBits &&
        magnitude > maxFiniteBits_)
        return Deviation::OverflowInput;
    if (declared_.contains(Deviation::SubnormalInputFlushed) && magnitude != 0 &&
        magnitude < 0x00800000u && got == zeroCode_[(input & kSignBit) != 0 ? 1 : 0])
        return Deviation::SubnormalInputFlushed;
    return std::nullopt;
}

// ---- Verification -----------------------------------------------------------------------

std::uint64_t Verification::explained() const {
    std::uint64_t total = 0;
    for (std::uint64_t n : explainedBy)
        total += n;
    return total;
}

void Verification::add(const Verification& other) {
    checked += other.checked;
    mismatches += other.mismatches;
    for (std::size_t i = 0; i < explainedBy.size(); ++i)
        explainedBy[i] += other.explainedBy[i];
    if (firstMismatch.empty())
        firstMismatch = other.firstMismatch;
}

std::string Verification::describe() const {
    if (mismatches == 0)
        return {};
    std::string text = std::to_string(mismatches) + " of " + std::to_string(checked) +
                       " checked elements differ from the exact core: ";
    std::string classes;
    for (Deviation d : kDeviations) {
        const std::uint64_t n = explainedBy[indexOf(d)];
        if (n == 0)
            continue;
        classes += (classes.empty() ? "" : ", ") +
                   (n == mismatches ? std::string("all") : std::to_string(n)) + " " +
                   std::string(deviationDescription(d));
    }
    if (unexplained() > 0)
        classes += (classes.empty() ? "" : ", ") + std::to_string(unexplained()) +
                   " outside the path's declared deviations";
    return text + classes + "; first: " + firstMismatch;
}

Verification verify(const DeviationJudge& judge, const void* inputs, const void* expected,
                    const void* actual, std::size_t count) {
    Verification outcome;
    outcome.checked = count;
    const int inBytes = judge.inputBytes();
    const int outBytes = judge.outputBytes();
    const auto* e = static_cast<const std::uint8_t*>(expected);
    const auto* a = static_cast<const std::uint8_t*>(actual);
    const std::size_t width = static_cast<std::size_t>(outBytes);
    // Whole blocks first: equal blocks (almost all of them) are compared with memcmp.
    constexpr std::size_t kBlock = 4096;
    for (std::size_t start = 0; start < count; start += kBlock) {
        const std::size_t n = std::min(kBlock, count - start);
        if (std::memcmp(e + start * width, a + start * width, n * width) == 0)
            continue;
        for (std::size_t i = start; i < start + n; ++i) {
            const std::uint32_t want = readPackedCode(expected, outBytes, i);
            const std::uint32_t got = readPackedCode(actual, outBytes, i);
            if (want == got)
                continue;
            ++outcome.mismatches;
            const std::uint32_t input = readPackedCode(inputs, inBytes, i);
            if (const auto why = judge.explain(input, got, want))
                ++outcome.explainedBy[indexOf(*why)];
            if (outcome.firstMismatch.empty())
                outcome.firstMismatch = "input " + codeToHex(input, 8 * inBytes) + " gave " +
                                        codeToHex(got, 8 * outBytes) + ", exact core " +
                                        codeToHex(want, 8 * outBytes);
        }
    }
    return outcome;
}

void recordVerification(BenchResult& result, const Verification& verification,
                        Deviations declared) {
    result.checked = verification.checked;
    result.mismatches = verification.mismatches;
    result.verified = verification.checked > 0 && verification.mismatches == 0;
    // A difference outside the declared classes fails the path, declared or not.
    result.exactByDesign = declared.empty() || verification.unexplained() > 0;
    result.note = joinNotes(result.note, verification.describe());
}

std::string joinNotes(const std::string& a, const std::string& b) {
    if (a.empty())
        return b;
    if (b.empty())
        return a;
    return a + "; " + b;
}

} // namespace fpx::bench
