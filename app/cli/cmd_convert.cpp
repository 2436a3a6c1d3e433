// SPDX-License-Identifier: GPL-3.0-or-later
// fpx convert: a streaming filter from values or codes to codes, as text lines or packed
// little-endian binary arrays. The options; convert_text.cpp and convert_raw.cpp convert.
#include "arguments.h"
#include "commands.h"
#include "conversion_setup.h"
#include "convert.h"

#include "fpx/exact/format_catalogue.h"

namespace fpx::cli {

namespace {

constexpr const char* kUsage =
    "usage: fpx convert --to FORMAT [--from FORMAT] [--round MODE] [--overflow POLICY]\n"
    "                   [--scale S] [--seed N] [--raw] < input > output\n";

} // namespace

Outcome<ConvertOptions> parseConvertOptions(const Arguments& args) {
    if (!args.positionals().empty())
        return CommandError{"unexpected argument '" + args.positionals().front() +
                            "' (input comes from stdin)"};
    if (!args.has("to"))
        return CommandError{"--to FORMAT is required"};
    ConvertOptions options;
    options.setup = readConversionSetup(args);
    const ConversionSetup& setup = options.setup;
    if (!setup.error.empty())
        return CommandError{setup.error};
    FormatLookup to = findFormat(*args.value("to"));
    if (!to)
        return CommandError{"--to: " + to.error};
    setup.applyScale(*to.spec);
    options.to = std::move(*to.spec);
    if (args.has("from")) {
        FormatLookup from = findFormat(*args.value("from"));
        if (!from)
            return CommandError{"--from: " + from.error};
        setup.applyScale(*from.spec);
        options.from = std::move(from.spec);
    }
    options.raw = args.has("raw");
    if (options.raw && !options.from)
        return CommandError{"--raw needs --from FORMAT (the binary layout of the input)"};
    return options;
}

// The filter streams: its loops convert and write as they read (convert.h).
int runConvert(const std::vector<std::string>& rawArgs, Streams& io) {
    const Arguments args(rawArgs, {"to", "from", "round", "overflow", "seed", "scale"}, {"raw"});
    if (const auto stop = checkArguments(args, io, "convert", kUsage))
        return *stop;
    const Outcome<ConvertOptions> options = parseConvertOptions(args);
    if (!options)
        return reportError(io, "convert", options.error());
    return options->raw ? convertRaw(*options, io) : convertText(*options, io);
}

} // namespace fpx::cli
