// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/quantization/memory_footprint.h"

#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/text_util.h"
#include "fpx/quantization/block_format.h"

#include <algorithm>
#include <cctype>

namespace fpx {

namespace {

// Products of counts, powers of ten and units exceed 64 bits before they are divided back.
__extension__ typedef unsigned __int128 Wide;

// 10^k for the suffixes and exponents a parameter count may carry.
std::optional<Wide> powerOfTen(int k) {
    if (k < 0 || k > 30)
        return std::nullopt;
    Wide p = 1;
    for (int i = 0; i < k; ++i)
        p *= 10;
    return p;
}

int suffixPower(char c) {
    switch (std::tolower(static_cast<unsigned char>(c))) {
    case 'k':
        return 3;
    case 'm':
        return 6;
    case 'b':
    case 'g':
        return 9;
    case 't':
        return 12;
    default:
        return -1;
    }
}

// What a memory id is called on plots and in tables.
struct BlockLabel {
    const char* id;
    const char* label;
};
constexpr BlockLabel kBlockLabels[] = {
    {"mxfp8_e4m3", "MXFP8 E4M3"},
    {"mxfp8_e5m2", "MXFP8 E5M2"},
    {"mxfp6_e3m2", "MXFP6 E3M2"},
    {"mxfp6_e2m3", "MXFP6 E2M3"},
    {"mxfp4", "MXFP4"},
    {"mxfp4_e1m2", "MXFP4 E1M2"},
    {"mxint8", "MXINT8"},
    {"nvfp4", "NVFP4"},
    {"nf4", "NF4"},
    {"nf4_dq", "NF4 (double quant)"},
};

bool isScaledQuantizer(std::string_view id) {
    const std::vector<std::string> ids = scaledQuantizerIds();
    return std::find(ids.begin(), ids.end(), id) != ids.end();
}

// Bits one element of a plain format takes in memory: TF32 lives in FP32 containers, FP80 is
// padded to 16 bytes (long double on x86-64); every other format is packed at its width.
std::string upper(std::string text) {
    for (char& c : text)
        c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return text;
}

int containerBits(const FormatSpec& spec) {
    if (spec.id == "tf32")
        return 32;
    if (spec.id == "fp80")
        return 128;
    return spec.totalBits();
}

std::uint64_t packedBytes(std::uint64_t parameters, std::uint64_t bitsEach) {
    return (parameters * bitsEach + 7) / 8; // ≤ 10^15 × 128 bits: no overflow
}

} // namespace

std::optional<std::uint64_t> parseParameterCount(std::string_view text, std::string& error) {
    const std::string original(trim(text));
    auto fail = [&](const std::string& why) -> std::optional<std::uint64_t> {
        error = "parameter count '" + original + "': " + why;
        return std::nullopt;
    };
    std::string_view s = original;
    if (s.empty())
        return fail("empty (write e.g. 70B, 350M, 1.5T or 7e9)");
    // Mantissa: digits and one decimal point. Thousands separators (, _ ') only between
    // groups of three digits, so that "1,5B" (a decimal comma) is refused rather than read as
    // 15 billion. Zeros after the point count only when a digit follows ("1.000B" is 1B).
    Wide mantissa = 0;
    int exponent = 0;
    bool digits = false, point = false, grouped = false;
    int groupDigits = 0;  // digits since the start or the last separator
    int pendingZeros = 0; // zeros after the point not yet taken into the mantissa
    std::size_t i = 0;
    const auto addDigit = [&](unsigned digit) {
        if (mantissa > Wide(kMostParameters) * 1'000'000'000)
            return false;
        mantissa = mantissa * 10 + digit;
        if (point)
            --exponent;
        return true;
    };
    for (; i < s.size(); ++i) {
        const char c = s[i];
        if (std::isdigit(static_cast<unsigned char>(c))) {
            digits = true;
            ++groupDigits;
            if (point && c == '0') {
                ++pendingZeros;
                continue;
            }
            for (; pendingZeros > 0; --pendingZeros)
                if (!addDigit(0))
                    return fail("too many digits");
            if (!addDigit(static_cast<unsigned>(c - '0')))
                return fail("too many digits");
        } else if (c == '.' && !point) {
            if (grouped && groupDigits != 3)
                return fail("thousands separators go between groups of three digits");
            point = true;
        } else if ((c == ',' || c == '_' || c == '\'') && !point) {
            if (groupDigits == 0 || groupDigits > 3 || (grouped && groupDigits != 3))
                return fail("thousands separators go between groups of three digits (write "
                            "1.5B, not 1,5B)");
            grouped = true;
            groupDigits = 0;
        } else {
            break;
        }
    }
    if (grouped && !point && groupDigits != 3)
        return fail("thousands separators go between groups of three digits (write 1.5B, not "
                    "1,5B)");
    if (!digits)
        return fail("expected a number (e.g. 70B, 350M, 1.5T or 7e9)");
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        std::size_t j = i + 1;
        bool negative = false;
        if (j < s.size() && (s[j] == '+' || s[j] == '-'))
            negative = s[j++] == '-';
        int e = 0;
        const std::size_t start = j;
        while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])) && e < 1000)
            e = e * 10 + (s[j++] - '0');
        if (j == start)
            return fail("expected digits after the exponent 'e'");
        exponent += negative ? -e : e;
        i = j;
    }
    while (i < s.size() && s[i] == ' ')
        ++i;
    if (i < s.size()) {
        const int power = suffixPower(s[i]);
        if (power < 0 || i + 1 != s.size())
            return fail("unknown suffix '" + std::string(s.substr(i)) +
                        "' (use K, M, B or T: 350M, 70B, 1.5T)");
        exponent += power;
    }
    if (mantissa == 0)
        return fail("must be at least 1");
    Wide value = mantissa;
    if (exponent < 0) {
        const auto divisor = powerOfTen(-exponent);
        if (!divisor || value % *divisor != 0)
            return fail("not a whole number of parameters");
        value /= *divisor;
    } else if (exponent > 0) {
        const auto factor = powerOfTen(exponent);
        if (!factor || value > Wide(kMostParameters) / *factor + 1)
            return fail("more than " + std::to_string(kMostParameters) + " parameters");
        value *= *factor;
    }
    if (value > Wide(kMostParameters))
        return fail("more than " + std::to_string(kMostParameters) + " parameters");
    return static_cast<std::uint64_t>(value);
}

std::string parameterCountText(std::uint64_t parameters) {
    struct Unit {
        std::uint64_t size;
        char suffix;
    };
    for (const Unit u : {Unit{1'000'000'000'000, 'T'}, Unit{1'000'000'000, 'B'},
                         Unit{1'000'000, 'M'}, Unit{1'000, 'K'}}) {
        if (parameters < u.size)
            continue;
        // Whole units, or up to three decimals when those hold it exactly.
        const std::uint64_t whole = parameters / u.size;
        std::uint64_t rest = parameters % u.size;
        if (rest == 0)
            return std::to_string(whole) + u.suffix;
        std::string decimals;
        std::uint64_t scale = u.size;
        for (int d = 0; d < 3 && rest != 0; ++d) {
            scale /= 10;
            decimals += static_cast<char>('0' + rest / scale);
            rest %= scale;
        }
        if (rest == 0)
            return std::to_string(whole) + "." + decimals + u.suffix;
        break;
    }
    return std::to_string(parameters);
}

std::uint64_t MemoryFootprint::totalBytes() const {
    std::uint64_t total = 0;
    for (const FootprintPart& p : parts)
        total += p.bytes;
    return total;
}

std::optional<MemoryFootprint> memoryFootprint(std::string_view id, std::uint64_t parameters,
                                               std::string& error) {
    if (parameters == 0 || parameters > kMostParameters) {
        error = "parameter count must be from 1 to " + std::to_string(kMostParameters);
        return std::nullopt;
    }
    MemoryFootprint f;
    f.id = std::string(id);
    f.parameters = parameters;
    std::uint64_t weightBytes = 0;
    const std::string key = toLower(trim(id));
    if (isScaledQuantizer(key)) {
        std::string why;
        const auto format = findBlockFormat(key, {}, why);
        if (!format) {
            error = std::string(id) + ": " + why;
            return std::nullopt;
        }
        // Elements and scales as the quantizers store them: one scale per block (the last
        // block may be partial), NVFP4's FP32 tensor scale and nf4_dq's group scales and
        // offset counted once, as if the model were one tensor.
        weightBytes = storageBytes(*format, parameters, parameters);
        f.label = key;
        for (const BlockLabel& b : kBlockLabels)
            if (key == b.id)
                f.label = b.label;
        if (format->scheme == BlockScheme::IntAbsmax)
            f.label = upper(key);
        f.note = format->displayName;
        if (format->scheme == BlockScheme::IntAbsmax)
            f.note += " with one FP32 scale per tensor";
    } else {
        const FormatLookup lookup = findFormat(std::string(id));
        if (!lookup) {
            error = lookup.error;
            return std::nullopt;
        }
        const FormatSpec& spec = *lookup.spec;
        const int bits = containerBits(spec);
        weightBytes = packedBytes(parameters, static_cast<std::uint64_t>(bits));
        f.id = spec.id;
        f.label = spec.id;
        f.note = std::to_string(bits) + " bits per parameter";
        if (bits != spec.totalBits())
            f.note += " (" + std::to_string(spec.totalBits()) + "-bit values in " +
                      std::to_string(bits) + "-bit containers)";
        else if (bits % 8 != 0)
            f.note += ", packed";
    }
    f.parts.push_back({"weights", f.label, f.note, weightBytes});
    return f;
}

std::vector<std::string> memoryIdsForFormats(const std::vector<std::string>& formatIds) {
    std::vector<std::string> ids;
    auto add = [&](const std::string& id) {
        if (std::find(ids.begin(), ids.end(), id) == ids.end())
            ids.push_back(id);
    };
    for (const std::string& id : formatIds)
        add(id);
    auto has = [&](const char* id) {
        return std::find(formatIds.begin(), formatIds.end(), id) != formatIds.end();
    };
    // Block quantizers whose elements are among the formats.
    const std::pair<const char*, const char*> blocks[] = {
        {"fp8_e4m3", "mxfp8_e4m3"}, {"fp8_e5m2", "mxfp8_e5m2"}, {"fp6_e3m2", "mxfp6_e3m2"},
        {"fp6_e2m3", "mxfp6_e2m3"}, {"fp4_e2m1", "mxfp4"},      {"fp4_e2m1", "nvfp4"},
        {"fp4_e1m2", "mxfp4_e1m2"},
    };
    for (const auto& [element, block] : blocks)
        if (has(element))
            add(block);
    return ids;
}

std::string bytesInUnit(std::uint64_t bytes, std::uint64_t unit, int decimals) {
    Wide scale = 1;
    for (int d = 0; d < decimals; ++d)
        scale *= 10;
    // round(bytes × 10^d / unit), half away from zero, in integers.
    const Wide scaled = (Wide(bytes) * scale * 2 + unit) / (Wide(unit) * 2);
    const auto whole = static_cast<std::uint64_t>(scaled / scale);
    std::string text = std::to_string(whole);
    if (decimals > 0) {
        std::string fraction = std::to_string(static_cast<std::uint64_t>(scaled % scale));
        fraction.insert(0, static_cast<std::size_t>(decimals) - fraction.size(), '0');
        text += "." + fraction;
    }
    return text;
}

} // namespace fpx
