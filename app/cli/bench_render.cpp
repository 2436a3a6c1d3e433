// SPDX-License-Identifier: GPL-3.0-or-later
// fpx bench's renderers: the backends listed, the measurements as tables, the result files and
// the progress on a terminal.
#include "bench.h"
#include "text_table.h"

#include "fpx/bench/ratio_results.h"
#include "fpx/bench/result_io.h"
#include "fpx/bench/sizes.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace fpx::cli {

namespace {

std::string number(double value, const char* format = "%.3g") {
    char text[64];
    std::snprintf(text, sizeof text, format, value); // fpx never sets LC_NUMERIC: a point
    return text;
}

// Throughput in GB/s (TFLOP/s for arithmetic) with its unit, for the table.
std::string throughputText(const bench::BenchResult& r) {
    if (r.operation == bench::Operation::Arithmetic)
        return number(r.operationsPerSecond / 1e9, "%.4g") + " GFLOP/s";
    return number(r.bytesPerSecond / 1e9, "%.4g") + " GB/s";
}

void printDevicesAndRequest(const std::vector<bench::DeviceInfo>& devices,
                            const bench::BenchRequest& request, std::ostream& out) {
    for (const bench::DeviceInfo& d : devices) {
        out << d.backend << " device " << d.index << ": " << d.name;
        if (d.computeUnits > 0)
            out << ", " << d.computeUnits
                << (d.backend == "cpu" ? " hardware threads" : " compute units");
        if (d.lastLevelCacheBytes > 0)
            out << ", last-level cache " << (d.lastLevelCacheBytes >> 20) << " MiB";
        if (!d.driver.empty())
            out << ", " << d.driver;
        out << "\n  " << d.details << '\n';
    }
    out << "distribution " << bench::distributionId(request.distribution) << ", rounding "
        << roundingModeId(request.rounding.mode) << "/"
        << overflowPolicyId(request.rounding.overflow) << ", budget "
        << number(request.plan.budget.count(), "%g") << " s per measurement\n\n";
}

// The table of results.
void printResultsTable(const std::vector<bench::BenchResult>& results, std::ostream& out) {
    TextTable table({"backend", "operation", "format", "path", "size", "threads", "verified",
                     "G elem/s", "throughput", "% of ceiling", "spread"});
    for (const bench::BenchResult& r : results) {
        const bool arithmetic = r.operation == bench::Operation::Arithmetic;
        const std::string operation =
            r.operation == bench::Operation::Convert
                ? (r.direction == bench::Direction::Encode ? "fp32->" + r.format
                                                           : r.format + "->fp32")
                : std::string(bench::operationId(r.operation));
        // ± half the range of the samples, relative to the median.
        const double spread =
            r.time.median > 0 ? (r.time.max - r.time.min) / (2 * r.time.median) * 100 : 0;
        std::string verified = r.verified ? "yes" : (r.exactByDesign ? "NO" : "differs");
        if (!r.verified && r.checked == 0)
            verified = arithmetic ? "-" : "unchecked";
        else if (!r.verified)
            verified += " (" + std::to_string(r.mismatches) + "/" + std::to_string(r.checked) + ")";
        table.addRow({r.backend, arithmetic ? "arithmetic" : operation,
                      arithmetic || r.operation == bench::Operation::Copy ? r.format : "", r.path,
                      arithmetic ? "-" : bench::sizeLabel(r.elements), std::to_string(r.threads),
                      verified, arithmetic ? "-" : number(r.elementsPerSecond / 1e9, "%.3g"),
                      throughputText(r),
                      r.ceiling > 0 ? number(r.throughput() / r.ceiling * 100, "%.0f%%") : "-",
                      number(spread, "±%.0f%%")});
    }
    table.print(out, false);
    if (std::any_of(results.begin(), results.end(), [](const bench::BenchResult& r) {
            return r.ceilingName.rfind(bench::kCopyAlongside, 0) == 0;
        }))
        out << "\n% of ceiling: each CPU conversion against memcpy of the same arrays, timed "
               "between its own samples.\n";
}

// The accumulation ratios: each sum beside its reference, timed alongside it; a table per
// workload, since where the sum goes decides how fast an emulated sum runs.
void printAccumulation(const std::vector<bench::AccumulationBenchRow>& rows, std::size_t terms,
                       std::ostream& out) {
    if (rows.empty())
        return;
    out << "\nAccumulation on one thread, " << terms << " terms ("
        << bench::accumulationBenchTerms() << "), each timed alongside its reference:\n";
    for (const bench::AccumulationWorkload& workload : bench::accumulationWorkloads()) {
        if (std::none_of(rows.begin(), rows.end(), [&](const bench::AccumulationBenchRow& r) {
                return r.workload == workload.label;
            }))
            continue;
        out << "\n" << workload.label << ", " << workload.distribution << ":\n";
        TextTable table(
            {"sum", "path", "verified", "G terms/s", "reference", "G terms/s", "ratio", "goal"});
        for (const bench::AccumulationBenchRow& r : rows) {
            if (r.workload != workload.label)
                continue;
            const bool goalMet = r.ratio >= r.goal;
            table.addRow({r.what, r.path, r.verified ? "yes" : "NO",
                          number(r.termsPerSecond / 1e9, "%.3g"), r.reference,
                          number(r.referenceTermsPerSecond / 1e9, "%.3g"),
                          number(r.ratio, "%.2f") + "x",
                          ">= " + number(r.goal, "%.2g") + "x" + (goalMet ? "" : " (not met)")});
        }
        table.print(out, false);
    }
    out << "\nratio: the reference's time over the sum's (median of the samples), so 0.25x is a "
           "quarter of the reference's speed.\n";
    for (const bench::AccumulationBenchRow& r : rows)
        if (!r.verified)
            out << "  " << r.what << ", " << r.workload << ": " << r.note << '\n';
}

// The quantization ratios: each quantizer beside memcpy on as many threads, and the file check.
void printQuantization(const bench::QuantizationBenchReport& report, std::ostream& out) {
    if (report.rows.empty())
        return;
    out << "\nQuantization on " << report.threads << " thread(s), " << report.elements
        << " FP32 values (normal), blocks of " << report.block
        << ", each timed alongside memcpy on as many threads:\n";
    TextTable table({"format", "path", "verified", "G elements/s", "GB/s", "memcpy GB/s", "ratio",
                     "goal", "passes", "bare loop"});
    for (const bench::QuantizationBenchRow& r : report.rows) {
        const bool goalMet = r.ratio >= r.goal;
        table.addRow(
            {r.format, r.path, r.verified ? "yes" : "NO", number(r.elementsPerSecond / 1e9, "%.3g"),
             number(r.bytesPerSecond / 1e9, "%.3g"),
             number(r.referenceBytesPerSecond / 1e9, "%.3g"), number(r.ratio, "%.2f") + "x",
             ">= " + number(r.goal, "%.2g") + "x" + (goalMet ? "" : " (not met)"),
             std::to_string(r.passes), r.bareRatio > 0 ? number(r.bareRatio, "%.2f") + "x" : "-"});
    }
    table.print(out, false);
    out << "\nGB/s counts the FP32 input read and the codes (1 byte each) and scale codes (4 bytes "
           "each) written; memcpy's, the input read and its copy written. ratio: the "
           "quantizer's GB/s over memcpy's (medians). passes: the times the quantizer reads the "
           "tensor (NVFP4 first finds its amax for the tensor scale). bare loop: the same reads "
           "and a byte stored per element with nothing worked out, credited with the quantizer's "
           "bytes: what a quantizer of that many passes would reach here if its arithmetic cost "
           "nothing.\n";
    for (const bench::QuantizationBenchRow& r : report.rows)
        if (!r.verified)
            out << "  " << r.format << ": " << r.note << '\n';
    bool headed = false;
    TextTable files({"formats", "read s", "fpx quantize s", "ratio", "goal"});
    for (const bench::QuantizationFileCheck& f : report.files) {
        if (!f.note.empty())
            out << "  file check (" << f.format << "): " << f.note << '\n';
        if (!f.ran)
            continue;
        if (!headed)
            out << "\nfpx quantize --input FILE (" << f.tensors
                << " FP32 tensors, the whole report) on a .safetensors of " << f.fileBytes
                << " bytes against reading it (read() into 1 MiB, like cat FILE > /dev/null); "
                << f.pageCache << ":\n";
        headed = true;
        files.addRow(
            {f.format, number(f.readTime.median, "%.3g"),
             number(f.loadAndQuantizeTime.median, "%.3g"), number(f.ratio, "%.2f") + "x",
             "<= " + number(f.goal, "%.2g") + "x" + (f.ratio <= f.goal ? "" : " (not met)")});
    }
    if (headed)
        files.print(out, false);
}

void printDifferences(const std::vector<bench::BenchResult>& results, std::ostream& out) {
    bool anyNote = false;
    for (const bench::BenchResult& r : results)
        if (!r.verified && !r.note.empty() && r.operation != bench::Operation::Arithmetic) {
            if (!anyNote)
                out << "\nDifferences from the exact core:\n";
            anyNote = true;
            out << "  " << r.backend << " " << r.format << " " << bench::directionId(r.direction)
                << " " << r.path << ": " << r.note << '\n';
        }
}

} // namespace

void renderBenchList(const bench::LoadedBackends& loaded, const std::vector<FormatSpec>& formats,
                     std::ostream& out) {
    for (const auto& backend : loaded.backends) {
        const std::string reason = backend->unavailableReason();
        out << backend->displayName() << " (" << backend->id()
            << "): " << (reason.empty() ? "available" : "unavailable: " + reason) << '\n';
        if (!reason.empty())
            continue;
        for (const bench::DeviceInfo& d : backend->devices()) {
            out << "  device " << d.index << ": " << d.name;
            if (!d.driver.empty())
                out << " (" << d.driver << ")";
            out << "\n    " << d.details << '\n';
            TextTable table({"format", "encode", "decode"});
            for (const FormatSpec& f : formats)
                table.addRow({f.id,
                              std::string(bench::supportId(
                                  backend->support(d.index, f, bench::Direction::Encode))),
                              std::string(bench::supportId(
                                  backend->support(d.index, f, bench::Direction::Decode)))});
            std::ostringstream text;
            table.print(text, false);
            std::istringstream lines(text.str());
            for (std::string line; std::getline(lines, line);)
                out << "    " << line << '\n';
        }
    }
    for (const std::string& problem : loaded.problems)
        out << "not loaded: " << problem << '\n';
}

void renderBenchText(const BenchReport& report, std::ostream& out) {
    printDevicesAndRequest(report.devices, report.request, out);
    printResultsTable(report.results, out);
    printAccumulation(report.accumulation, report.accumulationTerms, out);
    printQuantization(report.quantization, out);
    printDifferences(report.results, out);
}

std::vector<bench::BenchResult> benchResultRows(const BenchReport& report) {
    std::vector<bench::BenchResult> rows = report.results;
    // The sums and quantizers run on the CPU, whose device the CPU backend listed.
    bench::DeviceInfo cpu;
    cpu.backend = "cpu";
    for (const bench::DeviceInfo& d : report.devices)
        if (d.backend == "cpu") {
            cpu = d;
            break;
        }
    const std::vector<bench::BenchResult> sums =
        bench::accumulationResults(report.accumulation, report.accumulationTerms, cpu);
    const std::vector<bench::BenchResult> quantizers =
        bench::quantizationResults(report.quantization, cpu);
    rows.insert(rows.end(), sums.begin(), sums.end());
    rows.insert(rows.end(), quantizers.begin(), quantizers.end());
    return rows;
}

std::optional<CommandError> writeBenchFiles(const BenchOptions& options,
                                            const BenchReport& report) {
    const bench::RunMetadata metadata = bench::describeRun(report.request, report.devices);
    const std::vector<bench::BenchResult> rows = benchResultRows(report);
    if (const auto& path = options.jsonPath) {
        std::ofstream file(*path);
        bench::writeResultsJson(file, metadata, rows);
        if (!file)
            return dataError("cannot write " + *path);
    }
    if (const auto& path = options.csvPath) {
        std::ofstream file(*path);
        bench::writeResultsCsv(file, rows);
        if (!file)
            return dataError("cannot write " + *path);
    }
    return std::nullopt;
}

BenchProgress terminalBenchProgress(std::ostream& err) {
    BenchProgress progress;
    progress.step = [&err](const std::string& backend, double fraction, const std::string& what) {
        err << "\r\033[K" << backend << " " << number(fraction * 100, "%.0f") << "%  " << what
            << std::flush;
    };
    progress.ended = [&err] { err << "\r\033[K" << std::flush; };
    return progress;
}

} // namespace fpx::cli
