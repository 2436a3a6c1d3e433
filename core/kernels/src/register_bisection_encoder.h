// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Part of the loop sets (make_loop_set.h): compiled once per instruction set, internal linkage.
// Breakpoint lookups of up to 31 breakpoints by bisection over registers (AVX-512).

#include "block_encoders.h"
#include "nan_codes_by_sign.h"

#include <cstdint>

namespace {

using namespace fpx;
using namespace fpx::kernels;

#if defined(__AVX512BW__) && defined(__AVX512DQ__)
// lookupElement for up to 31 breakpoints, 64 inputs at a time: the segment (how many
// breakpoints are at or below the input's ordered key) by bisection over registers, its code
// picked by a permute instead of a gather. NF4, FP4 and INT4 have 15 breakpoints, so 4 steps of
// 8, 4, 2, 1 find their segment (0–15) with one-register permutes (vpermd); up to 31 (Wide)
// take 5 steps of 16 … 1 with two-register ones (vpermt2d). Per 16 inputs:
//
//   key     = bits ^ (bits >>arith 31 & 0x7fffffff)     orderedKey: vpsrad and one vpternlogd
//   segment = key ≥ b[7] ? 8 : 0                          the first probe is the same for all
//   segment += key ≥ probes4[segment] ? 4 : 0             probes_s[j] = b[j + s − 1]: the
//   segment += key ≥ probes2[segment] ? 2 : 0             permute reads the breakpoint that
//   segment += key ≥ probes1[segment] ? 1 : 0             bisection probes, with no add
//   code    = codes[segment]
//
// 14 instructions, 8 of them compares and permutes (Intel: port 5), and per 64 inputs the NaN
// test and the pack: about 17 per 16 in all. The probes are read by permutes rather than by
// adding the step to an index first, the key is one vpternlogd rather than a mask and a masked
// XOR, and the codes are packed rather than narrowed per vector by vpmovdb (two µops each).
// NaNs are tested once per 64 inputs (the largest magnitude against ∞'s) and put in by sign
// only where there are some; until then they take some segment's code (a NaN's key lies beyond
// every breakpoint, where the padding INT32_MAX may be reached). The 64 codes are packed by
// vpackus* and one vpermd.
//
// Codes are cut to the output's width once, up front (as static_cast does), so that the
// unsigned saturating packs keep them.
template <bool Wide, typename Out> class RegisterBisectionEncoder {
  public:
    static constexpr int kSteps = Wide ? 5 : 4;
    static constexpr int kFirstStep = 1 << (kSteps - 1); // 16 or 8

    explicit RegisterBisectionEncoder(const LookupParams& p)
        : p_(p), first_(_mm512_set1_epi32(p.breakpoints[kFirstStep - 1])) {
        constexpr std::uint32_t kKeep = sizeof(Out) == 4 ? ~0u : (1u << 8 * sizeof(Out)) - 1;
        constexpr int kLast = static_cast<int>(LookupParams::kMaxBreakpoints) - 1;
        alignas(64) std::int32_t probes[32];
        for (int s = 0; s + 1 < kSteps; ++s) {
            const int step = kFirstStep >> (s + 1);
            // Bisection reads entries j that are multiples of 2·step, whose j + step − 1 is
            // at most 30; the others are never read (those past the end repeat entry 31).
            for (int j = 0; j < 32; ++j)
                probes[j] = p.breakpoints[j + step - 1 < kLast ? j + step - 1 : kLast];
            probesLow_[s] = _mm512_load_si512(probes);
            probesHigh_[s] = _mm512_load_si512(probes + 16);
        }
        alignas(64) std::uint32_t codes[32];
        for (int j = 0; j < 32; ++j)
            codes[j] = p.codes[j] & kKeep;
        codesLow_ = _mm512_load_si512(codes);
        codesHigh_ = _mm512_load_si512(codes + 16);
        nan_[0] = _mm512_set1_epi32(static_cast<int>(p.nanCode[0] & kKeep));
        nan_[1] = _mm512_set1_epi32(static_cast<int>(p.nanCode[1] & kKeep));
    }

    Out encodeOne(std::uint32_t bits) const { return static_cast<Out>(lookupElement(p_, bits)); }

    // Calls f(encode64) with a function that looks up 64 inputs into 64 codes.
    template <typename F> void withBlockEncoder(const F& f) const {
        f([this](const std::uint32_t* in, Out* out) __attribute__((always_inline)) {
            __m512i bits[4], codes[4]; // unrolled, so that they stay in registers
#pragma GCC unroll 4
            for (int v = 0; v < 4; ++v) {
                bits[v] = _mm512_loadu_si512(in + 16 * v);
                codes[v] = codes16(bits[v]);
            }
            putNaNCodesBySign(bits, codes, nan_[0], nan_[1]);
            storeCodesInOrder(out, codes);
        });
    }

  private:
    [[gnu::always_inline]] __m512i pick(__m512i low, __m512i index, __m512i high) const {
        if constexpr (Wide)
            return _mm512_maskz_permutex2var_epi32(kAllLanes, low, index, high);
        else
            return _mm512_maskz_permutexvar_epi32(kAllLanes, index, low);
    }

    // The codes of 16 inputs, NaNs aside.
    [[gnu::always_inline]] __m512i codes16(__m512i bits) const {
        // key = bits ^ (sign mask & 0x7fffffff): vpternlogd 0x78 is A ^ (B & C).
        const __m512i key =
            _mm512_ternarylogic_epi32(bits, _mm512_maskz_srai_epi32(kAllLanes, bits, 31),
                                      _mm512_set1_epi32(0x7fffffff), 0x78);
        __m512i segment = _mm512_maskz_mov_epi32(_mm512_cmpge_epi32_mask(key, first_),
                                                 _mm512_set1_epi32(kFirstStep));
        for (int s = 0; s + 1 < kSteps; ++s) {
            const __m512i breakpoint = pick(probesLow_[s], segment, probesHigh_[s]);
            segment = _mm512_mask_or_epi32(segment, _mm512_cmpge_epi32_mask(key, breakpoint),
                                           segment, _mm512_set1_epi32(kFirstStep >> (s + 1)));
        }
        return pick(codesLow_, segment, codesHigh_);
    }

    LookupParams p_;
    __m512i first_, probesLow_[kSteps - 1], probesHigh_[kSteps - 1], codesLow_, codesHigh_, nan_[2];
};
#endif

} // namespace
