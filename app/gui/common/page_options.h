// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <optional>
#include <span>

namespace fpx::gui {

// Where an option may be given: on the command line and in a lesson's actions, or only on the
// command line (what starts work a lesson step must not start, such as a benchmark run).
enum class OptionUse { Anywhere, CommandLineOnly };

// Whether setting an option shows its page, unless the command line's --page names another:
// `--input w.npy` alone opens the Quantization page, `--round rtz` alone changes no page.
enum class OpensPage { No, Yes };

// One option of a page (docs/architecture.md, "Page options"): the key the command line
// (`--key VALUE`) and lessons (`key VALUE`) share, and how its text sets one field of the
// page's typed state. Each page lists its options in one table; the shell builds the command
// line from the tables and a lesson step's actions go through the same entries, so an option
// and an action key cannot mean different things, and a key several pages use (--formats,
// --dist) says in each page's table what it means there.
template <typename State> struct PageOption {
    const char* key;
    const char* valueName; // nullptr: a flag, which takes no value
    const char* help;
    // Sets the field from `text` (empty for a flag): what is wrong, or an empty string. Checks
    // what the text alone can tell; what needs the page or other fields, apply() checks.
    QString (*set)(const QString& text, State& state);
    OpensPage opensPage = OpensPage::No;
    OptionUse use = OptionUse::Anywhere;
};

// The option of `key` in a page's table, or null.
template <typename State>
const PageOption<State>* findOption(std::span<const PageOption<State>> table, const QString& key) {
    for (const PageOption<State>& option : table)
        if (key == QLatin1String(option.key))
            return &option;
    return nullptr;
}

// Field parsers the tables share. Each returns the value, or nullopt with `error` set.
std::optional<qulonglong> wholeNumber(const QString& text, QString& error);
std::optional<int> wholeNumberIn(const QString& text, int low, int high, QString& error);

} // namespace fpx::gui
