// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/same_bits.h"

#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_identity.h"
#include "fpx/exact/nan_payload.h"

#include <algorithm>

namespace fpx {

namespace {

FormatSpec readAsLevels(FormatSpec spec) {
    if (spec.kind == FormatKind::Integer)
        spec.scale = ExactValue::integer(1);
    return spec;
}

} // namespace

std::vector<FormatSpec> formatsOfWidth(int bits, const std::vector<FormatSpec>& extra) {
    std::vector<FormatSpec> formats;
    auto add = [&](const FormatSpec& spec) {
        if (spec.totalBits() != bits)
            return;
        FormatSpec levels = readAsLevels(spec);
        for (const FormatSpec& f : formats)
            if (sameEncoding(f, levels))
                return;
        formats.push_back(std::move(levels));
    };
    for (const FormatSpec& spec : builtinFormats())
        add(spec);
    for (const FormatSpec& spec : extra)
        add(spec);
    return formats;
}

std::vector<int> formatWidths(const std::vector<FormatSpec>& extra) {
    std::vector<int> widths;
    auto add = [&](const FormatSpec& spec) {
        const int bits = spec.totalBits();
        if (std::find(widths.begin(), widths.end(), bits) == widths.end())
            widths.push_back(bits);
    };
    for (const FormatSpec& spec : builtinFormats())
        add(spec);
    for (const FormatSpec& spec : extra)
        add(spec);
    std::sort(widths.begin(), widths.end());
    return widths;
}

std::vector<SameBitsRow> readInEveryFormat(Code code, int bits,
                                           const std::vector<FormatSpec>& extra) {
    std::vector<SameBitsRow> rows;
    for (FormatSpec& spec : formatsOfWidth(bits, extra)) {
        const Code masked = code & spec.codeMask();
        SameBitsRow row{std::move(spec), {}, {}};
        row.decoded = decodeCode(row.spec, masked);
        row.className = codeClassName(row.spec, masked);
        rows.push_back(std::move(row));
    }
    return rows;
}

} // namespace fpx
