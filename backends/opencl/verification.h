// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the OpenCL backend checks every kernel against before timing it: adversarial inputs
// (every FP32 exponent with the fraction patterns that sit on, just below and just above each
// rounding position; specials; every value of a small format, its neighbours and the midpoints
// between them) and a bit-for-bit comparison with the exact core's answers.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace fpx::opencl {

// FP32 bit patterns for an encode check. `values` are the FP32 bits of every code of the
// target (fpx::decodeTable; empty for wide formats): each value, its FP32 neighbours, the
// midpoint to the next value and its neighbours, and the same past the largest finite value
// (the overflow tie). Sorted and without duplicates.
std::vector<std::uint32_t> adversarialFp32(const std::vector<std::uint32_t>& values);

// Every code of a format of `bits` bits (≤ 20), else `limit` spread codes; packed in
// `bytes` bytes each.
std::vector<std::uint8_t> adversarialCodes(int bits, int bytes, std::size_t limit = 1u << 20);

// Outcome of comparing a kernel's outputs with the exact core's.
struct CheckOutcome {
    std::uint64_t checked = 0;
    std::uint64_t mismatches = 0;
    std::uint64_t nanMismatches = 0; // both results NaN, different bits (payload or sign)
    std::string firstMismatch;       // "input 0x7f800001: expected 0x7e00, got 0x7c01"

    void add(const CheckOutcome& other);
    // "", or "3 of 70000 elements differ from the exact core (all NaN payloads); first: …"
    std::string describe() const;
};

// Compares `count` packed outputs (outBytes each) with the expected ones; inputs (inBytes each)
// are only read to describe the first mismatch. `isNaN` classifies an output as NaN (may be
// empty: nothing is NaN).
CheckOutcome compareOutputs(const void* inputs, int inBytes, const void* expected,
                            const void* actual, int outBytes, std::size_t count,
                            const std::function<bool(std::uint32_t)>& isNaN);

// A packed little-endian element of 1, 2 or 4 bytes.
std::uint32_t loadPacked(const void* data, int bytes, std::size_t index);

} // namespace fpx::opencl
