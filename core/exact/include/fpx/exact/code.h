// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fpx {

// The bit pattern of one element of any format: up to 128 bits (fp128, custom e15m112).
__extension__ typedef unsigned __int128 Code;

constexpr Code lowBitsMask(int bits) {
    return bits >= 128 ? ~Code(0) : ((Code(1) << bits) - 1);
}

// "0x" + lower-case hex, zero-padded to ceil(bits / 4) digits.
std::string codeToHex(Code code, int bits);
// Groups of bits, most significant first, e.g. widths {1, 5, 10} → "0 01101 1001010011".
std::string codeToBinary(Code code, int bits);
// Parses hex with or without "0x" (also "0b…" binary, where binary digits follow: "0b" and
// "0b3f" are hex); nullopt when malformed or too wide.
std::optional<Code> parseCode(std::string_view text, int bits);
// Decimal text of an unsigned 128-bit number.
std::string codeToDecimal(Code code);

} // namespace fpx
