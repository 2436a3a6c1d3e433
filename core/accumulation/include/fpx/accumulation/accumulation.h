// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/data/value_distribution.h"
#include "fpx/exact/code.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fpx {

// Sums and dot products computed in a format, one rounded operation at a time, beside their
// exact values (docs/behaviour.md, "Accumulation and dot products").

// How the terms are added.
//   Sequential  s ← s + t_i, left to right, from s = +0.
//   Pairwise    the binary-counter cascade: term i becomes a partial sum of size 1; while the
//               two newest partial sums have the same size they are replaced by their rounded
//               sum (older + newer). The value at any n folds the remaining partial sums, from
//               the newest (smallest) to the oldest, into +0, one rounded addition each. For
//               n a power of two this is the balanced tree of pairwise summation.
//   Kahan       compensated summation with every operation rounded into the accumulator:
//               y ← t − c; u ← s + y; c ← (u − s) − y; s ← u. The sum is s.
//   Blocked     blocks of K terms summed sequentially in the accumulator format; each block's
//               sum is added, rounded, into an FP32 total (how FP8 GEMMs promote partial sums).
enum class SumMethod { Sequential, Pairwise, Kahan, Blocked };

struct SumMethodSpec {
    SumMethod method = SumMethod::Sequential;
    std::size_t blockSize = 0; // Blocked only: K ≥ 1
};

// "sequential", "pairwise", "kahan", "blocked:K" (K ≥ 1); nullopt otherwise.
std::optional<SumMethodSpec> parseSumMethod(std::string_view text);
// The text parseSumMethod reads back ("blocked:32").
std::string sumMethodId(const SumMethodSpec& spec);
// Whether a method has one running sum that each term updates, so that a term can be seen to
// stagnate it (AccumulationResult::stagnationTerm); pairwise summation has none.
inline bool tracksStagnation(SumMethod method) {
    return method != SumMethod::Pairwise;
}

// Where the terms come from.
//   ones             every term 1
//   const:V          every term V (any value parseValue reads)
//   DISTRIBUTION     drawn in double from the seed, in the one grammar of random values
//                    (fpx/data/value_distribution.h): uniform:A:B, normal:MU:SIGMA,
//                    lognormal:MU:SIGMA, laplace:B, student:NU
//   file:PATH        one value per line (blank lines and lines starting with # are skipped),
//                    or a .npy array of float32 / float64 (any shape, read in memory order)
struct TermDistribution {
    enum class Kind { Ones, Constant, Random, File };
    Kind kind = Kind::Ones;
    ExactValue constant = ExactValue::integer(1); // Constant
    ValueDistribution random;                     // Random
    std::string path;                             // File
    std::string text;                             // as written, for reports
};

// nullopt with `error` saying what is wrong and where (e.g. "uniform:A:B: B must exceed A").
std::optional<TermDistribution> parseTermDistribution(std::string_view text, std::string& error);

// N terms rounded into an element format (round to nearest even, IEEE overflow), in the most
// compact exact form: `float` when every value of the element format is a float, `double` when
// every value is a double, ExactValue otherwise (fp80, fp128, integer formats with a scale).
struct TermSequence {
    enum class Storage { Float, Double, Exact };
    FormatSpec element;
    Storage storage = Storage::Exact;
    std::vector<float> floats;
    std::vector<double> doubles;
    std::vector<ExactValue> exact;

    std::size_t size() const;
    ExactValue at(std::size_t i) const; // the exact value of term i
};

// The storage makeTerms chooses for `element`.
TermSequence::Storage termStorageFor(const FormatSpec& element);

// Makes `count` terms of `distribution` in `element`, deterministic from `seed` (term i uses
// stochasticBits(seed, i)). A file gives its values in order: `count` 0 takes them all, a
// larger count than the file holds is an error. nullopt with `error` naming the file, line and
// column (or the .npy header field) when the input is bad.
std::optional<TermSequence> makeTerms(const TermDistribution& distribution, std::size_t count,
                                      const FormatSpec& element, std::uint64_t seed,
                                      std::string& error);
// Terms given as values (a command-line list), each rounded into `element`.
TermSequence termsFromValues(const std::vector<ExactValue>& values, const FormatSpec& element);

// The exact sum of all terms, and of the first k·every terms for k = 1, 2, … when every > 0.
// NaN if a term is NaN or +∞ and −∞ both occur; ±∞ if only one sign of infinity does.
struct ExactSums {
    ExactValue total;
    std::vector<ExactValue> prefixes; // prefixes[k − 1] = t_0 + … + t_(k·every − 1)
};
ExactSums exactSums(const TermSequence& terms, std::size_t every = 0);

struct AccumulationOptions {
    FormatSpec element;     // the terms' format (the TermSequence passed must be in it)
    FormatSpec accumulator; // the format every addition rounds into
    SumMethodSpec method;
    RoundingOptions rounding;   // mode and overflow policy; randomBits is ignored
    std::uint64_t seed = 0;     // stochastic rounding: operation j uses stochasticBits(seed, j)
    std::size_t traceEvery = 0; // record the running sum after every K terms (0: none)
    // Every operation through the exact core even where a hardware type could do it: slow,
    // for checking the fast paths and for showing that they agree.
    bool exactCoreOnly = false;
    // False skips the exact sum (exactSum, error and relativeError are then NaN, and no trace
    // is taken): for timing the accumulation alone.
    bool exactReference = true;
};

struct TracePoint {
    std::size_t terms = 0; // how many terms were added
    ExactValue sum;        // the running sum then
    ExactValue exactSum;   // the exact sum of those terms
};

struct AccumulationResult {
    Code bits = 0;            // the final sum's code in resultFormat
    FormatSpec resultFormat;  // the accumulator; FP32 for Blocked (the promoted total)
    ExactValue sum;           // its exact value
    ExactValue exactSum;      // the exact sum of the terms
    ExactValue error;         // sum − exactSum (NaN when either is NaN)
    ExactValue relativeError; // error / |exactSum|; NaN when exactSum is 0 or not finite
    // Index (from 0) of the first non-zero term that left the accumulator unchanged: for
    // Sequential and Blocked the running (block) sum, for Kahan both s and c. nullopt when no
    // term did, and for Pairwise, which has no single accumulator that one term updates.
    std::optional<std::size_t> stagnationTerm;
    std::vector<TracePoint> trace;
    bool fastPath = false; // a hardware type did the work (exact core only where it must)
    // Which: "float", "float, addition table", "double", "fp64 native" or "exact core".
    std::string path;
    bool cancelled = false;
};

// Sums `terms` (made in options.element) into options.accumulator. `progress` is called with
// the number of terms done every so many terms (often enough for a progress bar); returning
// false stops the work and returns with `cancelled` set. Safe to run in a worker thread: no
// global state. Precondition: arithmeticUnsupported(accumulator) is nullopt.
AccumulationResult accumulate(const TermSequence& terms, const AccumulationOptions& options,
                              const std::function<bool(std::size_t done)>& progress = {});

// Why `accumulator` and `element` cannot be summed with `options` (an accumulator without
// arithmetic, a Blocked K of 0), or nullopt.
std::optional<std::string> accumulationUnsupported(const AccumulationOptions& options);

// The hardware path accumulate() takes for these formats and rounding, or nullopt when every
// operation goes through the exact core.
std::optional<std::string> accumulationFastPath(const FormatSpec& element,
                                                const FormatSpec& accumulator,
                                                const RoundingOptions& rounding);

// Dot products: a_i and b_i are element values; each product is rounded into `product` (or
// kept exact), and the products are added in `accumulator` (or exactly) sequentially, or with
// blockSize K > 0 in blocks of K whose sums are promoted into an FP32 total, as in Blocked.
struct DotOptions {
    FormatSpec element;
    std::optional<FormatSpec> product;     // nullopt: exact products (a fused multiply-add)
    std::optional<FormatSpec> accumulator; // nullopt: exact accumulation
    std::size_t blockSize = 0;
    // Stochastic rounding: operation j draws stochasticBits(rounding.randomBits, j).
    RoundingOptions rounding;
};

struct DotResult {
    ExactValue value;                       // the final value
    std::optional<Code> bits;               // its code, in resultFormat (none when exact)
    std::optional<FormatSpec> resultFormat; // accumulator, FP32 when blocked, none when exact
    ExactValue exact;                       // the exact dot product of the element values
    ExactValue error;                       // value − exact
    ExactValue relativeError;               // NaN when exact is 0
};

// Precondition: a.size() == b.size(), both made in options.element.
DotResult dotProduct(const TermSequence& a, const TermSequence& b, const DotOptions& options);

} // namespace fpx
