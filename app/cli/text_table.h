// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "arguments.h"

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace fpx::cli {

// Columns aligned by visible width: ANSI colour sequences take no room and a UTF-8
// character takes one column.
class TextTable {
  public:
    explicit TextTable(std::vector<std::string> header) { rows_.push_back(std::move(header)); }
    void addRow(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
    void print(std::ostream& out, bool boldHeader) const;

    static std::size_t visibleWidth(std::string_view text);

  private:
    std::vector<std::vector<std::string>> rows_;
};

// ANSI styling, applied only when enabled (a terminal without NO_COLOR, or --color).
struct TerminalStyle {
    // The style --color/--no-color ask for, where stdout is a terminal or not.
    static TerminalStyle forChoice(ColorChoice choice, bool outIsTerminal) {
        return TerminalStyle{choice == ColorChoice::Always ||
                             (choice == ColorChoice::Auto && outIsTerminal)};
    }

    bool enabled = false;
    std::string paint(std::string_view text, std::string_view sgr) const;
    std::string bold(std::string_view text) const { return paint(text, "1"); }
    std::string dim(std::string_view text) const { return paint(text, "2"); }
};

} // namespace fpx::cli
