// SPDX-License-Identifier: GPL-3.0-or-later
#include "element_widening.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"

#include <array>
#include <bit>
#include <cstring>
#include <memory>

namespace fpx::tensor_file {

static_assert(std::endian::native == std::endian::little,
              "tensor files are little-endian and are read as they are");

namespace {

// The FP32 value of every code of a 16- or 8-bit format, from the exact core: decodeCode gives
// the exact value, roundToFormat into fp32 returns it unchanged because every value of FP16 and
// FP8 is an FP32 value (fewer exponent and fraction bits), and fp32's code is the float's bit
// pattern. A table built this way cannot disagree with the core; NaN codes give a quiet NaN of
// the same sign.
template <std::size_t N> std::unique_ptr<std::array<float, N>> widenTable(std::string_view id) {
    const FormatSpec source = *findFormat(id).spec;
    const FormatSpec& fp32 = fp32Spec();
    auto table = std::make_unique<std::array<float, N>>();
    for (std::size_t code = 0; code < N; ++code) {
        const ExactValue value = decodeCode(source, Code(code)).value;
        const Code bits = roundToFormat(value, fp32).code;
        (*table)[code] = std::bit_cast<float>(static_cast<std::uint32_t>(bits));
    }
    return table;
}

const std::array<float, 65536>& f16Table() {
    static const auto table = widenTable<65536>("fp16");
    return *table;
}
const std::array<float, 256>& e4m3Table() {
    static const auto table = widenTable<256>("fp8_e4m3");
    return *table;
}
const std::array<float, 256>& e5m2Table() {
    static const auto table = widenTable<256>("fp8_e5m2");
    return *table;
}

} // namespace

std::size_t elementBytes(ElementType type) {
    switch (type) {
    case ElementType::F64:
        return 8;
    case ElementType::F32:
        return 4;
    case ElementType::F16:
    case ElementType::BF16:
        return 2;
    case ElementType::E4M3:
    case ElementType::E5M2:
        return 1;
    }
    return 1;
}

std::string_view formatIdOf(ElementType type) {
    switch (type) {
    case ElementType::F64:
        return "fp64";
    case ElementType::F32:
        return "fp32";
    case ElementType::F16:
        return "fp16";
    case ElementType::BF16:
        return "bf16";
    case ElementType::E4M3:
        return "fp8_e4m3";
    case ElementType::E5M2:
        return "fp8_e5m2";
    }
    return "";
}

std::optional<ElementType> parseRawDtype(std::string_view text) {
    if (text == "f64")
        return ElementType::F64;
    if (text == "f32")
        return ElementType::F32;
    if (text == "f16")
        return ElementType::F16;
    if (text == "bf16")
        return ElementType::BF16;
    if (text == "e4m3")
        return ElementType::E4M3;
    if (text == "e5m2")
        return ElementType::E5M2;
    return std::nullopt;
}

void widenToFloat(ElementType type, const std::uint8_t* src, std::size_t n, float* dst) {
    if (n == 0)
        return; // src and dst may be null (empty vectors); memcpy must not see them
    switch (type) {
    case ElementType::F32:
        std::memcpy(dst, src, 4 * n);
        return;
    case ElementType::BF16:
        // BF16 is the upper half of a binary32:   s eeeeeeee mmmmmmm | 0000000000000000
        // so shifting its 16 bits up is the exact value, NaN payloads and all.
        for (std::size_t i = 0; i < n; ++i) {
            std::uint16_t half;
            std::memcpy(&half, src + 2 * i, 2); // little-endian host (asserted above)
            dst[i] = std::bit_cast<float>(std::uint32_t(half) << 16);
        }
        return;
    case ElementType::F16: {
        const auto& table = f16Table();
        for (std::size_t i = 0; i < n; ++i) {
            std::uint16_t code;
            std::memcpy(&code, src + 2 * i, 2);
            dst[i] = table[code];
        }
        return;
    }
    case ElementType::E4M3: {
        const auto& table = e4m3Table();
        for (std::size_t i = 0; i < n; ++i)
            dst[i] = table[src[i]];
        return;
    }
    case ElementType::E5M2: {
        const auto& table = e5m2Table();
        for (std::size_t i = 0; i < n; ++i)
            dst[i] = table[src[i]];
        return;
    }
    case ElementType::F64:
        return; // not a widening; callers copy doubles themselves
    }
}

} // namespace fpx::tensor_file
