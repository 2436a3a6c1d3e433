// SPDX-License-Identifier: GPL-3.0-or-later
// Code parsing (hex with or without 0x, 0b binary, '_' separators) at every width a format can
// have, checked against its own printing: a code that parses fits its width and comes back
// from codeToHex and codeToBinary unchanged. Then `fpx show --bits CODE --as FORMAT` (the
// first byte picks the format), which decodes and prints it.
#include "commands.h"
#include "fuzz_support.h"

#include "fpx/exact/code.h"

#include <array>
#include <cstdlib>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0)
        return 0;
    const std::string text(fpx::fuzz::asText(data + 1, size - 1));
    for (const int bits : {1, 4, 6, 8, 12, 16, 32, 63, 64, 65, 80, 127, 128}) {
        const std::optional<fpx::Code> code = fpx::parseCode(text, bits);
        if (!code)
            continue;
        if ((*code & ~fpx::lowBitsMask(bits)) != 0)
            std::abort(); // wider than the format's code
        if (fpx::parseCode(fpx::codeToHex(*code, bits), bits) != code)
            std::abort(); // hex does not round-trip
        std::string binary = "0b";
        for (const char c : fpx::codeToBinary(*code, bits))
            if (c != ' ')
                binary += c;
        if (fpx::parseCode(binary, bits) != code)
            std::abort(); // binary does not round-trip
        (void)fpx::codeToDecimal(*code);
    }
    static const std::array<const char*, 8> formats{"fp16", "fp32", "bf16",  "e4m3",
                                                    "e2m1", "int4", "fp128", "e8m0"};
    std::istringstream in;
    fpx::fuzz::DiscardingStream out, err;
    fpx::cli::Streams io{in, out, err};
    (void)fpx::cli::runShow({"--bits", text, "--as", formats[data[0] % formats.size()]}, io);
    return 0;
}
