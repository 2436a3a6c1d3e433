// SPDX-License-Identifier: GPL-3.0-or-later
// The element types of tensor files and their exact widening to FP32.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace fpx::tensor_file {

enum class ElementType { F64, F32, F16, BF16, E4M3, E5M2 };

std::size_t elementBytes(ElementType type);
// "fp16", "bf16", "fp8_e4m3", … : the fpx format whose codes the element type stores.
std::string_view formatIdOf(ElementType type);

// The raw-layout names ("f32", "f64", "f16", "bf16", "e4m3", "e5m2").
std::optional<ElementType> parseRawDtype(std::string_view text);

// Writes n elements of `type` (little-endian bytes at `src`, any alignment) as floats. Exact:
// every F16, BF16 and FP8 value is an FP32 value (docs/behaviour.md, "Tensor files"). Not for F64.
void widenToFloat(ElementType type, const std::uint8_t* src, std::size_t n, float* dst);

} // namespace fpx::tensor_file
