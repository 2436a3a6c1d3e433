// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/format_spec.h"
#include "fpx/exact/packed_codes.h"
#include "fpx/exact/rounding.h"
#include "fpx/kernels/element_conversion.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace fpx {

// Parameters of the branch-free element kernels (kernels/element_conversion.h) for a format,
// derived from its FormatSpec; every special answer in them comes from roundToFormat.
// nullopt where that kernel does not apply to the format.
std::optional<kernels::EncodeParams> encodeParams(const FormatSpec& target,
                                                  const RoundingOptions& options);
// Formats with at most 64 codes whose results step monotonically (not stochastic rounding).
std::optional<kernels::LookupParams> lookupParams(const FormatSpec& target,
                                                  const RoundingOptions& options);
// BF16 and TF32: the leading bits of FP32 (`options` say what ±∞ becomes).
std::optional<kernels::WidenParams> widenParams(const FormatSpec& source,
                                                const RoundingOptions& options = {});
// Binary floats of at most 8 exponent bits with a hidden bit → FP32 (all values exact).
std::optional<kernels::FloatDecodeParams> floatDecodeParams(const FormatSpec& source,
                                                            const RoundingOptions& options = {});
// FP32 bits of every code of a format of at most 16 bits (rounded by `options` where a value
// is not an FP32 value, as NF4's levels may not be); empty for wider formats.
std::vector<std::uint32_t> decodeTable(const FormatSpec& source,
                                       const RoundingOptions& options = {});

// Whether a bulk converter may use the CPU's own conversion instructions.
enum class HardwareUse {
    Never,    // software kernels only
    BitExact, // hardware where it agrees with the exact core on every input (fpx convert)
    Any,      // also hardware that differs (AVX512-BF16 flushes subnormals): benchmarks
};

// How a bulk converter does its work, for labels and reports.
struct KernelPath {
    std::string name;      // "bit trick (AVX-512)", "F16C vcvtps2ph", "scalar reference" …
    bool hardware = false; // the CPU's own conversion instructions
    bool bitExact = true;  // agrees with the exact core on every input by design (and test)
    std::string note;      // what differs, when not bit-exact
};

struct BulkConverterImpl;

// FP32 → a format, in bulk. Codes are written packed, little-endian, bytesPerElement() each.
class BulkEncoder {
  public:
    // The fastest path for the format on this CPU; nullopt when no fast path applies (wider or
    // exotic formats: use roundToFormat). `seed` drives stochastic rounding: element i of a
    // call gets stochasticBits(seed, firstIndex + i), as the exact core would.
    static std::optional<BulkEncoder> create(const FormatSpec& target,
                                             const RoundingOptions& options,
                                             HardwareUse hardware = HardwareUse::BitExact,
                                             std::uint64_t seed = 0);
    // Every path this CPU offers for the format, fastest first, ending with the scalar
    // reference (one element at a time, branching on its class): what benchmarks compare.
    static std::vector<BulkEncoder>
    allPaths(const FormatSpec& target, const RoundingOptions& options, std::uint64_t seed = 0);

    // Outputs of more than a few MiB are written with streaming stores (not read first).
    void encode(const std::uint32_t* in, void* out, std::size_t count,
                std::uint64_t firstIndex = 0) const;
    int bytesPerElement() const;
    const KernelPath& path() const;

    ~BulkEncoder();
    BulkEncoder(const BulkEncoder&);
    BulkEncoder& operator=(const BulkEncoder&);
    BulkEncoder(BulkEncoder&&) noexcept;
    BulkEncoder& operator=(BulkEncoder&&) noexcept;

  private:
    explicit BulkEncoder(std::unique_ptr<BulkConverterImpl> impl);
    std::unique_ptr<BulkConverterImpl> impl_;
};

// A format → FP32, in bulk. Codes are read packed, little-endian, bytesPerElement() each.
class BulkDecoder {
  public:
    // `options` round the values that are not FP32 values (INT8's k/127, say); stochastic
    // rounding leaves only the paths of formats whose every value is an FP32 value.
    static std::optional<BulkDecoder> create(const FormatSpec& source,
                                             const RoundingOptions& options = {},
                                             HardwareUse hardware = HardwareUse::BitExact);
    static std::vector<BulkDecoder> allPaths(const FormatSpec& source,
                                             const RoundingOptions& options = {});

    void decode(const void* in, std::uint32_t* out, std::size_t count) const;
    int bytesPerElement() const;
    const KernelPath& path() const;

    ~BulkDecoder();
    BulkDecoder(const BulkDecoder&);
    BulkDecoder& operator=(const BulkDecoder&);
    BulkDecoder(BulkDecoder&&) noexcept;
    BulkDecoder& operator=(BulkDecoder&&) noexcept;

  private:
    explicit BulkDecoder(std::unique_ptr<BulkConverterImpl> impl);
    std::unique_ptr<BulkConverterImpl> impl_;
};

// The exact core's answers for FP32 inputs, packed like BulkEncoder's output: the reference
// every fast path is compared with.
void encodeWithExactCore(const FormatSpec& target, const RoundingOptions& options,
                         const std::uint32_t* in, void* out, std::size_t count,
                         std::uint64_t seed = 0, std::uint64_t firstIndex = 0);
void decodeWithExactCore(const FormatSpec& source, const RoundingOptions& options, const void* in,
                         std::uint32_t* out, std::size_t count);

} // namespace fpx
