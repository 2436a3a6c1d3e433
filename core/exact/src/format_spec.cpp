// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/format_spec.h"
#include "fpx/exact/packed_codes.h"

#include <bit>

namespace fpx {

int FormatSpec::totalBits() const {
    switch (kind) {
    case FormatKind::BinaryFloat:
        return (isSigned ? 1 : 0) + exponentBits + storedSignificandBits();
    case FormatKind::Integer:
        return integerBits;
    case FormatKind::Lookup:
        return table.size() <= 1 ? 1 : static_cast<int>(std::bit_width(table.size() - 1));
    case FormatKind::Posit:
        return positBits;
    }
    return 0;
}

bool FormatSpec::hasNegativeZero() const {
    return kind == FormatKind::BinaryFloat && isSigned && exponentZeroIsSubnormal &&
           specials != SpecialEncoding::NanAtNegativeZero;
}

int packedBytes(const FormatSpec& format) {
    const int bits = format.totalBits();
    return bits <= 8 ? 1 : bits <= 16 ? 2 : bits <= 32 ? 4 : bits <= 64 ? 8 : 16;
}

} // namespace fpx
