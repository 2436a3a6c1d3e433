// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The loop sets: the bulk loops, included by one .cpp per instruction set (kernels_*.cpp) and
// compiled with that instruction set's flags. Everything here and in the headers it includes
// has internal linkage, so the copies never mix.

#include "avx2_integer_encoder.h"
#include "avx512_integer_encoder.h"
#include "encode_loop.h"
#include "float_decode_loops.h"
#include "lookup_loop.h"
#include "loop_set.h"
#include "table_decode_loop.h"

namespace {

using namespace fpx;
using namespace fpx::kernels;

template <RoundingMode Mode, EncodeKind Kind, bool Symmetric, OutputStores Stores>
constexpr void fillEncodeRow(LoopSet::EncodeLoop (&row)[3]) {
    row[0] = &encodeLoop<Mode, Kind, std::uint8_t, Symmetric, Stores>;
    row[1] = &encodeLoop<Mode, Kind, std::uint16_t, Symmetric, Stores>;
    row[2] = &encodeLoop<Mode, Kind, std::uint32_t, Symmetric, Stores>;
}

template <RoundingMode Mode, OutputStores Stores> constexpr void fillEncode(LoopSet& set) {
    const int stores = static_cast<int>(Stores);
    const int mode = static_cast<int>(Mode);
    fillEncodeRow<Mode, EncodeKind::BinaryFloat, false, Stores>(
        set.encode[stores][mode][static_cast<int>(EncodeKind::BinaryFloat)]);
    fillEncodeRow<Mode, EncodeKind::SignedInteger, false, Stores>(
        set.encode[stores][mode][static_cast<int>(EncodeKind::SignedInteger)]);
    fillEncodeRow<Mode, EncodeKind::BinaryFloat, true, Stores>(set.encodeSymmetric[stores][mode]);
}

template <OutputStores Stores> constexpr void fillEncodeModes(LoopSet& set) {
    fillEncode<RoundingMode::NearestEven, Stores>(set);
    fillEncode<RoundingMode::NearestAway, Stores>(set);
    fillEncode<RoundingMode::TowardZero, Stores>(set);
    fillEncode<RoundingMode::TowardPositive, Stores>(set);
    fillEncode<RoundingMode::TowardNegative, Stores>(set);
    fillEncode<RoundingMode::Stochastic, Stores>(set);
    fillEncode<RoundingMode::ToOdd, Stores>(set);
}

template <OutputStores Stores>
constexpr void fillDecode(LoopSet::FloatDecodeLoop (&floatDecode)[3],
                          LoopSet::WidenLoop (&widen)[2], LoopSet::TableLoop (&table)[2]) {
    table[0] = &tableLoop<std::uint8_t, Stores>;
    table[1] = &tableLoop<std::uint16_t, Stores>;
    floatDecode[0] = &floatDecodeLoop<std::uint8_t, Stores>;
    floatDecode[1] = &floatDecodeLoop<std::uint16_t, Stores>;
    floatDecode[2] = &floatDecodeLoop<std::uint32_t, Stores>;
    widen[0] = &widenLoop<std::uint16_t, Stores>;
    widen[1] = &widenLoop<std::uint32_t, Stores>;
}

bool nearestEvenBytesInIntrinsics([[maybe_unused]] const EncodeParams& p) {
#if defined(__AVX2__)
    if (p.kind == EncodeKind::SignedInteger)
        return NearestEvenIntegerByteEncoder::applies(p);
    return p.kind == EncodeKind::BinaryFloat &&
           (symmetricSpecials(p, RoundingMode::NearestEven) || unsignedZeroApplies(p));
#else
    return false;
#endif
}

LoopSet makeLoopSet(const char* name) {
    LoopSet set{};
    set.isaName = name;
    set.nearestEvenBytesInIntrinsics = &nearestEvenBytesInIntrinsics;
    fillEncodeModes<OutputStores::Cached>(set);
    fillEncodeModes<OutputStores::Streaming>(set);
    set.lookup[0][0] = &lookupLoop<std::uint8_t, OutputStores::Cached>;
    set.lookup[0][1] = &lookupLoop<std::uint16_t, OutputStores::Cached>;
    set.lookup[0][2] = &lookupLoop<std::uint32_t, OutputStores::Cached>;
    set.lookup[1][0] = &lookupLoop<std::uint8_t, OutputStores::Streaming>;
    set.lookup[1][1] = &lookupLoop<std::uint16_t, OutputStores::Streaming>;
    set.lookup[1][2] = &lookupLoop<std::uint32_t, OutputStores::Streaming>;
    fillDecode<OutputStores::Cached>(set.floatDecode[0], set.widen[0], set.table[0]);
    fillDecode<OutputStores::Streaming>(set.floatDecode[1], set.widen[1], set.table[1]);
    return set;
}

} // namespace
