// SPDX-License-Identifier: GPL-3.0-or-later
// fpx table: every code of a small format with its class and exact value: the options, and the
// rows computed and written one by one as text, JSON or CSV.
#include "arguments.h"
#include "commands.h"
#include "conversion_setup.h"
#include "presentation.h"
#include "table_output.h"
#include "text_table.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"

#include <algorithm>
#include <charconv>
#include <memory>
#include <optional>
#include <ostream>

namespace fpx::cli {

namespace {

const char* const kUsage =
    "usage: fpx table FORMAT [--json|--csv] [--scale S] [--limit N | --stream] [--output FILE]\n"
    "  --limit N: only the first N codes; --stream: write a table of any size\n"
    "  --output FILE: write to FILE (complete or not at all; Ctrl+C leaves no part of it)\n";

// One row: the code's fields, class and exact decimal.
struct Row {
    Code code = 0;
    DecodedCode decoded;
    DecimalText value;
};

Row rowOf(const FormatSpec& spec, Code code) {
    Row row;
    row.code = code;
    row.decoded = decodeCode(spec, code);
    row.value = toDecimal(row.decoded.value);
    return row;
}

// Writes rows as they are computed, so that no table is ever held whole. Each layout matches
// what a table built whole and then printed would be: the text table's column widths are
// known before the first row (the hex and bit columns have one width per format, the class
// column the widest class present, and the value column is last, so it is never padded), and
// the JSON document is laid out as printJson lays it out.
class RowWriter {
  public:
    RowWriter(std::ostream& out, const FormatSpec& spec, const TerminalStyle& style,
              const TableSize& size)
        : out_(out), spec_(spec), style_(style), size_(size) {}
    virtual ~RowWriter() = default;
    virtual void begin() = 0;
    virtual void write(const Row& row, bool last) = 0;
    virtual void end() {}

  protected:
    std::ostream& out_;
    const FormatSpec& spec_;
    const TerminalStyle& style_;
    const TableSize& size_;
};

class TextWriter : public RowWriter {
  public:
    using RowWriter::RowWriter;
    void begin() override {
        const std::string header = cell("hex", size_.hexWidth) + cell("bits", size_.bitsWidth) +
                                   cell("class", size_.classWidth) + "value";
        if (style_.enabled) {
            // As TextTable bolds each header cell with its padding.
            out_ << "\x1b[1m" << cell("hex", size_.hexWidth) << "\x1b[0m\x1b[1m"
                 << cell("bits", size_.bitsWidth) << "\x1b[0m\x1b[1m"
                 << cell("class", size_.classWidth) << "\x1b[0m\x1b[1mvalue\x1b[0m\n";
            return;
        }
        out_ << header << '\n';
    }
    void write(const Row& row, bool) override {
        const int bits = spec_.totalBits();
        std::string line =
            cell(codeToHex(row.code, bits), size_.hexWidth) +
            cell(colouredBits(spec_, row.code, style_), size_.bitsWidth) +
            cell(std::string(valueClassName(row.decoded.valueClass)), size_.classWidth) +
            (row.value.exact ? row.value.text : row.value.text + "…");
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        out_ << line << '\n';
    }

  private:
    static std::string cell(std::string text, std::size_t width) {
        text.append(width - TextTable::visibleWidth(text) + 2, ' ');
        return text;
    }
};

class CsvWriter : public RowWriter {
  public:
    using RowWriter::RowWriter;
    void begin() override { out_ << "bits,binary,class,value,exact\n"; }
    void write(const Row& row, bool) override {
        out_ << codeToHex(row.code, spec_.totalBits()) << ',' << binaryByField(spec_, row.code)
             << ',' << valueClassName(row.decoded.valueClass) << ',' << row.value.text << ','
             << (row.value.exact ? "true" : "false") << '\n';
    }
};

class JsonWriter : public RowWriter {
  public:
    using RowWriter::RowWriter;
    void begin() override {
        // printJson's layout of {"format", "bits", "codes": [...]}, opened here and closed by
        // end(); each code is dumped by the same Json and indented to its depth.
        const Json head = {{"format", spec_.id}, {"bits", spec_.totalBits()}};
        std::string text = head.dump(2, ' ', false, Json::error_handler_t::replace);
        text.erase(text.rfind('\n')); // drop the closing "}"
        out_ << text << ",\n  \"codes\": [\n";
    }
    void write(const Row& row, bool last) override {
        const int bits = spec_.totalBits();
        const Json code = {{"bits", codeToHex(row.code, bits)},
                           {"binary", binaryByField(spec_, row.code)},
                           {"class", valueClassName(row.decoded.valueClass)},
                           {"value", row.value.text},
                           {"exact", row.value.exact}};
        const std::string text = code.dump(2, ' ', false, Json::error_handler_t::replace);
        std::string indented = "    ";
        for (const char c : text) {
            indented += c;
            if (c == '\n')
                indented += "    ";
        }
        out_ << indented << (last ? "\n" : ",\n");
    }
    void end() override { out_ << "  ]\n}\n"; }
};

std::optional<std::uint64_t> readLimit(const std::string& text) {
    std::uint64_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size() || n == 0)
        return std::nullopt;
    return n;
}

struct TableOptions {
    FormatSpec spec;         // --scale applied
    std::uint64_t count = 0; // the codes to write, from 0
    TableSize size;
    OutputForm form = OutputForm::Text;
    ColorChoice color = ColorChoice::Auto;
    std::optional<std::string> output; // --output FILE
    bool stream = false;
};

Outcome<TableOptions> parseTableOptions(const Arguments& args) {
    if (args.positionals().size() != 1)
        return CommandError{"expected exactly one format"};
    const auto form = readOutputForm(args);
    if (!form)
        return CommandError{"choose one of --json and --csv"};
    if (args.has("limit") && args.has("stream"))
        return CommandError{"choose one of --limit and --stream"};
    FormatLookup lookup = findFormat(args.positionals().front());
    if (!lookup)
        return CommandError{lookup.error};
    const ConversionSetup setup = readConversionSetup(args);
    if (!setup.error.empty())
        return CommandError{setup.error};
    TableOptions options;
    options.spec = *lookup.spec;
    setup.applyScale(options.spec);
    const int bits = options.spec.totalBits();
    if (bits > 16)
        return CommandError{options.spec.id + " has " + std::to_string(bits) +
                            " bits; tables are for formats of at most 16 bits (" +
                            std::to_string(1u << 16) + " codes)"};
    options.count = std::uint64_t(1) << bits;
    if (const auto limit = args.value("limit")) {
        const auto n = readLimit(*limit);
        if (!n)
            return CommandError{std::string("--limit '") + *limit +
                                "': expected a number of rows, 1 or more"};
        options.count = std::min(options.count, *n);
    }
    options.stream = args.has("stream");
    options.size = measureTable(options.spec, options.count);
    if (options.size.bytes > kMaxTableBytes && !options.stream)
        return CommandError{options.spec.id + " would write about " +
                            describeBytes(options.size.bytes) + " (" +
                            std::to_string(options.count) + " codes, exact decimals of up to " +
                            std::to_string(options.size.longestValue) +
                            " characters); use --limit N for the first N codes, or --stream to "
                            "write it all"};
    options.form = *form;
    options.color = readColorChoice(args);
    options.output = args.value("output");
    return options;
}

// table streams: each row is computed and written by the writer of the form asked for, so
// that no table is ever held whole; this loop is its compute and render step. Returns the
// exit status.
int writeTable(const TableOptions& options, Streams& io) {
    const FormatSpec& spec = options.spec;
    const std::uint64_t count = options.count;
    // A file is never coloured.
    const auto style = TerminalStyle::forChoice(options.color, io.outIsTerminal && !options.output);

    // Before the output file exists, so that Ctrl+C can never leave it behind.
    const InterruptGuard interrupt;
    std::optional<OutputFile> file;
    if (options.output) {
        file.emplace(*options.output);
        if (!file->ok())
            return reportError(io, "table", dataError("--output: " + file->error()));
    }
    std::ostream& out = file ? file->stream() : io.out;
    std::unique_ptr<RowWriter> writer;
    switch (options.form) {
    case OutputForm::Json:
        writer = std::make_unique<JsonWriter>(out, spec, style, options.size);
        break;
    case OutputForm::Csv:
        writer = std::make_unique<CsvWriter>(out, spec, style, options.size);
        break;
    case OutputForm::Text:
        writer = std::make_unique<TextWriter>(out, spec, style, options.size);
        break;
    }

    const bool progress = file && options.stream;
    writer->begin();
    for (std::uint64_t code = 0; code < count; ++code) {
        if (interrupt.requested()) {
            out.flush();
            if (file)
                file->discard();
            io.err << "fpx table: interrupted after " << code << " of " << count << " codes"
                   << (file ? "; " + file->path() + " was not written" : std::string()) << '\n';
            return kExitInterrupted;
        }
        writer->write(rowOf(spec, Code(code)), code + 1 == count);
        if (progress && count >= 8 && (code + 1) % (count / 8) == 0)
            io.err << "fpx table: " << code + 1 << " of " << count << " codes written\n";
    }
    writer->end();
    out.flush();
    if (file && !file->commit())
        return reportError(io, "table", dataError("--output: " + file->error()));
    return kExitOk;
}

} // namespace

int runTable(const std::vector<std::string>& rawArgs, Streams& io) {
    const Arguments args(rawArgs, {"scale", "limit", "output"},
                         {"json", "csv", "color", "no-color", "stream"});
    if (const auto stop = checkArguments(args, io, "table", kUsage))
        return *stop;
    const Outcome<TableOptions> options = parseTableOptions(args);
    if (!options)
        return reportError(io, "table", options.error());
    return writeTable(*options, io);
}

} // namespace fpx::cli
