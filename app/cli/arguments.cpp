// SPDX-License-Identifier: GPL-3.0-or-later
#include "arguments.h"
#include "commands.h"

#include <ostream>

namespace fpx::cli {

Arguments::Arguments(const std::vector<std::string>& args, std::set<std::string> withValue,
                     std::set<std::string> flags) {
    bool optionsEnded = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& arg = args[i];
        // "-o" style short options: a dash and one letter ("-1" and "-inf" stay values).
        const bool shortOption =
            !optionsEnded && arg.size() == 2 && arg[0] == '-' &&
            ((arg[1] >= 'a' && arg[1] <= 'z') || (arg[1] >= 'A' && arg[1] <= 'Z'));
        if (!shortOption && (optionsEnded || arg.size() < 3 || arg.rfind("--", 0) != 0)) {
            if (arg == "--") {
                optionsEnded = true;
                continue;
            }
            positionals_.push_back(arg);
            continue;
        }
        std::string name = arg.substr(shortOption ? 1 : 2);
        std::optional<std::string> inlineValue;
        if (const auto eq = name.find('='); eq != std::string::npos) {
            inlineValue = name.substr(eq + 1);
            name = name.substr(0, eq);
        }
        if (withValue.count(name)) {
            if (inlineValue) {
                values_[name] = *inlineValue;
            } else if (i + 1 < args.size()) {
                values_[name] = args[++i];
            } else {
                error_ = "option --" + name + " needs a value";
                return;
            }
            allValues_.emplace_back(name, values_[name]);
        } else if ((name == "help" || name == "h") && !inlineValue) {
            helpRequested_ = true;
        } else if (flags.count(name)) {
            if (inlineValue) {
                error_ = "option --" + name + " takes no value";
                return;
            }
            values_[name] = "";
        } else {
            error_ = std::string("unknown option ") + (shortOption ? "-" : "--") + name;
            return;
        }
    }
}

std::optional<std::string> Arguments::value(const std::string& name) const {
    const auto it = values_.find(name);
    if (it == values_.end())
        return std::nullopt;
    return it->second;
}

std::vector<std::string> Arguments::values(const std::string& name) const {
    std::vector<std::string> all;
    for (const auto& [option, value] : allValues_)
        if (option == name)
            all.push_back(value);
    return all;
}

std::optional<OutputForm> readOutputForm(const Arguments& args) {
    if (args.has("json") && args.has("csv"))
        return std::nullopt;
    if (args.has("json"))
        return OutputForm::Json;
    return args.has("csv") ? OutputForm::Csv : OutputForm::Text;
}

ColorChoice readColorChoice(const Arguments& args) {
    if (args.has("color"))
        return ColorChoice::Always;
    return args.has("no-color") ? ColorChoice::Never : ColorChoice::Auto;
}

int printHelp(Streams& io, const char* usage) {
    io.out << usage << "fpx --help: every command and option explained.\n";
    return kExitOk;
}

int reportError(Streams& io, std::string_view command, const CommandError& error) {
    io.err << "fpx " << command << ": " << error.message << '\n';
    if (error.status == kExitUsage)
        io.err << "see fpx " << command << " --help\n";
    return error.status;
}

int usageError(Streams& io, std::string_view command, std::string_view message) {
    return reportError(io, command, CommandError{std::string(message), kExitUsage});
}

std::optional<int> checkArguments(const Arguments& args, Streams& io, std::string_view command,
                                  const char* usage) {
    if (!args.ok())
        return usageError(io, command, args.error());
    if (args.helpRequested())
        return printHelp(io, usage);
    return std::nullopt;
}

std::optional<int> checkOptionsOnly(const Arguments& args, Streams& io, std::string_view command,
                                    const char* usage) {
    if (const auto stop = checkArguments(args, io, command, usage))
        return stop;
    if (!args.positionals().empty())
        return usageError(io, command, "unexpected argument '" + args.positionals().front() + "'");
    return std::nullopt;
}

} // namespace fpx::cli
