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
#include "quantizer_plan.h"
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
using quantizer::blockSizeFor;
using quantizer::fastestLoops;
using quantizer::Plan;
using quantizer::planFor;
using quantizer::Tally;

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
        tensorScale = quantizer::tensorScaleFor(format, amax, p);
        if (format.scheme == BlockScheme::Nvfp4)
            out.tensorScale = tensorScale;
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
                quantizer::blocksAroundNonFinite(loop, loops, p, format, blockSize, input, first,
                                                 count, out.codes.data() + first,
                                                 out.scaleCodes.data() + first / blockSize, t);
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
