// SPDX-License-Identifier: GPL-3.0-or-later
// The tensor source of the commands that read a tensor (quantize, range-fit, fp8-scaling).
#include "tensor_source.h"

#include "arguments.h"
#include "commands.h"
#include "term_options.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/text_util.h"
#include "fpx/exact/value_parser.h"
#include "fpx/exact/work_budget.h"

#include <charconv>
#include <cstring>

namespace fpx::cli {

namespace {

// --values: each parsed exactly, then rounded once to FP32 (nearest even); a finite value
// beyond FP32's range is an error rather than a silent infinity.
std::optional<std::vector<float>> parseValueList(const std::string& text, std::string& error) {
    const FormatSpec& fp32 = fp32Spec();
    std::vector<float> values;
    StreamBudget budget;
    for (const std::string_view piece : splitAt(text, ',')) {
        const std::string item(piece);
        const ParsedValue parsed = parseValue(item);
        if (!budget.charge(parsed)) {
            error = "--values: '" + item + "' (item " + std::to_string(values.size() + 1) +
                    "): " + StreamBudget::spentMessage();
            return std::nullopt;
        }
        if (!parsed) {
            error = "--values: '" + item + "': " + parsed.error.message;
            return std::nullopt;
        }
        const Conversion c = roundToFormat(*parsed.value, fp32);
        if (c.flags.overflow) {
            error = "--values: '" + item + "' is beyond FP32's range (largest 3.40282347e38)";
            return std::nullopt;
        }
        const auto bits = static_cast<std::uint32_t>(c.code);
        float f = 0;
        std::memcpy(&f, &bits, 4);
        values.push_back(f);
    }
    return values;
}

} // namespace

std::set<std::string> tensorSourceOptions() {
    return {"input", "dtype", "dist", "count", "seed", "outliers", "values"};
}

std::optional<std::string> checkTensorSourceOptions(const Arguments& args) {
    const int sources = int(args.has("input")) + int(args.has("dist")) + int(args.has("values"));
    if (sources != 1)
        return "give exactly one of --input, --dist and --values";
    if (args.has("dtype") && !args.has("input"))
        return "--dtype goes with --input (a raw file)";
    for (const char* option : {"count", "seed", "outliers"})
        if (args.has(option) && !args.has("dist"))
            return std::string("--") + option + " goes with --dist";
    return std::nullopt;
}

std::optional<DistributionOptions> readDistributionOptions(const Arguments& args,
                                                           std::string& error) {
    DistributionOptions options;
    const auto spec = args.value("dist");
    if (!spec) {
        error = "--dist SPEC is required";
        return std::nullopt;
    }
    auto distribution = parseValueDistribution(*spec, error);
    if (!distribution) {
        error = "--dist: " + error;
        return std::nullopt;
    }
    if (auto outliers = args.value("outliers"))
        if (!parseOutliers(*outliers, *distribution, error)) {
            error = "--outliers: " + error;
            return std::nullopt;
        }
    options.distribution = std::move(*distribution);
    const auto countText = args.value("count");
    if (!countText) {
        error = "--count N is required with --dist";
        return std::nullopt;
    }
    const auto count = parseTermCount(*countText);
    if (!count || *count > kMaxGeneratedValues) {
        error = "--count: expected 1 to " + std::to_string(kMaxGeneratedValues) + " values, got '" +
                *countText + "'";
        return std::nullopt;
    }
    options.count = *count;
    if (auto text = args.value("seed")) {
        const auto [end, ec] =
            std::from_chars(text->data(), text->data() + text->size(), options.seed);
        if (text->empty() || ec != std::errc() || end != text->data() + text->size()) {
            error = "--seed: expected an unsigned 64-bit integer, got '" + *text + "'";
            return std::nullopt;
        }
    }
    options.description =
        *spec + (args.has("outliers") ? " outliers " + *args.value("outliers") : std::string()) +
        " seed " + std::to_string(options.seed);
    return options;
}

int readTensorSource(const Arguments& args, TensorSource& source, std::string& error) {
    if (auto path = args.value("input")) {
        std::optional<RawLayout> raw;
        if (auto dtype = args.value("dtype"))
            raw = RawLayout{*dtype};
        source.loaded = loadTensorArgument(*path, raw, error);
        if (!source.loaded)
            return kExitDataError;
        source.view = source.loaded->view;
        // The tensor taken when PATH names none: say which.
        const std::string& name = source.view.name;
        source.description = *path;
        if (!name.empty() && path->find(name) == std::string::npos)
            source.description += " (tensor " + name + ")";
    } else if (args.has("dist")) {
        auto options = readDistributionOptions(args, error);
        if (!options)
            return kExitUsage;
        source.values = drawFloats(options->distribution, options->count, options->seed);
        source.description = options->description;
    } else {
        auto values = parseValueList(args.value("values").value_or(""), error);
        if (!values)
            return kExitUsage;
        source.values = std::move(*values);
        source.description = "values (rounded to FP32)";
    }
    if (!source.loaded) {
        source.view.name = source.description;
        source.view.shape = {source.values.size()};
        source.view.floats = source.values;
    }
    if (source.view.size() == 0) {
        error = source.description + ": the tensor has no elements";
        return kExitDataError;
    }
    return kExitOk;
}

Outcome<std::shared_ptr<const TensorSource>> loadTensorSource(const Arguments& args) {
    auto source = std::make_shared<TensorSource>();
    std::string error;
    if (const int status = readTensorSource(args, *source, error); status != kExitOk)
        return CommandError{error, status};
    return std::shared_ptr<const TensorSource>(std::move(source));
}

} // namespace fpx::cli
