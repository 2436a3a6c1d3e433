// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/bench/result_io.h"

#include <nlohmann/json.hpp>
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
    using Json = nlohmann::ordered_json;
    // JSON has no inf or NaN (an infinite ceiling means none was known): those are written
    // as 0, as in the CSV. Finite values are written in full, so a saved run loads back to
    // the same doubles; nlohmann writes them without the locale.
    auto number = [](double value) { return std::isfinite(value) ? value : 0.0; };
    Json devices = Json::array();
    for (const DeviceInfo& d : metadata.devices) {
        Json peaks = Json::object();
        for (const auto& [format, peak] : d.datasheetPeaks)
            peaks[format] = number(peak);
        devices.push_back({{"backend", d.backend},
                           {"index", d.index},
                           {"name", d.name},
                           {"driver", d.driver},
                           {"details", d.details},
                           {"compute_units", d.computeUnits},
                           {"memory_bytes", d.memoryBytes},
                           {"last_level_cache_bytes", d.lastLevelCacheBytes},
                           {"datasheet_bandwidth", number(d.datasheetBandwidth)},
                           {"datasheet_peaks", std::move(peaks)}});
    }
    Json rows = Json::array();
    for (const BenchResult& r : results)
        rows.push_back({{"backend", r.backend},
                        {"device", r.device},
                        {"device_index", r.deviceIndex},
                        {"operation", operationId(r.operation)},
                        {"format", r.format},
                        {"direction", directionId(r.direction)},
                        {"path", r.path},
                        {"hardware", r.hardware},
                        {"elements", r.elements},
                        {"threads", r.threads},
                        {"median_seconds", number(r.time.median)},
                        {"min_seconds", number(r.time.min)},
                        {"max_seconds", number(r.time.max)},
                        {"samples", r.time.samples},
                        {"iterations_per_sample", r.time.iterationsPerSample},
                        {"elements_per_second", number(r.elementsPerSecond)},
                        {"bytes_per_second", number(r.bytesPerSecond)},
                        {"operations_per_second", number(r.operationsPerSecond)},
                        {"ceiling", number(r.ceiling)},
                        {"ceiling_name", r.ceilingName},
                        {"verified", r.verified},
                        {"exact_by_design", r.exactByDesign},
                        {"checked", r.checked},
                        {"mismatches", r.mismatches},
                        {"note", r.note},
                        {"workload", r.workload},
                        {"reference_median_seconds", number(r.referenceSeconds)},
                        {"ratio", number(r.ratio)},
                        {"goal_at_least", number(r.goalAtLeast)},
                        {"goal_at_most", number(r.goalAtMost)},
                        {"passes", r.passes},
                        {"bare_ratio", number(r.bareRatio)}});
    const Json document = {{"format", "fpx-bench"},
                           {"version", kResultsVersion},
                           {"fpx_version", metadata.fpxVersion},
                           {"build", metadata.build},
                           {"host", metadata.host},
                           {"started_at", metadata.startedAt},
                           {"distribution", metadata.distribution},
                           {"rounding", metadata.rounding},
                           {"overflow", metadata.overflow},
                           {"budget_seconds", number(metadata.budgetSeconds)},
                           {"samples", metadata.samples},
                           {"devices", std::move(devices)},
                           {"results", std::move(rows)}};
    // Device names and notes come from drivers: bytes that are not UTF-8 become U+FFFD.
    out << document.dump(2, ' ', false, Json::error_handler_t::replace) << '\n';
}

void writeResultsCsv(std::ostream& out, const std::vector<BenchResult>& results) {
    out << "backend,device,operation,format,direction,path,hardware,elements,threads,"
           "median_seconds,min_seconds,max_seconds,samples,elements_per_second,bytes_per_second,"
           "operations_per_second,ceiling,ceiling_name,verified,exact_by_design,checked,mismatches,"
           "note,workload,reference_median_seconds,ratio,goal_at_least,goal_at_most,passes,"
           "bare_ratio\n";
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
            << r.checked << ',' << r.mismatches << ',' << csvField(r.note) << ','
            << csvField(r.workload) << ',' << formatNumber(r.referenceSeconds, 9) << ','
            << formatNumber(r.ratio, 9) << ',' << formatNumber(r.goalAtLeast, 9) << ','
            << formatNumber(r.goalAtMost, 9) << ',' << r.passes << ','
            << formatNumber(r.bareRatio, 9) << '\n';
}

} // namespace fpx::bench
