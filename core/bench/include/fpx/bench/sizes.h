// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The sizes a benchmark runs at, in elements per pass: one vocabulary for the CLI, the
// explorer's Benchmarks page and every backend (docs/behaviour.md, "Benchmarks").
//   "in cache"                    kInCacheElements, whatever the device
//   "beyond the last-level cache" beyondCacheElements(), derived from the device's cache and
//                                 memory
// Written and read as "32k,256M" (k = 1024), shown as "32 Ki", "256 Mi", "1000".

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fpx::bench {

struct DeviceInfo;

// 128 KiB of FP32 inputs: resident in the L2 cache of one core, so that the conversion code,
// not the memory, is what is measured.
inline constexpr std::size_t kInCacheElements = std::size_t{32} << 10;

// The most elements one size may ask for ("2G").
inline constexpr std::size_t kMaxElements = std::size_t{1} << 31;

// Inputs of at least twice the last-level cache (so that no pass finds them there), a power of
// two of at least 16 Mi elements, shrunk while the three arrays of a run (input, output, codes)
// would take more than half of the memory. 0 for either: not known.
std::size_t beyondCacheElements(std::uint64_t lastLevelCacheBytes, std::uint64_t memoryBytes);

// The same for a set of devices run with one request: the largest cache, the smallest memory.
std::size_t beyondCacheElements(const std::vector<DeviceInfo>& devices);

// In cache, then beyond the last-level cache: what a request without sizes runs.
std::vector<std::size_t> defaultSizes(const DeviceInfo& device);

// Element counts separated by commas, semicolons or spaces, each a whole number with an
// optional binary unit: "32k", "256M", "2G", "4Ki", "100000". 1 to kMaxElements each.
struct SizeList {
    std::vector<std::size_t> sizes; // empty when error is set
    std::string error;              // "'4x' is not an element count such as 32k, 256M or 100000"
};
SizeList parseSizes(std::string_view text);

// "32 Ki", "64 Mi", "1 Gi", "1000": binary units where the count is a whole multiple.
std::string sizeLabel(std::size_t elements);

} // namespace fpx::bench
