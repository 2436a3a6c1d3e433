// SPDX-License-Identifier: GPL-3.0-or-later
// fpx loss-scale's renderers: the run as text (a summary and the steps where something
// happened), JSON or CSV (every step).
#include "loss_scale.h"
#include "text_table.h"
#include "training_options.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace fpx::cli {

namespace {

constexpr std::size_t kListedEvents = 40;

Json optionsJson(const LossScaleReport& report) {
    const LossScalerOptions& o = report.scaler;
    Json options;
    options["mode"] = o.staticScale ? "static" : "dynamic";
    if (o.staticScale) {
        options["static_scale"] = exactDecimal(*o.staticScale);
    } else {
        options["init_scale"] = exactDecimal(o.initScale);
        options["growth_factor"] = exactDecimal(o.growthFactor);
        options["backoff_factor"] = exactDecimal(o.backoffFactor);
        options["growth_interval"] = o.growthInterval;
    }
    options["amax"] = report.amaxSource;
    options["seed"] = report.seed;
    if (report.gradients) {
        options["dist"] = report.gradients->distribution.text;
        options["count"] = report.gradients->count;
    }
    return options;
}

} // namespace

void renderLossScaleJson(const LossScaleReport& report, std::ostream& out) {
    const LossScaleRun& run = report.run;
    Json doc;
    doc["command"] = "loss-scale";
    doc["format"] = run.format.id;
    doc["options"] = optionsJson(report);
    doc["steps"] = run.steps.size();
    doc["skipped"] = run.skipped;
    Json overflow = Json::array(), scales = Json::array(), amax = Json::array();
    for (const LossScaleStep& step : run.steps) {
        if (step.overflow)
            overflow.push_back(step.step);
        scales.push_back(exactDecimal(step.scale));
        amax.push_back(jsonNumber(step.amax));
    }
    doc["overflow"] = std::move(overflow);
    doc["scales"] = std::move(scales);
    doc["amax"] = std::move(amax);
    doc["final_scale"] =
        run.steps.empty() ? Json(nullptr) : Json(exactDecimal(run.steps.back().scale));
    if (report.gradients) {
        Json flushed = Json::array(), subnormal = Json::array();
        for (const LossScaleStep& step : run.steps) {
            flushed.push_back(step.flushedFraction ? Json(*step.flushedFraction) : Json(nullptr));
            subnormal.push_back(step.subnormalFraction ? Json(*step.subnormalFraction)
                                                       : Json(nullptr));
        }
        doc["flushed"] = std::move(flushed);
        doc["subnormal"] = std::move(subnormal);
    }
    printJson(out, doc);
}

void renderLossScaleCsv(const LossScaleReport& report, std::ostream& out) {
    const LossScaleRun& run = report.run;
    out << "step,amax,scale,overflow,skipped" << (report.gradients ? ",flushed,subnormal" : "")
        << '\n';
    char amax[40];
    for (const LossScaleStep& step : run.steps) {
        std::snprintf(amax, sizeof amax, "%.17g", step.amax);
        out << step.step << ',' << amax << ',' << exactDecimal(step.scale) << ','
            << (step.overflow ? 1 : 0) << ',' << (step.skipped ? 1 : 0);
        if (report.gradients) {
            auto field = [](const std::optional<double>& v) {
                char text[40] = "";
                if (v)
                    std::snprintf(text, sizeof text, "%.17g", *v);
                return std::string(text);
            };
            out << ',' << field(step.flushedFraction) << ',' << field(step.subnormalFraction);
        }
        out << '\n';
    }
}

void renderLossScaleText(const LossScaleReport& report, std::ostream& out) {
    const LossScaleRun& run = report.run;
    const LossScalerOptions& o = report.scaler;
    out << "Loss scaling into " << run.format.id << ": ";
    if (o.staticScale)
        out << "static scale " << exactDecimal(*o.staticScale) << '\n';
    else
        out << "dynamic (GradScaler), init " << exactDecimal(o.initScale) << ", x"
            << exactDecimal(o.growthFactor) << " after " << o.growthInterval
            << " steps without overflow, x" << exactDecimal(o.backoffFactor)
            << " and skip on overflow\n";
    out << "amax: " << report.amaxSource << ", " << run.steps.size() << " steps\n";

    std::size_t overflows = 0;
    float lowest = run.steps.empty() ? 0 : run.steps.front().scale, highest = lowest;
    for (const LossScaleStep& step : run.steps) {
        overflows += step.overflow;
        lowest = std::min(lowest, step.scale);
        highest = std::max(highest, step.scale);
    }
    out << "overflowed " << overflows << ", skipped " << run.skipped.size();
    if (!run.steps.empty())
        out << "; scale from " << exactDecimal(lowest) << " to " << exactDecimal(highest)
            << ", last " << exactDecimal(run.steps.back().scale);
    out << '\n';
    if (report.gradients) {
        double flushedSum = 0, subnormalSum = 0, flushedMax = 0;
        std::size_t counted = 0, worst = 0;
        for (const LossScaleStep& step : run.steps) {
            if (!step.flushedFraction)
                continue;
            ++counted;
            flushedSum += *step.flushedFraction;
            subnormalSum += *step.subnormalFraction;
            if (*step.flushedFraction > flushedMax) {
                flushedMax = *step.flushedFraction;
                worst = step.step;
            }
        }
        out << "gradients: " << report.gradients->distribution.text << ", "
            << report.gradients->count << " a step: flushed to zero "
            << percentText(counted ? flushedSum / double(counted) : 0) << " on average, at most "
            << percentText(flushedMax) << " (step " << worst << "); subnormal "
            << percentText(counted ? subnormalSum / double(counted) : 0) << " on average\n";
    }

    // The steps where something happened: overflows and the steps whose scale differs from
    // the one before (growth, or the backoff after an overflow).
    TextTable table(report.gradients
                        ? std::vector<std::string>{"step", "amax", "scale", "event", "flushed"}
                        : std::vector<std::string>{"step", "amax", "scale", "event"});
    std::size_t events = 0, listed = 0;
    for (std::size_t t = 0; t < run.steps.size(); ++t) {
        const LossScaleStep& step = run.steps[t];
        const bool grown = t > 0 && step.scale > run.steps[t - 1].scale;
        if (!step.overflow && !grown)
            continue;
        ++events;
        if (listed == kListedEvents)
            continue;
        ++listed;
        std::string event = grown ? "grown" : "";
        if (step.overflow)
            event += std::string(event.empty() ? "" : ", ") +
                     (step.skipped ? "overflow, skipped" : "overflow (update lost)");
        std::vector<std::string> row{std::to_string(t), shortNumber(step.amax),
                                     exactDecimal(step.scale), event};
        if (report.gradients)
            row.push_back(step.flushedFraction ? percentText(*step.flushedFraction) : "-");
        table.addRow(std::move(row));
    }
    if (events == 0) {
        out << "no overflow and no change of scale\n";
        return;
    }
    out << '\n';
    table.print(out, false);
    if (events > listed)
        out << "... " << events - listed << " more (--json or --csv list every step)\n";
}

} // namespace fpx::cli
