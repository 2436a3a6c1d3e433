// SPDX-License-Identifier: GPL-3.0-or-later
// `fpx calc EXPR`: the expression parser, the exact evaluation and the evaluation in every
// format it prints (every literal rounded, every operation rounded once), then the printing.
// The first byte picks the rounding mode, so the directed and stochastic modes are run too,
// and with its top bit `fpx calc --explicit EXPR`: the explicit language (written roundings),
// its evaluation and its steps; the same text also goes through `fpx sgd --update`'s reader,
// its formula bound to bf16.
#include "commands.h"
#include "fuzz_support.h"

#include "fpx/exact/format_catalogue.h"
#include "fpx/training/update_rule.h"

#include <array>
#include <sstream>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0)
        return 0;
    static const std::array<const char*, 6> modes{"rne", "rtz", "rup", "rdn", "rna", "sr"};
    const std::string mode = modes[(data[0] & 0x7f) % modes.size()];
    const bool explicitRoundings = (data[0] & 0x80) != 0;
    const std::string text(fpx::fuzz::asText(data + 1, size - 1));
    std::istringstream in;
    fpx::fuzz::DiscardingStream out, err;
    fpx::cli::Streams io{in, out, err};
    if (!explicitRoundings) {
        (void)fpx::cli::runCalc({"--round", mode, "--", text}, io);
        return 0;
    }
    (void)fpx::cli::runCalc({"--explicit", "--round", mode, "--", text}, io);
    const fpx::UpdateRuleParse rule = fpx::parseUpdateRule(text);
    if (rule)
        (void)rule.rule->expandedFormula(*fpx::findFormat("bf16").spec);
    return 0;
}
