// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/code.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/format_spec.h"

#include <string>
#include <vector>

namespace fpx {

// One code read in every format of its width: 0x80 is −0 in FP8 E4M3, NaN in E4M3FNUZ,
// −128 in INT8 and 2^1 in E8M0. Shared by the explorer's "Same bits in every format" view and
// `fpx show --bits CODE --width N`, so that both list the same formats and say the same.
struct SameBitsRow {
    FormatSpec spec;
    DecodedCode decoded;
    std::string className; // codeClassName: "qNaN"/"sNaN" where the format tells them apart
};

// The formats of `bits` width: the built-ins in catalogue order, then those of `extra` (the
// explorer's list, or --formats) not already there, each encoding once (sameEncoding).
// Integers are read as their level (scale 1): 0x80 is −128 in INT8, not −128/127.
std::vector<FormatSpec> formatsOfWidth(int bits, const std::vector<FormatSpec>& extra);

// The widths, in increasing order, that the built-ins and `extra` have formats of.
std::vector<int> formatWidths(const std::vector<FormatSpec>& extra);

std::vector<SameBitsRow> readInEveryFormat(Code code, int bits,
                                           const std::vector<FormatSpec>& extra);

} // namespace fpx
