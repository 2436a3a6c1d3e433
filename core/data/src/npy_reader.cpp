// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/data/npy_reader.h"

#include "element_widening.h"

#include <bit>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>

namespace fpx {

static_assert(std::endian::native == std::endian::little,
              "the .npy reader copies little-endian data as it is");

namespace {

constexpr std::string_view kMagic = "\x93NUMPY";

// The header is a Python dict literal, e.g.
//   {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }
// Its values are strings, True/False and tuples of integers; that is all this parser takes.
class HeaderParser {
  public:
    explicit HeaderParser(std::string_view text) : text_(text) {}

    // Fills `fields` with each key's raw value text; "" or what was wrong.
    std::string parse(std::map<std::string, std::string>& fields) {
        skipBlanks();
        if (!take('{'))
            return "expected '{' at the start of the header dictionary";
        for (;;) {
            skipBlanks();
            if (take('}'))
                return {};
            std::string key;
            if (!readString(key))
                return "expected a quoted key at header offset " + std::to_string(pos_);
            skipBlanks();
            if (!take(':'))
                return "expected ':' after key '" + key + "'";
            skipBlanks();
            std::string value;
            if (!readValue(value))
                return "cannot read the value of '" + key + "'";
            fields[key] = value;
            skipBlanks();
            if (take(','))
                continue;
            skipBlanks();
            if (take('}'))
                return {};
            return "expected ',' or '}' after the value of '" + key + "'";
        }
    }

  private:
    void skipBlanks() {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
            ++pos_;
    }
    bool take(char c) {
        if (pos_ < text_.size() && text_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    bool readString(std::string& out) {
        if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
            return false;
        const char quote = text_[pos_++];
        const std::size_t end = text_.find(quote, pos_);
        if (end == std::string_view::npos)
            return false;
        out = std::string(text_.substr(pos_, end - pos_));
        pos_ = end + 1;
        return true;
    }
    // A string (kept with its quotes so the caller can tell), a tuple, or a bare word.
    bool readValue(std::string& out) {
        if (pos_ >= text_.size())
            return false;
        if (text_[pos_] == '\'' || text_[pos_] == '"') {
            std::string s;
            if (!readString(s))
                return false;
            out = "'" + s + "'";
            return true;
        }
        if (text_[pos_] == '(' || text_[pos_] == '[') {
            const char close = text_[pos_] == '(' ? ')' : ']';
            const std::size_t end = text_.find(close, pos_);
            if (end == std::string_view::npos)
                return false;
            out = std::string(text_.substr(pos_, end + 1 - pos_));
            pos_ = end + 1;
            return true;
        }
        const std::size_t start = pos_;
        while (pos_ < text_.size() && text_[pos_] != ',' && text_[pos_] != '}')
            ++pos_;
        out = std::string(text_.substr(start, pos_ - start));
        while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back())))
            out.pop_back();
        return !out.empty();
    }

    std::string_view text_;
    std::size_t pos_ = 0;
};

// "(3, 4)", "(5,)", "()" → dimensions; "" or what was wrong.
std::string parseShape(const std::string& text, std::vector<std::size_t>& shape) {
    if (text.size() < 2 || text.front() != '(' || text.back() != ')')
        return "expected a tuple of integers, got " + text;
    std::size_t i = 1;
    const std::size_t end = text.size() - 1;
    while (i < end) {
        while (i < end && (text[i] == ' ' || text[i] == ','))
            ++i;
        if (i >= end)
            break;
        if (!std::isdigit(static_cast<unsigned char>(text[i])))
            return "expected a tuple of non-negative integers, got " + text;
        std::size_t value = 0;
        while (i < end && std::isdigit(static_cast<unsigned char>(text[i]))) {
            const std::size_t digit = static_cast<std::size_t>(text[i] - '0');
            if (value > (std::numeric_limits<std::size_t>::max() - digit) / 10)
                return "dimension too large in " + text;
            value = value * 10 + digit;
            ++i;
        }
        shape.push_back(value);
    }
    return {};
}

std::uint32_t littleEndian(std::string_view bytes, std::size_t at, int width) {
    std::uint32_t value = 0;
    for (int k = width - 1; k >= 0; --k)
        value = (value << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(k)]);
    return value;
}

std::string dtypeProblem(const std::string& descr) {
    if (descr == "<f2" || descr == "<f4" || descr == "<f8")
        return {};
    if (descr == ">f2" || descr == ">f4" || descr == ">f8")
        return "'" + descr +
               "' is big-endian; fpx reads little-endian '<f2', '<f4' and '<f8' "
               "(numpy: a.astype('<f8'))";
    return "unsupported dtype '" + descr +
           "'; fpx reads float16 '<f2', float32 '<f4' and float64 '<f8' "
           "(numpy: a.astype('<f8'))";
}

} // namespace

std::size_t NpyArray::elementCount() const {
    std::size_t n = 1;
    for (std::size_t d : shape)
        n *= d;
    return n;
}

bool hasNpyMagic(std::string_view bytes) {
    return bytes.substr(0, kMagic.size()) == kMagic;
}

NpyHeaderResult parseNpyHeader(std::string_view bytes, const std::string& name) {
    auto fail = [&](const std::string& message) {
        return NpyHeaderResult{std::nullopt, name + ": " + message};
    };
    if (!hasNpyMagic(bytes))
        return fail("not a .npy file (it does not start with the magic string \\x93NUMPY)");
    if (bytes.size() < 10)
        return fail("truncated: " + std::to_string(bytes.size()) +
                    " bytes, too short for a .npy preamble");
    const int major = static_cast<unsigned char>(bytes[6]);
    const int minor = static_cast<unsigned char>(bytes[7]);
    if (major < 1 || major > 3 || minor != 0)
        return fail("unsupported .npy format version " + std::to_string(major) + "." +
                    std::to_string(minor) + " (fpx reads 1.0, 2.0 and 3.0)");
    const int lengthBytes = major == 1 ? 2 : 4;
    const std::size_t headerStart = 8 + static_cast<std::size_t>(lengthBytes);
    if (bytes.size() < headerStart)
        return fail("truncated inside the header length field");
    const std::size_t headerLength = littleEndian(bytes, 8, lengthBytes);
    if (bytes.size() - headerStart < headerLength)
        return fail("truncated: the header says it is " + std::to_string(headerLength) +
                    " bytes long, the file ends after " +
                    std::to_string(bytes.size() - headerStart));
    std::map<std::string, std::string> fields;
    const std::string problem = HeaderParser(bytes.substr(headerStart, headerLength)).parse(fields);
    if (!problem.empty())
        return fail("malformed header: " + problem);
    for (const char* key : {"descr", "fortran_order", "shape"})
        if (!fields.count(key))
            return fail(std::string("header field '") + key + "' is missing");

    NpyHeader header;
    const std::string& descr = fields["descr"];
    if (descr.size() < 2 || descr.front() != '\'')
        return fail("header field 'descr': expected a dtype string such as '<f8', got " + descr +
                    " (structured arrays are not read)");
    header.dtype = descr.substr(1, descr.size() - 2);
    if (const std::string why = dtypeProblem(header.dtype); !why.empty())
        return fail("header field 'descr': " + why);
    const std::string& order = fields["fortran_order"];
    if (order != "True" && order != "False")
        return fail("header field 'fortran_order': expected True or False, got " + order);
    header.fortranOrder = order == "True";
    if (const std::string why = parseShape(fields["shape"], header.shape); !why.empty())
        return fail("header field 'shape': " + why);

    header.elementBytes = header.dtype == "<f2" ? 2 : header.dtype == "<f4" ? 4 : 8;
    std::size_t count = 1;
    for (std::size_t d : header.shape) {
        if (d != 0 && count > std::numeric_limits<std::size_t>::max() / header.elementBytes / d)
            return fail("header field 'shape': too many elements");
        count *= d;
    }
    header.elementCount = count;
    header.dataOffset = headerStart + headerLength;
    const std::size_t available = bytes.size() - header.dataOffset;
    if (available < count * header.elementBytes)
        return fail("truncated: shape " + fields["shape"] + " of " + header.dtype + " needs " +
                    std::to_string(count * header.elementBytes) + " data bytes, the file has " +
                    std::to_string(available));
    return NpyHeaderResult{std::move(header), {}};
}

NpyReadResult parseNpy(std::string_view bytes, const std::string& name) {
    NpyHeaderResult parsed = parseNpyHeader(bytes, name);
    if (!parsed.header)
        return NpyReadResult{std::nullopt, std::move(parsed.error)};
    const NpyHeader& header = *parsed.header;
    NpyArray array;
    array.dtype = header.dtype;
    array.fortranOrder = header.fortranOrder;
    array.shape = header.shape;
    const std::size_t count = header.elementCount;
    array.values.resize(count);
    const char* data = bytes.data() + header.dataOffset;
    if (count == 0) {
        // An empty array ("shape": (0,)): nothing to copy, and the empty vector's data() may be
        // null, which memcpy must not be given even for no bytes.
    } else if (header.elementBytes == 8) {
        std::memcpy(array.values.data(), data, 8 * count);
    } else {
        // float16 and float32 widen exactly into float, then into double.
        const auto type = header.elementBytes == 2 ? tensor_file::ElementType::F16
                                                   : tensor_file::ElementType::F32;
        std::vector<float> floats(count);
        tensor_file::widenToFloat(type, reinterpret_cast<const std::uint8_t*>(data), count,
                                  floats.data());
        for (std::size_t i = 0; i < count; ++i)
            array.values[i] = floats[i];
    }
    return NpyReadResult{std::move(array), {}};
}

NpyReadResult readNpyFile(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file)
        return NpyReadResult{std::nullopt, path + ": cannot open the file"};
    const std::string bytes((std::istreambuf_iterator<char>(file)),
                            std::istreambuf_iterator<char>());
    return parseNpy(bytes, path);
}

} // namespace fpx
