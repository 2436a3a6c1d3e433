// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/format_encoding.h"

namespace fpx {

bool isBinaryFloat(const FormatSpec& format, int exponentBits, int fractionBits, int bias,
                   SpecialEncoding specials) {
    return format.kind == FormatKind::BinaryFloat && format.isSigned &&
           !format.explicitIntegerBit && format.exponentZeroIsSubnormal &&
           format.exponentBits == exponentBits && format.fractionBits == fractionBits &&
           format.bias == bias && format.specials == specials;
}

bool isFp16Encoding(const FormatSpec& format) {
    return isBinaryFloat(format, 5, 10, 15, SpecialEncoding::Ieee);
}

bool isBf16Encoding(const FormatSpec& format) {
    return isBinaryFloat(format, 8, 7, 127, SpecialEncoding::Ieee);
}

} // namespace fpx
