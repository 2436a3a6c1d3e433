// SPDX-License-Identifier: GPL-3.0-or-later
#include "term_options.h"

#include "fpx/exact/value_parser.h"

namespace fpx::cli {

std::optional<std::size_t> parseTermCount(std::string_view text) {
    const ParsedValue parsed = parseValue(text);
    if (!parsed || !parsed.exact || !parsed.value->isFinite() || parsed.value->isNegative() ||
        parsed.value->isZero() || !parsed.value->isDyadic() || parsed.value->exponent2() < 0 ||
        parsed.value->exponent2() > 62 || parsed.value->numerator() > BigInt(1) << 62)
        return std::nullopt;
    const BigInt n = parsed.value->numerator() << static_cast<unsigned>(parsed.value->exponent2());
    if (n > BigInt(1) << 62)
        return std::nullopt;
    return static_cast<std::size_t>(n.convert_to<std::uint64_t>());
}

} // namespace fpx::cli
