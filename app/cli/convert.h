// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// fpx convert: its options, and the streaming loops that convert and write (cmd_convert.cpp;
// convert_text.cpp and convert_raw.cpp, with what they share in convert_stream.h).

#include "arguments.h"
#include "commands.h"
#include "conversion_setup.h"

#include "fpx/exact/format_spec.h"

#include <optional>

namespace fpx::cli {

struct ConvertOptions {
    FormatSpec to;                  // --to, --scale applied
    std::optional<FormatSpec> from; // --from: the input is codes of it (else values)
    ConversionSetup setup;
    bool raw = false; // --raw: packed little-endian binary in and out
};

Outcome<ConvertOptions> parseConvertOptions(const Arguments& args);

// convert is a streaming filter: there is no report to build first, since the input may be
// larger than memory. Each loop reads, converts and writes as it goes, says what it cannot
// convert on stderr, and returns the exit status.
int convertText(const ConvertOptions& options, Streams& io); // lines of values or codes
int convertRaw(const ConvertOptions& options, Streams& io);  // needs options.from

} // namespace fpx::cli
