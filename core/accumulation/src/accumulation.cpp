// SPDX-License-Identifier: GPL-3.0-or-later
// Sums in a format: the four methods, written once over the ways of doing one rounded
// addition (accumulation_arithmetic.h), and the choice among those ways.
#include "fpx/accumulation/accumulation.h"

#include "fpx/accumulation/accumulation_arithmetic.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_limits.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace fpx {

using namespace accumulation_ops;

namespace {

// Terms between two calls of the progress callback: often enough for a progress bar and a
// prompt cancel on either path, rarely enough to cost nothing beside the additions.
constexpr std::size_t kProgressEveryFast = std::size_t(1) << 20;
constexpr std::size_t kProgressEveryExact = std::size_t(1) << 10;

enum class PathKind { Float, Double, NativeDouble, Exact };

// The float path's sequential sums of formats of at most 8 bits (AdditionTable).
constexpr const char* kAdditionTablePath = "float, addition table";

std::string_view pathName(PathKind kind) {
    switch (kind) {
    case PathKind::Float:
        return "float";
    case PathKind::Double:
        return "double";
    case PathKind::NativeDouble:
        return "fp64 native";
    case PathKind::Exact:
        return "exact core";
    }
    return "?";
}

// Whether a wide type of precision P rounds every sum a + t of an accumulator value a
// (precision p) and a term t (precision q) as the exact core does (docs/proofs.md,
// "Sums in a hardware type", proof 1). P ≥ 2·max(p, q) + 2 always. When q ≤ p, double
// rounding is innocuous. When q > p a term can be a midpoint of the accumulator (p + 1 bits),
// and a tiny a rounded away in the wide sum would turn "just above the midpoint" into a tie.
// So then every sum the accumulator can hold must be exact in the wide type. With E the
// exponent of the accumulator's largest value and 2^m its smallest subnormal, an accepted sum
// has |a|, |a + t| < 2^(E+1), so |t| < 2^(E+2):
//   - top(t) ≥ top(a): the exact sum's bits lie between 2^(E+1) and min(2^m, lsb(t)), at most
//     max(E + 2 − m, q + 1) bits: exact when E + 2 − m ≤ P.
//   - top(t) < top(a): the sum is inexact only when t's last bit lies below the wide grid of
//     a, which with P ≥ 2q + 2 and q > p puts |t| below a quarter of a's spacing at p bits:
//     a + t and its wide rounding both round back to a.
bool sumsRoundOnceIn(int wide, const FormatSpec& element, const FormatSpec& accumulator) {
    const int q = std::max(element.precision(), accumulator.precision());
    if (2 * q + 2 > wide)
        return false;
    if (element.precision() <= accumulator.precision())
        return true;
    const int smallest = accumulator.minExponent() - accumulator.fractionBits;
    return deriveLimits(accumulator).maxExponent + 2 - smallest <= wide;
}

// A hardware type may carry the additions when the mode is round to nearest even, the element
// and accumulator values all fit it, and sumsRoundOnceIn it. A signed binary float accumulator
// only: an unsigned one needs the core to refuse negative sums.
PathKind choosePath(const FormatSpec& element, const FormatSpec& accumulator,
                    const RoundingOptions& rounding) {
    if (rounding.mode != RoundingMode::NearestEven || accumulator.kind != FormatKind::BinaryFloat ||
        !accumulator.isSigned || element.kind != FormatKind::BinaryFloat)
        return PathKind::Exact;
    if (valuesFitFloat(element) && valuesFitFloat(accumulator) &&
        sumsRoundOnceIn(24, element, accumulator))
        return PathKind::Float;
    if (valuesFitDouble(element) && valuesFitDouble(accumulator) &&
        sumsRoundOnceIn(53, element, accumulator))
        return PathKind::Double;
    if (isBinary64(accumulator) && valuesFitDouble(element))
        return PathKind::NativeDouble;
    return PathKind::Exact;
}

// What one run shares between its method and the driver loop.
struct RunContext {
    const TermSequence& terms;
    const AccumulationOptions& options;
    const std::function<bool(std::size_t)>& progress;
    std::size_t progressEvery;
    const ExactSums& exact;
    AccumulationResult& result;
};

// Calls step(begin, end) over the terms in ranges that end at every trace point and progress
// point; snapshot() gives the running sum (exact) at a trace point. False when cancelled.
template <class Step, class Snapshot>
bool drive(RunContext& run, Step&& step, Snapshot&& snapshot) {
    const std::size_t n = run.terms.size();
    const std::size_t every = run.options.traceEvery;
    constexpr std::size_t kNever = std::numeric_limits<std::size_t>::max();
    std::size_t nextTrace = every > 0 ? every : kNever;
    std::size_t nextProgress = run.progressEvery;
    std::size_t done = 0;
    while (done < n) {
        const std::size_t end = std::min({n, nextTrace, nextProgress});
        step(done, end);
        done = end;
        if (done == nextTrace) {
            run.result.trace.push_back(
                TracePoint{done, snapshot(), run.exact.prefixes[done / every - 1]});
            nextTrace += every;
        }
        if (done == nextProgress) {
            if (run.progress && !run.progress(done))
                return false;
            nextProgress += run.progressEvery;
        }
    }
    return true;
}

template <class V> V zeroValue() {
    return convertValue<V>(ExactValue::zero());
}

// The step functions below copy the running state into locals for the length of a range and
// write it back after: state that lambdas share by reference lives in memory, and a store and
// reload on every addition would lengthen the dependency chain a sequential sum is made of.

// Adds terms begin, begin + 1, … into `sum` while the arithmetic needs no exact core; returns
// the index of the first term it refused (or end). With Watch, it also stops after the first
// non-zero term that left the sum unchanged, and records its index in `lost` (a refused term
// is not added, a lost one is). A function of its own with no call inside: a call clobbers
// every vector register, and the register allocator would then keep the sum in memory for the
// whole loop, a store and a reload on the chain of every addition.
template <class Arith>
concept HasBinades = requires(const Arith& a, typename Arith::Value v) {
    a.binadeOf(v);
};

template <bool Watch, class Arith, class Reader>
[[gnu::noinline]] std::size_t
addWhileFast(const Arith& arith, const Reader& term, std::size_t begin, std::size_t end,
             typename Arith::Value& sum, std::optional<std::size_t>& lost) {
    using V = typename Arith::Value;
    V s = sum;
    std::size_t i = begin;
    // A term that finds the sum unchanged (the sum is finite here, so the term is too).
    auto isLost = [](V before, V after, V t) { return Watch && after == before && t != 0; };
    while (i < end) {
        // While the sum stays in one binade, one wide addition a term keeps it, biased by C
        // (WideRounder::Binade); a term that takes it elsewhere is rounded by the bit trick,
        // and the next binade is taken.
        if constexpr (HasBinades<Arith>) {
            if (const auto binade = arith.binadeOf(s)) {
                V biased = s + binade->magic; // exact
                for (V next, r; i < end; ++i) {
                    const V t = term(i);
                    if (!Arith::Rounder::addBiased(biased, s, t, *binade, next, r))
                        break;
                    if (isLost(s, r, t)) [[unlikely]] {
                        lost = i;
                        sum = r;
                        return i + 1;
                    }
                    biased = next;
                    s = r;
                }
            }
        }
        V r;
        if (i == end || !arith.tryAdd(s, term(i), r))
            break;
        if (isLost(s, r, term(i))) [[unlikely]] {
            lost = i;
            sum = r;
            return i + 1;
        }
        s = r;
        ++i;
    }
    sum = s;
    return i;
}

template <class Arith, class Reader>
ExactValue sequential(Arith arith, Reader term, RunContext& run) {
    using V = typename Arith::Value;
    V s = zeroValue<V>();
    std::optional<std::size_t>& stagnation = run.result.stagnationTerm;
    const bool finished = drive(
        run,
        [&](std::size_t begin, std::size_t end) {
            Arith a = arith;
            V sum = std::move(s);
            std::size_t i = begin;
            // The hardware path runs until it refuses a term, which the exact core then adds;
            // until a term is lost, each addition is also checked for it.
            while (i < end) {
                if constexpr (!std::is_same_v<V, ExactValue>) {
                    i = stagnation ? addWhileFast<false>(a, term, i, end, sum, stagnation)
                                   : addWhileFast<true>(a, term, i, end, sum, stagnation);
                    if (i == end)
                        break;
                }
                const V t = term(i);
                V r = a.add(sum, t);
                if (!stagnation && sameValue(r, sum) && isFiniteNonZero(t)) [[unlikely]]
                    stagnation = i;
                sum = std::move(r);
                ++i;
            }
            s = std::move(sum);
            arith = std::move(a);
        },
        [&] { return convertValue<ExactValue>(s); });
    run.result.cancelled = !finished;
    return convertValue<ExactValue>(s);
}

// Adds terms begin, begin + 1, … by the addition table while every term is a value of the
// element format, as addWhileFast does by the float path; `sum` is the accumulator's code.
template <bool Watch>
[[gnu::noinline]] std::size_t
addWhileInTable(const AdditionTable& table, const float* terms, std::size_t begin, std::size_t end,
                std::uint16_t& sum, std::optional<std::size_t>& lost) {
    std::uint16_t s = sum;
    std::size_t i = begin;
    for (; i < end; ++i) {
        const std::uint16_t t = table.termCode(terms[i]);
        if (t == AdditionTable::kNoCode) [[unlikely]]
            break;
        // The only link of the chain: the load that depends on the previous sum.
        const std::uint16_t r = table.row(t)[s];
        if constexpr (Watch) {
            if (r == s && table.termIsFiniteNonZero(t) && !table.sumIsNaN(s)) [[unlikely]] {
                lost = i;
                sum = r;
                return i + 1;
            }
        }
        s = r;
    }
    sum = s;
    return i;
}

// The sequential sum by the addition table; a term the table refuses goes through `arith`.
ExactValue sequentialByTable(const AdditionTable& table, WideArithmetic<float> arith,
                             const float* terms, RunContext& run) {
    std::uint16_t s = table.sumCode(0.0F);
    std::optional<std::size_t>& stagnation = run.result.stagnationTerm;
    const bool finished = drive(
        run,
        [&](std::size_t begin, std::size_t end) {
            std::size_t i = begin;
            while (i < end) {
                i = stagnation ? addWhileInTable<false>(table, terms, i, end, s, stagnation)
                               : addWhileInTable<true>(table, terms, i, end, s, stagnation);
                if (i == end)
                    break;
                const float sum = table.sumValue(s);
                const float t = terms[i];
                const float r = arith.add(sum, t);
                if (!stagnation && sameValue(r, sum) && isFiniteNonZero(t)) [[unlikely]]
                    stagnation = i;
                s = table.sumCode(r);
                if (s == AdditionTable::kNoCode) // a sum of the format always has a code
                    throw std::logic_error("accumulate: a sum without a code in the table");
                ++i;
            }
        },
        [&] { return convertValue<ExactValue>(table.sumValue(s)); });
    run.result.cancelled = !finished;
    return convertValue<ExactValue>(table.sumValue(s));
}

template <class Arith, class Reader>
ExactValue pairwise(Arith arith, Reader term, RunContext& run) {
    using V = typename Arith::Value;
    struct Partial {
        V value;
        std::size_t size;
    };
    std::vector<Partial> partials; // oldest first; sizes strictly decrease
    auto fold = [&](Arith& a) {
        V total = zeroValue<V>();
        for (auto it = partials.rbegin(); it != partials.rend(); ++it)
            total = a.add(total, it->value);
        return total;
    };
    const bool finished = drive(
        run,
        [&](std::size_t begin, std::size_t end) {
            for (std::size_t i = begin; i < end; ++i) {
                partials.push_back(Partial{term(i), 1});
                while (partials.size() >= 2 &&
                       partials[partials.size() - 2].size == partials.back().size) {
                    Partial newer = std::move(partials.back());
                    partials.pop_back();
                    partials.back().value = arith.add(partials.back().value, newer.value);
                    partials.back().size *= 2;
                }
            }
        },
        [&] {
            Arith copy = arith; // a trace point must not change the run's own operations
            return convertValue<ExactValue>(fold(copy));
        });
    run.result.cancelled = !finished;
    return convertValue<ExactValue>(fold(arith));
}

template <class Arith, class Reader> ExactValue kahan(Arith arith, Reader term, RunContext& run) {
    using V = typename Arith::Value;
    V s = zeroValue<V>();
    V c = zeroValue<V>();
    std::optional<std::size_t>& stagnation = run.result.stagnationTerm;
    const bool finished = drive(
        run,
        [&](std::size_t begin, std::size_t end) {
            Arith a = arith;
            V sum = std::move(s);
            V compensation = std::move(c);
            std::optional<std::size_t> lost = stagnation;
            for (std::size_t i = begin; i < end; ++i) {
                const V t = term(i);
                const V y = a.sub(t, compensation);
                V u = a.add(sum, y);
                V next = a.sub(a.sub(u, sum), y);
                if (!lost && sameValue(u, sum) && sameValue(next, compensation) &&
                    isFiniteNonZero(t)) [[unlikely]]
                    lost = i;
                sum = std::move(u);
                compensation = std::move(next);
            }
            s = std::move(sum);
            c = std::move(compensation);
            stagnation = lost;
            arith = std::move(a);
        },
        [&] { return convertValue<ExactValue>(s); });
    run.result.cancelled = !finished;
    return convertValue<ExactValue>(s);
}

template <class Arith, class TotalArith, class Reader>
ExactValue blocked(Arith arith, TotalArith totalArith, Reader term, RunContext& run) {
    using V = typename Arith::Value;
    using T = typename TotalArith::Value;
    const std::size_t k = run.options.method.blockSize;
    V block = zeroValue<V>();
    std::size_t inBlock = 0;
    T total = zeroValue<T>();
    std::optional<std::size_t>& stagnation = run.result.stagnationTerm;
    const bool finished = drive(
        run,
        [&](std::size_t begin, std::size_t end) {
            Arith a = arith;
            V sum = std::move(block);
            std::size_t count = inBlock;
            std::optional<std::size_t> lost = stagnation;
            for (std::size_t i = begin; i < end; ++i) {
                const V t = term(i);
                V r = a.add(sum, t);
                if (!lost && sameValue(r, sum) && isFiniteNonZero(t)) [[unlikely]]
                    lost = i;
                sum = std::move(r);
                if (++count == k) {
                    total = totalArith.add(total, convertValue<T>(sum));
                    sum = zeroValue<V>();
                    count = 0;
                }
            }
            block = std::move(sum);
            inBlock = count;
            stagnation = lost;
            arith = std::move(a);
        },
        [&] {
            if (inBlock == 0)
                return convertValue<ExactValue>(total);
            TotalArith copy = totalArith;
            return convertValue<ExactValue>(copy.add(total, convertValue<T>(block)));
        });
    if (inBlock > 0)
        total = totalArith.add(total, convertValue<T>(block));
    run.result.cancelled = !finished;
    return convertValue<ExactValue>(total);
}

// Reads term i of the stored type as the arithmetic's value type.
template <class V, class Stored> struct StoredReader {
    const Stored* data;
    V operator()(std::size_t i) const { return convertValue<V>(data[i]); }
};
template <class V> struct ExactReader {
    const std::vector<ExactValue>* data;
    V operator()(std::size_t i) const { return convertValue<V>((*data)[i]); }
};

template <class Arith, class TotalArith, class Reader>
ExactValue runMethod(Arith arith, TotalArith total, Reader reader, RunContext& run) {
    switch (run.options.method.method) {
    case SumMethod::Sequential:
        return sequential(std::move(arith), reader, run);
    case SumMethod::Pairwise:
        return pairwise(std::move(arith), reader, run);
    case SumMethod::Kahan:
        return kahan(std::move(arith), reader, run);
    case SumMethod::Blocked:
        return blocked(std::move(arith), std::move(total), reader, run);
    }
    return ExactValue::nan();
}

template <class Arith, class TotalArith>
ExactValue runWith(Arith arith, TotalArith total, RunContext& run) {
    using V = typename Arith::Value;
    const TermSequence& terms = run.terms;
    switch (terms.storage) {
    case TermSequence::Storage::Float:
        return runMethod(std::move(arith), std::move(total),
                         StoredReader<V, float>{terms.floats.data()}, run);
    case TermSequence::Storage::Double:
        if constexpr (std::is_same_v<V, float>)
            throw std::logic_error("accumulate: double terms on the float path");
        else
            return runMethod(std::move(arith), std::move(total),
                             StoredReader<V, double>{terms.doubles.data()}, run);
    case TermSequence::Storage::Exact:
        if constexpr (!std::is_same_v<V, ExactValue>)
            throw std::logic_error("accumulate: exact terms on a hardware path");
        else
            return runMethod(std::move(arith), std::move(total), ExactReader<V>{&terms.exact}, run);
    }
    return ExactValue::nan();
}

ExactValue relativeErrorOf(const ExactValue& error, const ExactValue& exact) {
    if (!exact.isFinite() || exact.isZero() || error.isNaN())
        return ExactValue::nan();
    return error / exact.abs();
}

} // namespace

std::optional<std::string> accumulationUnsupported(const AccumulationOptions& options) {
    if (auto why = arithmeticUnsupported(options.accumulator))
        return why;
    if (options.method.method == SumMethod::Blocked && options.method.blockSize == 0)
        return "blocked:K needs a block size K of at least 1";
    return std::nullopt;
}

std::optional<std::string> accumulationFastPath(const FormatSpec& element,
                                                const FormatSpec& accumulator,
                                                const RoundingOptions& rounding) {
    const PathKind kind = choosePath(element, accumulator, rounding);
    if (kind == PathKind::Exact)
        return std::nullopt;
    return std::string(pathName(kind));
}

AccumulationResult accumulate(const TermSequence& terms, const AccumulationOptions& options,
                              const std::function<bool(std::size_t)>& progress) {
    if (auto why = accumulationUnsupported(options))
        throw std::invalid_argument("accumulate: " + *why);
    AccumulationResult result;
    AccumulationOptions effective = options;
    if (!options.exactReference)
        effective.traceEvery = 0;
    const ExactSums exact = options.exactReference ? exactSums(terms, options.traceEvery)
                                                   : ExactSums{ExactValue::nan(), {}};
    const FormatSpec& accumulator = options.accumulator;
    const bool isBlocked = options.method.method == SumMethod::Blocked;
    result.resultFormat = isBlocked ? fp32Spec() : accumulator;

    const PathKind kind = options.exactCoreOnly
                              ? PathKind::Exact
                              : choosePath(terms.element, accumulator, options.rounding);
    RunContext run{terms,    options,
                   progress, kind == PathKind::Exact ? kProgressEveryExact : kProgressEveryFast,
                   exact,    result};
    const ExactArithmetic exactArith{accumulator, options.rounding, options.seed};
    // Blocked: the FP32 total's operations draw their own stream of random bits.
    const ExactArithmetic exactTotal{fp32Spec(), options.rounding,
                                     stochasticBits(options.seed, ~std::uint64_t(0))};
    switch (kind) {
    case PathKind::Float: {
        const auto arith = WideArithmetic<float>::make(accumulator, options.rounding);
        if (options.method.method == SumMethod::Sequential &&
            terms.storage == TermSequence::Storage::Float)
            if (const auto table = AdditionTable::make(terms.element, accumulator, arith)) {
                result.sum = sequentialByTable(*table, arith, terms.floats.data(), run);
                result.path = kAdditionTablePath;
                break;
            }
        result.sum =
            runWith(arith, WideArithmetic<double>::make(fp32Spec(), options.rounding), run);
        break;
    }
    case PathKind::Double:
        result.sum = runWith(WideArithmetic<double>::make(accumulator, options.rounding),
                             WideArithmetic<double>::make(fp32Spec(), options.rounding), run);
        break;
    case PathKind::NativeDouble:
        result.sum = runWith(NativeDoubleArithmetic{exactArith}, exactTotal, run);
        break;
    case PathKind::Exact:
        result.sum = runWith(exactArith, exactTotal, run);
        break;
    }
    result.fastPath = kind != PathKind::Exact;
    if (result.path.empty())
        result.path = std::string(pathName(kind));
    result.bits = roundToFormat(result.sum, result.resultFormat).code;
    result.exactSum = exact.total;
    result.error = result.sum - result.exactSum;
    result.relativeError = relativeErrorOf(result.error, result.exactSum);
    return result;
}

} // namespace fpx
