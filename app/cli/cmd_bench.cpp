// SPDX-License-Identifier: GPL-3.0-or-later
// fpx bench: conversion and arithmetic throughput on the CPU, CUDA and OpenCL devices, beside
// each device's own copy bandwidth and datasheet figures.
#include "arguments.h"
#include "commands.h"
#include "text_table.h"

#include "fpx/bench/accumulation_bench.h"
#include "fpx/bench/backend.h"
#include "fpx/bench/quantization_bench.h"
#include "fpx/bench/result_io.h"
#include "fpx/bench/sizes.h"
#include "fpx/exact/format_catalogue.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

namespace fpx::cli {

namespace {

constexpr const char* kUsage =
    "usage: fpx bench [--backend cpu|cuda|opencl|all] [--formats ID,...]\n"
    "                 [--directions encode,decode] [--sizes 32k,256M] [--threads 1,all]\n"
    "                 [--budget SECONDS] [--samples N] [--round MODE] [--overflow POLICY]\n"
    "                 [--distribution normal|subnormal|overflow|nan] [--no-arithmetic]\n"
    "                 [--no-conversions] [--no-accumulation] [--accumulation-terms N]\n"
    "                 [--no-quantization] [--quantization-elements N]\n"
    "                 [--quantize-file-bytes N] [--json FILE] [--csv FILE] [--list]\n"
    "  Conversions are FP32 -> format (encode) and format -> FP32 (decode), through every\n"
    "  path the device has, each checked bit for bit against the exact core first.\n"
    "  Default sizes: 32k elements (in cache) and beyond the last-level cache.\n"
    "  A CPU run with conversions and arithmetic also times sums in FP16, BF16 and FP8\n"
    "  against a plain float loop, on positive terms (the sum settles) and on zero-mean\n"
    "  terms (the sum wanders across binades), and the exact sum against memcpy, on 10^8\n"
    "  terms (or the largest --sizes count, or --accumulation-terms N).\n"
    "  It also times the block quantizers (MXFP8, MXFP4, NVFP4, NF4, INT4, blocks of 128) on\n"
    "  2^26 FP32 values (or the largest --sizes count, or --quantization-elements N) on every\n"
    "  thread against memcpy, and loading + quantizing a .safetensors file of 1 GiB (or that\n"
    "  tensor's size, or --quantize-file-bytes N; 0: none) against reading it.\n";

constexpr const char* kDefaultFormats = "fp16,bf16,tf32,fp8_e4m3,fp8_e5m2,fp8_e4m3fnuz,"
                                        "fp8_e5m2fnuz,fp6_e3m2,fp6_e2m3,fp4_e2m1,int8,int4,nf4";

std::string number(double value, const char* format = "%.3g") {
    char text[64];
    std::snprintf(text, sizeof text, format, value); // fpx never sets LC_NUMERIC: a point
    return text;
}

std::vector<std::string> splitList(const std::string& text) {
    std::vector<std::string> items;
    std::stringstream stream(text);
    std::string item;
    while (std::getline(stream, item, ','))
        items.push_back(item);
    return items;
}

// Throughput in GB/s (TFLOP/s for arithmetic) with its unit, for the table.
std::string throughputText(const bench::BenchResult& r) {
    if (r.operation == bench::Operation::Arithmetic)
        return number(r.operationsPerSecond / 1e9, "%.4g") + " GFLOP/s";
    return number(r.bytesPerSecond / 1e9, "%.4g") + " GB/s";
}

void listBackends(const bench::LoadedBackends& loaded, const std::vector<FormatSpec>& formats,
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

// The request the options ask for; "" or the usage error, naming the option.
std::string parseRequest(const Arguments& args, bench::BenchRequest& request) {
    FormatListLookup formats = findFormats(args.value("formats").value_or(kDefaultFormats));
    if (!formats.error.empty())
        return "--formats: " + formats.error;
    request.formats = std::move(formats.specs);
    if (auto directions = args.value("directions")) {
        request.directions.clear();
        for (const std::string& d : splitList(*directions)) {
            if (d == "encode")
                request.directions.push_back(bench::Direction::Encode);
            else if (d == "decode")
                request.directions.push_back(bench::Direction::Decode);
            else
                return "--directions: '" + d + "' is neither encode nor decode";
        }
        if (request.directions.empty())
            return "--directions: give encode, decode or both";
    }
    if (auto sizes = args.value("sizes")) {
        bench::SizeList parsed = bench::parseSizes(*sizes);
        if (!parsed.error.empty())
            return "--sizes: " + parsed.error;
        request.sizes = std::move(parsed.sizes);
    }
    const int hardwareThreads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (auto threads = args.value("threads")) {
        for (const std::string& t : splitList(*threads)) {
            const int n = t == "all" ? hardwareThreads : std::atoi(t.c_str());
            if (n < 1 || n > 1024 || (t != "all" && std::to_string(n) != t))
                return "--threads: '" + t + "' is not 1 to 1024 or 'all'";
            request.threads.push_back(n);
        }
    }
    request.plan.budget = std::chrono::duration<double>(0.25);
    if (auto budget = args.value("budget")) {
        char* end = nullptr;
        const double seconds = std::strtod(budget->c_str(), &end);
        if (!end || *end != '\0' || !(seconds > 0 && seconds <= 600))
            return "--budget: expected seconds per measurement, more than 0, up to 600";
        request.plan.budget = std::chrono::duration<double>(seconds);
    }
    if (auto samples = args.value("samples")) {
        request.plan.samples = std::atoi(samples->c_str());
        if (request.plan.samples < 1 || request.plan.samples > 1000 ||
            std::to_string(request.plan.samples) != *samples)
            return "--samples: expected 1 to 1000";
    }
    if (auto distribution = args.value("distribution")) {
        const auto parsed = bench::parseDistribution(*distribution);
        if (!parsed)
            return "--distribution: use normal, subnormal, overflow or nan";
        request.distribution = *parsed;
    }
    if (auto mode = args.value("round")) {
        const auto parsed = parseRoundingMode(*mode);
        if (!parsed)
            return "--round: unknown rounding mode '" + *mode + "'";
        request.rounding.mode = *parsed;
    }
    if (auto policy = args.value("overflow")) {
        const auto parsed = parseOverflowPolicy(*policy);
        if (!parsed)
            return "--overflow: use ieee or saturate";
        request.rounding.overflow = *parsed;
    }
    request.arithmetic = !args.has("no-arithmetic");
    request.conversions = !args.has("no-conversions");
    return {};
}

// The backends --backend names that can run. Empty with the exit code set when none can.
std::vector<bench::Backend*> selectBackends(const bench::LoadedBackends& loaded,
                                            const std::string& wanted, Streams& io, int& exitCode) {
    std::vector<bench::Backend*> selected;
    for (const auto& backend : loaded.backends) {
        if (wanted != "all" && backend->id() != wanted)
            continue;
        const std::string reason = backend->unavailableReason();
        if (!reason.empty()) {
            const std::string problem = backend->displayName() + " is unavailable: " + reason;
            if (wanted != "all") {
                exitCode = usageError(io, "bench", problem);
                return {};
            }
            io.err << "fpx bench: " << problem << '\n';
            continue;
        }
        selected.push_back(backend.get());
    }
    if (selected.empty()) {
        if (wanted != "all" && wanted != "cpu" && wanted != "cuda" && wanted != "opencl") {
            exitCode = usageError(io, "bench", "--backend: use cpu, cuda, opencl or all");
            return {};
        }
        for (const std::string& problem : loaded.problems)
            if (problem.rfind(wanted + ":", 0) == 0)
                io.err << "fpx bench: " << problem << '\n';
        exitCode =
            usageError(io, "bench", "backend '" + wanted + "' is not available on this machine");
    }
    return selected;
}

// Runs the request on every selected backend, with progress on a terminal only (overwritten
// in place); collects the results and the devices they ran on.
void runSelected(const std::vector<bench::Backend*>& selected, const bench::BenchRequest& request,
                 Streams& io, std::vector<bench::BenchResult>& results,
                 std::vector<bench::DeviceInfo>& devices) {
    const bool showProgress = isatty(STDERR_FILENO) == 1;
    for (bench::Backend* backend : selected) {
        for (const bench::DeviceInfo& d : backend->devices())
            devices.push_back(d);
        backend->run(
            request, [&](const bench::BenchResult& r) { results.push_back(r); },
            [&](double fraction, const std::string& what) {
                if (showProgress)
                    io.err << "\r\033[K" << backend->id() << " " << number(fraction * 100, "%.0f")
                           << "%  " << what << std::flush;
            },
            nullptr);
        if (showProgress)
            io.err << "\r\033[K" << std::flush;
    }
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

// The table of results; returns whether a path that should be bit-exact disagreed.
bool printResultsTable(const std::vector<bench::BenchResult>& results, std::ostream& out) {
    TextTable table({"backend", "operation", "format", "path", "size", "threads", "verified",
                     "G elem/s", "throughput", "% of ceiling", "spread"});
    bool failed = false;
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
        failed = failed || (!r.verified && r.exactByDesign);
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
    return failed;
}

// The accumulation ratios: each sum beside its reference, timed alongside it; a table per
// workload, since where the sum goes decides how fast an emulated sum runs.
bool printAccumulation(const std::vector<bench::AccumulationBenchRow>& rows, std::size_t terms,
                       std::ostream& out) {
    if (rows.empty())
        return false;
    out << "\nAccumulation on one thread, " << terms << " terms ("
        << bench::accumulationBenchTerms() << "), each timed alongside its reference:\n";
    bool failed = false;
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
            failed = failed || !r.verified;
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
    return failed;
}

// The quantization ratios: each quantizer beside memcpy on as many threads, and the file check.
bool printQuantization(const bench::QuantizationBenchReport& report, std::ostream& out) {
    if (report.rows.empty())
        return false;
    out << "\nQuantization on " << report.threads << " thread(s), " << report.elements
        << " FP32 values (normal), blocks of " << report.block
        << ", each timed alongside memcpy on as many threads:\n";
    TextTable table({"format", "path", "verified", "G elements/s", "GB/s", "memcpy GB/s", "ratio",
                     "goal", "passes", "bare loop"});
    bool failed = false;
    for (const bench::QuantizationBenchRow& r : report.rows) {
        failed = failed || !r.verified;
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
    const bench::QuantizationFileCheck& f = report.file;
    if (f.ran) {
        out << "\nLoading + quantizing (" << f.format << ", blocks of " << report.block
            << ") a .safetensors file of " << f.fileBytes
            << " bytes against reading it (read() into 1 MiB, like cat FILE > /dev/null); "
            << f.pageCache << ":\n";
        TextTable file({"read s", "load + quantize s", "ratio", "goal"});
        file.addRow(
            {number(f.readTime.median, "%.3g"), number(f.loadAndQuantizeTime.median, "%.3g"),
             number(f.ratio, "%.2f") + "x",
             "<= " + number(f.goal, "%.2g") + "x" + (f.ratio <= f.goal ? "" : " (not met)")});
        file.print(out, false);
    }
    if (!f.note.empty())
        out << "  file check: " << f.note << '\n';
    return failed;
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

// --json and --csv; false (said on stderr) when a file cannot be written.
bool writeOutputs(const Arguments& args, const bench::BenchRequest& request,
                  const std::vector<bench::DeviceInfo>& devices,
                  const std::vector<bench::BenchResult>& results, Streams& io) {
    const bench::RunMetadata metadata = bench::describeRun(request, devices);
    if (auto path = args.value("json")) {
        std::ofstream file(*path);
        bench::writeResultsJson(file, metadata, results);
        if (!file) {
            io.err << "fpx bench: cannot write " << *path << '\n';
            return false;
        }
    }
    if (auto path = args.value("csv")) {
        std::ofstream file(*path);
        bench::writeResultsCsv(file, results);
        if (!file) {
            io.err << "fpx bench: cannot write " << *path << '\n';
            return false;
        }
    }
    return true;
}

} // namespace

int runBench(const std::vector<std::string>& rawArgs, Streams& io) {
    Arguments args(
        rawArgs,
        {"backend", "formats", "directions", "sizes", "threads", "budget", "samples", "json", "csv",
         "distribution", "round", "overflow", "accumulation-terms", "quantization-elements",
         "quantize-file-bytes"},
        {"no-arithmetic", "no-conversions", "no-accumulation", "no-quantization", "list"});
    auto usageError = [&](const std::string& message) {
        return cli::usageError(io, "bench", message);
    };
    if (const auto stop = checkOptionsOnly(args, io, "bench", kUsage))
        return *stop;

    bench::BenchRequest request;
    if (const std::string error = parseRequest(args, request); !error.empty())
        return usageError(error);

    std::size_t accumulationTerms = 100'000'000;
    if (!request.sizes.empty())
        accumulationTerms = *std::max_element(request.sizes.begin(), request.sizes.end());
    if (auto text = args.value("accumulation-terms")) {
        const bench::SizeList parsed = bench::parseSizes(*text);
        if (!parsed.error.empty() || parsed.sizes.size() != 1)
            return usageError("--accumulation-terms: expected one count such as 1M or 100000000");
        accumulationTerms = parsed.sizes.front();
    }
    // The quantization tensor follows --sizes like the accumulation terms, and the file check
    // then writes that tensor (so that a short run stays short).
    bench::QuantizationBenchRequest quantizationRequest;
    quantizationRequest.plan = request.plan;
    if (!request.sizes.empty()) {
        quantizationRequest.elements =
            *std::max_element(request.sizes.begin(), request.sizes.end());
        quantizationRequest.fileBytes = quantizationRequest.elements * sizeof(float);
    }
    if (auto text = args.value("quantization-elements")) {
        const bench::SizeList parsed = bench::parseSizes(*text);
        if (!parsed.error.empty() || parsed.sizes.size() != 1 || parsed.sizes.front() == 0)
            return usageError("--quantization-elements: expected one count such as 64M");
        quantizationRequest.elements = parsed.sizes.front();
    }
    if (auto text = args.value("quantize-file-bytes")) {
        const bench::SizeList parsed = bench::parseSizes(*text);
        if (*text == "0")
            quantizationRequest.fileBytes = 0;
        else if (!parsed.error.empty() || parsed.sizes.size() != 1)
            return usageError("--quantize-file-bytes: expected one size such as 1G, or 0");
        else
            quantizationRequest.fileBytes = parsed.sizes.front();
    }

    // Only a listing and `--backend all` open every plugin: a CPU run never touches a GPU or
    // OpenCL driver, so a broken one cannot stop it.
    const std::string wanted = args.value("backend").value_or("cpu");
    bench::LoadedBackends loaded =
        args.has("list") || wanted == "all" ? bench::loadBackends() : bench::loadBackend(wanted);
    if (args.has("list")) {
        listBackends(loaded, request.formats, io.out);
        return kExitOk;
    }
    int exitCode = kExitOk;
    const std::vector<bench::Backend*> selected = selectBackends(loaded, wanted, io, exitCode);
    if (selected.empty())
        return exitCode;

    std::vector<bench::BenchResult> results;
    std::vector<bench::DeviceInfo> devices;
    runSelected(selected, request, io, results, devices);
    // Sums in emulated formats: a CPU measurement beside the conversions and arithmetic.
    std::vector<bench::AccumulationBenchRow> accumulation;
    const bool cpuSelected = std::any_of(selected.begin(), selected.end(),
                                         [](bench::Backend* b) { return b->id() == "cpu"; });
    if (cpuSelected && request.conversions && request.arithmetic && !args.has("no-accumulation")) {
        const bool showProgress = isatty(STDERR_FILENO) == 1;
        bench::AccumulationBenchRequest accumulationRequest{accumulationTerms, request.plan};
        accumulation = bench::runAccumulationBench(
            accumulationRequest, [&](double fraction, const std::string& what) {
                if (showProgress)
                    io.err << "\r\033[Kcpu " << number(fraction * 100, "%.0f") << "%  " << what
                           << std::flush;
            });
        if (showProgress)
            io.err << "\r\033[K" << std::flush;
    }
    bench::QuantizationBenchReport quantization;
    if (cpuSelected && request.conversions && request.arithmetic && !args.has("no-quantization")) {
        const bool showProgress = isatty(STDERR_FILENO) == 1;
        quantization = bench::runQuantizationBench(
            quantizationRequest, [&](double fraction, const std::string& what) {
                if (showProgress)
                    io.err << "\r\033[Kcpu " << number(fraction * 100, "%.0f") << "%  " << what
                           << std::flush;
            });
        if (showProgress)
            io.err << "\r\033[K" << std::flush;
    }
    printDevicesAndRequest(devices, request, io.out);
    bool failed = printResultsTable(results, io.out);
    failed = printAccumulation(accumulation, accumulationTerms, io.out) || failed;
    failed = printQuantization(quantization, io.out) || failed;
    printDifferences(results, io.out);
    if (!writeOutputs(args, request, devices, results, io))
        return kExitDataError;
    if (failed)
        io.err << "fpx bench: a path that should be bit-exact disagreed with the exact core\n";
    return failed ? kExitDataError : kExitOk;
}

} // namespace fpx::cli
