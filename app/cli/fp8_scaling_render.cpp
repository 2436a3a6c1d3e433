// SPDX-License-Identifier: GPL-3.0-or-later
// fpx fp8-scaling's renderers: the runs side by side as text, or every step as JSON or CSV.
#include "fp8_scaling.h"
#include "text_table.h"
#include "training_options.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <ostream>

namespace fpx::cli {

namespace {

Json stepJson(const Fp8ScalingStep& step) {
    Json s;
    s["step"] = step.step;
    s["amax"] = jsonNumber(step.amax);
    s["amax_used"] = jsonNumber(step.amaxUsed);
    s["scale"] = exactDecimal(step.scale);
    s["overflow_fraction"] = step.overflowFraction;
    s["flushed_fraction"] = step.flushedFraction;
    s["sqnr_db"] = step.sqnrDb ? jsonNumber(*step.sqnrDb) : Json(nullptr);
    return s;
}

std::string g17(double value) {
    char text[40];
    std::snprintf(text, sizeof text, "%.17g", value);
    return text;
}

std::string sqnrText(const std::optional<double>& sqnr) {
    if (!sqnr)
        return "-";
    if (std::isinf(*sqnr))
        return "exact";
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", *sqnr);
    return text;
}

} // namespace

void renderFp8ScalingJson(const Fp8ScalingReport& report, std::ostream& out) {
    Json doc;
    doc["command"] = "fp8-scaling";
    doc["format"] = report.format.id;
    doc["margin"] = report.margin;
    doc["round"] = std::string(roundingModeId(report.rounding.mode));
    doc["overflow"] = std::string(overflowPolicyId(report.rounding.overflow));
    doc["source"] = report.source;
    doc["steps"] = report.steps;
    Json results = Json::array();
    for (const Fp8ScalingRun& run : report.runs) {
        Json r;
        r["recipe"] = run.recipe.text;
        Json steps = Json::array();
        for (const Fp8ScalingStep& step : run.steps)
            steps.push_back(stepJson(step));
        r["steps"] = std::move(steps);
        results.push_back(std::move(r));
    }
    doc["results"] = std::move(results);
    printJson(out, doc);
}

void renderFp8ScalingCsv(const Fp8ScalingReport& report, std::ostream& out) {
    const std::vector<Fp8ScalingRun>& runs = report.runs;
    out << "recipe,step,amax,amax_used,scale,overflow_fraction,flushed_fraction,sqnr_db\n";
    for (const Fp8ScalingRun& run : runs)
        for (const Fp8ScalingStep& step : run.steps)
            out << run.recipe.text << ',' << step.step << ',' << g17(step.amax) << ','
                << g17(step.amaxUsed) << ',' << exactDecimal(step.scale) << ','
                << g17(step.overflowFraction) << ',' << g17(step.flushedFraction) << ','
                << (step.sqnrDb ? g17(*step.sqnrDb) : std::string()) << '\n';
}

void renderFp8ScalingText(const Fp8ScalingReport& report, std::ostream& out) {
    const std::vector<Fp8ScalingRun>& runs = report.runs;
    out << "FP8 scaling into " << report.format.id << " (round "
        << roundingModeId(report.rounding.mode) << ", overflow "
        << overflowPolicyId(report.rounding.overflow) << ", margin " << report.margin
        << "): " << report.source << ", " << report.steps << " steps\n";
    // The recipes side by side, numbered to keep the columns narrow.
    std::vector<std::string> header{"step", "amax"};
    for (std::size_t r = 0; r < runs.size(); ++r) {
        const std::string tag = "[" + std::to_string(r + 1) + "] ";
        out << (r ? "  " : "") << tag << runs[r].recipe.text;
        for (const char* column : {"scale", "overflow", "flushed", "SQNR dB"})
            header.push_back(tag + column);
    }
    out << '\n';
    TextTable table(header);
    for (std::size_t t = 0; t < report.steps; ++t) {
        std::vector<std::string> row{std::to_string(t), shortNumber(runs.front().steps[t].amax)};
        for (const Fp8ScalingRun& run : runs) {
            const Fp8ScalingStep& step = run.steps[t];
            row.push_back(shortNumber(double(step.scale)));
            row.push_back(percentText(step.overflowFraction));
            row.push_back(percentText(step.flushedFraction));
            row.push_back(sqnrText(step.sqnrDb));
        }
        table.addRow(std::move(row));
    }
    out << '\n';
    table.print(out, false);
    out << '\n';
    for (std::size_t r = 0; r < runs.size(); ++r) {
        const Fp8ScalingRun& run = runs[r];
        std::size_t overflowSteps = 0, counted = 0;
        double sqnrSum = 0, worst = std::numeric_limits<double>::infinity();
        for (const Fp8ScalingStep& step : run.steps) {
            overflowSteps += step.overflowFraction > 0;
            if (step.sqnrDb && std::isfinite(*step.sqnrDb)) {
                ++counted;
                sqnrSum += *step.sqnrDb;
                worst = std::min(worst, *step.sqnrDb);
            }
        }
        out << "[" << r + 1 << "] " << run.recipe.text << ": " << overflowSteps
            << " steps with overflow";
        if (counted)
            out << ", SQNR mean " << sqnrText(sqnrSum / double(counted)) << " dB, worst "
                << sqnrText(worst) << " dB";
        out << '\n';
    }
}

} // namespace fpx::cli
