// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/bench/bench_preset.h"

#include "fpx/exact/format_catalogue.h"

#include <algorithm>
#include <cctype>
#include <tuple>

namespace fpx::bench {

namespace {

// "fp8_e4m3" → "FP8 E4M3".
std::string formatName(const std::string& id) {
    std::string name = id;
    for (char& c : name)
        c = c == '_' ? ' ' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return name;
}

// "bit trick (AVX-512)" → "AVX-512"; "F16C vcvtps2ph" → "F16C".
std::string instructionSet(const std::string& path) {
    const std::size_t open = path.rfind('(');
    const std::size_t close = path.rfind(')');
    if (open != std::string::npos && close != std::string::npos && close > open + 1)
        return path.substr(open + 1, close - open - 1);
    return path.substr(0, path.find(' '));
}

} // namespace

std::optional<BenchPreset> parseBenchPreset(std::string_view text) {
    if (text == "full")
        return BenchPreset::Full;
    if (text == "class")
        return BenchPreset::Class;
    return std::nullopt;
}

std::string_view benchPresetId(BenchPreset preset) {
    return preset == BenchPreset::Class ? "class" : "full";
}

std::vector<std::string> classBenchFormats() {
    return {"bf16", "fp16", "fp8_e4m3", "fp4_e2m1"};
}

BenchRequest classBenchRequest() {
    BenchRequest request;
    for (const std::string& id : classBenchFormats())
        if (const FormatLookup lookup = findFormat(id))
            request.formats.push_back(*lookup.spec);
    request.directions = {Direction::Encode};
    request.sizes = {std::size_t{32} * 1024};
    request.threads = {1};
    request.plan.budget = std::chrono::duration<double>(0.1);
    request.arithmetic = false;
    return request;
}

std::vector<BenchResult> fastestExactPaths(const std::vector<BenchResult>& results) {
    auto key = [](const BenchResult& r) {
        return std::tie(r.backend, r.deviceIndex, r.format, r.direction, r.elements, r.threads);
    };
    std::vector<BenchResult> kept;
    for (const BenchResult& r : results) {
        if (r.operation == Operation::Copy) {
            kept.push_back(r);
            continue;
        }
        // A bare instruction loop is a reference for its path's overhead, not a path.
        if (r.operation != Operation::Convert || !r.verified ||
            r.path.find("bare loop") != std::string::npos)
            continue;
        auto same = std::find_if(kept.begin(), kept.end(), [&](const BenchResult& k) {
            return k.operation == Operation::Convert && key(k) == key(r);
        });
        if (same == kept.end())
            kept.push_back(r);
        else if (r.bytesPerSecond > same->bytesPerSecond)
            *same = r;
    }
    return kept;
}

std::string readableLabel(const BenchResult& r) {
    if (r.operation == Operation::Copy)
        return "FP32 copy (" + r.path + ")";
    const std::string format = formatName(r.format);
    const std::string way =
        r.direction == Direction::Encode ? "FP32 → " + format : format + " → FP32";
    return r.path.empty() ? way : way + ", " + instructionSet(r.path);
}

} // namespace fpx::bench
