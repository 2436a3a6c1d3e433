// SPDX-License-Identifier: GPL-3.0-or-later
// The statistics of tensors: pieces through the vector loops (statistics_loops.h), on every
// thread, met in one order fixed by the element index (docs/design.md, "Tensor statistics").
#include "tensor_statistics.h"

#include "statistics_loops.h"
#include "tensor_file_kinds.h"

#include "fpx/exact/parallel_chunks.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <thread>

namespace fpx {

using namespace tensor_file;

namespace {

// A chunk is the unit of work a thread takes: kPiecesPerChunk pieces of one tensor.
constexpr std::size_t kPiecesPerChunk = 16;
constexpr std::size_t kChunk = kStatisticsPiece * kPiecesPerChunk;

// Where one tensor's values come from: FP32 or FP64 values in C order, or stored elements to be
// widened (or reordered) a piece at a time.
struct Source {
    std::size_t count = 0;
    const float* floats = nullptr;
    const double* doubles = nullptr;
    const std::uint8_t* bytes = nullptr; // when neither of the above
    ElementType type = ElementType::F32;
    const std::vector<std::size_t>* fortranShape = nullptr; // Fortran order, rank ≥ 2
};

// A thread's room for one piece: its elements gathered out of Fortran order, widened to FP32,
// or copied to aligned FP64.
struct Scratch {
    std::vector<std::uint8_t> bytes;
    std::vector<float> floats;
    std::vector<double> doubles;
};

// Elements first … first + count of a Fortran-order array, in C order (last index fastest),
// `width` bytes each: the C-order multi-index walked like an odometer, the Fortran offset
// (first index fastest) kept alongside.
void gatherFortran(const std::uint8_t* source, const std::vector<std::size_t>& shape,
                   std::size_t width, std::size_t first, std::size_t count, std::uint8_t* target) {
    const std::size_t rank = shape.size();
    std::vector<std::size_t> index(rank), stride(rank);
    std::size_t s = 1;
    for (std::size_t j = 0; j < rank; ++j) {
        stride[j] = s;
        s *= shape[j];
    }
    std::size_t offset = 0, rest = first;
    for (std::size_t j = rank; j-- > 0;) {
        index[j] = rest % shape[j];
        rest /= shape[j];
        offset += index[j] * stride[j];
    }
    for (std::size_t c = 0; c < count; ++c) {
        std::memcpy(target + c * width, source + offset * width, width);
        for (std::size_t j = rank; j-- > 0;) {
            offset += stride[j];
            if (++index[j] < shape[j])
                break;
            offset -= stride[j] * shape[j];
            index[j] = 0;
        }
    }
}

StatisticsFigures pieceFigures(const Source& source, std::size_t first, std::size_t count,
                               const StatisticsLoops& loops, Scratch& scratch) {
    StatisticsFigures figures;
    if (source.floats) {
        loops.floats(source.floats + first, count, figures);
        return figures;
    }
    if (source.doubles) {
        loops.doubles(source.doubles + first, count, figures);
        return figures;
    }
    const std::size_t width = elementBytes(source.type);
    const std::uint8_t* bytes = source.bytes + first * width;
    if (source.fortranShape) {
        scratch.bytes.resize(kStatisticsPiece * 8);
        gatherFortran(source.bytes, *source.fortranShape, width, first, count,
                      scratch.bytes.data());
        bytes = scratch.bytes.data();
    }
    if (source.type == ElementType::F64) {
        scratch.doubles.resize(kStatisticsPiece);
        std::memcpy(scratch.doubles.data(), bytes, 8 * count);
        loops.doubles(scratch.doubles.data(), count, figures);
    } else {
        scratch.floats.resize(kStatisticsPiece);
        loops.widen(source.type, bytes, count, scratch.floats.data());
        loops.floats(scratch.floats.data(), count, figures);
    }
    return figures;
}

// The figures at a coarser scale (scale ≥ f.scale): every sum times a power of two, exact but
// for parts that fall below double's subnormals.
StatisticsFigures rescaled(const StatisticsFigures& f, int scale) {
    const int k = f.scale - scale;
    if (k == 0)
        return f;
    StatisticsFigures g = f;
    g.sum = std::ldexp(f.sum, k);
    g.sumError = std::ldexp(f.sumError, k);
    g.center = std::ldexp(f.center, k);
    g.squares = std::ldexp(f.squares, 2 * k);
    g.scale = scale;
    return g;
}

// The smaller and the larger of two finite values, −0 below +0.
double lower(double a, double b) {
    return a < b || (a == b && std::signbit(a)) ? a : b;
}
double higher(double a, double b) {
    return a > b || (a == b && !std::signbit(a)) ? a : b;
}

// Σ(x − center) of a run: sum − finite · center rounded once (a fused multiply-add, on a
// difference near zero, where it is exact or nearly), plus the sum's error. What the center
// misses of the mean, times finite, to the accuracy of the sum itself.
double deviationsOf(const StatisticsFigures& f) {
    return std::fma(-static_cast<double>(f.finite), f.center, f.sum) + f.sumError;
}

// The figures of a run of elements followed by those of the next run. The squares move to the
// new center c: Σ(x − c)² = Σ(x − a)² + 2(a − c)·Σ(x − a) + n(a − c)² for each run's center a,
// exact for any c, so no run needs its center to be its exact mean.
StatisticsFigures meet(const StatisticsFigures& a, const StatisticsFigures& b) {
    StatisticsFigures r;
    if (a.finite == 0 || b.finite == 0)
        r = a.finite == 0 ? b : a;
    r.finite = a.finite + b.finite;
    r.zeros = a.zeros + b.zeros;
    r.nans = a.nans + b.nans;
    r.infs = a.infs + b.infs;
    if (a.finite == 0 || b.finite == 0)
        return r;
    r.min = lower(a.min, b.min);
    r.max = higher(a.max, b.max);
    r.scale = std::max(a.scale, b.scale);
    const StatisticsFigures p = rescaled(a, r.scale);
    const StatisticsFigures q = rescaled(b, r.scale);
    r.sum = p.sum;
    r.sumError = p.sumError;
    meetStatisticsSums(r.sum, r.sumError, q.sum, q.sumError);
    r.center = statisticsCenter(r.sum, r.sumError, r.finite);
    const double dp = p.center - r.center;
    const double dq = q.center - r.center;
    const auto np = static_cast<double>(p.finite);
    const auto nq = static_cast<double>(q.finite);
    r.squares = (p.squares + (2 * dp * deviationsOf(p) + np * dp * dp)) +
                (q.squares + (2 * dq * deviationsOf(q) + nq * dq * dq));
    return r;
}

// Runs [0, count) met in halves: the first half's figures, then the second's.
StatisticsFigures meetInHalves(const StatisticsFigures* figures, std::size_t count) {
    if (count == 0)
        return {};
    if (count == 1)
        return figures[0];
    const std::size_t half = count / 2;
    return meet(meetInHalves(figures, half), meetInHalves(figures + half, count - half));
}

StatisticsFigures chunkFigures(const Source& source, std::size_t chunk,
                               const StatisticsLoops& loops, Scratch& scratch) {
    StatisticsFigures pieces[kPiecesPerChunk];
    const std::size_t begin = chunk * kChunk;
    const std::size_t end = std::min(source.count, begin + kChunk);
    std::size_t n = 0;
    for (std::size_t first = begin; first < end; first += kStatisticsPiece)
        pieces[n++] =
            pieceFigures(source, first, std::min(kStatisticsPiece, end - first), loops, scratch);
    return meetInHalves(pieces, n);
}

TensorStatistics statisticsFrom(const StatisticsFigures& f, std::size_t elements) {
    TensorStatistics s;
    s.elements = elements;
    s.zeros = f.zeros;
    s.nans = f.nans;
    s.infs = f.infs;
    if (f.finite == 0)
        return s;
    s.min = f.min;
    s.max = f.max;
    s.absmax = std::max(std::fabs(f.min), std::fabs(f.max));
    if (f.min == f.max) {
        // One value throughout: its mean is itself and its spread 0, exactly (+0 for zeros
        // of either sign, as a sum of zeros is).
        s.mean = f.min + 0.0;
        return s;
    }
    const auto n = static_cast<double>(f.finite);
    s.mean = std::ldexp(f.center, f.scale);
    // Σ(x − mean)² = Σ(x − c)² − (Σ(x − c))² / n: the deviations' sum corrects for the center's
    // own rounding.
    const double deviations = deviationsOf(f);
    const double squares = std::max(0.0, f.squares - deviations * deviations / n);
    s.std = std::ldexp(std::sqrt(squares / n), f.scale);
    return s;
}

// Every source's statistics: the chunks of all of them shared among the threads (a file of many
// small tensors keeps every thread busy), each chunk's figures kept, then met per tensor.
std::vector<TensorStatistics> statisticsOf(const std::vector<Source>& sources, unsigned threads,
                                           const StatisticsLoops& loops) {
    std::vector<std::size_t> firstChunk(sources.size() + 1, 0);
    for (std::size_t t = 0; t < sources.size(); ++t)
        firstChunk[t + 1] = firstChunk[t] + (sources[t].count + kChunk - 1) / kChunk;
    const std::size_t chunks = firstChunk.back();
    std::vector<StatisticsFigures> figures(chunks);
    std::atomic<std::size_t> next{0};
    FirstException failure;
    const auto work = [&] {
        failure.run([&] {
            Scratch scratch;
            for (;;) {
                const std::size_t c = next.fetch_add(1, std::memory_order_relaxed);
                if (c >= chunks)
                    return;
                const std::size_t t = static_cast<std::size_t>(
                    std::upper_bound(firstChunk.begin(), firstChunk.end(), c) - firstChunk.begin() -
                    1);
                figures[c] = chunkFigures(sources[t], c - firstChunk[t], loops, scratch);
            }
        });
    };
    const std::size_t available =
        threads > 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
    const std::size_t helpers = std::min(available, std::max<std::size_t>(chunks, 1)) - 1;
    std::vector<std::thread> team;
    team.reserve(helpers);
    for (std::size_t h = 0; h < helpers; ++h)
        team.emplace_back(work);
    work();
    for (std::thread& helper : team)
        helper.join();
    failure.rethrow();

    std::vector<TensorStatistics> result;
    result.reserve(sources.size());
    for (std::size_t t = 0; t < sources.size(); ++t)
        result.push_back(statisticsFrom(
            meetInHalves(figures.data() + firstChunk[t], firstChunk[t + 1] - firstChunk[t]),
            sources[t].count));
    return result;
}

Source sourceOf(const TensorView& view) {
    Source source;
    source.count = view.size();
    if (view.isDouble())
        source.doubles = view.doubles.data();
    else
        source.floats = view.floats.data();
    return source;
}

template <typename T> bool aligned(const std::uint8_t* p) {
    return reinterpret_cast<std::uintptr_t>(p) % alignof(T) == 0;
}

} // namespace

namespace tensor_file {

std::vector<TensorStatistics> tensorStatisticsWith(const std::vector<TensorView>& views,
                                                   unsigned threads, const StatisticsLoops& loops) {
    std::vector<Source> sources;
    sources.reserve(views.size());
    for (const TensorView& view : views)
        sources.push_back(sourceOf(view));
    return statisticsOf(sources, threads, loops);
}

} // namespace tensor_file

TensorStatistics tensorStatistics(const TensorView& view, unsigned threads) {
    return statisticsOf({sourceOf(view)}, threads, fastestStatisticsLoops()).front();
}

std::optional<std::vector<std::optional<TensorStatistics>>>
tensorFileStatistics(const TensorFile& file, std::string& error, unsigned threads) {
    return tensor_file::tensorFileStatisticsWith(file, error, threads, fastestStatisticsLoops());
}

namespace tensor_file {

std::optional<std::vector<std::optional<TensorStatistics>>>
tensorFileStatisticsWith(const TensorFile& file, std::string& error, unsigned threads,
                         const StatisticsLoops& loops) {
    const std::vector<TensorInfo>& tensors = file.tensors();
    std::vector<Source> sources;
    std::vector<std::size_t> tensorOf; // the tensor each source is of
    std::vector<TensorFile::Loaded> loaded;
    const auto* mapped = dynamic_cast<const MappedTensorFile*>(&file);
    if (!mapped)
        loaded.reserve(tensors.size()); // the views point into these
    for (std::size_t k = 0; k < tensors.size(); ++k) {
        const TensorInfo& info = tensors[k];
        if (!info.loadable)
            continue;
        tensorOf.push_back(k);
        if (!mapped) {
            std::optional<TensorFile::Loaded> values = file.load(info.name, error);
            if (!values)
                return std::nullopt;
            loaded.push_back(std::move(*values));
            sources.push_back(sourceOf(loaded.back().view));
            continue;
        }
        const MappedTensorFile::Stored stored = mapped->stored(k);
        Source source;
        source.count = info.elementCount;
        source.type = *stored.type;
        if (stored.fortranOrder && info.shape.size() >= 2)
            source.fortranShape = &info.shape;
        else if (source.type == ElementType::F32 && aligned<float>(stored.bytes))
            source.floats = reinterpret_cast<const float*>(stored.bytes);
        else if (source.type == ElementType::F64 && aligned<double>(stored.bytes))
            source.doubles = reinterpret_cast<const double*>(stored.bytes);
        if (!source.floats && !source.doubles)
            source.bytes = stored.bytes;
        sources.push_back(source);
    }
    const std::vector<TensorStatistics> figures = statisticsOf(sources, threads, loops);
    std::vector<std::optional<TensorStatistics>> result(tensors.size());
    for (std::size_t i = 0; i < figures.size(); ++i)
        result[tensorOf[i]] = figures[i];
    return result;
}

} // namespace tensor_file

} // namespace fpx
