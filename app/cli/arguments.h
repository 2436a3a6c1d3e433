// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace fpx::cli {

// Command-line arguments of one sub-command: positionals and --options. Anything that starts
// with "--" is an option ("--name value" or "--name=value"); everything else, including
// "-1.5e-7" and "-inf", is a positional; "-x" (a dash and one letter) is the option "x".
// "--" ends the options.
class Arguments {
  public:
    // `withValue`: options that take a value; `flags`: options that take none.
    Arguments(const std::vector<std::string>& args, std::set<std::string> withValue,
              std::set<std::string> flags);

    bool ok() const { return error_.empty(); }
    // --help or -h among the options (every command takes it; an option's value is not one).
    bool helpRequested() const { return helpRequested_; }
    const std::string& error() const { return error_; }
    const std::vector<std::string>& positionals() const { return positionals_; }
    bool has(const std::string& name) const { return values_.count(name) != 0; }
    std::optional<std::string> value(const std::string& name) const;
    // Every value an option was given, in order, for options that may be repeated.
    std::vector<std::string> values(const std::string& name) const;

  private:
    std::vector<std::string> positionals_;
    std::map<std::string, std::string> values_;
    std::vector<std::pair<std::string, std::string>> allValues_;
    std::string error_;
    bool helpRequested_ = false;
};

// --json and --csv: the form a command renders its report in.
enum class OutputForm { Text, Json, Csv };
// Text when neither is given; nullopt when both are.
std::optional<OutputForm> readOutputForm(const Arguments& args);

// --color and --no-color: colour on a terminal only (Auto), or forced; --color wins.
enum class ColorChoice { Auto, Always, Never };
ColorChoice readColorChoice(const Arguments& args);

} // namespace fpx::cli
