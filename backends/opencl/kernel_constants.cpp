// SPDX-License-Identifier: GPL-3.0-or-later
#include "kernel_constants.h"

#include "fpx/exact/rounding.h"
#include "fpx/kernels/element_conversion.h"

#include <utility>

namespace fpx::opencl {

namespace {

template <typename Enum> long long valueOf(Enum value) {
    return static_cast<long long>(value);
}

} // namespace

std::string kernelConstantOptions() {
    const std::pair<const char*, long long> constants[] = {
        {"FPX_RNE", valueOf(RoundingMode::NearestEven)},
        {"FPX_RNA", valueOf(RoundingMode::NearestAway)},
        {"FPX_RTZ", valueOf(RoundingMode::TowardZero)},
        {"FPX_RUP", valueOf(RoundingMode::TowardPositive)},
        {"FPX_RDN", valueOf(RoundingMode::TowardNegative)},
        {"FPX_SR", valueOf(RoundingMode::Stochastic)},
        {"FPX_RTO", valueOf(RoundingMode::ToOdd)},
        {"FPX_OVERFLOW_IEEE", valueOf(OverflowPolicy::Ieee)},
        {"FPX_OVERFLOW_SATURATE", valueOf(OverflowPolicy::Saturate)},
        {"FPX_KIND_BINARY_FLOAT", valueOf(kernels::EncodeKind::BinaryFloat)},
        {"FPX_KIND_SIGNED_INTEGER", valueOf(kernels::EncodeKind::SignedInteger)},
        {"FPX_MAX_BREAKPOINTS", valueOf(kernels::LookupParams::kMaxBreakpoints)},
        {"FPX_FMA_CHAINS", valueOf(kFmaChains)},
    };
    std::string options;
    for (const auto& [name, value] : constants)
        options +=
            std::string(options.empty() ? "" : " ") + "-D" + name + "=" + std::to_string(value);
    return options;
}

} // namespace fpx::opencl
