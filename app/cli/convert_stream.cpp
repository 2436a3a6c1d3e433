// SPDX-License-Identifier: GPL-3.0-or-later
// fpx convert's streaming loops: each line or element read, converted and written as it comes,
// so that the input may be larger than memory.
#include "convert.h"

#include "fpx/exact/code_parser.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/packed_codes.h"
#include "fpx/exact/text_util.h"
#include "fpx/exact/value_parser.h"
#include "fpx/exact/work_budget.h"
#include "fpx/kernels/bulk_conversion.h"

#include <array>
#include <bit>
#include <cstdio>
#include <cstring>
#include <istream>
#include <optional>
#include <ostream>
#include <vector>

namespace fpx::cli {

namespace {

constexpr std::size_t kMaxLineBytes = 1 << 20;
constexpr std::size_t kChunkBytes = 1 << 16;
constexpr std::size_t kMaxReportedErrors = 100;

// Bytes per element in raw mode: the smallest of 1, 2, 4, 8, 10, 16 that holds the code.
std::size_t rawElementBytes(int bits) {
    for (std::size_t bytes : {1u, 2u, 4u, 8u, 10u, 16u})
        if (static_cast<int>(bytes * 8) >= bits)
            return bytes;
    return 16;
}

// Reports errors on stderr, at most kMaxReportedErrors of them, and counts them all.
class ErrorLog {
  public:
    explicit ErrorLog(std::ostream& err) : err_(err) {}
    void report(const std::string& message) {
        if (++count_ <= kMaxReportedErrors)
            err_ << "fpx convert: " << message << '\n';
    }
    std::size_t count() const { return count_; }
    // A message that stops the stream is shown even past kMaxReportedErrors: it says why.
    void fatal(const std::string& message) {
        ++count_;
        err_ << "fpx convert: " << message << '\n';
    }
    void summarize() const {
        if (count_ > kMaxReportedErrors)
            err_ << "fpx convert: " << count_ << " errors in all (" << count_ - kMaxReportedErrors
                 << " not shown)\n";
    }

  private:
    std::ostream& err_;
    std::size_t count_ = 0;
};

// Converts codes of one format into another, caching every result when the source has at
// most 16 bits (and the rounding is deterministic): then each element is one table lookup.
// FP32 → format and format → FP32 go through the bulk kernels, proven against the exact core.
class CodeConverter {
  public:
    CodeConverter(const FormatSpec& from, const FormatSpec& to, const ConversionSetup& setup)
        : from_(from), to_(to), setup_(setup) {
        if (from.totalBits() <= 16 && setup.rounding.mode != RoundingMode::Stochastic)
            cache_.resize(std::size_t{1} << from.totalBits());
        if (from.id == "fp32" && to.id != "fp32")
            encoder_ = BulkEncoder::create(to, setup.rounding, HardwareUse::BitExact, setup.seed);
        if (to.id == "fp32" && from.id != "fp32")
            decoder_ = BulkDecoder::create(from, setup.rounding, HardwareUse::BitExact);
        if (encoder_ && static_cast<std::size_t>(encoder_->bytesPerElement()) !=
                            rawElementBytes(to.totalBits()))
            encoder_.reset();
        if (decoder_ && static_cast<std::size_t>(decoder_->bytesPerElement()) !=
                            rawElementBytes(from.totalBits()))
            decoder_.reset();
    }

    const BulkEncoder* encoder() const { return encoder_ ? &*encoder_ : nullptr; }
    const BulkDecoder* decoder() const { return decoder_ ? &*decoder_ : nullptr; }

    Code convert(Code code, std::uint64_t index) {
        if (!cache_.empty()) {
            auto& slot = cache_[static_cast<std::size_t>(code)];
            if (!slot)
                slot = roundToFormat(decodeCode(from_, code).value, to_, setup_.rounding).code;
            return *slot;
        }
        return roundToFormat(decodeCode(from_, code).value, to_, setup_.forElement(index)).code;
    }

  private:
    const FormatSpec& from_;
    const FormatSpec& to_;
    const ConversionSetup& setup_;
    std::vector<std::optional<Code>> cache_;
    std::optional<BulkEncoder> encoder_;
    std::optional<BulkDecoder> decoder_;
};

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

int convertRaw(const ConvertOptions& options, Streams& io) {
    const FormatSpec& from = *options.from;
    const FormatSpec& to = options.to;
    const ConversionSetup& setup = options.setup;
    ErrorLog errors(io.err);
    CodeConverter codes(from, to, setup);
    const std::size_t inBytes = rawElementBytes(from.totalBits());
    const std::size_t outBytes = rawElementBytes(to.totalBits());
    const int width = static_cast<int>(inBytes);
    const Code fromMask = from.codeMask();
    std::vector<char> input(kChunkBytes - kChunkBytes % inBytes);
    std::vector<char> output;
    output.reserve(input.size() / inBytes * outBytes);
    std::size_t carried = 0; // bytes of an incomplete element kept from the previous read
    std::vector<std::uint32_t> words;
    std::uint64_t index = 0;
    for (;;) {
        io.in.read(input.data() + carried, static_cast<std::streamsize>(input.size() - carried));
        const std::size_t available = carried + static_cast<std::size_t>(io.in.gcount());
        if (available == carried && io.in.gcount() == 0)
            break;
        const std::size_t whole = available / inBytes * inBytes;
        output.clear();
        static_assert(std::endian::native == std::endian::little,
                      "raw elements are read and written in place");
        const bool bulk = codes.encoder() || codes.decoder();
        if (whole == 0) {
            // The bytes end inside their first element: nothing whole to convert yet (and an
            // empty vector's data() may be null, which memcpy must not be given).
        } else if (const BulkEncoder* encoder = codes.encoder()) {
            // FP32 input: the whole block through the bulk kernel (4-byte elements, no masking).
            const std::size_t n = whole / 4;
            words.resize(n);
            std::memcpy(words.data(), input.data(), whole); // little-endian, as the file
            output.resize(n * outBytes);
            encoder->encode(words.data(), output.data(), n, index);
            index += n;
        } else if (const BulkDecoder* decoder = codes.decoder()) {
            // Codes → FP32; bits above the code are reported first (the decoder masks them).
            const std::size_t n = whole / inBytes;
            for (std::size_t i = 0; i < n; ++i) {
                const Code code = readPackedCode<Code>(input.data(), width, i);
                if ((code & ~fromMask) != 0)
                    errors.report("element " + std::to_string(index + i) + " (byte offset " +
                                  std::to_string((index + i) * inBytes) +
                                  "): " + codeToHex(code, static_cast<int>(inBytes * 8)) +
                                  " has bits set above the " + std::to_string(from.totalBits()) +
                                  "-bit code of " + from.id + "; only the low bits were used");
            }
            words.resize(n);
            decoder->decode(input.data(), words.data(), n);
            output.resize(n * 4);
            std::memcpy(output.data(), words.data(), n * 4);
            index += n;
        }
        for (std::size_t offset = bulk ? whole : 0; offset < whole; offset += inBytes, ++index) {
            Code code = readPackedCode<Code>(input.data() + offset, width, 0);
            if ((code & ~fromMask) != 0) {
                errors.report("element " + std::to_string(index) + " (byte offset " +
                              std::to_string(index * inBytes) +
                              "): " + codeToHex(code, static_cast<int>(inBytes * 8)) +
                              " has bits set above the " + std::to_string(from.totalBits()) +
                              "-bit code of " + from.id + "; only the low bits were used");
                code &= fromMask;
            }
            output.resize(output.size() + outBytes);
            writePackedCode(output.data() + output.size() - outBytes, static_cast<int>(outBytes), 0,
                            codes.convert(code, index));
        }
        io.out.write(output.data(), static_cast<std::streamsize>(output.size()));
        carried = available - whole;
        for (std::size_t i = 0; i < carried; ++i)
            input[i] = input[whole + i];
        if (!io.in)
            break;
    }
    if (carried != 0) {
        const std::string them = carried == 1 ? "it" : "them";
        const std::string converted =
            index == 0
                ? "no whole element came before " + them
                : "the " + std::to_string(index) + " whole element" +
                      (index == 1 ? " before " + them + " was" : "s before " + them + " were") +
                      " converted";
        errors.report("truncated input: the last " + std::to_string(carried) + " byte" +
                      (carried == 1 ? "" : "s") + ", at byte offset " +
                      std::to_string(index * inBytes) + ", " + (carried == 1 ? "is" : "are") +
                      " not a whole element (elements of " + from.id + " are " +
                      std::to_string(inBytes) + " bytes); " + converted);
    }
    io.out.flush();
    errors.summarize();
    return errors.count() == 0 ? kExitOk : kExitDataError;
}

} // namespace fpx::cli
