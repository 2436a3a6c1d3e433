// SPDX-License-Identifier: GPL-3.0-or-later
// `fpx convert --raw`'s binary stream reader, as the CLI runs it: packed little-endian codes on
// stdin (any length, so incomplete trailing elements too), codes out. The first byte picks the
// pair of formats, among them the bulk-kernel pairs (FP32 → format, format → FP32), the cached
// small formats and wide ones; the rest is the stream.
#include "commands.h"
#include "fuzz_support.h"

#include <array>
#include <sstream>
#include <string>
#include <utility>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0)
        return 0;
    static const std::array<std::pair<const char*, const char*>, 12> pairs{{
        {"fp16", "fp32"},
        {"fp32", "bf16"},
        {"fp32", "e4m3"},
        {"e5m2", "fp32"},
        {"e2m1", "fp16"},
        {"fp64", "fp16"},
        {"fp16", "e4m3"},
        {"fp32", "fp64"},
        {"int8", "fp32"},
        {"fp80", "fp32"},
        {"fp128", "bf16"},
        {"e3m2", "nf4"},
    }};
    const auto& [from, to] = pairs[data[0] % pairs.size()];
    std::istringstream in(std::string(fpx::fuzz::asText(data + 1, size - 1)));
    fpx::fuzz::DiscardingStream out, err;
    fpx::cli::Streams io{in, out, err};
    (void)fpx::cli::runConvert({"--raw", "--from", from, "--to", to}, io);
    return 0;
}
