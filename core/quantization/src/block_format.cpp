// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/quantization/block_format.h"

#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_limits.h"
#include "fpx/exact/text_util.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace fpx {

namespace {

// The scaled quantizers: an id, its scheme, the element format's catalogue id and the default
// layout. Everything else (element max, emax, scale format) is derived from the FormatSpecs.
struct CatalogueEntry {
    const char* id;
    const char* displayName;
    const char* description;
    BlockScheme scheme;
    const char* elementId;
    std::size_t defaultBlock; // 0: the whole tensor
    bool doubleQuantized = false;
    bool blockIsDefinition = false; // the standard fixes the block size (OCP MX, NVFP4)
};

constexpr CatalogueEntry kCatalogue[] = {
    {"mxfp8_e4m3", "MXFP8 E4M3 (OCP MX, E4M3 × E8M0 per 32)",
     "OCP MX v1.0: FP8 E4M3 elements, a power-of-two E8M0 scale per block of 32", BlockScheme::Mx,
     "fp8_e4m3", 32, false, true},
    {"mxfp8_e5m2", "MXFP8 E5M2 (OCP MX, E5M2 × E8M0 per 32)",
     "OCP MX v1.0: FP8 E5M2 elements, a power-of-two E8M0 scale per block of 32", BlockScheme::Mx,
     "fp8_e5m2", 32, false, true},
    {"mxfp6_e3m2", "MXFP6 E3M2 (OCP MX, E3M2 × E8M0 per 32)",
     "OCP MX v1.0: FP6 E3M2 elements, a power-of-two E8M0 scale per block of 32", BlockScheme::Mx,
     "fp6_e3m2", 32, false, true},
    {"mxfp6_e2m3", "MXFP6 E2M3 (OCP MX, E2M3 × E8M0 per 32)",
     "OCP MX v1.0: FP6 E2M3 elements, a power-of-two E8M0 scale per block of 32", BlockScheme::Mx,
     "fp6_e2m3", 32, false, true},
    {"mxfp4", "MXFP4 (OCP MX, E2M1 × E8M0 per 32)",
     "OCP MX v1.0: FP4 E2M1 elements, a power-of-two E8M0 scale per block of 32", BlockScheme::Mx,
     "fp4_e2m1", 32, false, true},
    {"mxfp4_e1m2", "MXFP4 E1M2 (E1M2 × E8M0 per 32)",
     "OCP MX's layout with FP4 E1M2 elements (Ascend): a power-of-two E8M0 scale per block of "
     "32",
     BlockScheme::Mx, "fp4_e1m2", 32, false, true},
    {"mxint8", "MXINT8 (OCP MX, k/64 × E8M0 per 32)",
     "OCP MX v1.0: 8-bit integers k/64 (k in −127…127), an E8M0 scale per block of 32",
     BlockScheme::Mx, "int8", 32, false, true},
    {"nvfp4", "NVFP4 (E2M1 × E4M3 per 16 × FP32)",
     "NVIDIA Blackwell: FP4 E2M1 elements, an FP8 E4M3 scale per block of 16 and an FP32 "
     "scale for the tensor",
     BlockScheme::Nvfp4, "fp4_e2m1", 16, false, true},
    {"nf4", "NF4 (QLoRA, 16 levels × FP32 absmax per 64)",
     "bitsandbytes / QLoRA: the 16 NormalFloat levels times the FP32 absmax of each block of 64",
     BlockScheme::Nf4, "nf4", 64},
    {"nf4_dq", "NF4 with double quantization (QLoRA)",
     "NF4 whose block absmaxes are stored in 8 bits, groups of 256 sharing an FP32 scale, "
     "around an FP32 offset",
     BlockScheme::Nf4, "nf4", 64, true},
};

// Absmax integer quantizers: any integer format of the catalogue, or int<N> / uint<N>. The
// level times a 24-bit FP32 scale must stay exact in a double (53 bits).
constexpr int kMaxIntegerQuantizerBits = 24;

FormatSpec requireFormat(const char* id) {
    FormatLookup lookup = findFormat(id);
    return *lookup.spec; // built-in ids: the lookup cannot fail
}

// The value of element level k: the catalogue's integer formats carry scale 1/qmax for
// single conversions; as quantizer elements their levels are the integers themselves (MXINT8:
// k/64, the spec's implicit 2^−6).
FormatSpec integerElement(FormatSpec spec, const ExactValue& scale) {
    spec.scale = scale;
    return spec;
}

// Whether every value of a binary float format is a double: precision, exponent range.
bool valuesFitDouble(const FormatSpec& spec) {
    if (spec.kind != FormatKind::BinaryFloat || spec.explicitIntegerBit)
        return false;
    const FormatLimits limits = deriveLimits(spec);
    const int lowestExponent =
        spec.minExponent() - (spec.exponentZeroIsSubnormal ? spec.fractionBits : 0);
    return spec.precision() <= 53 && limits.maxExponent <= 1023 && lowestExponent >= -1074;
}

std::optional<BlockFormat> fromCatalogue(const CatalogueEntry& entry) {
    BlockFormat f;
    f.id = entry.id;
    f.displayName = entry.displayName;
    f.description = entry.description;
    f.scheme = entry.scheme;
    f.doubleQuantized = entry.doubleQuantized;
    f.blocks = entry.defaultBlock ? BlockLayout{BlockLayout::Kind::Elements, entry.defaultBlock}
                                  : BlockLayout{BlockLayout::Kind::Tensor, 0};
    if (std::string_view(entry.elementId) == "int8")
        f.element = integerElement(requireFormat("int8"), ExactValue::dyadic(false, 1, -6));
    else
        f.element = requireFormat(entry.elementId);
    switch (entry.scheme) {
    case BlockScheme::Mx:
        f.scale = requireFormat("fp8_e8m0");
        f.elementEmax = static_cast<int>(deriveLimits(f.element).max.floorLog2());
        break;
    case BlockScheme::Nvfp4:
        f.scale = requireFormat("fp8_e4m3");
        break;
    case BlockScheme::Nf4:
        // nf4_dq's per-block scale is an 8-bit symmetric level k (k/127 of the group scale).
        f.scale = entry.doubleQuantized
                      ? integerElement(requireFormat("int8"), ExactValue::integer(1))
                      : requireFormat("fp32");
        break;
    case BlockScheme::IntAbsmax:
    case BlockScheme::Direct:
        break;
    }
    return f;
}

std::optional<BlockFormat> integerQuantizer(const FormatSpec& spec, std::string& error) {
    if (spec.integerBits > kMaxIntegerQuantizerBits) {
        error = spec.id + ": integer quantizers take at most " +
                std::to_string(kMaxIntegerQuantizerBits) +
                " bits (the level times the FP32 scale must be exact in a double)";
        return std::nullopt;
    }
    BlockFormat f;
    f.id = spec.id;
    f.displayName = spec.displayName.empty() ? spec.id : spec.displayName;
    f.description = "symmetric absmax quantization: FP32 scale = absmax / largest level";
    f.scheme = BlockScheme::IntAbsmax;
    f.element = integerElement(spec, ExactValue::integer(1));
    f.scale = requireFormat("fp32");
    f.blocks = BlockLayout{BlockLayout::Kind::Tensor, 0};
    return f;
}

std::optional<BlockFormat> directCast(const FormatSpec& spec, std::string& error) {
    if (spec.kind != FormatKind::BinaryFloat) {
        error = spec.id + ": not a quantizer (use nf4 for the NF4 levels)";
        return std::nullopt;
    }
    if (!spec.exponentZeroIsSubnormal || !spec.isSigned) {
        error = spec.id + ": an unsigned scale format, not an element format (mxfp* use it)";
        return std::nullopt;
    }
    if (!valuesFitDouble(spec)) {
        error = spec.id + ": its values do not all fit a double; quantizers report exact "
                          "dequantized values as doubles";
        return std::nullopt;
    }
    BlockFormat f;
    f.id = spec.id;
    f.displayName = spec.displayName.empty() ? spec.id : spec.displayName;
    f.description = "a direct cast (round to nearest even, saturating), no scale";
    f.scheme = BlockScheme::Direct;
    f.element = spec;
    f.blocks = BlockLayout{BlockLayout::Kind::Tensor, 0};
    return f;
}

} // namespace

std::string_view scaleRuleId(ScaleRule rule) {
    switch (rule) {
    case ScaleRule::Floor:
        return "floor";
    case ScaleRule::Ceil:
        return "ceil";
    case ScaleRule::Even:
        return "even";
    }
    return "floor";
}

std::optional<ScaleRule> parseScaleRule(std::string_view text) {
    const std::string key = toLower(trim(text));
    for (ScaleRule rule : {ScaleRule::Floor, ScaleRule::Ceil, ScaleRule::Even})
        if (key == scaleRuleId(rule))
            return rule;
    return std::nullopt;
}

std::size_t BlockLayout::elementsPerBlock(std::size_t count, std::size_t rowLength) const {
    switch (kind) {
    case Kind::Tensor:
        return count;
    case Kind::Row:
        return rowLength;
    case Kind::Elements:
        return size;
    }
    return count;
}

std::optional<BlockLayout> parseBlockLayout(std::string_view text, std::string& error) {
    const std::string key = toLower(trim(text));
    if (key == "row")
        return BlockLayout{BlockLayout::Kind::Row, 0};
    if (key == "tensor")
        return BlockLayout{BlockLayout::Kind::Tensor, 0};
    std::size_t size = 0;
    const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), size);
    if (key.empty() || ec != std::errc() || end != key.data() + key.size() || size == 0) {
        error = "block '" + std::string(text) +
                "': expected a number of elements (1 or more), 'row' or 'tensor'";
        return std::nullopt;
    }
    return BlockLayout{BlockLayout::Kind::Elements, size};
}

std::string blockLayoutId(const BlockLayout& layout) {
    switch (layout.kind) {
    case BlockLayout::Kind::Tensor:
        return "tensor";
    case BlockLayout::Kind::Row:
        return "row";
    case BlockLayout::Kind::Elements:
        return std::to_string(layout.size);
    }
    return "tensor";
}

std::optional<BlockFormat> findBlockFormat(std::string_view id, const QuantizerOptions& options,
                                           std::string& error) {
    std::string key = toLower(trim(id));
    // "ID@N": this format's own block layout, ahead of options.blocks.
    std::optional<BlockLayout> ownBlocks;
    if (const std::size_t at = key.find('@'); at != std::string::npos) {
        ownBlocks = parseBlockLayout(key.substr(at + 1), error);
        if (!ownBlocks) {
            error = "'" + std::string(trim(id)) + "': " + error;
            return std::nullopt;
        }
        key.resize(at);
    }
    std::optional<BlockFormat> format;
    const CatalogueEntry* catalogued = nullptr;
    for (const CatalogueEntry& entry : kCatalogue)
        if (key == entry.id) {
            format = fromCatalogue(entry);
            catalogued = &entry;
        }
    if (!format) {
        FormatLookup lookup = findFormat(key);
        if (!lookup) {
            error = lookup.error;
            return std::nullopt;
        }
        if (lookup.spec->kind == FormatKind::Integer)
            format = integerQuantizer(*lookup.spec, error);
        else if (lookup.spec->kind == FormatKind::Lookup) // nf4 by an alias
            format = findBlockFormat("nf4", {}, error);
        else
            format = directCast(*lookup.spec, error);
        if (!format)
            return std::nullopt;
    }
    if (options.scaleRule) {
        if (format->scheme != BlockScheme::Mx) {
            error = format->id + ": --scale-rule applies to the MX formats only (their scales "
                                 "are powers of two)";
            return std::nullopt;
        }
        format->scaleRule = *options.scaleRule;
    }
    if (ownBlocks && format->scheme == BlockScheme::Direct) {
        error = "'" + std::string(trim(id)) + "': " + format->id +
                " is a plain cast, with no blocks to size";
        return std::nullopt;
    }
    // --block applies to every scaled format; a direct cast has no scale to share and keeps
    // its one block, so that one --block serves a list of formats with casts among them.
    const std::optional<BlockLayout> blocks = ownBlocks ? ownBlocks : options.blocks;
    if (blocks && format->scheme != BlockScheme::Direct) {
        if (blocks->kind == BlockLayout::Kind::Elements && blocks->size == 0) {
            error = format->id + ": a block holds at least one element";
            return std::nullopt;
        }
        format->blocks = *blocks;
    }
    // The MX and NVFP4 standards define their block sizes: another size is a variant of the
    // format, and says so in its id and name, never silently. Any format sized by "@N" carries
    // it in its id too, so that several sizes of one format in one report stay apart.
    const bool standardBlock = catalogued && catalogued->blockIsDefinition;
    const bool variant = standardBlock && !(format->blocks.kind == BlockLayout::Kind::Elements &&
                                            format->blocks.size == catalogued->defaultBlock);
    if (variant || ownBlocks)
        format->id += "@" + blockLayoutId(format->blocks);
    if (variant) {
        const std::string size = format->blocks.kind == BlockLayout::Kind::Elements
                                     ? "blocks of " + std::to_string(format->blocks.size)
                                     : "a block per " + blockLayoutId(format->blocks);
        format->displayName += ", variant: " + size;
        format->description += " (here a variant with " + size + "; the standard's are " +
                               std::to_string(catalogued->defaultBlock) + ")";
    }
    return format;
}

std::optional<std::vector<BlockFormat>>
findBlockFormats(std::string_view ids, const QuantizerOptions& options, std::string& error) {
    std::vector<BlockFormat> formats;
    std::size_t start = 0;
    while (start <= ids.size()) {
        std::size_t comma = ids.find(',', start);
        if (comma == std::string_view::npos)
            comma = ids.size();
        const std::string_view id = ids.substr(start, comma - start);
        start = comma + 1;
        if (trim(id).empty()) {
            error = "formats '" + std::string(ids) + "': an empty format id";
            return std::nullopt;
        }
        std::optional<BlockFormat> format = findBlockFormat(id, options, error);
        if (!format)
            return std::nullopt;
        formats.push_back(std::move(*format));
    }
    if (formats.empty()) {
        error = "no formats given";
        return std::nullopt;
    }
    return formats;
}

std::vector<std::string> scaledQuantizerIds() {
    std::vector<std::string> ids;
    for (const CatalogueEntry& entry : kCatalogue)
        ids.emplace_back(entry.id);
    ids.emplace_back("int8");
    ids.emplace_back("int4");
    return ids;
}

namespace {

// What is stored for a tensor, in bits: elements, per-block scales and per-tensor extras.
struct StoredBits {
    std::size_t elementBits = 0;
    std::size_t blocks = 0;
    std::size_t scaleBits = 0;  // per block
    std::size_t groups = 0;     // nf4_dq: groups of 256 absmax codes
    std::size_t groupBits = 0;  // per group
    std::size_t tensorBits = 0; // NVFP4's s_t, nf4_dq's offset
};

constexpr std::size_t kNf4DoubleQuantGroup = 256;

StoredBits storedBits(const BlockFormat& format, std::size_t count, std::size_t rowLength) {
    StoredBits s;
    s.elementBits = static_cast<std::size_t>(format.element.totalBits());
    if (format.scheme == BlockScheme::Direct || count == 0)
        return s;
    const std::size_t perBlock = std::max<std::size_t>(
        1, format.blocks.elementsPerBlock(count, rowLength ? rowLength : count));
    s.blocks = (count + perBlock - 1) / perBlock;
    s.scaleBits = format.scale ? static_cast<std::size_t>(format.scale->totalBits()) : 32;
    if (format.scheme == BlockScheme::Nvfp4)
        s.tensorBits = 32;
    if (format.doubleQuantized) {
        s.groups = (s.blocks + kNf4DoubleQuantGroup - 1) / kNf4DoubleQuantGroup;
        s.groupBits = 32;
        s.tensorBits = 32;
    }
    return s;
}

} // namespace

double bitsPerElement(const BlockFormat& format, std::size_t count, std::size_t rowLength) {
    if (count == 0)
        return double(format.element.totalBits());
    const StoredBits s = storedBits(format, count, rowLength);
    const double total = double(count) * double(s.elementBits) + double(s.blocks * s.scaleBits) +
                         double(s.groups * s.groupBits) + double(s.tensorBits);
    return total / double(count);
}

std::size_t storageBytes(const BlockFormat& format, std::size_t count, std::size_t rowLength) {
    const StoredBits s = storedBits(format, count, rowLength);
    auto bytes = [](std::size_t bits) { return (bits + 7) / 8; };
    return bytes(count * s.elementBits) + bytes(s.blocks * s.scaleBits) +
           bytes(s.groups * s.groupBits) + bytes(s.tensorBits);
}

} // namespace fpx
