// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Codes as the bulk converters, the CLI's binary files and the benchmark backends store them:
// packed, packedBytes(format) bytes each (1, 2, 4, 8 or 16), little-endian (the hosts fpx runs
// on). One reader and one writer for every width, over the value type that holds the code:
//
//   readPackedCode(codes, bytes, i)          std::uint32_t, codes of up to 4 bytes (the bulk
//                                            kernels' and benchmarks' formats)
//   readPackedCode<Code>(codes, bytes, i)    any code, up to 16 bytes (FP64, FP80, FP128)
//
// A width wider than the value type throws instead of copying past it.

#include "fpx/exact/code.h"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

namespace fpx {

struct FormatSpec;

// Bytes a packed code of the format takes: 1, 2, 4, 8 or 16.
int packedBytes(const FormatSpec& format);

namespace packed_codes_detail {

[[noreturn, gnu::cold, gnu::noinline]] inline void throwTooWide(int bytesPerCode,
                                                                std::size_t valueBytes) {
    throw std::invalid_argument("packed code of " + std::to_string(bytesPerCode) +
                                " bytes does not fit a " + std::to_string(valueBytes) +
                                "-byte value; read and write wide codes as fpx::Code");
}

template <typename Value> inline std::size_t checkedWidth(int bytesPerCode) {
    static_assert(sizeof(Value) <= sizeof(Code), "no code is wider than fpx::Code");
    if (bytesPerCode < 1 || static_cast<std::size_t>(bytesPerCode) > sizeof(Value))
        throwTooWide(bytesPerCode, sizeof(Value));
    return static_cast<std::size_t>(bytesPerCode);
}

} // namespace packed_codes_detail

// Element `index` of an array of `bytesPerCode`-byte codes (1 ≤ bytesPerCode ≤ sizeof(Value)).
template <typename Value = std::uint32_t>
inline Value readPackedCode(const void* codes, int bytesPerCode, std::size_t index) {
    const std::size_t width = packed_codes_detail::checkedWidth<Value>(bytesPerCode);
    Value value = 0;
    std::memcpy(&value, static_cast<const std::uint8_t*>(codes) + index * width, width);
    return value;
}

// Stores the low `bytesPerCode` bytes of `value` as element `index`
// (1 ≤ bytesPerCode ≤ sizeof(Value)).
template <typename Value>
inline void writePackedCode(void* codes, int bytesPerCode, std::size_t index, Value value) {
    const std::size_t width = packed_codes_detail::checkedWidth<Value>(bytesPerCode);
    std::memcpy(static_cast<std::uint8_t*>(codes) + index * width, &value, width);
}

} // namespace fpx
