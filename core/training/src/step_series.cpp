// SPDX-License-Identifier: GPL-3.0-or-later
// A positive quantity per training step: synthetic series (geometric decay, spikes) and traces
// read from text or CSV files, with errors that point at the part, line and column at fault.
#include "fpx/training/step_series.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/rounding.h"
#include "fpx/exact/text_util.h"
#include "fpx/exact/value_parser.h"
#include "fpx/exact/work_budget.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>

namespace fpx {

namespace {

// The spike draws come from a stream of their own, so a series never reuses the bits that a
// value distribution seeded alike draws its values from.
constexpr std::uint64_t kSpikeStream = 0x7370696b65732121ULL; // "spikes!!"

// A number of a spec: parsed exactly, rounded once to a double. `allowInfinity` for a spike
// factor (a step that overflows at any scale); otherwise it must be finite.
std::optional<double> parseNumber(std::string_view part, std::string_view text, const char* name,
                                  bool allowInfinity, std::string& error) {
    const std::string context = std::string(part) + ": " + name + " ";
    const ParsedValue parsed = parseValue(text);
    if (!parsed) {
        error = context + "'" + std::string(text) + "' is not a number";
        return std::nullopt;
    }
    const double value = nearestDouble(*parsed.value);
    if (parsed.value->isFinite() && std::isinf(value)) {
        error = context + "is beyond the range of a double";
        return std::nullopt;
    }
    if (std::isnan(value) || (std::isinf(value) && !allowInfinity)) {
        error = context + "must be a finite number";
        return std::nullopt;
    }
    if (!(value > 0)) {
        error = context + "must be positive";
        return std::nullopt;
    }
    return value;
}

std::optional<std::size_t> parseIndex(std::string_view text) {
    std::size_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    return value;
}

bool wrongFieldCount(std::string_view part, const std::vector<std::string_view>& fields,
                     std::size_t expected, const char* form, std::string& error) {
    if (fields.size() == expected)
        return false;
    error = std::string(part) + ": expected " + form;
    return true;
}

// One comma-separated part of a spec; the first must be the shape, the rest modifiers.
bool parsePart(std::string_view part, bool first, StepSeriesSpec& spec, std::string& error) {
    const std::vector<std::string_view> fields = splitAt(part, ':');
    const std::string_view name = fields[0];
    if (first) {
        if (name == "geometric") {
            if (wrongFieldCount(part, fields, 3, "geometric:START:END", error))
                return false;
            const auto start = parseNumber(part, fields[1], "START", false, error);
            if (!start)
                return false;
            const auto end = parseNumber(part, fields[2], "END", false, error);
            if (!end)
                return false;
            spec.shape = StepSeriesSpec::Shape::Geometric;
            spec.start = *start;
            spec.end = *end;
            return true;
        }
        if (name == "constant") {
            if (wrongFieldCount(part, fields, 2, "constant:V", error))
                return false;
            const auto value = parseNumber(part, fields[1], "V", false, error);
            if (!value)
                return false;
            spec.shape = StepSeriesSpec::Shape::Constant;
            spec.start = spec.end = *value;
            return true;
        }
        error =
            "'" + std::string(part) + "': a series starts with geometric:START:END or constant:V";
        return false;
    }
    if (name == "spikes") {
        if (wrongFieldCount(part, fields, 3, "spikes:P:FACTOR", error))
            return false;
        const ParsedValue p = parseValue(fields[1]);
        const double probability = p ? nearestDouble(*p.value) : -1;
        if (!p || !(probability >= 0 && probability <= 1)) {
            error = std::string(part) + ": P must be a probability from 0 to 1";
            return false;
        }
        const auto factor = parseNumber(part, fields[2], "FACTOR", true, error);
        if (!factor)
            return false;
        spec.spikeProbability = probability;
        spec.spikeFactor = *factor;
        return true;
    }
    if (name == "spike-at") {
        if (wrongFieldCount(part, fields, 3, "spike-at:I:FACTOR", error))
            return false;
        const auto index = parseIndex(fields[1]);
        if (!index) {
            error = std::string(part) + ": I must be a step index (0, 1, 2, …)";
            return false;
        }
        const auto factor = parseNumber(part, fields[2], "FACTOR", true, error);
        if (!factor)
            return false;
        spec.spikesAt.emplace_back(*index, *factor);
        return true;
    }
    error = "'" + std::string(part) + "': expected spikes:P:FACTOR or spike-at:I:FACTOR";
    return false;
}

} // namespace

std::optional<StepSeriesSpec> parseStepSeries(std::string_view text, std::string& error) {
    StepSeriesSpec spec;
    spec.text = std::string(trim(text));
    if (spec.text.empty()) {
        error = "empty series: expected geometric:START:END or constant:V";
        return std::nullopt;
    }
    const std::vector<std::string_view> parts = splitAt(spec.text, ',');
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const std::string_view part = trim(parts[i]);
        if (part.empty()) {
            error = "'" + spec.text + "': empty part " + std::to_string(i + 1);
            return std::nullopt;
        }
        if (!parsePart(part, i == 0, spec, error))
            return std::nullopt;
    }
    return spec;
}

std::vector<double> stepSeriesValues(const StepSeriesSpec& spec, std::size_t steps,
                                     std::uint64_t seed) {
    std::vector<double> values(steps, spec.start);
    if (spec.shape == StepSeriesSpec::Shape::Geometric && steps > 1) {
        // Log-linear from START to END; both ends are the spec's own numbers, not a power
        // that lands an ulp away.
        const double logStart = std::log(spec.start);
        const double logRatio = std::log(spec.end) - logStart;
        for (std::size_t i = 1; i + 1 < steps; ++i)
            values[i] = std::exp(logStart + logRatio * (double(i) / double(steps - 1)));
        values[steps - 1] = spec.end;
    }
    if (spec.spikeProbability > 0)
        for (std::size_t i = 0; i < steps; ++i) {
            // Step i's draw depends only on the seed and i: the top 53 bits as a uniform [0, 1).
            const double u = double(stochasticBits(seed ^ kSpikeStream, i) >> 11) * 0x1p-53;
            if (u < spec.spikeProbability)
                values[i] *= spec.spikeFactor;
        }
    for (const auto& [index, factor] : spec.spikesAt)
        if (index < steps)
            values[index] *= factor;
    return values;
}

namespace {

struct TraceField {
    std::string_view text;
    std::size_t column = 1; // 1-based, of the field's first non-blank character
};

// The fields of a line split at commas, each trimmed, with the column where it starts.
std::vector<TraceField> traceFields(std::string_view line) {
    std::vector<TraceField> fields;
    std::size_t start = 0;
    for (std::string_view raw : splitAt(line, ',')) {
        const std::string_view trimmed = trim(raw);
        const std::size_t lead = trimmed.empty() ? 0 : std::size_t(trimmed.data() - raw.data());
        fields.push_back({trimmed, start + lead + 1});
        start += raw.size() + 1;
    }
    return fields;
}

bool looksNumeric(std::string_view text) {
    return parseValue(text).value.has_value();
}

} // namespace

std::optional<std::vector<double>> readStepTrace(const std::string& path, std::string& error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = path + ": cannot open the file";
        return std::nullopt;
    }
    enum class Form { Unknown, Plain, Csv };
    Form form = Form::Unknown;
    std::vector<double> values;
    std::optional<long long> expectedStep;
    std::size_t lineNumber = 0;
    bool headerAllowed = true;
    auto fail = [&](std::size_t column, const std::string& message) {
        error =
            path + ":" + std::to_string(lineNumber) + ":" + std::to_string(column) + ": " + message;
        return std::nullopt;
    };
    StreamBudget budget;
    for (std::string line; std::getline(in, line);) {
        ++lineNumber;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        std::string_view content = line;
        if (const auto hash = content.find('#'); hash != std::string_view::npos)
            content = content.substr(0, hash);
        if (trim(content).empty())
            continue;
        const std::vector<TraceField> fields = traceFields(content);
        const Form lineForm = fields.size() == 1 ? Form::Plain : Form::Csv;
        if (lineForm == Form::Csv && fields.size() != 2)
            return fail(fields[2].column - 1,
                        "expected one value, or two CSV fields step,value; found " +
                            std::to_string(fields.size()) + " fields");
        // A CSV header: the first content line, when neither field reads as a number.
        if (lineForm == Form::Csv && headerAllowed && !looksNumeric(fields[0].text) &&
            !looksNumeric(fields[1].text)) {
            headerAllowed = false;
            form = Form::Csv;
            continue;
        }
        headerAllowed = false;
        if (form == Form::Unknown)
            form = lineForm;
        else if (form != lineForm)
            return fail(1, form == Form::Csv
                               ? "expected two CSV fields step,value, as the lines before"
                               : "expected one value, as the lines before");
        const TraceField& valueField = fields.back();
        if (form == Form::Csv) {
            const TraceField& stepField = fields[0];
            long long step = 0;
            const auto [end, ec] = std::from_chars(
                stepField.text.data(), stepField.text.data() + stepField.text.size(), step);
            if (stepField.text.empty() || ec != std::errc() ||
                end != stepField.text.data() + stepField.text.size() || step < 0 ||
                step == std::numeric_limits<long long>::max())
                return fail(stepField.column,
                            "'" + std::string(stepField.text) + "' is not a step number");
            if (expectedStep && step != *expectedStep)
                return fail(stepField.column, "step " + std::to_string(step) + " where " +
                                                  std::to_string(*expectedStep) +
                                                  " was expected (steps must follow one another)");
            expectedStep = step + 1;
        }
        if (valueField.text.empty())
            return fail(valueField.column, "a value is missing");
        const ParsedValue parsed = parseValue(valueField.text);
        if (!budget.charge(parsed))
            return fail(valueField.column, StreamBudget::spentMessage());
        if (!parsed)
            return fail(valueField.column,
                        "'" + std::string(valueField.text) + "' is not a number");
        if (parsed.value->isNaN()) {
            values.push_back(std::numeric_limits<double>::quiet_NaN());
            continue;
        }
        if (parsed.value->isNegative() && !parsed.value->isZero())
            return fail(valueField.column,
                        "'" + std::string(valueField.text) + "' is negative (an amax is |g|)");
        const double value = nearestDouble(parsed.value->abs());
        if (std::isinf(value) && !parsed.value->isInfinity())
            return fail(valueField.column,
                        "'" + std::string(valueField.text) + "' is beyond the range of a double");
        values.push_back(value);
    }
    if (in.bad())
        return fail(1, "read error");
    if (values.empty()) {
        error = path + ": no values (one value a line, or CSV step,value)";
        return std::nullopt;
    }
    return values;
}

} // namespace fpx
