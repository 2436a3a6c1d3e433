// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What `fpx accumulate` and `fpx dot` share: term counts and the bounds that keep their work
// finite and said.

#include "fpx/accumulation/accumulation.h"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace fpx::cli {

// The most terms either command makes: every term is stored (4 or 8 bytes on the hardware
// paths), once per element format.
constexpr std::size_t kMaxHardwareTerms = 500'000'000;
// Each addition on the exact core is big-number arithmetic, orders of magnitude slower than a
// hardware addition: beyond this many terms a run would take minutes, so it is refused with a
// message saying why.
constexpr std::size_t kMaxExactTerms = 10'000'000;
// The most points a trace (--trace) may hold.
constexpr std::size_t kMaxTracePoints = 100'000;

// "4096", "100000000", "1e8", "10^8", "2^20": a count of at least 1; nullopt when malformed.
std::optional<std::size_t> parseTermCount(std::string_view text);

} // namespace fpx::cli
