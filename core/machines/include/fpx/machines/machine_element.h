// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/format_spec.h"
#include "fpx/quantization/block_format.h"

#include <optional>
#include <string>
#include <string_view>

namespace fpx {

// An element as a machine's instructions name it (docs/behaviour.md, "Machines"): a number
// format ("fp16", "fp8_e4m3", "tf32"), or a block format whose quantized operands a
// block-scaled instruction takes ("mxfp8_e4m3", "mxfp4", "nvfp4").
struct MachineElement {
    std::string id;                   // as the instructions list it
    FormatSpec format;                // the element format (a block format's element)
    std::optional<BlockFormat> block; // set for a block format
};

// nullopt with `error` naming the id when it is neither.
std::optional<MachineElement> findMachineElement(std::string_view id, std::string& error);

} // namespace fpx
