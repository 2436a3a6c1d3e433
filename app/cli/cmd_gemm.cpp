// SPDX-License-Identifier: GPL-3.0-or-later
// fpx gemm: how far matrix engines' products are from the exact ones, against K, with and
// without promotion (docs/behaviour.md, "Machines"). The options, the report and its text,
// JSON and CSV renderers.
#include "arguments.h"
#include "commands.h"
#include "dot_machine.h"
#include "presentation.h"
#include "term_options.h"
#include "text_table.h"
#include "training_options.h"

#include "fpx/exact/text_util.h"
#include "fpx/machines/machine_error.h"

#include <algorithm>
#include <cstdio>
#include <ostream>

namespace fpx::cli {
namespace {

constexpr const char* kUsage =
    "usage: fpx gemm --machine M[,M...] [--element E] [--k K[,K...]] [--dist SPEC]\n"
    "                [--m M] [--n N] [--promote N[,N...]] [--seed S] [--machines FILE]\n"
    "                [--json|--csv]\n"
    "  C = A·B with A m×K and B K×n drawn from SPEC (default normal:0:1, each value rounded\n"
    "  to FP32, then into the element as the instruction takes it), computed on each machine\n"
    "  (fpx machines lists them) and compared with the exact product, for each K (default\n"
    "  16,64,256,1024,4096; a shorter K uses the first elements of the same rows and\n"
    "  columns). Per machine and K: the largest and the mean relative error and the share of\n"
    "  results at least one FP32 ulp from the exact value.\n"
    "  --element: a format or block format every machine takes (default: the first machine's\n"
    "          first element)\n"
    "  --promote N: also every machine with its accumulator added into an FP32 total every\n"
    "          N elements of K (DeepSeek-V3's fix for Hopper FP8, CUTLASS's 2xAcc); N a\n"
    "          multiple of each instruction's products\n"
    "  --m, --n: results per K are m·n (default 16 each, at most 256)\n"
    "  --machines FILE: machines of one's own (docs/behaviour.md, \"Machine files\")\n";

constexpr std::size_t kMaxSide = 256;
constexpr std::size_t kMaxK = 65536;
// Products through the exact core, every machine and K together: a few minutes at most.
constexpr double kMaxProducts = 1u << 27;

struct GemmOptions {
    GemmErrorRequest request;
    OutputForm form = OutputForm::Text;
};

struct GemmReport {
    GemmErrorRequest request;
    std::vector<MachineErrorCurve> curves;
};

// A comma-separated list of counts, each at least 1 and at most `most`.
Outcome<std::vector<std::size_t>> readCounts(const std::string& option, const std::string& text,
                                             std::size_t most, bool zeroAllowed = false) {
    std::vector<std::size_t> counts;
    for (const std::string_view part : splitAt(text, ',')) {
        const std::optional<std::size_t> count = zeroAllowed && trim(part) == "0"
                                                     ? std::optional<std::size_t>(0)
                                                     : parseTermCount(trim(part));
        if (!count || *count > most)
            return CommandError{"--" + option + ": expected counts from " +
                                (zeroAllowed ? "0" : "1") + " to " + std::to_string(most) +
                                " separated by commas, got '" + std::string(part) + "'"};
        counts.push_back(*count);
    }
    return counts;
}

Outcome<std::size_t> readSide(const Arguments& args, const char* option) {
    const std::optional<std::string> text = args.value(option);
    if (!text)
        return std::size_t(16);
    const std::optional<std::size_t> side = parseTermCount(*text);
    if (!side || *side > kMaxSide)
        return CommandError{std::string("--") + option + ": expected 1 to " +
                            std::to_string(kMaxSide) + ", got '" + *text + "'"};
    return *side;
}

Outcome<GemmOptions> parseGemmOptions(const Arguments& args) {
    GemmOptions options;
    GemmErrorRequest& request = options.request;
    const auto form = readOutputForm(args);
    if (!form)
        return CommandError{"choose one of --json and --csv"};
    options.form = *form;
    const std::optional<std::string> machines = args.value("machine");
    if (!machines)
        return CommandError{"--machine is required (fpx machines lists them)"};
    const Outcome<std::vector<MachineModel>> own = readOwnMachines(args);
    if (!own)
        return own.error();
    std::string error;
    for (const std::string_view name : splitAt(*machines, ',')) {
        std::optional<MachineModel> machine = findMachine(trim(name), error, *own);
        if (!machine)
            return CommandError{"--machine: " + error};
        request.machines.push_back(std::move(*machine));
    }
    const std::string elementId =
        args.value("element").value_or(defaultMachineElement(request.machines.front()));
    std::optional<MachineElement> element = findMachineElement(elementId, error);
    if (!element)
        return CommandError{"--element: " + error};
    request.element = std::move(*element);
    Outcome<std::vector<std::size_t>> ks =
        readCounts("k", args.value("k").value_or("16,64,256,1024,4096"), kMaxK);
    if (!ks)
        return ks.error();
    request.ks = std::move(*ks);
    std::sort(request.ks.begin(), request.ks.end());
    request.ks.erase(std::unique(request.ks.begin(), request.ks.end()), request.ks.end());
    request.promotions = {0};
    if (const std::optional<std::string> text = args.value("promote")) {
        Outcome<std::vector<std::size_t>> every = readCounts("promote", *text, kMaxK, true);
        if (!every)
            return every.error();
        for (const std::size_t n : *every)
            if (n > 0 && std::find(request.promotions.begin(), request.promotions.end(), n) ==
                             request.promotions.end())
                request.promotions.push_back(n);
    }
    for (const MachineModel& machine : request.machines) {
        const MachineInstruction* instruction = machine.instructionFor(request.element.id);
        if (!instruction)
            return CommandError{"--element " + request.element.id + ": " + machine.name +
                                " has no instruction for it (fpx machines lists each one's)"};
        for (const std::size_t n : request.promotions)
            if (n % std::size_t(instruction->products) != 0)
                return CommandError{"--promote " + std::to_string(n) + ": not a multiple of the " +
                                    std::to_string(instruction->products) + " products of " +
                                    machine.name + "'s " + request.element.id + " instruction"};
    }
    const std::string dist = args.value("dist").value_or("normal:0:1");
    std::optional<ValueDistribution> distribution = parseValueDistribution(dist, error);
    if (!distribution)
        return CommandError{"--dist: " + error};
    request.distribution = std::move(*distribution);
    const Outcome<std::size_t> m = readSide(args, "m");
    if (!m)
        return m.error();
    const Outcome<std::size_t> n = readSide(args, "n");
    if (!n)
        return n.error();
    request.m = *m;
    request.n = *n;
    if (const std::optional<std::string> text = args.value("seed")) {
        const std::optional<std::uint64_t> seed = parseSeedOption(*text, error);
        if (!seed)
            return CommandError{error};
        request.seed = *seed;
    }
    double products = 0;
    for (const std::size_t k : request.ks)
        products += double(k);
    products *= double(request.m * request.n) * double(request.machines.size()) *
                double(request.promotions.size());
    if (products > kMaxProducts)
        return CommandError{"every product goes through the exact core: " +
                            std::to_string(std::uint64_t(products)) + " of them is over the " +
                            std::to_string(std::uint64_t(kMaxProducts)) +
                            " fpx gemm takes; use fewer machines, a smaller --m, --n or --k"};
    return options;
}

std::string number(double x) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", x);
    return text;
}

double offShare(const MachineErrorPoint& p) {
    return p.compared > 0 ? double(p.offByUlp) / double(p.compared) : 0;
}

std::string promotionText(std::size_t every) {
    return every == 0 ? "-" : std::to_string(every);
}

void renderGemmText(const GemmReport& report, std::ostream& out) {
    const GemmErrorRequest& r = report.request;
    out << "C = A·B, A " << r.m << "×K and B K×" << r.n << " from " << r.distribution.text
        << " (seed " << r.seed << "), elements " << r.element.id
        << "; relative error against the exact product\n";
    TextTable table({"machine", "promote", "K", "max rel error", "mean rel error", "off by ≥1 ulp",
                     "non-finite"});
    for (const MachineErrorCurve& curve : report.curves)
        for (const MachineErrorPoint& p : curve.points)
            table.addRow({curve.machine, promotionText(curve.promoteEvery), std::to_string(p.k),
                          number(p.maxRelativeError), number(p.meanRelativeError),
                          number(100 * offShare(p)) + " %", std::to_string(p.nonFinite)});
    table.print(out, false);
    out << "off by ≥1 ulp: results at least one FP32 ulp (at the exact value) from it\n";
}

void renderGemmJson(const GemmReport& report, std::ostream& out) {
    const GemmErrorRequest& r = report.request;
    Json machines = Json::array();
    for (const MachineModel& machine : r.machines)
        machines.push_back(machine.name);
    Json rows = Json::array();
    for (const MachineErrorCurve& curve : report.curves)
        for (const MachineErrorPoint& p : curve.points)
            rows.push_back(
                {{"machine", curve.machine},
                 {"promote", curve.promoteEvery == 0 ? Json(nullptr) : Json(curve.promoteEvery)},
                 {"k", p.k},
                 {"results", p.results},
                 {"compared", p.compared},
                 {"max_rel_error", p.maxRelativeError},
                 {"mean_rel_error", p.meanRelativeError},
                 {"off_by_ulp", p.offByUlp},
                 {"off_by_ulp_share", offShare(p)},
                 {"non_finite", p.nonFinite}});
    Json json;
    json["machines"] = std::move(machines);
    json["element"] = r.element.id;
    json["dist"] = r.distribution.text;
    json["m"] = r.m;
    json["n"] = r.n;
    json["seed"] = r.seed;
    json["rows"] = std::move(rows);
    printJson(out, json);
}

void renderGemmCsv(const GemmReport& report, std::ostream& out) {
    out << "machine,element,promote,k,results,compared,max_rel_error,mean_rel_error,off_by_ulp,"
           "off_by_ulp_share,non_finite\n";
    char line[256];
    for (const MachineErrorCurve& curve : report.curves)
        for (const MachineErrorPoint& p : curve.points) {
            std::snprintf(line, sizeof line, ",%zu,%zu,%zu,%.17g,%.17g,%zu,%.17g,%zu\n", p.k,
                          p.results, p.compared, p.maxRelativeError, p.meanRelativeError,
                          p.offByUlp, offShare(p), p.nonFinite);
            out << curve.machine << ',' << report.request.element.id << ','
                << (curve.promoteEvery == 0 ? std::string() : std::to_string(curve.promoteEvery))
                << line;
        }
}

} // namespace

int runGemm(const std::vector<std::string>& rawArgs, Streams& io) {
    const Arguments args(
        rawArgs, {"machine", "machines", "element", "k", "dist", "m", "n", "promote", "seed"},
        {"json", "csv"});
    if (const auto stop = checkOptionsOnly(args, io, "gemm", kUsage))
        return *stop;
    const Outcome<GemmOptions> options = parseGemmOptions(args);
    if (!options)
        return reportError(io, "gemm", options.error());
    GemmReport report{options->request, {}};
    try {
        report.curves = measureGemmErrors(report.request);
    } catch (const std::invalid_argument& e) {
        return reportError(io, "gemm", dataError(e.what()));
    }
    switch (options->form) {
    case OutputForm::Json:
        renderGemmJson(report, io.out);
        break;
    case OutputForm::Csv:
        renderGemmCsv(report, io.out);
        break;
    case OutputForm::Text:
        renderGemmText(report, io.out);
        break;
    }
    return kExitOk;
}

} // namespace fpx::cli
