// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/bench/sizes.h"

#include "fpx/bench/backend.h"

#include <algorithm>
#include <bit>
#include <cctype>

namespace fpx::bench {

std::size_t beyondCacheElements(std::uint64_t lastLevelCacheBytes, std::uint64_t memoryBytes) {
    constexpr std::uint64_t kSmallest = std::uint64_t{16} << 20;
    // Twice the cache in FP32 inputs of 4 bytes.
    std::uint64_t elements =
        std::max(std::bit_ceil(std::max<std::uint64_t>(2 * lastLevelCacheBytes / 4, 1)), kSmallest);
    if (memoryBytes > 0)
        while (elements > kSmallest && elements * 4 * 3 > memoryBytes / 2)
            elements /= 2;
    return static_cast<std::size_t>(std::min<std::uint64_t>(elements, kMaxElements));
}

std::size_t beyondCacheElements(const std::vector<DeviceInfo>& devices) {
    std::uint64_t cache = 0;
    std::uint64_t memory = 0;
    for (const DeviceInfo& device : devices) {
        cache = std::max(cache, device.lastLevelCacheBytes);
        if (device.memoryBytes > 0)
            memory = memory == 0 ? device.memoryBytes : std::min(memory, device.memoryBytes);
    }
    return beyondCacheElements(cache, memory);
}

std::vector<std::size_t> defaultSizes(const DeviceInfo& device) {
    return {kInCacheElements, beyondCacheElements(device.lastLevelCacheBytes, device.memoryBytes)};
}

namespace {

bool isSeparator(char c) {
    return c == ',' || c == ';' || std::isspace(static_cast<unsigned char>(c)) != 0;
}

// One item: digits, then an optional k/M/G (either case), then an optional 'i'.
bool parseItem(std::string_view item, std::size_t& elements) {
    std::size_t digits = 0;
    std::uint64_t value = 0;
    while (digits < item.size() && std::isdigit(static_cast<unsigned char>(item[digits])) != 0) {
        value = value * 10 + static_cast<std::uint64_t>(item[digits] - '0');
        if (value > kMaxElements)
            return false;
        ++digits;
    }
    if (digits == 0 || value == 0)
        return false;
    std::string_view unit = item.substr(digits);
    std::uint64_t scale = 1;
    if (!unit.empty()) {
        switch (unit.front()) {
        case 'k':
        case 'K':
            scale = std::uint64_t{1} << 10;
            break;
        case 'm':
        case 'M':
            scale = std::uint64_t{1} << 20;
            break;
        case 'g':
        case 'G':
            scale = std::uint64_t{1} << 30;
            break;
        default:
            return false;
        }
        unit.remove_prefix(1);
        if (unit == "i")
            unit.remove_prefix(1);
        if (!unit.empty())
            return false;
    }
    if (value > kMaxElements / scale)
        return false;
    elements = static_cast<std::size_t>(value * scale);
    return true;
}

} // namespace

SizeList parseSizes(std::string_view text) {
    SizeList list;
    auto fail = [&](std::string message) {
        list.sizes.clear();
        list.error = std::move(message);
        return list;
    };
    std::size_t position = 0;
    int commas = 0; // list separators since the last item: more than one is an empty item
    while (position < text.size()) {
        const char c = text[position];
        if (c == ',' || c == ';') {
            if (list.sizes.empty() || ++commas > 1)
                return fail("an empty item in '" + std::string(text) + "'");
            ++position;
            continue;
        }
        if (std::isspace(static_cast<unsigned char>(c)) != 0) {
            ++position;
            continue;
        }
        std::size_t end = position;
        while (end < text.size() && !isSeparator(text[end]))
            ++end;
        const std::string_view item = text.substr(position, end - position);
        std::size_t elements = 0;
        if (!parseItem(item, elements))
            return fail("'" + std::string(item) +
                        "' is not an element count such as 32k, 256M or 100000 (1 to 2G)");
        list.sizes.push_back(elements);
        commas = 0;
        position = end;
    }
    if (commas > 0)
        return fail("an empty item at the end of '" + std::string(text) + "'");
    if (list.sizes.empty())
        return fail("no element counts given; expected a list such as 32k,256M");
    return list;
}

std::string sizeLabel(std::size_t elements) {
    static constexpr const char* kUnits[] = {"", " Ki", " Mi", " Gi"};
    int unit = 0;
    std::size_t value = elements;
    while (unit < 3 && value >= 1024 && value % 1024 == 0) {
        value /= 1024;
        ++unit;
    }
    return std::to_string(value) + kUnits[unit];
}

} // namespace fpx::bench
