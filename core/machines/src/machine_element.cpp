// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/machines/machine_element.h"

#include "fpx/exact/format_catalogue.h"

namespace fpx {

std::optional<MachineElement> findMachineElement(std::string_view id, std::string& error) {
    std::string blockError;
    std::optional<BlockFormat> block = findBlockFormat(id, {}, blockError);
    if (block && (block->scheme == BlockScheme::Mx || block->scheme == BlockScheme::Nvfp4))
        return MachineElement{block->id, block->element, std::move(block)};
    const FormatLookup lookup = findFormat(id);
    if (lookup)
        return MachineElement{lookup.spec->id, *lookup.spec, std::nullopt};
    error = "unknown element '" + std::string(id) + "' (a format such as fp16 or fp8_e4m3, " +
            "or a block format such as mxfp8_e4m3, mxfp4 or nvfp4)";
    return std::nullopt;
}

} // namespace fpx
