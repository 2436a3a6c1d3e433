// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/data/value_distribution.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"
#include "fpx/machines/machine.h"
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
    std::string element;           // a format id
    std::string a, b;              // comma-separated values
    std::string c;                 // empty: 0
    std::vector<MachineModel> own; // one's own machines, found before the built-in ones
};

struct DrawnInstruction {
    MachineModel machine;
    MachineInstruction instruction;
    FormatSpec element;
    std::vector<ExactValue> a, b; // as the instruction takes them, `products` of each
    ExactValue c;                 // as the accumulator holds it (the output format)
    std::size_t typed = 0;        // products typed; the rest are zeros
    // Typed values the element (or the accumulator) could not hold: "a2: 0.3 is 0.3125".
    std::vector<std::string> notes;
    FusedStep step;
    std::vector<TermFate> fates; // one per step.terms
    ExactValue exact;            // c + Σ a_i·b_i, exact
    ExactValue error;            // step.output − exact (NaN when either is not finite)

    const FormatSpec& outputFormat() const;
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
// the exact sum (relative 1.03e-4)."
std::string describeInstruction(const DrawnInstruction& drawn);

// Error against K: for each machine, one curve (fpx::MachineErrorCurve) without promotion and,
// when promoteEvery is set, one promoted every N elements (N rounded up to a multiple of the
// instruction's products).
struct ErrorSweepRequest {
    std::vector<MachineModel> machines; // each has an instruction for `element`
    FormatSpec element;
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

} // namespace fpx::gui
