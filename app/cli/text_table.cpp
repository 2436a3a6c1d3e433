// SPDX-License-Identifier: GPL-3.0-or-later
#include "text_table.h"

#include <algorithm>

namespace fpx::cli {

std::size_t TextTable::visibleWidth(std::string_view text) {
    std::size_t width = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == 0x1b) { // skip "ESC [ … m"
            while (i < text.size() && text[i] != 'm')
                ++i;
            continue;
        }
        if ((c & 0xc0) != 0x80) // count lead bytes only
            ++width;
    }
    return width;
}

void TextTable::print(std::ostream& out, bool boldHeader) const {
    std::vector<std::size_t> widths;
    for (const auto& row : rows_) {
        if (widths.size() < row.size())
            widths.resize(row.size(), 0);
        for (std::size_t c = 0; c < row.size(); ++c)
            widths[c] = std::max(widths[c], visibleWidth(row[c]));
    }
    for (std::size_t r = 0; r < rows_.size(); ++r) {
        std::string line;
        const auto& row = rows_[r];
        for (std::size_t c = 0; c < row.size(); ++c) {
            std::string cell = row[c];
            const bool last = c + 1 == row.size();
            if (!last)
                cell.append(widths[c] - visibleWidth(cell) + 2, ' ');
            if (r == 0 && boldHeader)
                cell = "\x1b[1m" + cell + "\x1b[0m";
            line += cell;
        }
        while (!line.empty() && line.back() == ' ')
            line.pop_back();
        out << line << '\n';
    }
}

std::string TerminalStyle::paint(std::string_view text, std::string_view sgr) const {
    if (!enabled || text.empty())
        return std::string(text);
    return "\x1b[" + std::string(sgr) + "m" + std::string(text) + "\x1b[0m";
}

} // namespace fpx::cli
