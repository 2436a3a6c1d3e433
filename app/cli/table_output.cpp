// SPDX-License-Identifier: GPL-3.0-or-later
#include "table_output.h"

#include "fpx/exact/bit_layout.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/decimal_text.h"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>

namespace fpx::cli {

namespace {

constexpr double kLog10Of2 = 0.30102999566398120;
constexpr double kLog10Of5 = 0.69897000433601880;

std::int64_t bitLength(const BigInt& x) {
    return x == 0 ? 0 : static_cast<std::int64_t>(boost::multiprecision::msb(x)) + 1;
}

// Characters of toDecimal(v): its significant digits plus at most a sign, a point, leading
// zeros of a plain small value (up to six) and an exponent. For n/5^j × 2^e (n odd) the digits
// are those of n·2^(e+j) (e ≥ 0) or of n·2^(k+e)·5^(k−j) with k = max(j, −e) (e < 0);
// a value whose decimal does not terminate is printed to 40 significant digits.
std::uint64_t decimalLength(const ExactValue& v) {
    if (!v.isFinite() || v.isZero())
        return 4;
    const auto fives = powerOfFiveExponent(v.denominator());
    if (!fives)
        return 40 + 12;
    const double n = static_cast<double>(bitLength(v.numerator()));
    const double j = *fives;
    const double e = static_cast<double>(v.exponent2());
    double digits = 0;
    if (e >= 0) {
        digits = (n + e + j) * kLog10Of2;
    } else {
        const double k = std::max(j, -e);
        digits = (n + k + e) * kLog10Of2 + (k - j) * kLog10Of5;
    }
    return static_cast<std::uint64_t>(std::ceil(digits)) + 16;
}

} // namespace

TableSize measureTable(const FormatSpec& spec, std::uint64_t count) {
    TableSize size;
    const int bits = spec.totalBits();
    // The columns are as wide as the whole table needs, so that the first N rows of a limited
    // table are exactly the first N rows of the whole one; only the bytes are of those rows.
    const std::uint64_t codes = std::uint64_t(1) << bits;
    for (std::uint64_t row = 0; row < codes; ++row) {
        const Code code = row;
        const DecodedCode d = decodeCode(spec, code);
        const std::string binary = binaryByField(spec, code);
        size.hexWidth = std::max(size.hexWidth, codeToHex(code, bits).size());
        size.bitsWidth = std::max(size.bitsWidth, binary.size());
        size.classWidth = std::max(size.classWidth, valueClassName(d.valueClass).size());
        if (row >= count)
            continue;
        const std::uint64_t value = decimalLength(d.value);
        size.longestValue = std::max(size.longestValue, value);
        // A row of any layout: hex, binary, class and separators, then the value (JSON's keys
        // and indentation come to about 100 characters).
        size.bytes += 2 * binary.size() + 100 + value;
    }
    return size;
}

std::string describeBytes(std::uint64_t bytes) {
    const char* units[] = {"bytes", "kB", "MB", "GB", "TB"};
    double amount = static_cast<double>(bytes);
    int unit = 0;
    while (amount >= 1000 && unit < 4) {
        amount /= 1000;
        ++unit;
    }
    char text[32];
    std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", amount, units[unit]);
    return text;
}

OutputFile::OutputFile(std::string path)
    : path_(std::move(path)), buffer_(file_), stream_(&buffer_) {
    open_ = file_.create(path_, error_);
}

OutputFile::~OutputFile() {
    discard();
}

bool OutputFile::commit() {
    if (!open_)
        return false;
    open_ = false;
    stream_.flush();
    if (!stream_) {
        error_ = buffer_.error();
        file_.discard();
        return false;
    }
    return file_.commit(error_);
}

void OutputFile::discard() {
    open_ = false;
    file_.discard();
}

} // namespace fpx::cli
