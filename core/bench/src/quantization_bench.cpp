// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/bench/quantization_bench.h"

#include "fpx/bench/backend.h"
#include "fpx/data/tensor_collection.h"
#include "fpx/data/tensor_file.h"
#include "fpx/exact/parallel_chunks.h"
#include "fpx/quantization/block_format.h"
#include "fpx/quantization/block_quantization.h"
#include "fpx/quantization/quantization_pass.h"
#include "fpx/quantization/tensor_quantizer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>
#include <thread>

namespace fpx::bench {

namespace {

// Elements of the tensor compared with the exact core before a format is timed (the exact
// core takes microseconds an element).
constexpr std::size_t kVerifiedSample = 1 << 16;

int resolvedThreads(int threads) {
    return threads > 0 ? threads
                       : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// memcpy on `threads` threads, each copying its own contiguous share, as the quantizer's
// threads each take their own chunks.
void parallelCopy(float* to, const float* from, std::size_t n, int threads) {
    parallelChunks(n, 1, static_cast<unsigned>(threads), [&](std::size_t begin, std::size_t end) {
        std::memcpy(to + begin, from + begin, (end - begin) * sizeof(float));
    });
}

bool sameQuantization(const QuantizedTensor& a, const QuantizedTensor& b) {
    return a.codes == b.codes && a.scaleCodes == b.scaleCodes &&
           a.tensorScale.has_value() == b.tensorScale.has_value() &&
           (!a.tensorScale || std::memcmp(&*a.tensorScale, &*b.tensorScale, sizeof(float)) == 0) &&
           a.groupScales.size() == b.groupScales.size() &&
           std::equal(a.groupScales.begin(), a.groupScales.end(), b.groupScales.begin(),
                      [](float x, float y) { return std::memcmp(&x, &y, sizeof x) == 0; }) &&
           a.clipped == b.clipped && a.flushed == b.flushed && a.nanInputs == b.nanInputs &&
           a.infInputs == b.infInputs && a.blockSize == b.blockSize;
}

TensorView viewOf(const std::vector<float>& values, std::size_t count) {
    TensorView v;
    v.name = "normal";
    v.shape = {count};
    v.floats = std::span<const float>(values.data(), count);
    return v;
}

constexpr std::size_t kFileTensors = 8; // a model's weights: several tensors, not one

// Reads the whole file as `cat FILE > /dev/null` does: read() into a buffer until the end.
// false when it cannot be read.
bool readWholeFile(const std::string& path, std::vector<char>& buffer) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0)
        return false;
    ssize_t got = 0;
    while ((got = ::read(fd, buffer.data(), buffer.size())) > 0) {
    }
    ::close(fd);
    return got == 0;
}

// The file of the checks: kFileTensors FP32 tensors of 4096 columns where they hold that many
// (one row otherwise), random normal values. Its path, or "" with `note` saying why not.
std::string writeCheckFile(const QuantizationBenchRequest& request, std::uint64_t& bytes,
                           std::string& note) {
    const std::size_t n = request.fileBytes / sizeof(float);
    if (n < kFileTensors) {
        note = "a file of fewer than 32 bytes holds no tensors worth timing";
        return "";
    }
    std::error_code ec;
    const std::filesystem::path directory = request.fileDirectory.empty()
                                                ? std::filesystem::temp_directory_path(ec)
                                                : std::filesystem::path(request.fileDirectory);
    const std::string path =
        (directory / ("fpx-quantization-bench-" + std::to_string(::getpid()) + ".safetensors"))
            .string();
    const std::size_t per = n / kFileTensors;
    const std::size_t columns = per >= 4096 ? 4096 : per;
    const std::size_t rows = per / columns;
    const std::vector<float> values = randomInputs(rows * columns, InputDistribution::Normal, 21);
    std::vector<OutputTensor> tensors;
    for (std::size_t t = 0; t < kFileTensors; ++t) {
        OutputTensor tensor;
        tensor.name = "layers." + std::to_string(t) + ".weight";
        tensor.dtype = "F32";
        tensor.shape = {rows, columns};
        tensor.bytes.resize(values.size() * sizeof(float));
        std::memcpy(tensor.bytes.data(), values.data(), tensor.bytes.size());
        tensors.push_back(std::move(tensor));
    }
    bytes = kFileTensors * values.size() * sizeof(float);
    std::string error;
    if (!writeSafetensors(path, tensors, {}, error)) {
        note = "cannot write the file: " + error;
        return "";
    }
    return path;
}

// What `fpx quantize --input PATH --formats IDS` computes: every tensor loaded and quantized in
// one pass with its report. false with `error` where it cannot.
bool quantizeFile(const std::string& path, const std::vector<BlockFormat>& formats, int threads,
                  std::string& error) {
    const std::optional<TensorCollection> collection =
        TensorCollection::open(path, std::nullopt, error);
    if (!collection)
        return false;
    QuantizationPass pass;
    pass.formats = formats;
    std::vector<TensorFile::Loaded> loaded;
    for (std::size_t i = 0; i < collection->tensors().size(); ++i) {
        std::optional<TensorFile::Loaded> tensor = collection->load(i, error);
        if (!tensor)
            return false;
        loaded.push_back(std::move(*tensor));
        pass.tensors.push_back(loaded.back().view);
    }
    QuantizeRun run;
    run.threads = threads;
    const std::optional<QuantizationPassResult> result = runQuantizationPass(pass, error, run);
    if (!result)
        return false;
    std::vector<const QuantizationReport*> reports;
    for (std::size_t f = 0; f < formats.size(); ++f) {
        reports.clear();
        for (std::size_t t = 0; t < pass.tensors.size(); ++t) {
            if (!result->errors[t][f].empty()) {
                error = result->errors[t][f];
                return false;
            }
            reports.push_back(&result->reports[t][f]);
        }
        if (!std::isfinite(quantizationTotal(reports).sqnrDb)) {
            error = formats[f].id + ": the file's SQNR is not finite";
            return false;
        }
    }
    return true;
}

QuantizationFileCheck runFileCheck(const QuantizationFileGoal& goal, const std::string& path,
                                   std::uint64_t bytes, const QuantizationBenchRequest& request,
                                   int threads, const std::atomic<bool>* cancel) {
    QuantizationFileCheck check;
    check.goal = goal.goal;
    check.format = goal.formats;
    check.path = path;
    check.fileBytes = bytes;
    check.tensors = kFileTensors;
    std::string error;
    const std::optional<std::vector<BlockFormat>> formats =
        findBlockFormats(goal.formats, {}, error);
    std::vector<char> buffer(std::size_t{1} << 20);
    bool ok = formats.has_value() && readWholeFile(path, buffer);
    if (ok) {
        const StatisticsAlongside t =
            measureAlongside([&] { ok = quantizeFile(path, *formats, threads, error) && ok; },
                             [&] { ok = readWholeFile(path, buffer) && ok; }, request.plan, cancel);
        check.readTime = t.reference;
        check.loadAndQuantizeTime = t.body;
    }
    if (!ok) {
        check.note = "the file could not be read, loaded or quantized: " + error;
        return check;
    }
    check.ran = check.readTime.median > 0 && check.loadAndQuantizeTime.median > 0;
    if (check.ran)
        check.ratio = check.loadAndQuantizeTime.median / check.readTime.median;
    check.pageCache = "the file was just written, so both find it in the page cache";
    return check;
}

} // namespace

std::vector<QuantizationFileGoal> quantizationFileGoals() {
    return {{"mxfp4", 3}, {"mxfp4,nvfp4,nf4,int8,fp8_e4m3,mxfp8_e4m3", 8}};
}

std::vector<std::string> quantizationBenchFormats() {
    return {"mxfp8_e4m3", "mxfp4", "nvfp4", "nf4", "int4"};
}

QuantizationBenchReport
runQuantizationBench(const QuantizationBenchRequest& request,
                     const std::function<void(double, const std::string&)>& progress,
                     const std::atomic<bool>* cancel) {
    QuantizationBenchReport report;
    report.elements = request.elements;
    report.block = request.block;
    report.threads = resolvedThreads(request.threads);
    const std::vector<std::string> ids = quantizationBenchFormats();
    const double steps =
        static_cast<double>(ids.size()) +
        (request.fileBytes ? static_cast<double>(quantizationFileGoals().size()) : 0.0);
    double done = 0;
    const auto step = [&](const std::string& what) {
        if (progress)
            progress(std::min(1.0, done / steps), what);
    };

    step("generating " + std::to_string(request.elements) + " FP32 values");
    const std::size_t n = std::max<std::size_t>(request.elements, 1);
    const std::vector<float> values = randomInputs(n, InputDistribution::Normal, 20);
    const TensorView input = viewOf(values, n);
    const TensorView sample = viewOf(values, std::min(n, kVerifiedSample));
    std::vector<float> copy(n);
    QuantizeRun run;
    run.threads = report.threads;
    // The bare loop of each pass count, timed once alongside its own memcpy.
    std::map<int, StatisticsAlongside> bare;
    std::vector<std::uint8_t> bareCodes;

    for (const std::string& id : ids) {
        if (cancel && cancel->load())
            break;
        QuantizationBenchRow row;
        row.format = id;
        row.goal = 0.5;
        QuantizerOptions options;
        options.blocks = BlockLayout{BlockLayout::Kind::Elements, request.block};
        std::string error;
        const std::optional<BlockFormat> format = findBlockFormat(id, options, error);
        if (!format) {
            row.note = error;
            report.rows.push_back(row);
            continue;
        }
        row.path = quantizerPath(*format, input).name;
        step("verifying " + id);
        const std::optional<QuantizedTensor> exact = quantizeExactly(*format, sample, error);
        const std::optional<QuantizedTensor> fast = quantizeTensor(*format, sample, error, run);
        row.verified = exact && fast && sameQuantization(*exact, *fast);
        row.checked = sample.size();
        if (!row.verified)
            row.note = "on the first " + std::to_string(sample.size()) +
                       " elements the codes, scales or counts differ from the exact core's";
        step("timing " + id);
        QuantizedTensor out;
        bool ok = quantizeTensorInto(*format, input, out, error, run); // sizes the buffers
        const StatisticsAlongside t = measureAlongside(
            [&] { ok = quantizeTensorInto(*format, input, out, error, run) && ok; },
            [&] { parallelCopy(copy.data(), values.data(), n, report.threads); }, request.plan,
            cancel);
        if (!ok) {
            row.verified = false;
            row.note = error;
        }
        row.time = t.body;
        row.referenceTime = t.reference;
        row.bytes = static_cast<double>(n * sizeof(float) + out.codes.size() +
                                        out.scaleCodes.size() * sizeof(std::uint32_t));
        row.referenceBytes = static_cast<double>(2 * n * sizeof(float));
        if (row.time.median > 0) {
            row.elementsPerSecond = static_cast<double>(n) / row.time.median;
            row.bytesPerSecond = row.bytes / row.time.median;
        }
        if (row.referenceTime.median > 0)
            row.referenceBytesPerSecond = row.referenceBytes / row.referenceTime.median;
        if (row.referenceBytesPerSecond > 0)
            row.ratio = row.bytesPerSecond / row.referenceBytesPerSecond;
        row.passes = quantizerPasses(*format, input);
        if (!bare.contains(row.passes) && !(cancel && cancel->load())) {
            step("timing the bare loop of " + std::to_string(row.passes) + " pass(es)");
            bare.emplace(row.passes,
                         measureAlongside(
                             [&] { bareQuantizerTraffic(input, row.passes, bareCodes, run); },
                             [&] { parallelCopy(copy.data(), values.data(), n, report.threads); },
                             request.plan, cancel));
        }
        if (const auto b = bare.find(row.passes); b != bare.end()) {
            row.bareTime = b->second.body;
            if (row.bareTime.median > 0 && b->second.reference.median > 0)
                row.bareRatio = (row.bytes / row.bareTime.median) /
                                (row.referenceBytes / b->second.reference.median);
        }
        report.rows.push_back(row);
        ++done;
    }
    if (request.fileBytes > 0 && !(cancel && cancel->load())) {
        std::uint64_t bytes = 0;
        std::string note;
        const std::string path = writeCheckFile(request, bytes, note);
        for (const QuantizationFileGoal& goal : quantizationFileGoals()) {
            if (cancel && cancel->load())
                break;
            step("timing fpx quantize --formats " + std::string(goal.formats) + " on a file of " +
                 std::to_string(request.fileBytes) + " bytes");
            if (path.empty()) {
                QuantizationFileCheck check;
                check.format = goal.formats;
                check.note = note;
                report.files.push_back(check);
                continue;
            }
            report.files.push_back(
                runFileCheck(goal, path, bytes, request, report.threads, cancel));
        }
        std::error_code ec;
        if (!path.empty())
            std::filesystem::remove(path, ec);
    }
    if (progress)
        progress(1, "quantization done");
    return report;
}

} // namespace fpx::bench
