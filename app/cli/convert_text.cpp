// SPDX-License-Identifier: GPL-3.0-or-later
// fpx convert's text loop: lines of values or codes read, converted and written as they come,
// so that the input may be larger than memory.
#include "convert.h"
#include "convert_stream.h"

#include "fpx/exact/code_parser.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/text_util.h"
#include "fpx/exact/value_parser.h"
#include "fpx/exact/work_budget.h"

#include <cstdio>
#include <cstring>
#include <istream>
#include <optional>
#include <ostream>
#include <vector>

namespace fpx::cli {

namespace {

constexpr std::size_t kMaxLineBytes = 1 << 20;

// Reads lines of at most kMaxLineBytes; longer ones are skipped and reported as such.
class LineReader {
  public:
    explicit LineReader(std::istream& in) : in_(in), buffer_(kChunkBytes) {}

    // False at the end of input. `tooLong` is set for a line that was cut off and skipped.
    bool next(std::string& line, bool& tooLong) {
        line.clear();
        tooLong = false;
        for (;;) {
            if (pos_ == size_ && !refill())
                return !line.empty() || tooLong; // a last line without '\n' still counts
            const char* begin = buffer_.data() + pos_;
            const char* end = buffer_.data() + size_;
            const char* newline = static_cast<const char*>(
                std::memchr(begin, '\n', static_cast<std::size_t>(end - begin)));
            const char* stop = newline ? newline : end;
            if (!tooLong) {
                line.append(begin, stop);
                if (line.size() > kMaxLineBytes) {
                    tooLong = true;
                    line.clear();
                }
            }
            pos_ = static_cast<std::size_t>(stop - buffer_.data());
            if (newline) {
                ++pos_;
                return true;
            }
        }
    }

  private:
    bool refill() {
        if (eof_)
            return false;
        in_.read(buffer_.data(), static_cast<std::streamsize>(buffer_.size()));
        size_ = static_cast<std::size_t>(in_.gcount());
        pos_ = 0;
        if (size_ == 0)
            eof_ = true;
        return size_ != 0;
    }
    std::istream& in_;
    std::vector<char> buffer_;
    std::size_t pos_ = 0;
    std::size_t size_ = 0;
    bool eof_ = false;
};

std::string printable(const std::string& text) {
    std::string out;
    for (unsigned char c : text.substr(0, 60)) {
        if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
        } else {
            char buffer[8];
            std::snprintf(buffer, sizeof buffer, "\\x%02x", c);
            out += buffer;
        }
    }
    return text.size() > 60 ? out + "…" : out;
}

} // namespace

int convertText(const ConvertOptions& options, Streams& io) {
    const std::optional<FormatSpec>& from = options.from;
    const FormatSpec& to = options.to;
    const ConversionSetup& setup = options.setup;
    ErrorLog errors(io.err);
    LineReader reader(io.in);
    std::optional<CodeConverter> codes;
    if (from)
        codes.emplace(*from, to, setup);
    const int toBits = to.totalBits();
    std::string line;
    bool tooLong = false;
    std::uint64_t lineNumber = 0;
    std::string out;
    StreamBudget budget;
    while (reader.next(line, tooLong)) {
        ++lineNumber;
        if (tooLong) {
            errors.report("line " + std::to_string(lineNumber) + ": longer than " +
                          std::to_string(kMaxLineBytes) + " bytes, skipped");
            out += "error\n";
            continue;
        }
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        const std::string_view trimmed = trim(line);
        if (trimmed.empty()) {
            out += '\n';
            continue;
        }
        if (from) {
            const ParsedCode code = readCode(trimmed, from->totalBits());
            if (!code) {
                const std::size_t column =
                    code.errorPosition + 1 + static_cast<std::size_t>(trimmed.data() - line.data());
                errors.report("line " + std::to_string(lineNumber) + ", column " +
                              std::to_string(column) + ": " + code.error + " in '" +
                              printable(std::string(trimmed)) + "' (a code of " +
                              std::to_string(from->totalBits()) + " bits for " + from->id + ")");
                out += "error\n";
            } else {
                out += codeToHex(codes->convert(*code.code, lineNumber - 1), toBits);
                out += '\n';
            }
        } else {
            const ParsedValue parsed = parseValue(trimmed);
            if (!budget.charge(parsed)) {
                // Each line is bounded by itself; this bounds their sum (docs/behaviour.md,
                // "Bounded work"). What was converted so far is written, the rest refused.
                io.out << out;
                io.out.flush();
                errors.fatal("line " + std::to_string(lineNumber) + ": " +
                             StreamBudget::spentMessage() +
                             "; stopped here, the rest of the input was not converted");
                errors.summarize();
                return kExitDataError;
            }
            if (parsed && !parsed.exact && !acceptsStandInInput(to, *parsed.value)) {
                errors.report("line " + std::to_string(lineNumber) +
                              ": a value longer than 40000 digits or beyond 10^±20000 cannot be "
                              "rounded exactly into the scaled format " +
                              to.id);
                out += "error\n";
            } else if (!parsed) {
                const std::size_t column = parsed.error.position + 1 +
                                           static_cast<std::size_t>(trimmed.data() - line.data());
                errors.report("line " + std::to_string(lineNumber) + ", column " +
                              std::to_string(column) + ": " + parsed.error.message + " in '" +
                              printable(std::string(trimmed)) + "'");
                out += "error\n";
            } else {
                out += codeToHex(
                    roundToFormat(*parsed.value, to, setup.forElement(lineNumber - 1)).code,
                    toBits);
                out += '\n';
            }
        }
        if (out.size() >= kChunkBytes) {
            io.out << out;
            out.clear();
        }
    }
    io.out << out;
    io.out.flush();
    errors.summarize();
    return errors.count() == 0 ? kExitOk : kExitDataError;
}

} // namespace fpx::cli
