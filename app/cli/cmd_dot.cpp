// SPDX-License-Identifier: GPL-3.0-or-later
// fpx dot: a dot product with separate element, product and accumulator formats.
#include "arguments.h"
#include "commands.h"
#include "conversion_setup.h"
#include "presentation.h"
#include "term_options.h"

#include "fpx/accumulation/accumulation.h"
#include "fpx/exact/arithmetic.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/value_parser.h"
#include "fpx/exact/work_budget.h"

#include <ostream>

namespace fpx::cli {

namespace {

constexpr const char* kUsage =
    "usage: fpx dot --a LIST|DIST --b LIST|DIST [--terms N] [--element ID]\n"
    "               [--product ID|exact] [--accumulator ID|exact] [--block K]\n"
    "               [--round MODE] [--overflow POLICY] [--seed S] [--json]\n"
    "  Σ a_i·b_i: each a_i and b_i rounded into the element format (default fp32), each\n"
    "  product into the product format (default exact: a fused multiply-add), and the\n"
    "  products added in the accumulator format (default fp32); with --block K, K products\n"
    "  at a time, each block's sum promoted into an FP32 total. 'exact' skips a rounding.\n"
    "  LIST: comma-separated values, e.g. 1e10,1,-1e10. DIST: as in fpx accumulate\n"
    "  (ones, const:V, uniform:A:B, normal:MU:SIGMA, file:PATH), with --terms N.\n";

bool isDistribution(const std::string& text) {
    for (const char* prefix : {"const:", "uniform:", "normal:", "file:"})
        if (text.rfind(prefix, 0) == 0)
            return true;
    return text == "ones";
}

// A format option that may be "exact"; false (with `error`) when the id is unknown or has no
// arithmetic.
bool readStageFormat(const Arguments& args, const std::string& name, const char* fallback,
                     const ConversionSetup& setup, std::optional<FormatSpec>& spec,
                     std::string& error) {
    const std::string id = args.value(name).value_or(fallback);
    if (id == "exact") {
        spec.reset();
        return true;
    }
    const FormatLookup lookup = findFormat(id);
    if (!lookup) {
        error = "--" + name + ": " + lookup.error;
        return false;
    }
    spec = *lookup.spec;
    setup.applyScale(*spec);
    if (auto why = arithmeticUnsupported(*spec)) {
        error = "--" + name + ": " + *why;
        return false;
    }
    return true;
}

// The terms of --a or --b: a list (rounded into the element format) or a distribution.
std::optional<TermSequence> readVector(const std::string& name, const std::string& text,
                                       std::size_t count, const FormatSpec& element,
                                       std::uint64_t seed, std::string& error, bool& usage) {
    usage = true;
    if (isDistribution(text)) {
        const auto distribution = parseTermDistribution(text, error);
        if (!distribution) {
            error = "--" + name + " " + error;
            return std::nullopt;
        }
        if (count == 0 && distribution->kind != TermDistribution::Kind::File) {
            error = "--" + name + " " + text + " needs --terms N (or a list for the other vector)";
            return std::nullopt;
        }
        usage = false;
        auto terms = makeTerms(*distribution, count, element, seed, error);
        return terms;
    }
    std::vector<ExactValue> values;
    std::size_t start = 0;
    StreamBudget budget;
    for (;;) {
        const std::size_t comma = text.find(',', start);
        const std::string item = text.substr(start, comma - start);
        const ParsedValue parsed = parseValue(item);
        if (!budget.charge(parsed)) {
            error = "--" + name + " (item " + std::to_string(values.size() + 1) +
                    "): " + StreamBudget::spentMessage();
            return std::nullopt;
        }
        if (!parsed) {
            error = "--" + name + " '" + item + "' (item " + std::to_string(values.size() + 1) +
                    ", column " + std::to_string(start + parsed.error.position + 1) +
                    "): " + parsed.error.message;
            return std::nullopt;
        }
        values.push_back(*parsed.value);
        if (comma == std::string::npos)
            break;
        start = comma + 1;
    }
    return termsFromValues(values, element);
}

std::string stageName(const std::optional<FormatSpec>& spec) {
    return spec ? spec->id : "exact";
}

} // namespace

int runDot(const std::vector<std::string>& rawArgs, Streams& io) {
    Arguments args(rawArgs,
                   {"a", "b", "terms", "element", "product", "accumulator", "block", "round",
                    "overflow", "seed", "scale"},
                   {"json"});
    auto usageError = [&](const std::string& message) {
        return cli::usageError(io, "dot", message);
    };
    if (const auto stop = checkOptionsOnly(args, io, "dot", kUsage))
        return *stop;
    const ConversionSetup setup = readConversionSetup(args);
    if (!setup.error.empty())
        return usageError(setup.error);
    const auto aText = args.value("a");
    const auto bText = args.value("b");
    if (!aText || !bText)
        return usageError("--a and --b are required");

    std::string error;
    std::optional<FormatSpec> element;
    if (!readStageFormat(args, "element", "fp32", setup, element, error))
        return usageError(error);
    if (!element)
        return usageError("--element: the elements need a format (exact is for --product and "
                          "--accumulator)");
    DotOptions options;
    options.element = *element;
    if (!readStageFormat(args, "product", "exact", setup, options.product, error) ||
        !readStageFormat(args, "accumulator", "fp32", setup, options.accumulator, error))
        return usageError(error);
    options.rounding = setup.rounding;
    options.rounding.randomBits = setup.seed;
    if (auto text = args.value("block")) {
        const auto k = parseTermCount(*text);
        if (!k)
            return usageError("--block: expected a block size K ≥ 1, got '" + *text + "'");
        options.blockSize = *k;
    }
    std::size_t count = 0;
    if (auto text = args.value("terms")) {
        const auto parsed = parseTermCount(*text);
        if (!parsed)
            return usageError("--terms: expected a count of at least 1, got '" + *text + "'");
        count = *parsed;
    }
    if (count > kMaxExactTerms)
        return usageError("--terms: a dot product goes through the exact core, one exact "
                          "operation per step (slow); use at most " +
                          std::to_string(kMaxExactTerms) + " terms");

    // A list fixes the length for a distribution on the other side.
    bool usage = false;
    const bool aIsList = !isDistribution(*aText);
    const bool bIsList = !isDistribution(*bText);
    auto a = aIsList || count > 0 || !bIsList
                 ? readVector("a", *aText, count, options.element, setup.seed, error, usage)
                 : std::nullopt;
    if (!a && (aIsList || count > 0 || !bIsList))
        return usage ? usageError(error) : (io.err << "fpx dot: " << error << '\n', kExitDataError);
    if (count == 0 && a)
        count = a->size();
    auto b = readVector("b", *bText, count, options.element, stochasticBits(setup.seed, 1), error,
                        usage);
    if (!b)
        return usage ? usageError(error) : (io.err << "fpx dot: " << error << '\n', kExitDataError);
    if (!a) {
        count = b->size();
        a = readVector("a", *aText, count, options.element, setup.seed, error, usage);
        if (!a)
            return usage ? usageError(error)
                         : (io.err << "fpx dot: " << error << '\n', kExitDataError);
    }
    if (a->size() != b->size())
        return usageError("--a has " + std::to_string(a->size()) + " values and --b " +
                          std::to_string(b->size()) + "; a dot product needs equal lengths");
    if (a->size() > kMaxExactTerms)
        return usageError("the vectors hold " + std::to_string(a->size()) +
                          " values; a dot product takes at most " + std::to_string(kMaxExactTerms));

    const DotResult r = dotProduct(*a, *b, options);
    const std::string bits =
        r.bits ? codeToHex(*r.bits, r.resultFormat->totalBits()) : std::string();
    if (args.has("json")) {
        Json json;
        json["terms"] = a->size();
        json["element"] = options.element.id;
        json["product"] = stageName(options.product);
        json["accumulator"] = stageName(options.accumulator);
        json["block"] = options.blockSize > 0 ? Json(options.blockSize) : Json(nullptr);
        json["round"] = roundingModeId(options.rounding.mode);
        json["overflow"] = overflowPolicyId(options.rounding.overflow);
        json["value"] = decimalOrNull(r.value);
        json["bits"] = r.bits ? Json(bits) : Json(nullptr);
        json["result_format"] = r.resultFormat ? Json(r.resultFormat->id) : Json(nullptr);
        json["exact"] = decimalOrNull(r.exact);
        json["error"] = decimalOrNull(r.error);
        json["rel_error"] = decimalOrNull(r.relativeError);
        printJson(io.out, json);
        return kExitOk;
    }
    io.out << "dot product of " << a->size() << " terms: elements " << options.element.id
           << ", products " << stageName(options.product) << ", accumulator "
           << stageName(options.accumulator);
    if (options.blockSize > 0)
        io.out << " in blocks of " << options.blockSize << " promoted into fp32";
    io.out << ", rounding " << roundingModeId(options.rounding.mode) << "\n";
    auto line = [&](const char* label, const std::string& text) {
        std::string padded(label);
        padded.resize(16, ' ');
        io.out << "  " << padded << text << '\n';
    };
    line("value", toDecimal(r.value).text +
                      (r.bits ? "  (" + bits + " in " + r.resultFormat->id + ")" : ""));
    line("exact", toDecimal(r.exact).text);
    line("error", toDecimal(r.error).text);
    line("relative error", r.relativeError.isNaN() ? "-" : toSignificantDigits(r.relativeError, 6));
    return kExitOk;
}

} // namespace fpx::cli
