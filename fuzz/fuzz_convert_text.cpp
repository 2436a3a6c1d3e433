// SPDX-License-Identifier: GPL-3.0-or-later
// `fpx convert`'s text stream reader, as the CLI runs it: lines of values (or of hex codes
// with --from) on stdin, codes out. The first byte picks the target format, whether the lines
// are codes of a source format, and the rounding mode; the rest is the stream.
#include "commands.h"
#include "fuzz_support.h"

#include <array>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0)
        return 0;
    static const std::array<const char*, 8> targets{"fp16", "fp32", "bf16", "e4m3",
                                                    "e2m1", "int8", "nf4",  "fp64"};
    static const std::array<const char*, 4> sources{"fp16", "e5m2", "fp32", "e3m2"};
    static const std::array<const char*, 3> modes{"rne", "rdn", "sr"};
    const unsigned choice = data[0];
    std::vector<std::string> args{"--to", targets[choice % 8], "--round", modes[(choice / 8) % 3]};
    if ((choice / 24) % 2 == 1) {
        args.push_back("--from");
        args.push_back(sources[(choice / 48) % 4]);
    }
    std::istringstream in(std::string(fpx::fuzz::asText(data + 1, size - 1)));
    fpx::fuzz::DiscardingStream out, err;
    fpx::cli::Streams io{in, out, err};
    (void)fpx::cli::runConvert(args, io);
    return 0;
}
