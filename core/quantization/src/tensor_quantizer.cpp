// SPDX-License-Identifier: GPL-3.0-or-later
// quantizeTensor: FP32 tensors through the block quantizers of fpx_kernels (MX, NVFP4, NF4 and
// nf4_dq, integer absmax) and direct casts through BulkEncoder, on several threads; the blocks
// that hold a NaN or ±∞ (and whole tensors under one integer scale), FP64 tensors and
// everything else through the exact core (quantizeExactly),
// whose answers the fast paths reproduce bit for bit (docs/proofs.md, "Block quantizers", "Block
// quantizers").
#include "fpx/quantization/tensor_quantizer.h"

#include "block_quant_loops.h"
#include "block_quant_nf4_dq.h"
#include "direct_cast.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_limits.h"
#include "fpx/kernels/bulk_conversion.h"
#include "fpx/kernels/x86_hardware.h"
#include "scale_grid.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace fpx {

namespace {

using kernels::BlockQuantLoops;
using kernels::BlockQuantParams;
using kernels::BlockTally;

const BlockQuantLoops& fastestLoops() {
    if (kernels::hasAvx512())
        if (const BlockQuantLoops* loops = kernels::avx512BlockQuantLoops())
            return *loops;
    if (kernels::hasAvx2())
        if (const BlockQuantLoops* loops = kernels::avx2BlockQuantLoops())
            return *loops;
    return kernels::baselineBlockQuantLoops();
}

// A value known to be a double (element and scale format values), through the exact core.
std::optional<double> exactDouble(const ExactValue& value) {
    const Conversion c = roundToFormat(value, fp64Spec());
    if (c.flags.inexact || c.flags.overflow)
        return std::nullopt;
    return std::bit_cast<double>(static_cast<std::uint64_t>(c.code));
}

std::optional<std::uint32_t> fp32BitsOf(double value) {
    const float f = static_cast<float>(value);
    if (static_cast<double>(f) != value)
        return std::nullopt;
    return std::bit_cast<std::uint32_t>(f);
}

constexpr RoundingOptions kNearestSaturating{RoundingMode::NearestEven, OverflowPolicy::Saturate};

// The thresholds between adjacent values of an element format, in code order (values must
// ascend with the code), a tie on threshold i rounding to the even code of i and i + 1.
bool fillThresholds(const std::vector<double>& values, kernels::ThresholdSet& set) {
    if (values.size() < 2 || values.size() - 1 > kernels::ThresholdSet::kMax)
        return false;
    set.count = static_cast<int>(values.size() - 1);
    for (std::size_t i = 0; i + 1 < values.size(); ++i) {
        if (!(values[i] < values[i + 1]))
            return false;
        // The midpoint of two FP32 values of the same sign, or of a value and 0, is exact in
        // a double; checked rather than assumed.
        const double mid = (values[i] + values[i + 1]) / 2;
        if (mid - values[i] != values[i + 1] - mid)
            return false;
        set.thresholds[i] = mid;
        set.tieUp[i] = i % 2 != 0;
        set.tieMask[i] = set.tieUp[i] ? ~0u : 0u;
    }
    return true;
}

// Significant bits of a double.
int significantBits(double x) {
    const std::uint64_t bits = std::bit_cast<std::uint64_t>(x);
    const std::uint64_t significand =
        (bits & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1} << 52);
    return x == 0 ? 0 : 53 - std::countr_zero(significand);
}

// Signed integer elements of at most 8 bits whose scale is 2^−F: F, or nullopt.
std::optional<int> integerFractionBits(const FormatSpec& spec) {
    if (spec.kind != FormatKind::Integer || !spec.isSigned || spec.integerBits < 2 ||
        spec.integerBits > 8 || !spec.scale.isDyadic() || spec.scale.numerator() != 1 ||
        spec.scale.isNegative() || spec.scale.exponent2() > 0 || spec.scale.exponent2() < -30)
        return std::nullopt;
    return static_cast<int>(-spec.scale.exponent2());
}

void setIntegerElements(const FormatSpec& spec, BlockQuantParams& p) {
    p.qmax = (1 << (spec.integerBits - 1)) - 1;
    p.codeMask = (1u << spec.integerBits) - 1u;
}

struct Plan {
    BlockScheme scheme;
    BlockQuantParams params;
    std::string what;
    std::shared_ptr<const DirectCast> cast; // Direct only
};

std::optional<Plan> mxPlan(const BlockFormat& f) {
    Plan plan{f.scheme, {}, "MX blocks", nullptr};
    BlockQuantParams& p = plan.params;
    const FormatLimits limits = deriveLimits(f.element);
    const std::optional<double> elementMax = exactDouble(limits.max);
    if (!elementMax || !f.scale || f.scale->id != "fp8_e8m0")
        return std::nullopt;
    p.elementEmax = f.elementEmax;
    p.elementMax = *elementMax;
    p.scaleRule = static_cast<int>(f.scaleRule);
    if (const std::optional<int> fraction = integerFractionBits(f.element)) {
        p.integerElements = true;
        p.integerFractionBits = *fraction;
        setIntegerElements(f.element, p);
        p.evenPrecision = f.element.integerBits - 1;
        return plan;
    }
    const std::optional<kernels::EncodeParams> encode = encodeParams(f.element, kNearestSaturating);
    if (f.element.kind != FormatKind::BinaryFloat || !encode || f.element.totalBits() > 8)
        return std::nullopt;
    p.element = *encode;
    p.elementSymmetric = kernels::symmetricSpecials(*encode, RoundingMode::NearestEven);
    p.evenPrecision = f.element.precision();
    return plan;
}

// The positive values of a binary float element by magnitude code (0, 1, … up to max).
std::optional<std::vector<double>> magnitudeValues(const FormatSpec& element) {
    const FormatLimits limits = deriveLimits(element);
    std::vector<double> values;
    for (Code code = 0; code <= limits.maxCode; ++code) {
        const std::optional<double> v = exactDouble(decodeCode(element, code).value);
        if (!v)
            return std::nullopt;
        values.push_back(*v);
    }
    return values;
}

std::optional<Plan> nvfp4Plan(const BlockFormat& f) {
    Plan plan{f.scheme, {}, "NVFP4 blocks", nullptr};
    BlockQuantParams& p = plan.params;
    const FormatSpec& element = f.element;
    if (element.kind != FormatKind::BinaryFloat || element.totalBits() > 8 || !f.scale ||
        f.scale->kind != FormatKind::BinaryFloat || element.specials != SpecialEncoding::None)
        return std::nullopt;
    const std::optional<std::vector<double>> values = magnitudeValues(element);
    // E2M1: 8 magnitudes, 7 thresholds (the loops count them at compile time).
    if (!values || !fillThresholds(*values, p.levels) || p.levels.count != 7)
        return std::nullopt;
    const FormatLimits limits = deriveLimits(element);
    p.elementMax = values->back();
    // Beyond max after rounding (the exact core's overflow flag): from max + ulp/2 on, the
    // tie going past max where max's code is odd (its significand ends in 1).
    const double ulp = p.elementMax - (*values)[values->size() - 2];
    p.clipThreshold = p.elementMax + ulp / 2;
    p.clipAtOrAbove = (limits.maxCode & 1u) != 0;
    if (ulp != std::ldexp(1.0, limits.maxExponent - element.fractionBits))
        return std::nullopt;
    p.signCode = static_cast<std::uint32_t>(element.signBit());
    const std::optional<kernels::EncodeParams> scaleEncode =
        encodeParams(*f.scale, kNearestSaturating);
    const std::optional<double> scaleMax = exactDouble(deriveLimits(*f.scale).max);
    if (!scaleEncode || !scaleMax || f.scale->totalBits() > 8)
        return std::nullopt;
    p.scaleEncoder = *scaleEncode;
    p.scalePrecision = f.scale->precision();
    p.scaleMinExponent = f.scale->minExponent();
    p.scaleMax = *scaleMax;
    p.scaleCodesOnGrid = gridCodesAgree(p);
    return plan;
}

std::optional<Plan> nf4Plan(const BlockFormat& f) {
    Plan plan{f.scheme, {}, "NF4 thresholds", nullptr};
    BlockQuantParams& p = plan.params;
    if (f.doubleQuantized && (!f.scale || f.scale->kind != FormatKind::Integer ||
                              !f.scale->isSigned || f.scale->integerBits > 8))
        return std::nullopt;
    if (f.element.kind != FormatKind::Lookup || f.element.table.size() > 16 ||
        !(f.element.scale == ExactValue::integer(1)))
        return std::nullopt;
    std::vector<double> levels;
    for (const ExactValue& level : f.element.table) {
        const std::optional<double> v = exactDouble(level);
        if (!v || !fp32BitsOf(*v))
            return std::nullopt;
        levels.push_back(*v);
    }
    // 16 levels, 15 thresholds (the loops count them at compile time).
    if (!fillThresholds(levels, p.levels) || p.levels.count != 15)
        return std::nullopt;
    // Threshold times an FP32 absmax (24 significant bits) must be exact in a double.
    for (int i = 0; i < p.levels.count; ++i)
        if (significantBits(p.levels.thresholds[i]) > 29)
            return std::nullopt;
    const auto zero = std::find(levels.begin(), levels.end(), 0.0);
    if (zero == levels.end())
        return std::nullopt;
    p.zeroLevelCode = static_cast<std::uint32_t>(zero - levels.begin());
    return plan;
}

std::optional<Plan> integerPlan(const BlockFormat& f) {
    Plan plan{f.scheme, {}, "integer absmax", nullptr};
    const std::optional<int> fraction = integerFractionBits(f.element);
    if (!fraction || *fraction != 0)
        return std::nullopt;
    setIntegerElements(f.element, plan.params);
    return plan;
}

std::optional<Plan> planFor(const BlockFormat& format, const TensorView& input) {
    if (input.isDouble() || input.size() == 0)
        return std::nullopt;
    if (format.blocks.kind == BlockLayout::Kind::Row && input.shape.empty())
        return std::nullopt; // the exact core says why
    switch (format.scheme) {
    case BlockScheme::Mx:
        return mxPlan(format);
    case BlockScheme::Nvfp4:
        return nvfp4Plan(format);
    case BlockScheme::Nf4:
        return nf4Plan(format);
    case BlockScheme::IntAbsmax:
        return integerPlan(format);
    case BlockScheme::Direct:
        if (std::optional<DirectCast> cast = DirectCast::create(format.element)) {
            Plan plan{format.scheme, {}, "cast by " + cast->encoderName(), nullptr};
            plan.cast = std::make_shared<const DirectCast>(std::move(*cast));
            return plan;
        }
        break;
    }
    return std::nullopt;
}

// What a run of chunks did: the kernels' counts plus the NaN and ±∞ inputs of the blocks the
// exact core took over. nonFinite: a NaN or ±∞ the fast path cannot take (the whole tensor then
// goes to the exact core).
struct Tally {
    std::size_t clipped = 0;
    std::size_t flushed = 0;
    std::size_t nanInputs = 0;
    std::size_t infInputs = 0;
    bool nonFinite = false;

    void add(const BlockTally& t) {
        clipped += t.clipped;
        flushed += t.flushed;
        nonFinite = nonFinite || t.nonFinite;
    }
    void add(const Tally& t) {
        add(BlockTally{t.clipped, t.flushed, t.nonFinite});
        nanInputs += t.nanInputs;
        infInputs += t.infInputs;
    }
};

// Chunks of work shared by a few threads: each takes the next chunk until none is left, a
// NaN or ±∞ that the fast path cannot take is found (the exact core takes over) or the
// progress callback cancels. The callback runs on the calling thread only.
class ChunkRunner {
  public:
    // `progress` is kept as a copy: a runner made with a temporary ({}, no progress) must not
    // hold a reference to it.
    ChunkRunner(int threads, std::size_t total, QuantizeProgress progress)
        : threads_(threads), total_(total), progress_(std::move(progress)) {}

    // work(chunk, tally) → elements done. Returns the summed tally.
    Tally run(std::size_t chunks, const std::function<std::size_t(std::size_t, Tally&)>& work) {
        next_.store(0);
        const int threads =
            static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(threads_), chunks));
        std::vector<Tally> tallies(static_cast<std::size_t>(std::max(threads, 1)));
        const auto worker = [&](int index) {
            Tally& tally = tallies[static_cast<std::size_t>(index)];
            for (;;) {
                // The calling thread asks before it takes a chunk, not only after one: the
                // other threads may take every chunk first, and a cancel must still be seen.
                if (index == 0 && progress_ &&
                    !progress_(std::min(done_.load(std::memory_order_relaxed) / passes_, total_),
                               total_)) {
                    cancelled_ = true;
                    stop_.store(true);
                }
                if (stop_.load(std::memory_order_relaxed))
                    return;
                const std::size_t chunk = next_.fetch_add(1, std::memory_order_relaxed);
                if (chunk >= chunks)
                    return;
                done_.fetch_add(work(chunk, tally), std::memory_order_relaxed);
                if (tally.nonFinite)
                    stop_.store(true);
            }
        };
        std::vector<std::thread> helpers;
        for (int t = 1; t < threads; ++t)
            helpers.emplace_back(worker, t);
        worker(0);
        for (std::thread& helper : helpers)
            helper.join();
        Tally sum;
        for (const Tally& t : tallies)
            sum.add(t);
        return sum;
    }

    bool cancelled() const { return cancelled_; }
    // A quantizer that reads the tensor twice reports half an element per element read, so
    // that progress runs once from 0 to the element count.
    void expectPasses(int passes) { passes_ = static_cast<std::size_t>(passes); }

  private:
    int threads_;
    std::size_t total_;
    std::size_t passes_ = 1;
    const QuantizeProgress progress_;
    std::atomic<std::size_t> next_{0};
    std::atomic<std::size_t> done_{0};
    std::atomic<bool> stop_{false};
    bool cancelled_ = false;
};

int threadsFor(const QuantizeRun& run) {
    if (run.threads > 0)
        return run.threads;
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// Elements per chunk: enough to hide the thread hand-off, a whole number of blocks.
std::size_t chunkElements(std::size_t blockSize) {
    constexpr std::size_t kTarget = std::size_t{1} << 16;
    return std::max<std::size_t>(1, kTarget / blockSize) * blockSize;
}

// Sizes an output array, asking Linux for transparent huge pages where it is newly allocated:
// a tensor's codes take a page fault per 4 KiB page on first touch otherwise, and in a
// virtual machine a fault can cost more than quantizing the page. The advice covers the
// 2 MiB-aligned interior of the new buffer, before the first write; it changes no value.
template <typename T> void sizeForWriting(std::vector<T>& v, std::size_t n) {
    if (v.capacity() < n) {
        v = std::vector<T>();
        v.reserve(n);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
        constexpr std::uintptr_t kHuge = std::uintptr_t{1} << 21;
        const auto begin = reinterpret_cast<std::uintptr_t>(v.data());
        const std::uintptr_t end = begin + n * sizeof(T);
        const std::uintptr_t first = (begin + kHuge - 1) & ~(kHuge - 1);
        const std::uintptr_t last = end & ~(kHuge - 1);
        if (last > first)
            ::madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#endif
    }
    v.resize(n);
}

// Elements per block of `format` on `input`: the layout's, at most the tensor, at least one.
std::size_t blockSizeFor(const BlockFormat& format, const TensorView& input) {
    const std::size_t n = input.size();
    return std::min(n,
                    std::max<std::size_t>(1, format.blocks.elementsPerBlock(n, input.rowLength())));
}

enum class FastOutcome { Done, NonFinite, Cancelled };

// Largest |x| bits over the tensor, and each block's into `maxima` (NVFP4's first pass), in
// chunks of whole blocks.
std::uint32_t tensorBlockMaxima(const BlockQuantLoops& loops, const std::uint32_t* in,
                                std::size_t n, std::size_t blockSize, std::uint32_t* maxima,
                                ChunkRunner& runner) {
    const std::size_t step = chunkElements(blockSize);
    const std::size_t chunks = (n + step - 1) / step;
    std::vector<std::uint32_t> largest(chunks, 0);
    runner.run(chunks, [&](std::size_t c, Tally&) {
        const std::size_t first = c * step;
        const std::size_t count = std::min(step, n - first);
        largest[c] = loops.blockMaxima(in + first, count, blockSize, maxima + first / blockSize);
        return count;
    });
    return largest.empty() ? 0 : *std::max_element(largest.begin(), largest.end());
}

// Largest |x| bits over the tensor, in chunks.
std::uint32_t tensorMaxMagnitude(const BlockQuantLoops& loops, const std::uint32_t* in,
                                 std::size_t n, ChunkRunner& runner) {
    const std::size_t step = chunkElements(1);
    const std::size_t chunks = (n + step - 1) / step;
    std::vector<std::uint32_t> maxima(chunks, 0);
    runner.run(chunks, [&](std::size_t c, Tally&) {
        const std::size_t first = c * step;
        const std::size_t count = std::min(step, n - first);
        maxima[c] = loops.maxMagnitude(in + first, count);
        return count;
    });
    return maxima.empty() ? 0 : *std::max_element(maxima.begin(), maxima.end());
}

// Largest finite |x| bits over the tensor (NaN and ±∞ left out, as the reference's tensor
// amax leaves them out): a second look, only for tensors that hold them.
std::uint32_t finiteMaxMagnitude(const std::uint32_t* in, std::size_t n, ChunkRunner& runner) {
    const std::size_t step = chunkElements(1);
    const std::size_t chunks = (n + step - 1) / step;
    std::vector<std::uint32_t> maxima(chunks, 0);
    runner.run(chunks, [&](std::size_t c, Tally&) {
        const std::size_t first = c * step;
        const std::size_t count = std::min(step, n - first);
        std::uint32_t largest = 0;
        for (std::size_t i = first; i < first + count; ++i) {
            const std::uint32_t m = in[i] & 0x7fffffffu;
            largest = m < 0x7f800000u && m > largest ? m : largest;
        }
        maxima[c] = largest;
        return count;
    });
    return maxima.empty() ? 0 : *std::max_element(maxima.begin(), maxima.end());
}

// Blocks [first, first + count) of a chunk that holds a NaN or ±∞ (first a multiple of the block
// size): runs of finite blocks through the kernel loop, runs of blocks holding a NaN or ±∞
// through the exact core, quantized alone and spliced in. That is the whole-tensor reference's
// answer: quantizeExactly cuts any tensor into consecutive blocks of out.blockSize (the layout
// only sets that size), and for MX, NF4 and integer blocks it works each block out from that
// block's elements alone; a run starting on a block boundary, given the same block size as
// Elements, is cut the same way (a run that ends the tensor ends with the same ragged block).
// NVFP4 blocks also read the tensor scale, but not a block holding a NaN or ±∞: the reference
// stores its NaN scale and zeros before it looks at the tensor scale, so the run's own tensor
// scale (which is left out) changes nothing.
void blocksAroundNonFinite(const BlockQuantLoops::BlockLoop loop, const BlockQuantLoops& loops,
                           BlockQuantParams p, const TensorView& input, std::size_t first,
                           std::size_t count, QuantizedTensor& out, Tally& tally) {
    p.scalesHoldAmaxes = false; // the loop that stopped has stored scale codes over some
    const std::size_t blockSize = out.blockSize;
    const auto* in = reinterpret_cast<const std::uint32_t*>(input.floats.data());
    const auto finite = [&](std::size_t start) {
        return loops.maxMagnitude(in + start, std::min(blockSize, first + count - start)) <
               0x7f800000u;
    };
    BlockFormat alone = out.format;
    alone.blocks = BlockLayout{BlockLayout::Kind::Elements, blockSize};
    // nf4_dq: the run's FP32 absmaxes (NaN for these blocks), as the NF4 loop stores them;
    // the double quantization comes after, over every block (nf4DoubleQuantization).
    alone.doubleQuantized = false;
    for (std::size_t start = first; start < first + count;) {
        const bool runFinite = finite(start);
        std::size_t end = start + blockSize;
        while (end < first + count && finite(end) == runFinite)
            end += blockSize;
        end = std::min(end, first + count);
        if (runFinite) {
            BlockTally t;
            loop(p, in + start, end - start, blockSize, out.codes.data() + start,
                 out.scaleCodes.data() + start / blockSize, t);
            tally.add(t);
        } else {
            TensorView run;
            run.name = input.name;
            run.shape = {end - start};
            run.floats = input.floats.subspan(start, end - start);
            std::string error;
            const std::optional<QuantizedTensor> exact = quantizeExactly(alone, run, error);
            if (!exact || exact->codes.size() != end - start) {
                tally.nonFinite = true; // cannot happen; the exact core redoes the tensor
                return;
            }
            std::copy(exact->codes.begin(), exact->codes.end(), out.codes.begin() + start);
            std::copy(exact->scaleCodes.begin(), exact->scaleCodes.end(),
                      out.scaleCodes.begin() + start / blockSize);
            tally.add(
                Tally{exact->clipped, exact->flushed, exact->nanInputs, exact->infInputs, false});
        }
        start = end;
    }
}

// nf4_dq's 8-bit absmax codes, group scales and offset, for a tensor that holds a NaN or ±∞
// (out.scaleCodes: each block's FP32 absmax bits, NaN for those blocks). The kernel takes
// finite absmaxes only; the reference's double quantization reads nothing but the list of
// block absmaxes (none for a NaN block), so it is run on a tensor whose elements are those
// absmaxes, in blocks of one: each such block's absmax is its element (an FP32 number ≥ 0,
// or 0 for an all-zero block), and a NaN element is a NaN block. One exact step per block
// rather than per element. false where the exact core fails (it does not on these inputs).
bool nf4DoubleQuantization(QuantizedTensor& out) {
    std::vector<float> absmaxes(out.scaleCodes.size());
    for (std::size_t j = 0; j < absmaxes.size(); ++j)
        absmaxes[j] = std::bit_cast<float>(out.scaleCodes[j]);
    BlockFormat ofOne = out.format;
    ofOne.blocks = BlockLayout{BlockLayout::Kind::Elements, 1};
    TensorView list;
    list.name = "absmaxes";
    list.shape = {absmaxes.size()};
    list.floats = absmaxes;
    std::string error;
    std::optional<QuantizedTensor> exact = quantizeExactly(ofOne, list, error);
    if (!exact || exact->scaleCodes.size() != out.scaleCodes.size())
        return false;
    out.scaleCodes = std::move(exact->scaleCodes);
    out.groupScales = std::move(exact->groupScales);
    out.tensorScale = exact->tensorScale;
    return true;
}

FastOutcome castFast(const DirectCast& cast, const TensorView& input, const QuantizeRun& run,
                     QuantizedTensor& out) {
    const std::size_t n = input.size();
    const auto* in = reinterpret_cast<const std::uint32_t*>(input.floats.data());
    const std::size_t bytes = static_cast<std::size_t>(cast.bytesPerCode());
    ChunkRunner runner(threadsFor(run), n, run.progress);
    const std::size_t step = chunkElements(1);
    const std::size_t chunks = (n + step - 1) / step;
    const Tally tally = runner.run(chunks, [&](std::size_t c, Tally& t) {
        const std::size_t first = c * step;
        const std::size_t count = std::min(step, n - first);
        CastTally counts;
        cast.cast(in + first, count, out.codes.data() + first * bytes, counts);
        t.add(Tally{counts.clipped, counts.flushed, counts.nanInputs, counts.infInputs, false});
        return count;
    });
    if (runner.cancelled())
        return FastOutcome::Cancelled;
    out.clipped = tally.clipped;
    out.flushed = tally.flushed;
    out.nanInputs = tally.nanInputs;
    out.infInputs = tally.infInputs;
    return FastOutcome::Done;
}

FastOutcome quantizeFast(const Plan& plan, const BlockQuantLoops& loops, const TensorView& input,
                         const QuantizeRun& run, QuantizedTensor& out) {
    const std::size_t n = input.size();
    const auto* in = reinterpret_cast<const std::uint32_t*>(input.floats.data());
    BlockQuantParams p = plan.params;
    const BlockFormat& format = out.format;
    const std::size_t blockSize = out.blockSize;
    const std::size_t blocks = (n + blockSize - 1) / blockSize;
    const bool oneScale = format.scheme == BlockScheme::IntAbsmax && blocks == 1;
    const bool twoPasses = quantizerPasses(format, input) == 2;
    ChunkRunner runner(threadsFor(run), n, run.progress);
    if (twoPasses)
        runner.expectPasses(2);

    float tensorScale = 1.0f;
    if (twoPasses) {
        // NVFP4 keeps each block's amax from the first pass in the scale codes' place.
        const bool nvfp4 = format.scheme == BlockScheme::Nvfp4;
        if (nvfp4) {
            sizeForWriting(out.scaleCodes, blocks);
            p.scalesHoldAmaxes = true;
        }
        std::uint32_t amax =
            nvfp4 ? tensorBlockMaxima(loops, in, n, blockSize, out.scaleCodes.data(), runner)
                  : tensorMaxMagnitude(loops, in, n, runner);
        if (runner.cancelled())
            return FastOutcome::Cancelled;
        if (amax >= 0x7f800000u) {
            // One scale for the whole tensor (integers): its block is the tensor, which the
            // exact core stores as zeros at once. NVFP4: the tensor scale from the finite
            // inputs, as the reference takes it; the blocks holding a NaN or ±∞ come below.
            if (oneScale)
                return FastOutcome::NonFinite;
            amax = finiteMaxMagnitude(in, n, runner);
            if (runner.cancelled())
                return FastOutcome::Cancelled;
        }
        const float a = std::bit_cast<float>(amax);
        if (format.scheme == BlockScheme::Nvfp4) {
            // s_t = FP32(amax / (scale max · element max)): IEEE division rounds the exact
            // quotient once (the divisor, 448 · 6, is an FP32 value); amax 0 gives 1, and a
            // quotient that rounds to 0 the smallest FP32 number.
            const float divisor = static_cast<float>(p.scaleMax * p.elementMax);
            tensorScale = amax == 0 ? 1.0f : a / divisor;
            if (tensorScale == 0.0f)
                tensorScale = std::bit_cast<float>(1u);
            p.tensorScale = tensorScale;
            out.tensorScale = tensorScale;
        } else {
            tensorScale = amax == 0 ? 1.0f : a / static_cast<float>(p.qmax);
            if (tensorScale == 0.0f)
                tensorScale = std::bit_cast<float>(1u);
        }
    }

    // The second pass takes the chunks last to first: the first pass ended on the last ones,
    // and what of them is still in the last-level cache is read from there rather than from
    // memory. Chunks are independent and the tallies sums, so the order changes no value.
    const auto inPassOrder = [&](std::size_t k, std::size_t chunks) {
        return twoPasses ? chunks - 1 - k : k;
    };
    Tally tally;
    if (oneScale) {
        out.scaleCodes.assign(1, std::bit_cast<std::uint32_t>(tensorScale));
        const std::size_t step = chunkElements(1);
        const std::size_t chunks = (n + step - 1) / step;
        tally = runner.run(chunks, [&](std::size_t k, Tally& t) {
            const std::size_t first = inPassOrder(k, chunks) * step;
            const std::size_t count = std::min(step, n - first);
            BlockTally counts;
            loops.integerWithScale(p, in + first, count, tensorScale, out.codes.data() + first,
                                   counts);
            t.add(counts);
            return count;
        });
    } else {
        sizeForWriting(out.scaleCodes, blocks);
        const BlockQuantLoops::BlockLoop loop = format.scheme == BlockScheme::Mx      ? loops.mx
                                                : format.scheme == BlockScheme::Nvfp4 ? loops.nvfp4
                                                : format.scheme == BlockScheme::Nf4   ? loops.nf4
                                                                                    : loops.integer;
        const std::size_t step = chunkElements(blockSize);
        const std::size_t chunks = (n + step - 1) / step;
        tally = runner.run(chunks, [&](std::size_t k, Tally& t) {
            const std::size_t first = inPassOrder(k, chunks) * step;
            const std::size_t count = std::min(step, n - first);
            BlockTally counts;
            loop(p, in + first, count, blockSize, out.codes.data() + first,
                 out.scaleCodes.data() + first / blockSize, counts);
            if (counts.nonFinite)
                blocksAroundNonFinite(loop, loops, p, input, first, count, out, t);
            else
                t.add(counts);
            return count;
        });
    }
    if (runner.cancelled())
        return FastOutcome::Cancelled;
    if (tally.nonFinite)
        return FastOutcome::NonFinite;
    out.clipped = tally.clipped;
    out.flushed = tally.flushed;
    out.nanInputs = tally.nanInputs;
    out.infInputs = tally.infInputs;
    if (format.doubleQuantized) {
        if (out.nanInputs + out.infInputs == 0)
            kernels::doubleQuantizeAbsmaxes(out, *format.scale);
        else if (!nf4DoubleQuantization(out))
            return FastOutcome::NonFinite;
    }
    return FastOutcome::Done;
}

} // namespace

QuantizerPath quantizerPath(const BlockFormat& format, const TensorView& input) {
    const std::optional<Plan> plan = planFor(format, input);
    if (!plan)
        return QuantizerPath{"exact core", false};
    if (plan->cast) // the encoder's name says where it runs
        return QuantizerPath{plan->what, true};
    return QuantizerPath{plan->what + " (" + fastestLoops().isaName + ")", true};
}

bool quantizeTensorInto(const BlockFormat& format, const TensorView& input, QuantizedTensor& out,
                        std::string& error, const QuantizeRun& run) {
    const std::optional<Plan> plan = planFor(format, input);
    if (plan) {
        const std::size_t n = input.size();
        out.format = format;
        out.shape = input.shape;
        out.elementCount = n;
        out.blockSize = blockSizeFor(format, input);
        // One byte a code for every block quantizer (their elements have ≤ 8 bits).
        sizeForWriting(out.codes, n * (plan->cast ? std::size_t(plan->cast->bytesPerCode()) : 1));
        out.tensorScale.reset();
        out.groupScales.clear();
        out.clipped = out.flushed = out.nanInputs = out.infInputs = 0;
        if (plan->cast)
            out.scaleCodes.clear();
        const FastOutcome outcome = plan->cast
                                        ? castFast(*plan->cast, input, run, out)
                                        : quantizeFast(*plan, fastestLoops(), input, run, out);
        switch (outcome) {
        case FastOutcome::Done:
            if (run.progress)
                run.progress(n, n); // the work is done: a late cancel changes nothing
            return true;
        case FastOutcome::Cancelled:
            error = format.id + ": cancelled";
            return false;
        case FastOutcome::NonFinite:
            break;
        }
    }
    std::optional<QuantizedTensor> exact = quantizeExactly(format, input, error, run.progress);
    if (!exact)
        return false;
    out = std::move(*exact);
    return true;
}

int quantizerPasses(const BlockFormat& format, const TensorView& input) {
    const bool oneScale =
        format.scheme == BlockScheme::IntAbsmax && blockSizeFor(format, input) == input.size();
    return format.scheme == BlockScheme::Nvfp4 || oneScale ? 2 : 1;
}

void bareQuantizerTraffic(const TensorView& input, int passes, std::vector<std::uint8_t>& codes,
                          const QuantizeRun& run) {
    const std::size_t n = input.floats.size(); // FP32 tensors, as the fast paths take
    const auto* in = reinterpret_cast<const std::uint32_t*>(input.floats.data());
    const BlockQuantLoops& loops = fastestLoops();
    sizeForWriting(codes, n);
    ChunkRunner runner(threadsFor(run), n, {});
    const std::size_t step = chunkElements(1);
    const std::size_t chunks = (n + step - 1) / step;
    std::vector<std::uint32_t> maxima(chunks, 0);
    for (int pass = 1; pass < passes; ++pass)
        runner.run(chunks, [&](std::size_t c, Tally&) {
            const std::size_t first = c * step;
            const std::size_t count = std::min(step, n - first);
            maxima[c] = loops.maxMagnitude(in + first, count);
            return count;
        });
    // The last pass last chunk first after a read, as quantizeFast's second pass.
    runner.run(chunks, [&](std::size_t k, Tally&) {
        const std::size_t first = (passes > 1 ? chunks - 1 - k : k) * step;
        const std::size_t count = std::min(step, n - first);
        loops.topBytes(in + first, count, codes.data() + first);
        return count;
    });
}

std::optional<QuantizedTensor> quantizeTensor(const BlockFormat& format, const TensorView& input,
                                              std::string& error, const QuantizeRun& run) {
    QuantizedTensor out;
    if (!quantizeTensorInto(format, input, out, error, run))
        return std::nullopt;
    return out;
}

} // namespace fpx
