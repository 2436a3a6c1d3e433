// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Codes of up to 32 bits as the bulk converters and the benchmark backends store them: packed,
// packedBytes(format) bytes each (1, 2 or 4), little-endian (the hosts fpx runs on).

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace fpx {

// Element `index` of an array of `bytesPerCode`-byte codes.
inline std::uint32_t readPackedCode(const void* codes, int bytesPerCode, std::size_t index) {
    std::uint32_t value = 0;
    std::memcpy(&value,
                static_cast<const std::uint8_t*>(codes) +
                    index * static_cast<std::size_t>(bytesPerCode),
                static_cast<std::size_t>(bytesPerCode));
    return value;
}

// Stores the low `bytesPerCode` bytes of `value` as element `index`.
inline void writePackedCode(void* codes, int bytesPerCode, std::size_t index, std::uint32_t value) {
    std::memcpy(static_cast<std::uint8_t*>(codes) + index * static_cast<std::size_t>(bytesPerCode),
                &value, static_cast<std::size_t>(bytesPerCode));
}

} // namespace fpx
