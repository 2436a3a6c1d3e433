// SPDX-License-Identifier: GPL-3.0-or-later
// fpx sgd's renderers: the runs beside the exact weight as a table (and the trajectory), or
// JSON.
#include "presentation.h"
#include "sgd.h"

#include "fpx/data/value_distribution.h"
#include "fpx/exact/arithmetic.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/text_util.h"

#include <algorithm>
#include <ostream>

namespace fpx::cli {

namespace {

// The double nearest to x (ties to even), exactly: PyTorch's lr, the relative error.
ExactValue nearestDoubleValue(const ExactValue& x) {
    return exactFromDouble(nearestDouble(x));
}

std::string runName(const SgdRun& run) {
    return run.master ? run.format.id + " + " + run.master->id + " master" : run.format.id;
}

// |error| / |exact| as the nearest double, or nullopt when the exact weight is 0 or the error
// is not finite.
std::optional<ExactValue> relativeError(const SgdRun& run) {
    if (run.finalExact.isZero() || !run.error.isFinite())
        return std::nullopt;
    return nearestDoubleValue(run.error.abs() / run.finalExact.abs());
}

Json runJson(const SgdRun& run, bool withTrajectory) {
    Json json;
    json["format"] = run.format.id;
    json["master"] = run.master ? Json(run.master->id) : Json(nullptr);
    json["final"] = decimalOrNull(run.finalWeight);
    json["final_exact"] = decimalOrNull(run.finalExact);
    json["update_formula"] = run.updateFormula;
    json["lost_updates"] = run.lostUpdates;
    json["error"] = decimalOrNull(run.error);
    const auto relative = relativeError(run);
    json["relative_error"] = relative ? Json(doubleFromExact(*relative)) : Json(nullptr);
    if (withTrajectory) {
        Json points = Json::array();
        for (const SgdRun::Point& p : run.trajectory)
            points.push_back({{"step", p.step}, {"weight", p.weight}, {"exact", p.exact}});
        json["trajectory"] = std::move(points);
    }
    return json;
}

std::string doubleText(double x) {
    return toSignificantDigits(exactFromDouble(x), 10);
}

} // namespace

void renderSgdJson(const SgdReport& report, std::ostream& out) {
    const SgdOptions& simulation = report.simulation;
    Json json;
    json["weight"] = decimalOrNull(simulation.initialWeight);
    json["lr"] = decimalOrNull(simulation.learningRate);
    json["lr_as_double"] = !report.exactLr;
    json["grads"] = report.gradsText;
    json["steps"] = report.steps;
    json["grad_format"] =
        simulation.gradientFormat ? Json(simulation.gradientFormat->id) : Json(nullptr);
    json["round"] = roundingChoiceId(simulation.rounding);
    json["overflow"] = overflowPolicyId(simulation.rounding.overflow);
    json["seed"] = simulation.seed;
    const UpdateRule& rule = simulation.update ? *simulation.update : exactUpdateRule();
    json["update"] = {
        {"rule", rule.name}, {"formula", rule.formulaText()}, {"description", rule.description}};
    json["exact"] = decimalOrNull(report.exactFinal);
    Json results = Json::array();
    for (const SgdRun& run : report.runs)
        results.push_back(runJson(run, report.withTrajectory));
    json["results"] = std::move(results);
    printJson(out, json);
}

void renderSgdText(const SgdReport& report, const TerminalStyle& style, std::ostream& out) {
    const SgdOptions& simulation = report.simulation;
    out << "SGD on one weight, " << report.steps << " steps, rounding "
        << roundingChoiceId(simulation.rounding) << "\n";
    out << "  initial weight  " << toDecimal(simulation.initialWeight).text << '\n';
    out << "  lr              " << toDecimal(simulation.learningRate).text
        << (report.exactLr ? "  (as written)" : "  (the double nearest " + report.lrText + ")")
        << '\n';
    out << "  gradients       " << report.gradsText
        << (namesDistribution(report.gradsText) ? ", seed " + std::to_string(simulation.seed) : "")
        << (simulation.gradientFormat ? ", rounded into " + simulation.gradientFormat->id : "")
        << '\n';
    // The rule's name, then its formula for each stepped format with F written out: what
    // each run computed, not only what was asked.
    const UpdateRule& rule = simulation.update ? *simulation.update : exactUpdateRule();
    out << "  update rule     " << rule.name << '\n';
    std::vector<std::string> shown;
    for (const SgdRun& run : report.runs) {
        const std::string& stepped = run.master ? run.master->id : run.format.id;
        if (std::find(shown.begin(), shown.end(), stepped) != shown.end())
            continue;
        shown.push_back(stepped);
        std::string label = "    " + stepped;
        label.resize(std::max<std::size_t>(label.size() + 2, 18), ' ');
        out << label << run.updateFormula << '\n';
    }
    out << "  exact final     " << toSignificantDigits(report.exactFinal, 17) << "\n\n";
    TextTable table({"weights", "final", "lost updates", "error", "relative error"});
    for (const SgdRun& run : report.runs) {
        const auto relative = relativeError(run);
        table.addRow({runName(run), toSignificantDigits(run.finalWeight, 17),
                      std::to_string(run.lostUpdates), toSignificantDigits(run.error, 6),
                      relative ? toSignificantDigits(*relative, 4) : "-"});
    }
    table.print(out, style.enabled);
    if (!report.withTrajectory)
        return;
    out << '\n';
    std::vector<std::string> header{"step", "exact"};
    for (const SgdRun& run : report.runs)
        header.push_back(runName(run));
    TextTable trajectory(header);
    const auto& points = report.runs.front().trajectory;
    for (std::size_t i = 0; i < points.size(); ++i) {
        std::vector<std::string> row{std::to_string(points[i].step), doubleText(points[i].exact)};
        for (const SgdRun& run : report.runs)
            row.push_back(doubleText(run.trajectory[i].weight));
        trajectory.addRow(std::move(row));
    }
    trajectory.print(out, style.enabled);
}

} // namespace fpx::cli
