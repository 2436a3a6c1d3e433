// SPDX-License-Identifier: GPL-3.0-or-later
// The reference quantizer: every scale and every element is one roundToFormat of an exact value
// (docs/behaviour.md, "Block formats and quantization", states the rules and why each dequantized
// value is exact in a double).
#include "fpx/quantization/block_quantization.h"

#include "fast_dequantizer.h"
#include "fpx/exact/parallel_chunks.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_limits.h"
#include "fpx/exact/packed_codes.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace fpx {

namespace {

constexpr std::size_t kNf4DoubleQuantGroup = 256; // absmax codes sharing one FP32 scale
constexpr std::size_t kProgressStride = 1 << 12;  // elements between progress calls

constexpr RoundingOptions kNearestSaturating{RoundingMode::NearestEven, OverflowPolicy::Saturate};

// The largest level of an integer element (symmetric: −qmax…qmax for signed formats).
BigInt integerMax(const FormatSpec& spec) {
    return spec.isSigned ? (BigInt(1) << (spec.integerBits - 1)) - 1
                         : (BigInt(1) << spec.integerBits) - 1;
}

struct ElementResult {
    Code code = 0;
    bool clipped = false;
};

// q (already divided by the block's scale) rounded once into the element format, nearest-even,
// saturating. Signed integer elements are symmetric: the level −2^(n−1), which RNE reaches
// from q ≤ −qmax − ½, is clamped to −qmax (MXINT8's −127…127, int8's −127…127).
ElementResult roundElement(const ExactValue& q, const FormatSpec& element) {
    const Conversion c = roundToFormat(q, element, kNearestSaturating);
    ElementResult r{c.code, c.flags.overflow};
    if (element.kind == FormatKind::Integer && element.isSigned) {
        const Code mostNegative = Code(1) << (element.integerBits - 1);
        if (r.code == mostNegative) {
            r.code = mostNegative + 1;
            r.clipped = true;
        }
    }
    return r;
}

// Element code → value as a double: by table for codes of up to 16 bits, by reinterpreting the
// bits for FP32 and FP64 casts, through decodeCode otherwise.
class ElementDecoder {
  public:
    explicit ElementDecoder(const FormatSpec& spec) : spec_(spec) {
        if (spec.totalBits() <= 16) {
            table_.resize(std::size_t(1) << spec.totalBits());
            for (std::size_t c = 0; c < table_.size(); ++c)
                table_[c] = doubleFromExact(decodeCode(spec, Code(c)).value);
        }
        const bool ieee = spec.kind == FormatKind::BinaryFloat && spec.isSigned &&
                          spec.specials == SpecialEncoding::Ieee && !spec.explicitIntegerBit &&
                          spec.exponentZeroIsSubnormal;
        binary32_ = ieee && spec.exponentBits == 8 && spec.fractionBits == 23 && spec.bias == 127;
        binary64_ = ieee && spec.exponentBits == 11 && spec.fractionBits == 52 && spec.bias == 1023;
    }
    double operator()(Code code) const {
        if (!table_.empty())
            return table_[static_cast<std::size_t>(code)];
        if (binary32_)
            return double(std::bit_cast<float>(static_cast<std::uint32_t>(code)));
        if (binary64_)
            return std::bit_cast<double>(static_cast<std::uint64_t>(code));
        return doubleFromExact(decodeCode(spec_, code).value);
    }

  private:
    const FormatSpec& spec_;
    std::vector<double> table_;
    bool binary32_ = false;
    bool binary64_ = false;
};

// The code of +0 in the element format (what a block whose scale is NaN or 0 stores).
Code zeroCode(const FormatSpec& element) {
    return roundToFormat(ExactValue::zero(), element).code;
}

struct BlockRange {
    std::size_t begin = 0;
    std::size_t end = 0;
};

// Whether the block holds a NaN or ±∞ (they are counted by the caller), and its finite amax.
struct BlockScan {
    bool nonFinite = false;
    double amax = 0;
};

BlockScan scanBlock(const TensorView& input, BlockRange block) {
    BlockScan s;
    for (std::size_t i = block.begin; i < block.end; ++i) {
        const double x = input.at(i);
        if (!std::isfinite(x))
            s.nonFinite = true;
        else
            s.amax = std::max(s.amax, std::fabs(x));
    }
    return s;
}

// The MX block exponent for a finite amax > 0 by the scale rule, before E8M0 clamping.
std::int64_t mxScaleExponent(const BlockFormat& format, const ExactValue& amax,
                             const ExactValue& elementMax, int topPrecision) {
    const std::int64_t floorLog2 = amax.floorLog2();
    switch (format.scaleRule) {
    case ScaleRule::Floor:
        return floorLog2 - format.elementEmax;
    case ScaleRule::Ceil: {
        // The smallest e with amax ≤ elementMax · 2^e.
        const ExactValue q = amax / elementMax;
        const bool powerOfTwo = q.isDyadic() && q.numerator() == 1;
        return q.floorLog2() + (powerOfTwo ? 0 : 1);
    }
    case ScaleRule::Even: {
        // amax rounded to p bits, nearest-even, carries into the next binade exactly when
        // amax ≥ (2 − 2^−p) · 2^floorLog2 (the tie goes up: 1.11…1 is odd).
        const ExactValue carry = ExactValue::dyadic(false, (BigInt(1) << (topPrecision + 1)) - 1,
                                                    floorLog2 - topPrecision);
        return floorLog2 + (compare(amax, carry) >= 0 ? 1 : 0) - format.elementEmax;
    }
    }
    return floorLog2 - format.elementEmax;
}

// Significant bits of the element format's top binade (E2M1: 2, E4M3: 4, MXINT8's k/64: 7).
int topBinadePrecision(const FormatSpec& element) {
    if (element.kind == FormatKind::Integer)
        return element.integerBits - (element.isSigned ? 1 : 0);
    return element.precision();
}

// The block exponent for a finite amax ≥ 0, clamped to what E8M0 holds (2^−127 … 2^127): an
// all-zero block, or one whose exponent falls below, gets the smallest scale; above (FP64
// inputs only), the largest, and its elements saturate.
std::int64_t clampedMxExponent(const BlockFormat& format, const ExactValue& amax,
                               const ExactValue& elementMax, const FormatLimits& scaleLimits) {
    const std::int64_t minExponent = scaleLimits.minPositive.floorLog2();
    const std::int64_t maxExponent = scaleLimits.maxExponent;
    if (amax.isZero())
        return minExponent;
    return std::clamp(mxScaleExponent(format, amax, elementMax, topBinadePrecision(format.element)),
                      minExponent, maxExponent);
}

class Quantizer {
  public:
    Quantizer(const BlockFormat& format, const TensorView& input, const QuantizeProgress& progress)
        : format_(format), input_(input), progress_(progress), decoder_(format.element),
          elementMax_(deriveLimits(format.element).max) {
        if (format.scale)
            scaleLimits_ = deriveLimits(*format.scale);
    }

    std::optional<QuantizedTensor> run(std::string& error);

  private:
    bool reportProgress(std::size_t done);
    void storeCode(std::size_t i, Code code) {
        writePackedCode(out_.codes.data(), codeBytes_, i, code);
    }
    // Element i of a block whose scale (tensor scale included) is the exact `scale` > 0.
    void quantizeElement(std::size_t i, const ExactValue& scale);
    void storeBlockOfZeros(BlockRange block, bool nonFinite);
    void countNonFinite(BlockRange block);

    void direct();
    void mx(BlockRange block);
    void nvfp4(BlockRange block, float tensorScale);
    void nf4(BlockRange block, std::vector<std::optional<float>>& absmaxes);
    void intAbsmax(BlockRange block);
    void doubleQuantize(const std::vector<std::optional<float>>& absmaxes);

    const BlockFormat& format_;
    const TensorView& input_;
    const QuantizeProgress& progress_;
    ElementDecoder decoder_;
    ExactValue elementMax_;
    FormatLimits scaleLimits_;
    QuantizedTensor out_;
    int codeBytes_ = 1;
    std::size_t lastProgress_ = 0;
    bool cancelled_ = false;
};

bool Quantizer::reportProgress(std::size_t done) {
    if (!progress_ || done - lastProgress_ < kProgressStride)
        return true;
    lastProgress_ = done;
    cancelled_ = !progress_(done, input_.size());
    return !cancelled_;
}

void Quantizer::quantizeElement(std::size_t i, const ExactValue& scale) {
    const double x = input_.at(i);
    const ElementResult r = roundElement(exactFromDouble(x) / scale, format_.element);
    storeCode(i, r.code);
    if (r.clipped)
        ++out_.clipped;
    if (x != 0 && decoder_(r.code) == 0)
        ++out_.flushed;
}

void Quantizer::countNonFinite(BlockRange block) {
    for (std::size_t i = block.begin; i < block.end; ++i) {
        const double x = input_.at(i);
        if (std::isnan(x))
            ++out_.nanInputs;
        else if (std::isinf(x))
            ++out_.infInputs;
    }
}

// A block whose scale is NaN (it holds a NaN or ±∞) or 0 (everything in it rounds to 0):
// every element stores +0; the non-zero finite inputs of a zero-scale block are flushed.
void Quantizer::storeBlockOfZeros(BlockRange block, bool nonFinite) {
    const Code zero = zeroCode(format_.element);
    for (std::size_t i = block.begin; i < block.end; ++i) {
        storeCode(i, zero);
        if (!nonFinite && input_.at(i) != 0)
            ++out_.flushed;
    }
    if (nonFinite)
        countNonFinite(block);
}

void Quantizer::direct() {
    const FormatSpec& element = format_.element;
    for (std::size_t i = 0; i < input_.size(); ++i) {
        const double x = input_.at(i);
        if (std::isfinite(x)) {
            quantizeElement(i, ExactValue::integer(1));
        } else {
            // NaN keeps its sign where the format has NaN; ±∞ stays ±∞ where it has ∞ (the
            // IEEE policy: NaN in fn formats, ±max in FP6/FP4), as a plain cast does.
            storeCode(i, roundToFormat(exactFromDouble(x), element).code);
            countNonFinite({i, i + 1});
        }
        if (!reportProgress(i + 1))
            return;
    }
}

void Quantizer::mx(BlockRange block) {
    const FormatSpec& e8m0 = *format_.scale;
    const FormatLimits& scaleLimits = scaleLimits_;
    const BlockScan scan = scanBlock(input_, block);
    if (scan.nonFinite) {
        out_.scaleCodes.push_back(static_cast<std::uint32_t>(*scaleLimits.nanCode));
        storeBlockOfZeros(block, true);
        return;
    }
    const std::int64_t exponent =
        clampedMxExponent(format_, exactFromDouble(scan.amax), elementMax_, scaleLimits);
    out_.scaleCodes.push_back(static_cast<std::uint32_t>(exponent + e8m0.bias));
    const ExactValue scale = ExactValue::dyadic(false, 1, exponent);
    for (std::size_t i = block.begin; i < block.end; ++i)
        quantizeElement(i, scale);
}

void Quantizer::nvfp4(BlockRange block, float tensorScale) {
    const FormatSpec& e4m3 = *format_.scale;
    const BlockScan scan = scanBlock(input_, block);
    if (scan.nonFinite) {
        out_.scaleCodes.push_back(static_cast<std::uint32_t>(*scaleLimits_.nanCode));
        storeBlockOfZeros(block, true);
        return;
    }
    // s_block = E4M3_rne(amax / (element max · s_tensor)), saturated: one rounding of the
    // exact quotient.
    const ExactValue tensor = exactFromDouble(tensorScale);
    const Code scaleCode =
        roundToFormat(exactFromDouble(scan.amax) / (elementMax_ * tensor), e4m3, kNearestSaturating)
            .code;
    out_.scaleCodes.push_back(static_cast<std::uint32_t>(scaleCode));
    const ExactValue blockScale = decodeCode(e4m3, scaleCode).value;
    if (blockScale.isZero()) {
        storeBlockOfZeros(block, false);
        return;
    }
    const ExactValue scale = blockScale * tensor;
    for (std::size_t i = block.begin; i < block.end; ++i)
        quantizeElement(i, scale);
}

void Quantizer::nf4(BlockRange block, std::vector<std::optional<float>>& absmaxes) {
    const BlockScan scan = scanBlock(input_, block);
    if (scan.nonFinite) {
        out_.scaleCodes.push_back(
            std::bit_cast<std::uint32_t>(std::numeric_limits<float>::quiet_NaN()));
        absmaxes.push_back(std::nullopt);
        storeBlockOfZeros(block, true);
        return;
    }
    // The absmax as FP32 (exact for FP32 inputs; FP64 inputs round once). Elements are the
    // nearest level of x / absmax; an all-zero block stores absmax 0 and the zero level.
    const float absmax = scan.amax == 0 ? 0.0f : fp32ScaleOf(exactFromDouble(scan.amax));
    out_.scaleCodes.push_back(std::bit_cast<std::uint32_t>(absmax));
    absmaxes.push_back(absmax);
    if (absmax == 0) {
        storeBlockOfZeros(block, false);
        return;
    }
    const ExactValue scale = exactFromDouble(absmax);
    for (std::size_t i = block.begin; i < block.end; ++i)
        quantizeElement(i, scale);
}

void Quantizer::intAbsmax(BlockRange block) {
    const BlockScan scan = scanBlock(input_, block);
    if (scan.nonFinite) {
        out_.scaleCodes.push_back(
            std::bit_cast<std::uint32_t>(std::numeric_limits<float>::quiet_NaN()));
        storeBlockOfZeros(block, true);
        return;
    }
    // scale = FP32(absmax / qmax); an all-zero block gets scale 1 (any scale gives zeros).
    const BigInt qmax = integerMax(format_.element);
    const float scale =
        scan.amax == 0 ? 1.0f : fp32ScaleOf(exactFromDouble(scan.amax) / ExactValue::integer(qmax));
    out_.scaleCodes.push_back(std::bit_cast<std::uint32_t>(scale));
    const ExactValue exactScale = exactFromDouble(scale);
    for (std::size_t i = block.begin; i < block.end; ++i)
        quantizeElement(i, exactScale);
}

// QLoRA's double quantization of the block absmaxes a_j (finite blocks only):
//   offset    = FP32(mean of the a_j)                      one rounding of the exact mean
//   group g   = FP32(max |a_j − offset| / 127)             over each group of 256 blocks
//   code k_j  = RNE((a_j − offset) / g), clamped to ±127   stored as an int8 code
// A NaN block stores the code −128 (0x80), which no finite absmax uses.
void Quantizer::doubleQuantize(const std::vector<std::optional<float>>& absmaxes) {
    const FormatSpec& levelFormat = *format_.scale;
    const BigInt qmax = integerMax(levelFormat);
    ExactValue sum;
    std::size_t finite = 0;
    for (const std::optional<float>& a : absmaxes)
        if (a) {
            sum = sum + exactFromDouble(*a);
            ++finite;
        }
    const float offset =
        finite == 0 ? 0.0f : fp32ScaleOf(sum / ExactValue::integer(BigInt(finite)));
    out_.tensorScale = offset;
    const ExactValue exactOffset = exactFromDouble(offset);
    const Code nanCode = Code(1) << (levelFormat.integerBits - 1);
    for (std::size_t first = 0; first < absmaxes.size(); first += kNf4DoubleQuantGroup) {
        const std::size_t last = std::min(absmaxes.size(), first + kNf4DoubleQuantGroup);
        ExactValue spread;
        for (std::size_t j = first; j < last; ++j)
            if (absmaxes[j]) {
                const ExactValue d = (exactFromDouble(*absmaxes[j]) - exactOffset).abs();
                if (compare(d, spread) > 0)
                    spread = d;
            }
        const float groupScale =
            spread.isZero() ? 1.0f : fp32ScaleOf(spread / ExactValue::integer(qmax));
        out_.groupScales.push_back(groupScale);
        const ExactValue exactGroup = exactFromDouble(groupScale);
        for (std::size_t j = first; j < last; ++j) {
            if (!absmaxes[j]) {
                out_.scaleCodes[j] = static_cast<std::uint32_t>(nanCode);
                continue;
            }
            const ExactValue d = exactFromDouble(*absmaxes[j]) - exactOffset;
            out_.scaleCodes[j] =
                static_cast<std::uint32_t>(roundElement(d / exactGroup, levelFormat).code);
        }
    }
}

std::optional<QuantizedTensor> Quantizer::run(std::string& error) {
    const std::size_t n = input_.size();
    if (n == 0) {
        error = format_.id + ": the tensor '" + input_.name + "' is empty";
        return std::nullopt;
    }
    if (format_.blocks.kind == BlockLayout::Kind::Row && input_.shape.empty() &&
        format_.scheme != BlockScheme::Direct) {
        error = format_.id + ": blocks of a 'row' need a tensor with at least one dimension";
        return std::nullopt;
    }
    out_.format = format_;
    out_.shape = input_.shape;
    out_.elementCount = n;
    codeBytes_ = packedBytes(format_.element);
    out_.codes.assign(n * std::size_t(codeBytes_), 0);

    if (format_.scheme == BlockScheme::Direct) {
        out_.blockSize = n;
        direct();
    } else {
        const std::size_t perBlock =
            std::max<std::size_t>(1, format_.blocks.elementsPerBlock(n, input_.rowLength()));
        out_.blockSize = std::min(perBlock, n);
        const std::size_t blocks = (n + out_.blockSize - 1) / out_.blockSize;
        out_.scaleCodes.reserve(blocks);

        float tensorScale = 1;
        if (format_.scheme == BlockScheme::Nvfp4) {
            // s_tensor = FP32(amax / (E4M3 max · E2M1 max)) over the finite inputs; amax 0
            // gives 1 (Transformer Engine's choice: any scale gives zeros).
            const double amax = scanBlock(input_, {0, n}).amax;
            const ExactValue range = scaleLimits_.max * elementMax_;
            tensorScale = amax == 0 ? 1.0f : fp32ScaleOf(exactFromDouble(amax) / range);
            out_.tensorScale = tensorScale;
        }
        std::vector<std::optional<float>> absmaxes;
        for (std::size_t b = 0; b < blocks; ++b) {
            const BlockRange block{b * out_.blockSize, std::min(n, (b + 1) * out_.blockSize)};
            switch (format_.scheme) {
            case BlockScheme::Mx:
                mx(block);
                break;
            case BlockScheme::Nvfp4:
                nvfp4(block, tensorScale);
                break;
            case BlockScheme::Nf4:
                nf4(block, absmaxes);
                break;
            case BlockScheme::IntAbsmax:
                intAbsmax(block);
                break;
            case BlockScheme::Direct:
                break;
            }
            if (!reportProgress(block.end))
                break;
        }
        if (format_.doubleQuantized && !cancelled_)
            doubleQuantize(absmaxes);
    }
    if (cancelled_) {
        error = format_.id + ": cancelled";
        return std::nullopt;
    }
    if (progress_)
        progress_(n, n); // the work is done: a late cancel changes nothing
    return std::move(out_);
}

// FP32(k · g + offset), one rounding: the absmax nf4_dq dequantizes with.
double doubleQuantizedAbsmax(std::int64_t level, float groupScale, float offset) {
    const ExactValue exact =
        ExactValue::integer(BigInt(level)) * exactFromDouble(groupScale) + exactFromDouble(offset);
    const Code code = roundToFormat(exact, fp32Spec(), kNearestSaturating).code;
    return double(std::bit_cast<float>(static_cast<std::uint32_t>(code)));
}

} // namespace

MxBlockScale mxBlockScale(const BlockFormat& format, const ExactValue& amax) {
    const FormatSpec& e8m0 = *format.scale;
    const FormatLimits scaleLimits = deriveLimits(e8m0);
    MxBlockScale s;
    if (!amax.isFinite()) {
        // A NaN or ±∞ makes the block's scale NaN and its elements +0, as Quantizer::mx does.
        s.nonFinite = true;
        s.scaleCode = *scaleLimits.nanCode;
        s.elementCode = zeroCode(format.element);
        return s;
    }
    const ExactValue magnitude = amax.abs();
    s.exponent =
        clampedMxExponent(format, magnitude, deriveLimits(format.element).max, scaleLimits);
    s.scaleCode = static_cast<Code>(s.exponent + e8m0.bias);
    const ElementResult r =
        roundElement(magnitude / ExactValue::dyadic(false, 1, s.exponent), format.element);
    s.elementCode = r.code;
    s.clipped = r.clipped;
    return s;
}

float fp32ScaleOf(const ExactValue& x) {
    const Code code = roundToFormat(x, fp32Spec(), kNearestSaturating).code;
    float value = std::bit_cast<float>(static_cast<std::uint32_t>(code));
    if (value == 0 && !x.isZero())
        value = std::numeric_limits<float>::denorm_min();
    return value;
}

Code QuantizedTensor::code(std::size_t element) const {
    return readPackedCode<Code>(codes.data(), packedBytes(format.element), element);
}

double QuantizedTensor::blockScale(std::size_t block) const {
    if (format.scheme == BlockScheme::Direct)
        return 1;
    const std::uint32_t stored = scaleCodes.at(block);
    switch (format.scheme) {
    case BlockScheme::Mx:
    case BlockScheme::Nvfp4: {
        const double scale = doubleFromExact(decodeCode(*format.scale, stored).value);
        return format.scheme == BlockScheme::Nvfp4 ? scale * double(tensorScale.value_or(1))
                                                   : scale;
    }
    case BlockScheme::Nf4:
        if (format.doubleQuantized) {
            const int bits = format.scale->integerBits;
            if (stored == (1u << (bits - 1)))
                return std::numeric_limits<double>::quiet_NaN();
            const std::int64_t level = stored >= (1u << (bits - 1))
                                           ? std::int64_t(stored) - (std::int64_t(1) << bits)
                                           : std::int64_t(stored);
            return doubleQuantizedAbsmax(level, groupScales.at(block / kNf4DoubleQuantGroup),
                                         tensorScale.value_or(0));
        }
        return double(std::bit_cast<float>(stored));
    case BlockScheme::IntAbsmax:
        return double(std::bit_cast<float>(stored));
    case BlockScheme::Direct:
        break;
    }
    return 1;
}

double QuantizedTensor::dequantized(std::size_t element) const {
    const double value = doubleFromExact(decodeCode(format.element, code(element)).value);
    if (format.scheme == BlockScheme::Direct)
        return value;
    return value * blockScale(blockOf(element));
}

void dequantizeInChunks(
    const QuantizedTensor& quantized, std::size_t chunk,
    const std::function<void(std::size_t first, const std::vector<double>& values)>& sink) {
    const std::size_t n = quantized.elementCount;
    const FastDequantizer dequantizer(quantized.format);
    const StoredCodes stored = StoredCodes::of(quantized);
    chunk = std::max<std::size_t>(chunk, 1);
    std::vector<double> values;
    for (std::size_t first = 0; first < n; first += chunk) {
        values.resize(std::min(n - first, chunk));
        dequantizer.values(stored, first, values.size(), values.data());
        sink(first, values);
    }
}

std::vector<double> dequantizeAll(const QuantizedTensor& quantized) {
    std::vector<double> all(quantized.elementCount);
    const FastDequantizer dequantizer(quantized.format);
    const StoredCodes stored = StoredCodes::of(quantized);
    parallelChunks(all.size(), std::size_t(1) << 16, 0, [&](std::size_t begin, std::size_t end) {
        dequantizer.values(stored, begin, end - begin, all.data() + begin);
    });
    return all;
}

std::optional<QuantizedTensor> quantizeExactly(const BlockFormat& format, const TensorView& input,
                                               std::string& error,
                                               const QuantizeProgress& progress) {
    Quantizer quantizer(format, input, progress);
    return quantizer.run(error);
}

} // namespace fpx
