// SPDX-License-Identifier: GPL-3.0-or-later
// Dequantization by tables: the exact core decodes each element code and each scale code once,
// and the products element value × block scale are exact in a double (docs/behaviour.md,
// "Block formats and quantization"), so a table lookup and one multiplication give
// QuantizedTensor::dequantized's value bit for bit.
#include "fast_dequantizer.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/packed_codes.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

namespace fpx {

namespace {

constexpr std::size_t kNf4DoubleQuantGroup = 256; // absmax codes sharing one FP32 scale
constexpr std::size_t kMaxScalesOnStack = 512;    // a piece of 4096 in blocks of 8

bool isIeeeBinary(const FormatSpec& spec, int exponentBits, int fractionBits) {
    return spec.kind == FormatKind::BinaryFloat && spec.isSigned &&
           spec.specials == SpecialEncoding::Ieee && !spec.explicitIntegerBit &&
           spec.exponentZeroIsSubnormal && spec.exponentBits == exponentBits &&
           spec.fractionBits == fractionBits && spec.bias == (1 << (exponentBits - 1)) - 1;
}

// Whether 256 values are those of the two's-complement bytes times the value of code 1, a
// power of two (then the loops convert the code instead of looking it up; checked value by
// value, so any other table keeps the lookup).
bool signedByteValues(const std::vector<double>& values) {
    if (values.size() != 256)
        return false;
    int exponent = 0;
    if (std::frexp(values[1], &exponent) != 0.5)
        return false;
    for (std::size_t c = 0; c < 256; ++c)
        if (values[c] != double(static_cast<std::int8_t>(c)) * values[1])
            return false;
    return true;
}

// An FP16 code's value (IEEE binary16).
double halfValue(std::uint16_t bits) {
    const int exponent = (bits >> 10) & 0x1f;
    const int fraction = bits & 0x3ff;
    const double sign = bits & 0x8000 ? -1.0 : 1.0;
    if (exponent == 0x1f)
        return fraction ? std::numeric_limits<double>::quiet_NaN()
                        : sign * std::numeric_limits<double>::infinity();
    if (exponent == 0)
        return sign * std::ldexp(fraction, -24);
    return sign * std::ldexp(1024 + fraction, exponent - 25);
}

bool sameValue(double a, double b) {
    return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b) ||
           (std::isnan(a) && std::isnan(b));
}

// How the loops find a one-byte code's value: a conversion where one gives the table's value
// for every code of the format (compared code by code here, so a format it does not fit keeps
// the lookup), else the lookup.
kernels::CodeDecoding codeDecoding(const FormatSpec& element, const std::vector<double>& table) {
    kernels::CodeDecoding d;
    const std::size_t codes = table.size();
    if (codes <= 16) {
        d.values = kernels::CodeValues::Sixteen;
        return d;
    }
    if (signedByteValues(table)) {
        d.values = kernels::CodeValues::SignedBytes;
        d.unit = table[1];
        return d;
    }
    if (element.kind != FormatKind::BinaryFloat || !element.isSigned ||
        element.explicitIntegerBit || element.exponentBits > 5 || element.fractionBits > 10 ||
        element.totalBits() > 8)
        return d;
    // The fraction at the top of FP16's, the exponent field below FP16's, the sign at bit 15;
    // FP16 reads the exponent field against its bias 15, hence the unit 2^(15 − bias).
    const int signBit = element.totalBits() - 1;
    kernels::CodeDecoding half;
    half.values = kernels::CodeValues::HalfBits;
    half.magnitudeMask = static_cast<std::uint16_t>((1u << signBit) - 1);
    half.signMask = static_cast<std::uint16_t>(1u << signBit);
    half.fractionShift = 10 - element.fractionBits;
    half.signShift = 15 - signBit;
    half.unit = std::ldexp(1.0, 15 - element.bias);
    for (std::size_t c = 0; c < codes; ++c) {
        const std::uint16_t magnitude = static_cast<std::uint16_t>(c & half.magnitudeMask);
        const auto bits = static_cast<std::uint16_t>(magnitude << half.fractionShift |
                                                     (c & half.signMask) << half.signShift);
        const double value = halfValue(bits) * half.unit;
        if (sameValue(value, table[c]))
            continue;
        // A NaN the bits do not make (E4M3's S.1111.111): one magnitude, marked.
        if (!std::isnan(table[c]) ||
            (half.nanMagnitude != 0xffff && half.nanMagnitude != magnitude))
            return d;
        half.nanMagnitude = magnitude;
    }
    // The marked magnitude must be NaN under both signs.
    if (half.nanMagnitude != 0xffff && !(std::isnan(table[half.nanMagnitude]) &&
                                         std::isnan(table[half.nanMagnitude | half.signMask])))
        return d;
    return half;
}

} // namespace

double nf4DoubleQuantizedAbsmax(std::int64_t k, float groupScale, float offset) {
    // p = k · g is exact (at most 8 and 24 significant bits). hi = RN64(p + offset) and
    // lo = (p + offset) − hi exactly (two-sum). RN32(hi) is RN32(p + offset) unless hi is the
    // midpoint of two FP32 neighbours: no FP32 midpoint lies strictly between the exact sum
    // and hi (a midpoint is a double, and hi is the double nearest the sum), so only a hi on a
    // midpoint, with lo ≠ 0, rounds the other way from the exact sum; lo's sign says which.
    //
    //        below            midpoint = hi            above      (FP32 neighbours)
    //          |------------------|------------------|
    //                             ^ sum = hi + lo: lo > 0 → above, lo < 0 → below
    const double p = double(k) * double(groupScale);
    const double o = double(offset);
    const double hi = p + o;
    const double back = hi - p;
    const double lo = (p - (hi - back)) + (o - back);
    float rounded = float(hi);
    if (lo != 0 && std::isfinite(rounded) && double(rounded) != hi) {
        const bool roundedUp = double(rounded) > hi;
        const float below =
            roundedUp ? std::nextafter(rounded, -std::numeric_limits<float>::infinity()) : rounded;
        const float above =
            roundedUp ? rounded : std::nextafter(rounded, std::numeric_limits<float>::infinity());
        if (std::isfinite(above) && hi - double(below) == double(above) - hi)
            rounded = lo > 0 ? above : below;
    }
    if (std::isinf(rounded)) // saturating: beyond the largest FP32 number it is that number
        rounded = std::copysign(std::numeric_limits<float>::max(), rounded);
    return double(rounded);
}

StoredCodes StoredCodes::of(const QuantizedTensor& quantized) {
    return StoredCodes{
        quantized.codes.data(),      quantized.scaleCodes.data(), 0,
        quantized.blockSize,         quantized.elementCount,      quantized.tensorScale,
        quantized.groupScales.data()};
}

FastDequantizer::FastDequantizer(const BlockFormat& format)
    : format_(format), loops_(kernels::fastestErrorLoops()) {
    const FormatSpec& element = format.element;
    bytesPerCode_ = packedBytes(element);
    if (element.totalBits() <= 16) {
        elementValues_.resize(std::size_t(1) << element.totalBits());
        for (std::size_t c = 0; c < elementValues_.size(); ++c)
            elementValues_[c] = doubleFromExact(decodeCode(element, Code(c)).value);
        if (bytesPerCode_ == 1) {
            // Every byte indexes the table: codes above the format's are never stored, but
            // a full table keeps the lookup free of a bounds check.
            decoding_ = codeDecoding(element, elementValues_);
            elementValues_.resize(256, std::numeric_limits<double>::quiet_NaN());
            codes_ = Codes::OneByte;
        } else {
            codes_ = Codes::TwoBytes;
        }
    } else if (isIeeeBinary(element, 8, 23)) {
        codes_ = Codes::Binary32;
    } else if (isIeeeBinary(element, 11, 52)) {
        codes_ = Codes::Binary64;
    }
    if ((format.scheme == BlockScheme::Mx || format.scheme == BlockScheme::Nvfp4) && format.scale &&
        format.scale->totalBits() <= 8) {
        scaleValues_.resize(256);
        for (std::size_t c = 0; c < 256; ++c)
            scaleValues_[c] = doubleFromExact(decodeCode(*format.scale, Code(c)).value);
    }
}

double FastDequantizer::blockScale(const StoredCodes& stored, std::size_t block) const {
    const std::uint32_t code =
        format_.scheme == BlockScheme::Direct
            ? 0
            : stored.scaleCodes[block - stored.firstElement / stored.blockSize];
    switch (format_.scheme) {
    case BlockScheme::Direct:
        return 1;
    case BlockScheme::Mx:
    case BlockScheme::Nvfp4: {
        const double scale = scaleValues_.empty()
                                 ? doubleFromExact(decodeCode(*format_.scale, code).value)
                                 : scaleValues_[code & 0xffu];
        // Exact: an E4M3 value times an FP32 one (as QuantizedTensor::blockScale).
        return format_.scheme == BlockScheme::Nvfp4 ? scale * double(stored.tensorScale.value_or(1))
                                                    : scale;
    }
    case BlockScheme::Nf4:
        if (format_.doubleQuantized) {
            const int bits = format_.scale->integerBits;
            if (code == (1u << (bits - 1)))
                return std::numeric_limits<double>::quiet_NaN();
            const std::int64_t level = code >= (1u << (bits - 1))
                                           ? std::int64_t(code) - (std::int64_t(1) << bits)
                                           : std::int64_t(code);
            return nf4DoubleQuantizedAbsmax(level, stored.groupScales[block / kNf4DoubleQuantGroup],
                                            stored.tensorScale.value_or(0));
        }
        return double(std::bit_cast<float>(code));
    case BlockScheme::IntAbsmax:
        return double(std::bit_cast<float>(code));
    }
    return 1;
}

void FastDequantizer::elements(const StoredCodes& stored, std::size_t first, std::size_t count,
                               double scale, double* values) const {
    const std::uint8_t* codes =
        stored.codes + (first - stored.firstElement) * std::size_t(bytesPerCode_);
    switch (codes_) {
    case Codes::OneByte:
        loops_.scaledLookup(codes, count, elementValues_.data(), scale, values);
        return;
    case Codes::TwoBytes:
        for (std::size_t i = 0; i < count; ++i)
            values[i] = elementValues_[codes[2 * i] | std::size_t(codes[2 * i + 1]) << 8] * scale;
        return;
    case Codes::Binary32:
        for (std::size_t i = 0; i < count; ++i) {
            std::uint32_t bits = 0;
            std::memcpy(&bits, codes + 4 * i, 4);
            values[i] = double(std::bit_cast<float>(bits)) * scale;
        }
        return;
    case Codes::Binary64:
        for (std::size_t i = 0; i < count; ++i) {
            std::uint64_t bits = 0;
            std::memcpy(&bits, codes + 8 * i, 8);
            values[i] = std::bit_cast<double>(bits) * scale;
        }
        return;
    case Codes::ExactCore:
        for (std::size_t i = 0; i < count; ++i) {
            const Code code = readPackedCode<Code>(codes, bytesPerCode_, i);
            const double value = doubleFromExact(decodeCode(format_.element, code).value);
            values[i] = format_.scheme == BlockScheme::Direct ? value : value * scale;
        }
        return;
    }
}

void FastDequantizer::values(const StoredCodes& stored, std::size_t first, std::size_t count,
                             double* values) const {
    if (format_.scheme == BlockScheme::Direct) {
        elements(stored, first, count, 1, values);
        return;
    }
    const std::size_t blockSize = stored.blockSize ? stored.blockSize : stored.elementCount;
    for (std::size_t at = first; at < first + count;) {
        const std::size_t block = at / blockSize;
        const std::size_t end = std::min(first + count, (block + 1) * blockSize);
        elements(stored, at, end - at, blockScale(stored, block), values + (at - first));
        at = end;
    }
}

ErrorSums FastDequantizer::pieceSums(const StoredCodes& stored, const float* x, std::size_t first,
                                     std::size_t count, std::vector<double>& scratch,
                                     bool finiteInputs) const {
    ErrorSums sums;
    const bool direct = format_.scheme == BlockScheme::Direct;
    const std::size_t blockSize = stored.blockSize ? stored.blockSize : stored.elementCount;
    const bool oneScale = direct || blockSize >= stored.elementCount;
    if (codes_ == Codes::OneByte && (oneScale || blockSize % 8 == 0)) {
        // One scale for the piece: a "block" as long as the piece, rounded up to whole vectors.
        const std::size_t scaleStride = oneScale ? (count + 7) / 8 * 8 : blockSize;
        const std::size_t blocks = oneScale ? 1 : (count + blockSize - 1) / blockSize;
        double onStack[kMaxScalesOnStack];
        std::vector<double> many;
        double* scales = onStack;
        if (blocks > kMaxScalesOnStack) {
            many.resize(blocks);
            scales = many.data();
        }
        for (std::size_t b = 0; b < blocks; ++b)
            scales[b] =
                oneScale ? blockScale(stored, 0) : blockScale(stored, first / blockSize + b);
        loops_.pieceOfCodes(x + first, stored.codes + (first - stored.firstElement), count,
                            scaleStride, scales, elementValues_.data(), decoding_, finiteInputs,
                            first, sums);
        return sums;
    }
    scratch.resize(count);
    values(stored, first, count, scratch.data());
    loops_.pieceOfFloats(x + first, scratch.data(), count, first, sums);
    return sums;
}

} // namespace fpx
