// SPDX-License-Identifier: GPL-3.0-or-later
// fpx dot: a dot product with separate element, product and accumulator formats: the options
// (the two vectors read with them), the product the core computes and its renderers.
#include "arguments.h"
#include "commands.h"
#include "conversion_setup.h"
#include "dot_machine.h"
#include "presentation.h"
#include "term_options.h"

#include "fpx/accumulation/accumulation.h"
#include "fpx/data/value_distribution.h"
#include "fpx/exact/decimal_text.h"
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
    "  LIST: comma-separated values, e.g. 1e10,1,-1e10. DIST: as in fpx accumulate,\n"
    "  ones, const:V, a distribution (uniform:A:B, normal:MU:SIGMA, lognormal:MU:SIGMA,\n"
    "  laplace:B, student:NU) or file:PATH, with --terms N.\n"
    "usage: fpx dot --machine M --a LIST|DIST --b LIST|DIST [--element ID] [--terms N]\n"
    "               [--c V] [--promote N] [--explain] [--machines FILE] [--json]\n"
    "  The same dot product on matrix engine M (fpx machines lists them; fused:F[:G] is\n"
    "  the generic model): its instructions chained through their accumulator, starting at\n"
    "  c, beside the exact value and FP32 fused multiply-adds in order. --promote N: every N\n"
    "  elements the accumulator is added into an FP32 total and restarts at 0. --explain:\n"
    "  each instruction's terms as they came and as they were cut, their sum and output.\n"
    "  --element: what the machine's instructions take (default its first); a block format\n"
    "  (mxfp8_e4m3, mxfp4, nvfp4, ...) on a block-scaled instruction quantizes --a and --b\n"
    "  along K first, and the report adds the exact product of the quantized values.\n"
    "  --machines FILE: machines of one's own (docs/behaviour.md, \"Machine files\").\n";

// Whether --a or --b is a DIST rather than a LIST: "ones", or a distribution's kind and its
// colon (no value has a colon).
bool isDistribution(const std::string& text) {
    const std::size_t colon = text.find(':');
    if (colon == std::string::npos)
        return text == "ones";
    const std::string_view kind = std::string_view(text).substr(0, colon);
    return kind == "const" || kind == "file" || isValueDistributionKind(kind);
}

// A format option that may be "exact" (no rounding at that stage, nullopt).
Outcome<std::optional<FormatSpec>> readStageFormat(const Arguments& args, const std::string& name,
                                                   const char* fallback,
                                                   const ConversionSetup& setup) {
    const std::string id = args.value(name).value_or(fallback);
    if (id == "exact")
        return std::optional<FormatSpec>();
    Outcome<FormatSpec> spec = readArithmeticFormat(name, id, setup, ArithmeticErrorForm::Option);
    if (!spec)
        return spec.error();
    return std::optional(std::move(*spec));
}

// The terms of --a or --b: a list (rounded into the element format) or a distribution. A
// distribution that cannot be drawn (a file that cannot be read) is a data error.
Outcome<TermSequence> readVector(const std::string& name, const std::string& text,
                                 std::size_t count, const FormatSpec& element, std::uint64_t seed) {
    std::string error;
    if (isDistribution(text)) {
        const auto distribution = parseTermDistribution(text, error);
        if (!distribution)
            return CommandError{"--" + name + " " + error};
        if (count == 0 && distribution->kind != TermDistribution::Kind::File)
            return CommandError{"--" + name + " " + text +
                                " needs --terms N (or a list for the other vector)"};
        auto terms = makeTerms(*distribution, count, element, seed, error);
        if (!terms)
            return dataError(error);
        return std::move(*terms);
    }
    std::vector<ExactValue> values;
    std::size_t start = 0;
    StreamBudget budget;
    for (;;) {
        const std::size_t comma = text.find(',', start);
        const std::string item = text.substr(start, comma - start);
        const ParsedValue parsed = parseValue(item);
        if (!budget.charge(parsed))
            return CommandError{"--" + name + " (item " + std::to_string(values.size() + 1) +
                                "): " + StreamBudget::spentMessage()};
        if (!parsed)
            return CommandError{"--" + name + " '" + item + "' (item " +
                                std::to_string(values.size() + 1) + ", column " +
                                std::to_string(start + parsed.error.position + 1) +
                                "): " + parsed.error.message};
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

struct DotCommandOptions {
    DotOptions dot;
    std::optional<MachineDotRequest> machine; // --machine: the dot product on a matrix engine
    TermSequence a;                           // --a, rounded into the element format
    TermSequence b;                           // --b
    bool json = false;
};

Outcome<DotCommandOptions> parseDotOptions(const Arguments& args) {
    const ConversionSetup setup = readConversionSetup(args);
    if (!setup.error.empty())
        return CommandError{setup.error};
    const auto aText = args.value("a");
    const auto bText = args.value("b");
    if (!aText || !bText)
        return CommandError{"--a and --b are required"};

    DotCommandOptions options;
    DotOptions& dot = options.dot;
    if (args.has("machine")) {
        // A machine's elements are its instructions' (block formats among them), and default
        // to what its first instruction takes.
        Outcome<MachineDotRequest> machine = readMachineDotOptions(args);
        if (!machine)
            return machine.error();
        options.machine = std::move(*machine);
        dot.element = options.machine->element.format;
    } else {
        const auto element = readStageFormat(args, "element", "fp32", setup);
        if (!element)
            return element.error();
        if (!*element)
            return CommandError{"--element: the elements need a format (exact is for --product "
                                "and --accumulator)"};
        dot.element = **element;
        for (const char* option : {"c", "promote", "explain"})
            if (args.has(option))
                return CommandError{std::string("--") + option + ": only with --machine"};
    }
    const auto product = readStageFormat(args, "product", "exact", setup);
    if (!product)
        return product.error();
    const auto accumulator = readStageFormat(args, "accumulator", "fp32", setup);
    if (!accumulator)
        return accumulator.error();
    dot.product = *product;
    dot.accumulator = *accumulator;
    dot.rounding = setup.rounding;
    dot.rounding.randomBits = setup.seed;
    if (auto text = args.value("block")) {
        const auto k = parseTermCount(*text);
        if (!k)
            return CommandError{"--block: expected a block size K ≥ 1, got '" + *text + "'"};
        dot.blockSize = *k;
    }
    std::size_t count = 0;
    if (auto text = args.value("terms")) {
        const auto parsed = parseTermCount(*text);
        if (!parsed)
            return CommandError{"--terms: expected a count of at least 1, got '" + *text + "'"};
        count = *parsed;
    }
    if (count > kMaxExactTerms)
        return CommandError{"--terms: a dot product goes through the exact core, one exact "
                            "operation per step (slow); use at most " +
                            std::to_string(kMaxExactTerms) + " terms"};

    // A list fixes the length for a distribution on the other side: --a is read first unless
    // only --b can tell its length. A machine that truncates FP32 operands reads them as FP32.
    const FormatSpec readFormat =
        options.machine ? operandReadFormat(*options.machine) : dot.element;
    const bool aFirst = !isDistribution(*aText) || count > 0 || isDistribution(*bText);
    std::optional<Outcome<TermSequence>> a;
    if (aFirst) {
        a = readVector("a", *aText, count, readFormat, setup.seed);
        if (!*a)
            return (*a).error();
        if (count == 0)
            count = (**a).size();
    }
    Outcome<TermSequence> b =
        readVector("b", *bText, count, readFormat, stochasticBits(setup.seed, 1));
    if (!b)
        return b.error();
    if (!aFirst) {
        a = readVector("a", *aText, b->size(), readFormat, setup.seed);
        if (!*a)
            return (*a).error();
    }
    options.a = std::move(**a);
    options.b = std::move(*b);
    if (options.a.size() != options.b.size())
        return CommandError{"--a has " + std::to_string(options.a.size()) + " values and --b " +
                            std::to_string(options.b.size()) +
                            "; a dot product needs equal lengths"};
    if (options.a.size() > kMaxExactTerms)
        return CommandError{"the vectors hold " + std::to_string(options.a.size()) +
                            " values; a dot product takes at most " +
                            std::to_string(kMaxExactTerms)};
    options.json = args.has("json");
    return options;
}

struct DotReport {
    DotOptions dot;
    std::size_t terms = 0;
    DotResult result;
};

DotReport computeDot(const DotCommandOptions& options) {
    return {options.dot, options.a.size(), dotProduct(options.a, options.b, options.dot)};
}

std::string resultBits(const DotResult& r) {
    return r.bits ? codeToHex(*r.bits, r.resultFormat->totalBits()) : std::string();
}

void renderDotJson(const DotReport& report, std::ostream& out) {
    const DotOptions& options = report.dot;
    const DotResult& r = report.result;
    Json json;
    json["terms"] = report.terms;
    json["element"] = options.element.id;
    json["product"] = stageName(options.product);
    json["accumulator"] = stageName(options.accumulator);
    json["block"] = options.blockSize > 0 ? Json(options.blockSize) : Json(nullptr);
    json["round"] = roundingChoiceId(options.rounding);
    json["overflow"] = overflowPolicyId(options.rounding.overflow);
    json["value"] = decimalOrNull(r.value);
    json["bits"] = r.bits ? Json(resultBits(r)) : Json(nullptr);
    json["result_format"] = r.resultFormat ? Json(r.resultFormat->id) : Json(nullptr);
    json["exact"] = decimalOrNull(r.exact);
    json["error"] = decimalOrNull(r.error);
    json["rel_error"] = decimalOrNull(r.relativeError);
    printJson(out, json);
}

void renderDotText(const DotReport& report, std::ostream& out) {
    const DotOptions& options = report.dot;
    const DotResult& r = report.result;
    out << "dot product of " << report.terms << " terms: elements " << options.element.id
        << ", products " << stageName(options.product) << ", accumulator "
        << stageName(options.accumulator);
    if (options.blockSize > 0)
        out << " in blocks of " << options.blockSize << " promoted into fp32";
    out << ", rounding " << roundingChoiceId(options.rounding) << "\n";
    auto line = [&](const char* label, const std::string& text) {
        std::string padded(label);
        padded.resize(16, ' ');
        out << "  " << padded << text << '\n';
    };
    line("value", toDecimal(r.value).text +
                      (r.bits ? "  (" + resultBits(r) + " in " + r.resultFormat->id + ")" : ""));
    line("exact", toDecimal(r.exact).text);
    line("error", toDecimal(r.error).text);
    line("relative error", r.relativeError.isNaN() ? "-" : toSignificantDigits(r.relativeError, 6));
}

} // namespace

int runDot(const std::vector<std::string>& rawArgs, Streams& io) {
    const Arguments args(rawArgs,
                         {"a", "b", "terms", "element", "product", "accumulator", "block", "round",
                          "overflow", "seed", "scale", "machine", "machines", "c", "promote"},
                         {"json", "explain"});
    if (const auto stop = checkOptionsOnly(args, io, "dot", kUsage))
        return *stop;
    const Outcome<DotCommandOptions> options = parseDotOptions(args);
    if (!options)
        return reportError(io, "dot", options.error());
    if (options->machine) {
        MachineDotReport report;
        try {
            report = computeMachineDot(*options->machine, options->a, options->b);
        } catch (const std::invalid_argument& e) {
            return reportError(io, "dot", dataError(e.what()));
        }
        if (options->json)
            renderMachineDotJson(report, io.out);
        else
            renderMachineDotText(report, io.out);
        return kExitOk;
    }
    const DotReport report = computeDot(*options);
    if (options->json)
        renderDotJson(report, io.out);
    else
        renderDotText(report, io.out);
    return kExitOk;
}

} // namespace fpx::cli
