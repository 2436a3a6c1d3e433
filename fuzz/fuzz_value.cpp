// SPDX-License-Identifier: GPL-3.0-or-later
// The value parser (decimals, hex floats, specials, powers, + − × ÷ and parentheses), then
// what `fpx show VALUE` does with it: rounding into every built-in format and printing every
// row, with errors, neighbours and decimal text. Also the parser alone, then rounding into a few
// formats, each code checked to fit its format's width.
#include "commands.h"
#include "fuzz_support.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/value_parser.h"

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(fpx::fuzz::asText(data, size));
    const fpx::ParsedValue parsed = fpx::parseValue(text);
    if (parsed) {
        for (const char* id : {"fp64", "fp32", "fp16", "bf16", "e4m3", "e2m1", "int8", "nf4"}) {
            const fpx::FormatLookup format = fpx::findFormat(id);
            if (!format ||
                (!parsed.exact && !fpx::acceptsStandInInput(*format.spec, *parsed.value)))
                continue;
            const fpx::Conversion rounded = fpx::roundToFormat(*parsed.value, *format.spec, {});
            // The code is a code of the format, and decoding it gives a value of the format.
            if ((rounded.code & ~format.spec->codeMask()) != 0)
                std::abort();
            (void)fpx::decodeCode(*format.spec, rounded.code);
        }
    }
    std::istringstream in;
    fpx::fuzz::DiscardingStream out, err;
    fpx::cli::Streams io{in, out, err};
    (void)fpx::cli::runShow({"--", text}, io);
    return 0;
}
