// SPDX-License-Identifier: GPL-3.0-or-later
// fpx table: every code of a small format with its class and exact value.
#include "arguments.h"
#include "commands.h"
#include "conversion_setup.h"
#include "presentation.h"

#include "fpx/conversion.h"
#include "fpx/decimal_text.h"
#include "fpx/format_catalogue.h"

#include <ostream>

namespace fpx::cli {

int runTable(const std::vector<std::string>& rawArgs, Streams& io) {
    Arguments args(rawArgs, {"scale"}, {"json", "csv", "color", "no-color"});
    const char* usage = "usage: fpx table FORMAT [--json|--csv] [--scale S]\n";
    if (!args.ok()) {
        io.err << "fpx table: " << args.error() << '\n' << usage;
        return kExitUsage;
    }
    if (args.helpRequested())
        return printHelp(io, usage);
    if (args.positionals().size() != 1) {
        io.err << "fpx table: expected exactly one format\n" << usage;
        return kExitUsage;
    }
    if (args.has("json") && args.has("csv")) {
        io.err << "fpx table: choose one of --json and --csv\n";
        return kExitUsage;
    }
    FormatLookup lookup = findFormat(args.positionals().front());
    if (!lookup) {
        io.err << "fpx table: " << lookup.error << '\n';
        return kExitUsage;
    }
    const ConversionSetup setup = readConversionSetup(args);
    if (!setup.error.empty()) {
        io.err << "fpx table: " << setup.error << '\n';
        return kExitUsage;
    }
    FormatSpec spec = *lookup.spec;
    setup.applyScale(spec);
    const int bits = spec.totalBits();
    if (bits > 16) {
        io.err << "fpx table: " << spec.id << " has " << bits
               << " bits; tables are for formats of at most 16 bits (" << (1u << 16) << " codes)\n";
        return kExitUsage;
    }
    const Code count = Code(1) << bits;
    if (args.has("json")) {
        // The whole document is built before it is printed: at most 2^16 codes (16 bits).
        Json codes = Json::array();
        for (Code code = 0; code < count; ++code) {
            const DecodedCode d = decodeCode(spec, code);
            const DecimalText value = toDecimal(d.value);
            codes.push_back({{"bits", codeToHex(code, bits)},
                             {"binary", binaryByField(spec, code)},
                             {"class", valueClassName(d.valueClass)},
                             {"value", value.text},
                             {"exact", value.exact}});
        }
        printJson(io.out, {{"format", spec.id}, {"bits", bits}, {"codes", std::move(codes)}});
        return kExitOk;
    }
    if (args.has("csv")) {
        io.out << "bits,binary,class,value,exact\n";
        for (Code code = 0; code < count; ++code) {
            const DecodedCode d = decodeCode(spec, code);
            const DecimalText value = toDecimal(d.value);
            io.out << codeToHex(code, bits) << ',' << binaryByField(spec, code) << ','
                   << valueClassName(d.valueClass) << ',' << value.text << ','
                   << (value.exact ? "true" : "false") << '\n';
        }
        return kExitOk;
    }
    const TerminalStyle style{(io.outIsTerminal && !args.has("no-color")) || args.has("color")};
    TextTable table({"hex", "bits", "class", "value"});
    for (Code code = 0; code < count; ++code) {
        const DecodedCode d = decodeCode(spec, code);
        const DecimalText value = toDecimal(d.value);
        table.addRow({codeToHex(code, bits), colouredBits(spec, code, style),
                      std::string(valueClassName(d.valueClass)),
                      value.exact ? value.text : value.text + "…"});
    }
    table.print(io.out, style.enabled);
    return kExitOk;
}

} // namespace fpx::cli
