// SPDX-License-Identifier: GPL-3.0-or-later
// The inputs of an SGD run as people write them (docs/behaviour.md, "Master weights"): one reading
// for `fpx sgd` and the Training page, so that the same text gives the same run in both.
#include "fpx/training/sgd_simulation.h"

#include "fpx/data/value_distribution.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/text_util.h"
#include "fpx/exact/value_parser.h"
#include "fpx/exact/work_budget.h"

namespace fpx {

std::optional<ExactValue> learningRateAsDouble(const ExactValue& written) {
    const FormatLookup fp64 = findFormat("fp64");
    const ExactValue nearest = roundedInto(written, *fp64.spec);
    if (!nearest.isFinite())
        return std::nullopt;
    return nearest;
}

bool namesDistribution(std::string_view text) {
    // No value of the list grammar has a colon; every distribution spec does ("normal:0:1").
    return text.find(':') != std::string_view::npos;
}

std::optional<std::vector<ExactValue>> parseGradientSequence(std::string_view text,
                                                             std::optional<std::size_t> steps,
                                                             std::uint64_t seed,
                                                             std::string& error) {
    std::vector<ExactValue> values;
    if (namesDistribution(text)) {
        const auto distribution = parseValueDistribution(text, error);
        if (!distribution)
            return std::nullopt;
        if (!steps) {
            error = std::string(text) + ": a distribution needs a number of steps";
            return std::nullopt;
        }
        values.reserve(*steps);
        for (std::size_t t = 0; t < *steps; ++t)
            values.push_back(exactFromDouble(drawValue(*distribution, seed, t)));
        return values;
    }
    std::vector<ExactValue> list;
    std::size_t column = 0;
    StreamBudget budget;
    for (const std::string_view item : splitAt(text, ',')) {
        const ParsedValue parsed = parseValue(item);
        const std::string where =
            "'" + std::string(item) + "' (item " + std::to_string(list.size() + 1) + ", column ";
        if (!budget.charge(parsed)) {
            error = where + std::to_string(column + 1) + "): " + StreamBudget::spentMessage();
            return std::nullopt;
        }
        if (!parsed) {
            error = where + std::to_string(column + parsed.error.position + 1) +
                    "): " + parsed.error.message;
            return std::nullopt;
        }
        if (!parsed.value->isFinite()) {
            error = where + std::to_string(column + 1) + "): a gradient must be finite";
            return std::nullopt;
        }
        if (!parsed.exact) {
            error = where + std::to_string(column + 1) +
                    "): must be exact: at most 40000 digits, within 10^±20000";
            return std::nullopt;
        }
        list.push_back(*parsed.value);
        column += item.size() + 1;
    }
    const std::size_t count = steps.value_or(list.size());
    values.reserve(count);
    for (std::size_t t = 0; t < count; ++t)
        values.push_back(list[t % list.size()]);
    return values;
}

} // namespace fpx
