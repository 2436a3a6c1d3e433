// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/bench/ratio_results.h"

#include "fpx/bench/sizes.h"

#include <string>

namespace fpx::bench {

namespace {

BenchResult cpuResult(const DeviceInfo& cpu, Operation operation, std::size_t elements,
                      int threads) {
    BenchResult r;
    r.backend = cpu.backend.empty() ? "cpu" : cpu.backend;
    r.device = cpu.name;
    r.deviceIndex = cpu.index;
    r.operation = operation;
    r.elements = elements;
    r.threads = threads;
    return r;
}

std::string threadsText(int threads) {
    return std::to_string(threads) + (threads == 1 ? " thread" : " threads");
}

// The distribution of a workload's terms, its stable name (the label is prose for readers).
std::string workloadDistribution(const std::string& label) {
    for (const AccumulationWorkload& w : accumulationWorkloads())
        if (w.label == label)
            return w.distribution;
    return label;
}

std::string joinNotes(const std::string& a, const std::string& b) {
    return a.empty() ? b : b.empty() ? a : a + "; " + b;
}

// The quantizers' tensors and the file check's values are randomInputs of this distribution.
constexpr InputDistribution kQuantizedValues = InputDistribution::Normal;

} // namespace

std::vector<BenchResult> accumulationResults(const std::vector<AccumulationBenchRow>& rows,
                                             std::size_t terms, const DeviceInfo& cpu) {
    std::vector<BenchResult> results;
    for (const AccumulationBenchRow& row : rows) {
        if (!(row.time.median > 0) || !(row.referenceTime.median > 0))
            continue;
        BenchResult r = cpuResult(cpu, Operation::Accumulate, terms, 1);
        r.format = row.format;
        r.path = row.path;
        r.workload = workloadDistribution(row.workload);
        r.verified = row.verified;
        r.checked = row.checked;
        r.note = row.note;
        r.time = row.time;
        r.referenceSeconds = row.referenceTime.median;
        // The reference reads the same FP32 terms: both speeds in the terms' bytes, so that
        // throughput over ceiling is the reference's time over the sum's, the ratio printed.
        r.elementsPerSecond = row.termsPerSecond;
        r.bytesPerSecond = row.termsPerSecond * sizeof(float);
        r.ceiling = row.referenceTermsPerSecond * sizeof(float);
        r.ceilingName = row.reference;
        r.ratio = row.ratio;
        r.goalAtLeast = row.goal;
        results.push_back(std::move(r));
    }
    return results;
}

std::vector<BenchResult> quantizationResults(const QuantizationBenchReport& report,
                                             const DeviceInfo& cpu) {
    std::vector<BenchResult> results;
    const std::string values(distributionId(kQuantizedValues));
    for (const QuantizationBenchRow& row : report.rows) {
        if (!(row.time.median > 0) || !(row.referenceTime.median > 0))
            continue;
        BenchResult r = cpuResult(cpu, Operation::Quantize, report.elements, report.threads);
        r.format = row.format;
        r.path = row.path;
        r.workload = values;
        r.verified = row.verified;
        r.checked = row.checked;
        r.note = row.note;
        r.time = row.time;
        r.referenceSeconds = row.referenceTime.median;
        r.elementsPerSecond = row.elementsPerSecond;
        r.bytesPerSecond = row.bytesPerSecond;
        r.ceiling = row.referenceBytesPerSecond;
        r.ceilingName = std::string(kCopyAlongside) + ", " + sizeLabel(report.elements) + ", " +
                        threadsText(report.threads);
        r.ratio = row.ratio;
        r.goalAtLeast = row.goal;
        r.passes = row.passes;
        r.bareRatio = row.bareRatio;
        results.push_back(std::move(r));
    }
    for (const QuantizationFileCheck& f : report.files) {
        const double seconds = f.loadAndQuantizeTime.median;
        const double readSeconds = f.readTime.median;
        if (!f.ran || seconds <= 0 || readSeconds <= 0)
            continue;
        const std::size_t n = f.fileBytes / sizeof(float);
        const double bytes = static_cast<double>(f.fileBytes);
        BenchResult r = cpuResult(cpu, Operation::QuantizeFile, n, report.threads);
        r.format = f.format;
        r.path = "fpx quantize, " + std::to_string(f.tensors) + " tensors";
        r.workload = values;
        r.note = joinNotes(f.note, f.pageCache);
        r.time = f.loadAndQuantizeTime;
        r.referenceSeconds = readSeconds;
        r.elementsPerSecond = static_cast<double>(n) / seconds;
        r.bytesPerSecond = bytes / seconds;
        r.ceiling = bytes / readSeconds;
        r.ceilingName = "read() into 1 MiB, like cat FILE > /dev/null";
        r.ratio = f.ratio;
        r.goalAtMost = f.goal;
        results.push_back(std::move(r));
    }
    return results;
}

} // namespace fpx::bench
