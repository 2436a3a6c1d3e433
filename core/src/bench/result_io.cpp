// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/bench/result_io.h"

#include "fpx/json_writer.h"

#include <sys/utsname.h>

#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>

namespace fpx::bench {

std::string formatNumber(double value, int significantDigits) {
    // std::to_chars ignores the locale: a point, never a comma or U+066B, even in a GUI that
    // called setlocale(LC_ALL, "").
    if (!std::isfinite(value))
        return "0";
    char text[64];
    const auto [end, error] = std::to_chars(text, text + sizeof text, value,
                                            std::chars_format::general, significantDigits);
    return error == std::errc{} ? std::string(text, end) : "0";
}

namespace {

std::string hostDescription() {
    utsname name{};
    if (uname(&name) != 0)
        return "unknown host";
    return std::string(name.sysname) + " " + name.release + " " + name.machine;
}

std::string utcNow() {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&now, &tm);
    char text[32];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return text;
}

std::string csvField(const std::string& text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos)
        return text;
    std::string quoted = "\"";
    for (char c : text) {
        if (c == '"')
            quoted += '"';
        quoted += c;
    }
    return quoted + '"';
}

} // namespace

RunMetadata describeRun(const BenchRequest& request, const std::vector<DeviceInfo>& devices) {
    RunMetadata m;
    m.fpxVersion = FPX_VERSION;
    m.build = std::string(FPX_COMPILER) + ", " + FPX_BUILD_TYPE +
#if defined(__x86_64__)
              ", x86-64"
#elif defined(__aarch64__)
              ", aarch64"
#else
              ""
#endif
        ;
    m.host = hostDescription();
    m.startedAt = utcNow();
    m.distribution = std::string(distributionId(request.distribution));
    m.rounding = std::string(roundingModeId(request.rounding.mode));
    m.overflow = std::string(overflowPolicyId(request.rounding.overflow));
    m.budgetSeconds = request.plan.budget.count();
    m.samples = request.plan.samples;
    m.devices = devices;
    return m;
}

void writeResultsJson(std::ostream& out, const RunMetadata& metadata,
                      const std::vector<BenchResult>& results) {
    JsonWriter json(out);
    auto number = [&](const char* name, double value) {
        json.fieldNumber(name, formatNumber(value, 9));
    };
    json.beginObject();
    json.field("format", "fpx-bench");
    json.fieldNumber("version", "1");
    json.field("fpx_version", metadata.fpxVersion);
    json.field("build", metadata.build);
    json.field("host", metadata.host);
    json.field("started_at", metadata.startedAt);
    json.field("distribution", metadata.distribution);
    json.field("rounding", metadata.rounding);
    json.field("overflow", metadata.overflow);
    number("budget_seconds", metadata.budgetSeconds);
    json.fieldNumber("samples", std::to_string(metadata.samples));
    json.key("devices");
    json.beginArray();
    for (const DeviceInfo& d : metadata.devices) {
        json.beginObject();
        json.field("backend", d.backend);
        json.fieldNumber("index", std::to_string(d.index));
        json.field("name", d.name);
        json.field("driver", d.driver);
        json.field("details", d.details);
        json.fieldNumber("compute_units", std::to_string(d.computeUnits));
        json.fieldNumber("memory_bytes", std::to_string(d.memoryBytes));
        json.fieldNumber("last_level_cache_bytes", std::to_string(d.lastLevelCacheBytes));
        number("datasheet_bandwidth", d.datasheetBandwidth);
        json.key("datasheet_peaks");
        json.beginObject();
        for (const auto& [format, peak] : d.datasheetPeaks)
            number(format.c_str(), peak);
        json.endObject();
        json.endObject();
    }
    json.endArray();
    json.key("results");
    json.beginArray();
    for (const BenchResult& r : results) {
        json.beginObject();
        json.field("backend", r.backend);
        json.field("device", r.device);
        json.fieldNumber("device_index", std::to_string(r.deviceIndex));
        json.field("operation", operationId(r.operation));
        json.field("format", r.format);
        json.field("direction", directionId(r.direction));
        json.field("path", r.path);
        json.fieldBool("hardware", r.hardware);
        json.fieldNumber("elements", std::to_string(r.elements));
        json.fieldNumber("threads", std::to_string(r.threads));
        number("median_seconds", r.time.median);
        number("min_seconds", r.time.min);
        number("max_seconds", r.time.max);
        json.fieldNumber("samples", std::to_string(r.time.samples));
        json.fieldNumber("iterations_per_sample", std::to_string(r.time.iterationsPerSample));
        number("elements_per_second", r.elementsPerSecond);
        number("bytes_per_second", r.bytesPerSecond);
        number("operations_per_second", r.operationsPerSecond);
        number("ceiling", r.ceiling);
        json.field("ceiling_name", r.ceilingName);
        json.fieldBool("verified", r.verified);
        json.fieldBool("exact_by_design", r.exactByDesign);
        json.fieldNumber("checked", std::to_string(r.checked));
        json.fieldNumber("mismatches", std::to_string(r.mismatches));
        json.field("note", r.note);
        json.endObject();
    }
    json.endArray();
    json.endObject();
    out << '\n';
}

void writeResultsCsv(std::ostream& out, const std::vector<BenchResult>& results) {
    out << "backend,device,operation,format,direction,path,hardware,elements,threads,"
           "median_seconds,min_seconds,max_seconds,samples,elements_per_second,bytes_per_second,"
           "operations_per_second,ceiling,ceiling_name,verified,exact_by_design,checked,mismatches,"
           "note\n";
    for (const BenchResult& r : results)
        out << csvField(r.backend) << ',' << csvField(r.device) << ',' << operationId(r.operation)
            << ',' << csvField(r.format) << ',' << directionId(r.direction) << ','
            << csvField(r.path) << ',' << (r.hardware ? "true" : "false") << ',' << r.elements
            << ',' << r.threads << ',' << formatNumber(r.time.median, 9) << ','
            << formatNumber(r.time.min, 9) << ',' << formatNumber(r.time.max, 9) << ','
            << r.time.samples << ',' << formatNumber(r.elementsPerSecond, 9) << ','
            << formatNumber(r.bytesPerSecond, 9) << ',' << formatNumber(r.operationsPerSecond, 9)
            << ',' << formatNumber(r.ceiling, 9) << ',' << csvField(r.ceilingName) << ','
            << (r.verified ? "true" : "false") << ',' << (r.exactByDesign ? "true" : "false") << ','
            << r.checked << ',' << r.mismatches << ',' << csvField(r.note) << '\n';
}

} // namespace fpx::bench
