// SPDX-License-Identifier: GPL-3.0-or-later
// fpx bench: conversion throughput on this machine, beside its own copy bandwidth.
#include "arguments.h"
#include "commands.h"
#include "fpx/json_writer.h"
#include "text_table.h"

#include "fpx/bench/cpu_conversion_bench.h"
#include "fpx/format_catalogue.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

namespace fpx::cli {

namespace {

std::string number(double value, const char* format = "%.4g") {
    char text[64];
    std::snprintf(text, sizeof text, format, value); // the "C" locale: a point, never a comma
    return text;
}

std::string cpuModel() {
    std::ifstream info("/proc/cpuinfo");
    std::string line;
    while (std::getline(info, line))
        if (line.rfind("model name", 0) == 0)
            return line.substr(line.find(':') + 2);
    return "unknown CPU";
}

bool parseSizes(const std::string& text, std::vector<std::size_t>& sizes) {
    std::stringstream stream(text);
    std::string item;
    sizes.clear();
    while (std::getline(stream, item, ',')) {
        char* end = nullptr;
        const unsigned long long value = std::strtoull(item.c_str(), &end, 10);
        std::size_t scale = 1;
        if (end && (*end == 'k' || *end == 'K'))
            scale = 1 << 10, ++end;
        else if (end && (*end == 'm' || *end == 'M'))
            scale = 1 << 20, ++end;
        if (item.empty() || !end || *end != '\0' || value == 0 || value > (1ull << 30) / scale)
            return false;
        sizes.push_back(static_cast<std::size_t>(value) * scale);
    }
    return !sizes.empty();
}

} // namespace

int runBench(const std::vector<std::string>& rawArgs, Streams& io) {
    Arguments args(
        rawArgs,
        {"backend", "formats", "sizes", "threads", "budget", "json", "csv", "distribution"}, {});
    const char* usage =
        "usage: fpx bench [--backend cpu] [--formats ID,...] [--sizes 16k,16M] [--threads N]\n"
        "                 [--budget SECONDS] [--distribution normal|subnormal|overflow|nan]\n"
        "                 [--json FILE] [--csv FILE]\n";
    if (!args.ok() || !args.positionals().empty()) {
        io.err << "fpx bench: "
               << (args.ok() ? "unexpected argument '" + args.positionals().front() + "'"
                             : args.error())
               << '\n'
               << usage;
        return kExitUsage;
    }
    const std::string backend = args.value("backend").value_or("cpu");
    if (backend != "cpu") {
        io.err << "fpx bench: backend '" << backend
               << "' is not available in this build (only cpu so far; CUDA and OpenCL come next)\n";
        return kExitUsage;
    }
    bench::CpuBenchRequest request;
    FormatListLookup formats = findFormats(
        args.value("formats").value_or("fp16,bf16,fp8_e4m3,fp8_e5m2,fp6_e3m2,fp4_e2m1"));
    if (!formats.error.empty()) {
        io.err << "fpx bench: --formats: " << formats.error << '\n';
        return kExitUsage;
    }
    request.targets = std::move(formats.specs);
    if (auto sizes = args.value("sizes"); sizes && !parseSizes(*sizes, request.sizes)) {
        io.err << "fpx bench: --sizes: expected element counts such as 16k,16M (at most 1G)\n";
        return kExitUsage;
    }
    if (auto threads = args.value("threads")) {
        request.threads = std::atoi(threads->c_str());
        if (request.threads < 1 || request.threads > 1024) {
            io.err << "fpx bench: --threads: expected 1 to 1024\n";
            return kExitUsage;
        }
    }
    if (auto budget = args.value("budget")) {
        const double seconds = std::strtod(budget->c_str(), nullptr);
        if (!(seconds > 0 && seconds <= 600)) {
            io.err << "fpx bench: --budget: expected seconds per measurement, up to 600\n";
            return kExitUsage;
        }
        request.plan.budget = std::chrono::duration<double>(seconds);
    } else {
        request.plan.budget = std::chrono::duration<double>(0.3);
    }
    const std::string distribution = args.value("distribution").value_or("normal");
    if (distribution == "normal")
        request.distribution = bench::InputDistribution::Normal;
    else if (distribution == "subnormal")
        request.distribution = bench::InputDistribution::Subnormal;
    else if (distribution == "overflow")
        request.distribution = bench::InputDistribution::Overflowing;
    else if (distribution == "nan")
        request.distribution = bench::InputDistribution::WithNaN;
    else {
        io.err << "fpx bench: --distribution: use normal, subnormal, overflow or nan\n";
        return kExitUsage;
    }

    const std::vector<bench::CpuResult> results = bench::runCpuConversionBench(request);
    const std::string cpu = cpuModel();
    const unsigned cores = std::thread::hardware_concurrency();

    TextTable table({"conversion", "elements", "threads", "path", "verified", "G elem/s", "GB/s",
                     "% of memcpy", "spread"});
    double copyBandwidth = 0;
    for (const bench::CpuResult& r : results) {
        if (r.name == "memcpy")
            copyBandwidth = r.bytesPerSecond;
        const double spread =
            r.time.median > 0 ? (r.time.max - r.time.min) / r.time.median * 100 : 0;
        table.addRow(
            {r.name, std::to_string(r.elements), std::to_string(r.threads), r.path,
             r.verified ? "yes" : "NO", number(r.elementsPerSecond / 1e9),
             number(r.bytesPerSecond / 1e9),
             copyBandwidth > 0 ? number(r.bytesPerSecond / copyBandwidth * 100, "%.0f%%") : "-",
             number(spread, "±%.0f%%")});
    }
    io.out << "CPU: " << cpu << " (" << cores << " hardware threads), distribution " << distribution
           << "\n\n";
    table.print(io.out, false);

    if (auto path = args.value("json")) {
        std::ofstream file(*path);
        JsonWriter json(file);
        json.beginObject();
        json.field("backend", "cpu");
        json.field("device", cpu);
        json.fieldNumber("hardware_threads", std::to_string(cores));
        json.field("distribution", distribution);
        json.field("fpx_version", FPX_VERSION);
        json.key("results");
        json.beginArray();
        for (const bench::CpuResult& r : results) {
            json.beginObject();
            json.field("name", r.name);
            json.fieldNumber("elements", std::to_string(r.elements));
            json.fieldNumber("threads", std::to_string(r.threads));
            json.field("path", r.path);
            json.fieldBool("verified", r.verified);
            json.fieldNumber("median_seconds", number(r.time.median, "%.9g"));
            json.fieldNumber("min_seconds", number(r.time.min, "%.9g"));
            json.fieldNumber("max_seconds", number(r.time.max, "%.9g"));
            json.fieldNumber("samples", std::to_string(r.time.samples));
            json.fieldNumber("elements_per_second", number(r.elementsPerSecond, "%.6g"));
            json.fieldNumber("bytes_per_second", number(r.bytesPerSecond, "%.6g"));
            json.endObject();
        }
        json.endArray();
        json.endObject();
        if (!file) {
            io.err << "fpx bench: cannot write " << *path << '\n';
            return kExitDataError;
        }
    }
    if (auto path = args.value("csv")) {
        std::ofstream file(*path);
        file << "name,elements,threads,path,verified,median_seconds,elements_per_second,bytes_per_"
                "second\n";
        for (const bench::CpuResult& r : results)
            file << r.name << ',' << r.elements << ',' << r.threads << ',' << r.path << ','
                 << (r.verified ? "true" : "false") << ',' << number(r.time.median, "%.9g") << ','
                 << number(r.elementsPerSecond, "%.6g") << ',' << number(r.bytesPerSecond, "%.6g")
                 << '\n';
        if (!file) {
            io.err << "fpx bench: cannot write " << *path << '\n';
            return kExitDataError;
        }
    }
    for (const bench::CpuResult& r : results)
        if (!r.verified)
            return kExitDataError;
    return kExitOk;
}

} // namespace fpx::cli
