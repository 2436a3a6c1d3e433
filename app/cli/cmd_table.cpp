// SPDX-License-Identifier: GPL-3.0-or-later
// fpx table: every code of a small format with its class and exact value.
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

} // namespace

int runTable(const std::vector<std::string>& rawArgs, Streams& io) {
    Arguments args(rawArgs, {"scale", "limit", "output"},
                   {"json", "csv", "color", "no-color", "stream"});
    if (const auto stop = checkArguments(args, io, "table", kUsage))
        return *stop;
    if (args.positionals().size() != 1)
        return usageError(io, "table", "expected exactly one format");
    if (args.has("json") && args.has("csv"))
        return usageError(io, "table", "choose one of --json and --csv");
    if (args.has("limit") && args.has("stream"))
        return usageError(io, "table", "choose one of --limit and --stream");
    FormatLookup lookup = findFormat(args.positionals().front());
    if (!lookup)
        return usageError(io, "table", lookup.error);
    const ConversionSetup setup = readConversionSetup(args);
    if (!setup.error.empty())
        return usageError(io, "table", setup.error);
    FormatSpec spec = *lookup.spec;
    setup.applyScale(spec);
    const int bits = spec.totalBits();
    if (bits > 16)
        return usageError(io, "table",
                          spec.id + " has " + std::to_string(bits) +
                              " bits; tables are for formats of at most 16 bits (" +
                              std::to_string(1u << 16) + " codes)");
    std::uint64_t count = std::uint64_t(1) << bits;
    if (const auto limit = args.value("limit")) {
        const auto n = readLimit(*limit);
        if (!n)
            return usageError(io, "table",
                              std::string("--limit '") + *limit +
                                  "': expected a number of rows, 1 or more");
        count = std::min(count, *n);
    }
    const TableSize size = measureTable(spec, count);
    if (size.bytes > kMaxTableBytes && !args.has("stream")) {
        return usageError(io, "table",
                          spec.id + " would write about " + describeBytes(size.bytes) + " (" +
                              std::to_string(count) + " codes, exact decimals of up to " +
                              std::to_string(size.longestValue) +
                              " characters); use --limit N for the first N codes, or --stream to "
                              "write it all");
    }
    const TerminalStyle style{(io.outIsTerminal && !args.has("no-color") && !args.has("output")) ||
                              args.has("color")};

    // Before the output file exists, so that Ctrl+C can never leave it behind.
    const InterruptGuard interrupt;
    std::optional<OutputFile> file;
    if (const auto path = args.value("output")) {
        file.emplace(*path);
        if (!file->ok()) {
            io.err << "fpx table: --output: " << file->error() << '\n';
            return kExitDataError;
        }
    }
    std::ostream& out = file ? file->stream() : io.out;
    std::unique_ptr<RowWriter> writer;
    if (args.has("json"))
        writer = std::make_unique<JsonWriter>(out, spec, style, size);
    else if (args.has("csv"))
        writer = std::make_unique<CsvWriter>(out, spec, style, size);
    else
        writer = std::make_unique<TextWriter>(out, spec, style, size);

    const bool progress = file && args.has("stream");
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
    if (file && !file->commit()) {
        io.err << "fpx table: --output: " << file->error() << '\n';
        return kExitDataError;
    }
    return kExitOk;
}

} // namespace fpx::cli
