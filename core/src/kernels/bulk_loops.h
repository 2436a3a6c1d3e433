// SPDX-License-Identifier: GPL-3.0-or-later
// The bulk loops, included by one .cpp per instruction set (kernels_*.cpp) and compiled with
// that instruction set's flags. Everything here has internal linkage, so the copies never mix.
// No #pragma once: each including file wants its own copy.

#include "loop_set.h"

#include <cstring>

namespace {

using namespace fpx;
using namespace fpx::kernels;

template <typename T>
T loadCode(const void* in, std::size_t i) {
    T value;
    std::memcpy(&value, static_cast<const unsigned char*>(in) + i * sizeof(T), sizeof(T));
    return value;
}

// The parameters are copied to a local: stores through the byte-sized output pointer may
// alias anything, and a local whose address never escapes keeps them in registers.
template <RoundingMode Mode, typename Out>
void encodeLoop(const EncodeParams& params, const std::uint32_t* in, void* outBytes,
                std::size_t count, std::uint64_t seed, std::uint64_t firstIndex) {
    const EncodeParams p = params;
    Out* out = static_cast<Out*>(outBytes);
    for (std::size_t i = 0; i < count; ++i) {
        std::uint64_t random = 0;
        if constexpr (Mode == RoundingMode::Stochastic)
            random = stochasticBits(seed, firstIndex + i);
        out[i] = static_cast<Out>(encodeElement<Mode>(p, in[i], random));
    }
}

template <typename Out>
void lookupLoop(const LookupParams& params, const std::uint32_t* in, void* outBytes,
                std::size_t count) {
    const LookupParams p = params;
    Out* out = static_cast<Out*>(outBytes);
    for (std::size_t i = 0; i < count; ++i)
        out[i] = static_cast<Out>(lookupElement(p, in[i]));
}

template <typename In>
void tableLoop(const std::uint32_t* table, std::uint32_t mask, const void* inBytes,
               std::uint32_t* out, std::size_t count) {
    const In* in = static_cast<const In*>(inBytes);
    for (std::size_t i = 0; i < count; ++i)
        out[i] = table[in[i] & mask];
}

template <typename In>
void widenLoop(const WidenParams& params, const void* inBytes, std::uint32_t* out,
               std::size_t count) {
    const WidenParams p = params;
    const In* in = static_cast<const In*>(inBytes);
    for (std::size_t i = 0; i < count; ++i)
        out[i] = widenElement(p, in[i]);
}

template <RoundingMode Mode>
constexpr void fillEncode(LoopSet::EncodeLoop (&row)[3]) {
    row[0] = &encodeLoop<Mode, std::uint8_t>;
    row[1] = &encodeLoop<Mode, std::uint16_t>;
    row[2] = &encodeLoop<Mode, std::uint32_t>;
}

LoopSet makeLoopSet(const char* name) {
    LoopSet set{};
    set.isaName = name;
    fillEncode<RoundingMode::NearestEven>(set.encode[static_cast<int>(RoundingMode::NearestEven)]);
    fillEncode<RoundingMode::NearestAway>(set.encode[static_cast<int>(RoundingMode::NearestAway)]);
    fillEncode<RoundingMode::TowardZero>(set.encode[static_cast<int>(RoundingMode::TowardZero)]);
    fillEncode<RoundingMode::TowardPositive>(
        set.encode[static_cast<int>(RoundingMode::TowardPositive)]);
    fillEncode<RoundingMode::TowardNegative>(
        set.encode[static_cast<int>(RoundingMode::TowardNegative)]);
    fillEncode<RoundingMode::Stochastic>(set.encode[static_cast<int>(RoundingMode::Stochastic)]);
    fillEncode<RoundingMode::ToOdd>(set.encode[static_cast<int>(RoundingMode::ToOdd)]);
    set.lookup[0] = &lookupLoop<std::uint8_t>;
    set.lookup[1] = &lookupLoop<std::uint16_t>;
    set.lookup[2] = &lookupLoop<std::uint32_t>;
    set.table[0] = &tableLoop<std::uint8_t>;
    set.table[1] = &tableLoop<std::uint16_t>;
    set.widen[0] = &widenLoop<std::uint16_t>;
    set.widen[1] = &widenLoop<std::uint32_t>;
    return set;
}

} // namespace
