// SPDX-License-Identifier: GPL-3.0-or-later
// The format spec parser (built-in ids, aliases, custom eXmY[bB][fn|fnuz|fnu|f], integers,
// lookup tables) and a comma-separated list of specs; then each format's derived limits and
// the description of its edge codes: zero, the smallest codes, the sign bit, the largest code,
// and the codes next to them.
#include "fuzz_support.h"

#include "fpx/exact/code_details.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/decode_explanation.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_limits.h"

#include <cstdlib>
#include <string>

namespace {

void exercise(const fpx::FormatSpec& spec) {
    const int bits = spec.totalBits();
    if (bits < 1 || bits > 128)
        std::abort(); // a spec the parser accepted must have a code of 1 to 128 bits
    (void)fpx::deriveLimits(spec);
    const fpx::Code mask = spec.codeMask();
    const fpx::Code top = fpx::Code(1) << (bits - 1);
    for (const fpx::Code code :
         {fpx::Code(0), fpx::Code(1), fpx::Code(2), top - 1, top, top + 1, mask - 1, mask}) {
        const fpx::Code c = code & mask;
        const fpx::CodeDetails details = fpx::describeCode(spec, c);
        (void)fpx::explainDecode(spec, details.decoded);
        (void)fpx::toDecimal(details.decoded.value);
        if (bits <= 64)
            (void)fpx::shortestRoundTrip(spec, c);
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text = fpx::fuzz::asText(data, size);
    if (const fpx::FormatLookup lookup = fpx::findFormat(text))
        exercise(*lookup.spec);
    const fpx::FormatListLookup list = fpx::findFormats(text);
    if (list.error.empty())
        for (const fpx::FormatSpec& spec : list.specs)
            exercise(spec);
    return 0;
}
