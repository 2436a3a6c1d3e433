// SPDX-License-Identifier: GPL-3.0-or-later
// fpx bench: conversion and arithmetic throughput on the CPU, CUDA and OpenCL devices, beside
// each device's own copy bandwidth and datasheet figures. The options, the backends they select
// and the measurements; bench_render.cpp prints them.
#include "arguments.h"
#include "bench.h"
#include "commands.h"
#include "text_table.h"

#include "fpx/bench/sizes.h"
#include "fpx/exact/format_catalogue.h"

#include <unistd.h>

#include <algorithm>
#include <sstream>
#include <thread>

namespace fpx::cli {

namespace {

constexpr const char* kUsage =
    "usage: fpx bench [--preset full|class] [--backend cpu|cuda|opencl|all] [--formats ID,...]\n"
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
    "  tensor's size, or --quantize-file-bytes N; 0: none) against reading it.\n"
    "  --json FILE and --csv FILE hold every row, the sums and quantizers with their ratios\n"
    "  and goals, for the Benchmarks page to compare with.\n"
    "  --preset class: a run a class watches in seconds: FP32 -> BF16, FP16, FP8 E4M3 and\n"
    "  FP4 E2M1 in cache on one thread, each by its fastest bit-exact path, beside memcpy.\n";

constexpr const char* kDefaultFormats = "fp16,bf16,tf32,fp8_e4m3,fp8_e5m2,fp8_e4m3fnuz,"
                                        "fp8_e5m2fnuz,fp6_e3m2,fp6_e2m3,fp4_e2m1,int8,int4,nf4";

std::vector<std::string> splitList(const std::string& text) {
    std::vector<std::string> items;
    std::stringstream stream(text);
    std::string item;
    while (std::getline(stream, item, ','))
        items.push_back(item);
    return items;
}

// The measurements the options ask for; "" or the usage error, naming the option.
std::string readRequest(const Arguments& args, bench::BenchRequest& request) {
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
        const ParsedRounding parsed = parseRoundingChoice(*mode);
        if (!parsed.choice)
            return "--round: " + parsed.error;
        // The kernels measured draw all 64 random bits.
        if (parsed.choice->stochastic.count != 0)
            return "--round " + *mode +
                   ": the benchmarks run plain sr; stochastic rounding with few random bits is "
                   "the exact core's (fpx convert, fpx show)";
        request.rounding.mode = parsed.choice->mode;
    }
    if (auto policy = args.value("overflow")) {
        const auto parsed = parseOverflowPolicy(*policy);
        // The kernels and backends measured implement these two; P3109's other saturation
        // modes are the exact core's (fpx convert, fpx show).
        if (!parsed || (*parsed != OverflowPolicy::Ieee && *parsed != OverflowPolicy::Saturate))
            return "--overflow: the benchmarks run ieee or saturate";
        request.rounding.overflow = *parsed;
    }
    request.arithmetic = !args.has("no-arithmetic");
    request.conversions = !args.has("no-conversions");
    return {};
}

// One count of --accumulation-terms, --quantization-elements or --quantize-file-bytes.
std::optional<std::size_t> readOneSize(const std::string& text) {
    const bench::SizeList parsed = bench::parseSizes(text);
    if (!parsed.error.empty() || parsed.sizes.size() != 1)
        return std::nullopt;
    return parsed.sizes.front();
}

} // namespace

// The options a preset fixes, refused beside --preset class.
constexpr const char* kPresetFixed[] = {"formats",
                                        "directions",
                                        "sizes",
                                        "threads",
                                        "budget",
                                        "round",
                                        "overflow",
                                        "distribution",
                                        "accumulation-terms",
                                        "quantization-elements",
                                        "quantize-file-bytes",
                                        "no-arithmetic",
                                        "no-conversions",
                                        "no-accumulation",
                                        "no-quantization"};

Outcome<BenchOptions> parseBenchOptions(const Arguments& args) {
    BenchOptions options;
    if (auto preset = args.value("preset")) {
        const auto parsed = bench::parseBenchPreset(*preset);
        if (!parsed)
            return CommandError{"--preset: use full or class"};
        options.preset = *parsed;
    }
    if (options.preset == bench::BenchPreset::Class) {
        for (const char* option : kPresetFixed)
            if (args.has(option))
                return CommandError{std::string("--") + option +
                                    ": --preset class fixes what is measured"};
        options.request = bench::classBenchRequest();
        options.accumulationBench = false;
        options.quantizationBench = false;
        options.backend = args.value("backend").value_or("cpu");
        options.list = args.has("list");
        options.jsonPath = args.value("json");
        options.csvPath = args.value("csv");
        return options;
    }
    bench::BenchRequest& request = options.request;
    if (const std::string error = readRequest(args, request); !error.empty())
        return CommandError{error};

    if (!request.sizes.empty())
        options.accumulationTerms = *std::max_element(request.sizes.begin(), request.sizes.end());
    if (auto text = args.value("accumulation-terms")) {
        const auto terms = readOneSize(*text);
        if (!terms)
            return CommandError{"--accumulation-terms: expected one count such as 1M or 100000000"};
        options.accumulationTerms = *terms;
    }
    // The quantization tensor follows --sizes like the accumulation terms, and the file check
    // then writes that tensor (so that a short run stays short).
    bench::QuantizationBenchRequest& quantization = options.quantization;
    quantization.plan = request.plan;
    if (!request.sizes.empty()) {
        quantization.elements = *std::max_element(request.sizes.begin(), request.sizes.end());
        quantization.fileBytes = quantization.elements * sizeof(float);
    }
    if (auto text = args.value("quantization-elements")) {
        const auto elements = readOneSize(*text);
        if (!elements || *elements == 0)
            return CommandError{"--quantization-elements: expected one count such as 64M"};
        quantization.elements = *elements;
    }
    if (auto text = args.value("quantize-file-bytes")) {
        const auto bytes = readOneSize(*text);
        if (*text == "0")
            quantization.fileBytes = 0;
        else if (!bytes)
            return CommandError{"--quantize-file-bytes: expected one size such as 1G, or 0"};
        else
            quantization.fileBytes = *bytes;
    }
    options.backend = args.value("backend").value_or("cpu");
    options.list = args.has("list");
    options.accumulationBench = !args.has("no-accumulation");
    options.quantizationBench = !args.has("no-quantization");
    options.jsonPath = args.value("json");
    options.csvPath = args.value("csv");
    return options;
}

BackendSelection selectBackends(const BenchOptions& options) {
    // Only `--backend all` opens every plugin: a CPU run never touches a GPU or OpenCL driver,
    // so a broken one cannot stop it.
    const std::string& wanted = options.backend;
    BackendSelection selection;
    selection.loaded = wanted == "all" ? bench::loadBackends() : bench::loadBackend(wanted);
    for (const auto& backend : selection.loaded.backends) {
        if (wanted != "all" && backend->id() != wanted)
            continue;
        const std::string reason = backend->unavailableReason();
        if (!reason.empty()) {
            const std::string problem = backend->displayName() + " is unavailable: " + reason;
            if (wanted != "all") {
                selection.error = CommandError{problem};
                selection.backends.clear();
                return selection;
            }
            selection.notes.push_back(problem);
            continue;
        }
        selection.backends.push_back(backend.get());
    }
    if (selection.backends.empty()) {
        if (wanted != "all" && wanted != "cpu" && wanted != "cuda" && wanted != "opencl") {
            selection.error = CommandError{"--backend: use cpu, cuda, opencl or all"};
            return selection;
        }
        for (const std::string& problem : selection.loaded.problems)
            if (problem.rfind(wanted + ":", 0) == 0)
                selection.notes.push_back(problem);
        selection.error = CommandError{"backend '" + wanted + "' is not available on this machine"};
    }
    return selection;
}

BenchReport computeBench(const BenchOptions& options, const std::vector<bench::Backend*>& backends,
                         const BenchProgress& progress) {
    BenchReport report;
    report.request = options.request;
    report.accumulationTerms = options.accumulationTerms;
    auto ended = [&progress] {
        if (progress.ended)
            progress.ended();
    };
    for (bench::Backend* backend : backends) {
        for (const bench::DeviceInfo& d : backend->devices())
            report.devices.push_back(d);
        backend->run(
            options.request, [&](const bench::BenchResult& r) { report.results.push_back(r); },
            [&](double fraction, const std::string& what) {
                if (progress.step)
                    progress.step(backend->id(), fraction, what);
            },
            nullptr);
        ended();
    }
    auto cpuStep = [&progress](double fraction, const std::string& what) {
        if (progress.step)
            progress.step("cpu", fraction, what);
    };
    // Sums in emulated formats and the block quantizers: CPU measurements beside the
    // conversions and arithmetic.
    const bool cpuSelected = std::any_of(backends.begin(), backends.end(),
                                         [](bench::Backend* b) { return b->id() == "cpu"; });
    const bool ratios = cpuSelected && options.request.conversions && options.request.arithmetic;
    if (ratios && options.accumulationBench) {
        report.accumulation = bench::runAccumulationBench(
            bench::AccumulationBenchRequest{options.accumulationTerms, options.request.plan},
            cpuStep);
        ended();
    }
    if (ratios && options.quantizationBench) {
        report.quantization = bench::runQuantizationBench(options.quantization, cpuStep);
        ended();
    }
    report.disagreed =
        std::any_of(report.results.begin(), report.results.end(),
                    [](const bench::BenchResult& r) { return !r.verified && r.exactByDesign; }) ||
        std::any_of(report.accumulation.begin(), report.accumulation.end(),
                    [](const bench::AccumulationBenchRow& r) { return !r.verified; }) ||
        std::any_of(report.quantization.rows.begin(), report.quantization.rows.end(),
                    [](const bench::QuantizationBenchRow& r) { return !r.verified; });
    return report;
}

namespace {

// The class preset's few rows, as the Benchmarks page's class run shows them: each conversion
// by its fastest bit-exact path, named as a class reads it, below memcpy of the same size.
void renderClassBench(const BenchReport& report, std::ostream& out) {
    for (const bench::DeviceInfo& d : report.devices)
        out << d.backend << ": " << d.name << '\n';
    TextTable table({"conversion", "GB/s", "G elements/s"});
    for (const bench::BenchResult& r : bench::fastestExactPaths(report.results)) {
        std::ostringstream gbs, elements;
        gbs.precision(3);
        elements.precision(3);
        gbs << r.bytesPerSecond / 1e9;
        elements << r.elementsPerSecond / 1e9;
        table.addRow({bench::readableLabel(r), gbs.str(), elements.str()});
    }
    table.print(out, false);
    out << "32 Ki elements in cache, 1 thread; bytes read + written. The full run: fpx bench.\n";
}

} // namespace

int runBench(const std::vector<std::string>& rawArgs, Streams& io) {
    const Arguments args(
        rawArgs,
        {"backend", "formats", "directions", "sizes", "threads", "budget", "samples", "json", "csv",
         "distribution", "round", "overflow", "accumulation-terms", "quantization-elements",
         "quantize-file-bytes", "preset"},
        {"no-arithmetic", "no-conversions", "no-accumulation", "no-quantization", "list"});
    if (const auto stop = checkOptionsOnly(args, io, "bench", kUsage))
        return *stop;
    const Outcome<BenchOptions> options = parseBenchOptions(args);
    if (!options)
        return reportError(io, "bench", options.error());
    if (options->list) {
        renderBenchList(bench::loadBackends(), options->request.formats, io.out);
        return kExitOk;
    }
    const BackendSelection selection = selectBackends(*options);
    for (const std::string& note : selection.notes)
        io.err << "fpx bench: " << note << '\n';
    if (selection.error)
        return reportError(io, "bench", *selection.error);
    const BenchReport report =
        computeBench(*options, selection.backends,
                     isatty(STDERR_FILENO) == 1 ? terminalBenchProgress(io.err) : BenchProgress{});
    if (options->preset == bench::BenchPreset::Class)
        renderClassBench(report, io.out);
    else
        renderBenchText(report, io.out);
    if (const auto error = writeBenchFiles(*options, report))
        return reportError(io, "bench", *error);
    if (report.disagreed)
        io.err << "fpx bench: a path that should be bit-exact disagreed with the exact core\n";
    return report.disagreed ? kExitDataError : kExitOk;
}

} // namespace fpx::cli
