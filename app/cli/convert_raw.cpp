// SPDX-License-Identifier: GPL-3.0-or-later
// fpx convert's raw loop: packed little-endian elements read, converted and written a chunk at
// a time, so that the input may be larger than memory.
#include "convert.h"
#include "convert_stream.h"

#include "fpx/exact/packed_codes.h"

#include <bit>
#include <cstring>
#include <istream>
#include <ostream>
#include <vector>

namespace fpx::cli {

namespace {

// Element `index` holds bits above the code of `from`: the low bits are used, and it is said.
std::string highBitsMessage(const FormatSpec& from, std::size_t inBytes, std::uint64_t index,
                            Code code) {
    return "element " + std::to_string(index) + " (byte offset " + std::to_string(index * inBytes) +
           "): " + codeToHex(code, static_cast<int>(inBytes * 8)) + " has bits set above the " +
           std::to_string(from.totalBits()) + "-bit code of " + from.id +
           "; only the low bits were used";
}

} // namespace

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
                    errors.report(highBitsMessage(from, inBytes, index + i, code));
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
                errors.report(highBitsMessage(from, inBytes, index, code));
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
