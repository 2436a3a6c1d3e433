// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/data/value_distribution.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"
#include "fpx/machines/block_scaled_dot.h"
#include "fpx/machines/machine.h"
#include "fpx/machines/machine_element.h"
#include "fpx/machines/machine_error.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fpx::gui {

// What the Machines page computes, Qt-free: one instruction term by term, error against K for
// several machines, and one dot product on every machine (docs/behaviour.md, "Machines").
// The machines are a catalogue: one's own (a machine file's, docs/behaviour.md, "Machine
// files"), given where they count, then the built-in ones.

// The catalogue: `own` first, then the built-in machines.
std::vector<const MachineModel*> machineCatalogue(std::span<const MachineModel> own);

// "1, 0.0078125, 2^-7" as exact values; nullopt with `error` naming the item that failed.
// An empty text is an empty list.
std::optional<std::vector<ExactValue>> parseValueList(std::string_view text, std::string& error);

// An element the page takes (findMachineElement): a binary floating-point format, or a block
// format a block-scaled instruction takes (mxfp8_e4m3, mxfp4, nvfp4, …). nullopt with `error`.
std::optional<MachineElement> findPageElement(std::string_view id, std::string& error);

// Typed values as a block-scaled instruction's operand: each rounded to nearest even into FP32
// (as fpx dot reads them), then quantized along K by `format` (quantizeOperand). `fp32`, when
// given, receives the FP32 values. nullopt with `error` when the quantizer refuses them.
std::optional<BlockScaledOperand> quantizeTyped(const BlockFormat& format,
                                                const std::vector<ExactValue>& typed,
                                                std::string& error,
                                                std::vector<ExactValue>* fp32 = nullptr);
// What quantization made of an operand, block by block: "1, 2, 3, 4 × 2^0" (a block of more
// than `shown` values is cut short: "6, 0, 0, 0, … (16) × 448"), NVFP4's tensor scale after.
std::string describeQuantized(const BlockFormat& format, const BlockScaledOperand& operand,
                              std::size_t shown = 8);

// The format an instruction reads its operands in before it takes them: FP32 for an
// instruction that truncates FP32 operands (TF32), the element otherwise.
const FormatSpec& operandReadFormat(const MachineInstruction& instruction,
                                    const FormatSpec& element);
// A typed value as the instruction takes it: rounded to nearest even into the read format,
// then taken as machineOperand says (truncated into TF32).
ExactValue takeOperand(const MachineInstruction& instruction, const FormatSpec& element,
                       const ExactValue& typed);

// How one term of a drawn instruction fared in the window of F bits below E.
enum class TermFate {
    Zero,     // nothing to keep
    Whole,    // every bit kept
    Cut,      // its bits below 2^(E−F) dropped, some kept
    Vanished, // non-zero, nothing kept
    Special,  // ∞ or NaN
};

// One instruction as typed: c + Σ a_i·b_i on one machine's instruction for one element.
struct InstructionInput {
    std::string machine;           // a name in the catalogue or fused:F[:G]
    std::string element;           // a format id, or a block format's (mxfp4, nvfp4, …)
    std::string a, b;              // comma-separated values
    std::string c;                 // empty: 0
    std::vector<MachineModel> own; // one's own machines, found before the built-in ones
};

struct DrawnInstruction {
    MachineModel machine;
    MachineInstruction instruction;
    std::string elementId; // as the instructions name it: "fp8_e4m3", "mxfp4"
    FormatSpec element;    // the element format (a block format's element)
    // A block-scaled instruction's (Blackwell's kind::mxf8f6f4, mxf4, mxf4nvf4): the block
    // format the typed values (read as FP32) are quantized into along K, and the operands as
    // quantized; `a` and `b` are then their element values, the typed ones only, and the
    // step's terms are products times their scales (subBlock 0) or runs of subBlock products.
    std::optional<BlockFormat> block;
    BlockScaledOperand quantizedA, quantizedB;
    // For every element: what the instruction was asked, c + Σ a_i·b_i of the values as typed
    // (for a block element, their FP32 values), exactly; for a block element also of the
    // quantized operands (blockScaledExact: scales and tensor scales applied).
    ExactValue inputExact;
    ExactValue dequantizedExact;
    // What the machine returns: the step's output or, for NVFP4, that times FP32(tA·tB)
    // rounded into FP32 (the epilogue).
    ExactValue value;
    const FormatSpec* valueFormat = nullptr;
    std::vector<ExactValue> a, b; // as the instruction takes them, `products` of each
    ExactValue c;                 // as the accumulator holds it (the output format)
    std::size_t typed = 0;        // products typed; the rest are zeros
    // Typed values the element (or the accumulator) could not hold: "a2: 0.3 is 0.3125".
    std::vector<std::string> notes;
    FusedStep step;
    std::vector<TermFate> fates; // one per step.terms
    ExactValue exact; // c + Σ a_i·b_i as the instruction takes them (times their scales), exact
    ExactValue error; // step.output − exact (NaN when either is not finite)

    const FormatSpec& outputFormat() const;
    bool isBlock() const { return block.has_value(); }
    // The label of term t (0: c): "a1·b1", or for a block-scaled instruction "a1·b1·sa·sb"
    // (subBlock 0) or "run 1 (a1…a16)·sa·sb" (the products of a run of subBlock).
    std::string termLabel(std::size_t t) const;
    std::size_t termsLosingBits() const; // Cut or Vanished
    std::size_t termsVanished() const;
};

// Which field of the input a problem is in.
enum class InstructionField { Machine, Element, A, B, C };

// nullopt with `error` ("a: item 2 ('x'): …", "nvidia-volta has no instruction for bf16 …")
// and, when given, `field` set to the field at fault.
std::optional<DrawnInstruction> drawInstruction(const InstructionInput& input, std::string& error,
                                                InstructionField* field = nullptr);
// The line under the picture: "2 of 5 terms lost bits (1 vanished); the output is 2^-13 below
// the exact sum (relative 1.03e-4)." For a block element, lines before it on what quantization
// made of a and b, and after it both exact values and what the machine returns.
std::string describeInstruction(const DrawnInstruction& drawn);

// Error against K: for each machine, one curve (fpx::MachineErrorCurve) without promotion and,
// when promoteEvery is set, one promoted every N elements (N rounded up to a multiple of the
// instruction's products).
struct ErrorSweepRequest {
    std::vector<MachineModel> machines; // each has an instruction for `element`
    MachineElement element;             // a format, or a block format (drawBlockGemmOperands)
    ValueDistribution distribution;
    std::size_t m = 16, n = 16;
    std::uint64_t seed = 1;
    std::vector<std::size_t> ks; // ascending
    std::size_t promoteEvery = 0;
};

struct ErrorSweepResult {
    ErrorSweepRequest request;
    std::vector<MachineErrorCurve> curves;
    bool cancelled = false;
    std::string error;
};

// A machine's promotion interval for a requested N: the next multiple of its products.
std::size_t promotionFor(const MachineInstruction& instruction, std::size_t every);
// The K values of the plot: 16, 32, … up to kMax (powers of two).
std::vector<std::size_t> powersOfTwoUpTo(std::size_t kMax);

// `progress(done, total)` is called between points; false stops the sweep (what is measured
// is returned, marked cancelled). `reuse` finds a curve measured before with the same data, so
// that moving the promotion slider measures the promoted curves only.
ErrorSweepResult
runErrorSweep(const ErrorSweepRequest& request,
              const std::function<bool(std::size_t done, std::size_t total)>& progress,
              const std::function<const MachineErrorCurve*(const std::string& machine,
                                                           std::size_t promoteEvery)>& reuse = {});

// The curves as CSV: machine, promote, k, results, compared, max and mean relative error,
// results off by an FP32 ulp, non-finite results.
std::string errorSweepCsv(const ErrorSweepResult& result);

// One dot product on every machine of the catalogue that has an instruction for the element.
struct MachineComparisonRow {
    std::string machine;
    int fractionBits = 0;
    int products = 0;
    std::string output; // the output format's id
    ExactValue value;   // what the machine returns
    const FormatSpec* format = nullptr;
    Code bits = 0;
    std::size_t steps = 0;
    ExactValue exact;       // c + Σ a_i·b_i of the operands as this machine reads them
    ExactValue relative;    // (value − exact) / exact; NaN when exact is 0 or not finite
    ExactValue fp32Nearest; // exact rounded to nearest even into FP32
    std::optional<double> ulpsFromNearest; // (value − fp32Nearest) in FP32 ulps at fp32Nearest
    bool differsFromMajority = false;
};

struct MachineComparison {
    std::string element;
    std::size_t k = 0;
    // A block element: a and b (as FP32) quantized along K, the same for every machine; each
    // row's exact value is then of the FP32 values, and this of the quantized operands.
    bool blockScaled = false;
    ExactValue dequantizedExact;
    std::string quantizedA, quantizedB; // describeQuantized
    std::vector<MachineComparisonRow> rows;
    std::string error;
};

// a and b repeated to K elements (K 0: as typed, the longer of the two, the shorter padded with
// zeros); c rounded into each machine's accumulator.
MachineComparison compareMachines(const std::string& element, const std::vector<ExactValue>& a,
                                  const std::vector<ExactValue>& b, const ExactValue& c,
                                  std::size_t k, std::span<const MachineModel> own = {});
std::string comparisonCsv(const MachineComparison& comparison);

// The machines of the catalogue with an instruction for `element`, in its order.
std::vector<const MachineModel*> machinesTaking(std::string_view element,
                                                std::span<const MachineModel> own = {});
// The elements of every machine of the catalogue that values can be typed in, each once, the
// built-in machines' first, then those only `own` machines take, in order of first appearance.
std::vector<std::string> machineElements(std::span<const MachineModel> own = {});
// The same for the block formats of the catalogue's block-scaled instructions (mxfp8_e4m3,
// mxfp4, nvfp4, …): typed values are quantized into them.
std::vector<std::string> machineBlockElements(std::span<const MachineModel> own = {});

} // namespace fpx::gui
