// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace fpx::kernels {

// The order in which a streaming loop visits the whole blocks of a long range: in
// kInterleavedRuns runs side by side, one block of each run in turn, instead of front to back.
//
//   blocks:  | run 0: 0 1 2 … | run 1: 0 1 2 … | … | run 7: 0 1 2 … | leftover (< 8) |
//   visited:   0.0, 1.0, …, 7.0, 0.1, 1.1, …, 7.1, 0.2, …, then the leftover blocks in order
//
// Why: far beyond the cache, one core reading a single stream keeps too few lines in flight
// to use the memory's bandwidth; eight streams a few hundred bytes apart in time keep the
// hardware prefetchers busy on eight pages at once. Both a bare narrowing copy and the FP16
// conversion instructions gain from the runs, eight more evenly than four; visiting whole
// pages in turn (1024 FP32 per block) gains nothing: it is one stream again.
//
// A plain index mapping rather than a loop taking a callback, so that the hardware paths'
// [[gnu::target]] functions can use it inline.
inline constexpr std::size_t kInterleavedRuns = 8;

class InterleavedBlocks {
  public:
    explicit constexpr InterleavedBlocks(std::size_t blocks)
        : blocks_(blocks), perRun_(blocks / kInterleavedRuns) {}

    constexpr std::size_t size() const { return blocks_; }

    // The block visited k-th (k < size()).
    constexpr std::size_t operator[](std::size_t k) const {
        return k < perRun_ * kInterleavedRuns
                   ? (k % kInterleavedRuns) * perRun_ + k / kInterleavedRuns
                   : k;
    }

  private:
    std::size_t blocks_;
    std::size_t perRun_;
};

// How far ahead a streaming loop prefetches its input: the block two steps on in the same run,
// i.e. 2 × kInterleavedRuns blocks ahead in time (4 KiB of FP32 for the encoders' 64-element
// blocks). Why: the hardware prefetchers alone keep a core's reads going only while it does
// little else; with an encoder's arithmetic between the loads, the loads wait for memory and
// the out-of-order window fills with arithmetic; prefetching the input brings it back near the
// copy bandwidth. One block ahead gains less, four less again (more lines in flight than the
// core's fill buffers); prefetching to L2 (prefetcht1/t2) or without caching (prefetchnta) is
// slower than to L1.
inline constexpr std::size_t kPrefetchBlocksAhead = 2;

// A streaming loop's skeleton over `count` codes at `out` (aligned to the code's size): the
// head before the first 64-byte boundary and the tail after the last whole block by
// `cached(first, n)` (ordinary stores), the whole blocks of `Block` codes in between by
// `block(first)` in interleaved order, each writing whole lines with streaming stores. `in`
// is the input, elements in step with the codes, whose lines kPrefetchBlocksAhead blocks on
// are prefetched; nullptr prefetches nothing (the decoders: their reads are a third to a half
// of their traffic, and they meet the copy bandwidth without).
//
//   out:  |head: cached| block | block | … in kInterleavedRuns runs … |tail: cached|
//                      ^ 64-byte aligned
//
// Always inlined, so that the caller's lambdas, compiled for the caller's instruction set
// (a [[gnu::target]] function's lambdas say so themselves), are inlined too.
template <std::size_t Block, typename Input, typename Out, typename Cached, typename BlockLoop>
[[gnu::always_inline]] inline void
streamInInterleavedBlocks(Input in, const Out* out, std::size_t count, const Cached& cached,
                          const BlockLoop& block) {
    static_assert(Block * sizeof(Out) % 64 == 0, "a block is whole lines");
    const std::size_t misalignment = reinterpret_cast<std::uintptr_t>(out) % 64;
    const std::size_t toLine = misalignment == 0 ? 0 : (64 - misalignment) / sizeof(Out);
    const std::size_t head = toLine < count ? toLine : count;
    cached(std::size_t{0}, head);
    const InterleavedBlocks order((count - head) / Block);
    for (std::size_t k = 0; k < order.size(); ++k) {
        if constexpr (!std::is_null_pointer_v<Input>) {
            const std::size_t ahead = order[k] + kPrefetchBlocksAhead;
            if (ahead < order.size()) {
                const char* lines = reinterpret_cast<const char*>(in + head + ahead * Block);
#pragma GCC unroll 16
                for (std::size_t line = 0; line < Block * sizeof(*in); line += 64)
                    __builtin_prefetch(lines + line, 0, 3);
            }
        }
        block(head + order[k] * Block);
    }
    const std::size_t done = head + order.size() * Block;
    cached(done, count - done);
}

} // namespace fpx::kernels
