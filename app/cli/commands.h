// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fpx::cli {

// Exit statuses: 0 all good, 1 some input could not be converted, 2 bad usage.
constexpr int kExitOk = 0;
constexpr int kExitDataError = 1;
constexpr int kExitUsage = 2;

struct Streams {
    std::istream& in;
    std::ostream& out;
    std::ostream& err;
    bool outIsTerminal = false;
};

// A command's answer to --help: its usage on stdout, and where the whole reference is.
int printHelp(Streams& io, const char* usage);

// What stops a command: the message that follows "fpx COMMAND: " and the exit status,
// kExitUsage for a command line it cannot run, kExitDataError for input it cannot use.
struct CommandError {
    std::string message;
    int status = kExitUsage;
};

inline CommandError dataError(std::string message) {
    return {std::move(message), kExitDataError};
}

// A step of a command (reading its options, computing its report) gives its value or the
// error that stops the command.
template <class T> class Outcome {
  public:
    Outcome(T value) : value_(std::move(value)) {}
    Outcome(CommandError error) : error_(std::move(error)) {}

    explicit operator bool() const { return value_.has_value(); }
    T& operator*() { return *value_; }
    const T& operator*() const { return *value_; }
    T* operator->() { return &*value_; }
    const T* operator->() const { return &*value_; }
    const CommandError& error() const { return error_; }

  private:
    std::optional<T> value_;
    CommandError error_;
};

// The one way a command reports what stops it: "fpx COMMAND: MESSAGE" on stderr and, for a
// usage error, "see fpx COMMAND --help" on the next line. The usage itself is printed on
// --help only, so the message stays the last thing on the screen. Returns the exit status.
int reportError(Streams& io, std::string_view command, const CommandError& error);
int usageError(Streams& io, std::string_view command, std::string_view message);

class Arguments;
// The first checks of every command: that the options were read, then --help. Returns the exit
// status to stop with, or nullopt to go on.
std::optional<int> checkArguments(const Arguments& args, Streams& io, std::string_view command,
                                  const char* usage);
// checkArguments for a command that takes options only: no positional argument either.
std::optional<int> checkOptionsOnly(const Arguments& args, Streams& io, std::string_view command,
                                    const char* usage);

int runFormats(const std::vector<std::string>& args, Streams& io);
int runShow(const std::vector<std::string>& args, Streams& io);
int runConvert(const std::vector<std::string>& args, Streams& io);
int runTable(const std::vector<std::string>& args, Streams& io);
int runPlot(const std::vector<std::string>& args, Streams& io);
int runBench(const std::vector<std::string>& args, Streams& io);
int runCalc(const std::vector<std::string>& args, Streams& io);
int runAccumulate(const std::vector<std::string>& args, Streams& io);
int runDot(const std::vector<std::string>& args, Streams& io);
int runQuantize(const std::vector<std::string>& args, Streams& io);
int runInspect(const std::vector<std::string>& args, Streams& io);
int runRangeFit(const std::vector<std::string>& args, Streams& io);
int runLossScale(const std::vector<std::string>& args, Streams& io);
int runFp8Scaling(const std::vector<std::string>& args, Streams& io);
int runSgd(const std::vector<std::string>& args, Streams& io);
int runMixedPrecision(const std::vector<std::string>& args, Streams& io);
int runMemory(const std::vector<std::string>& args, Streams& io);
int runLesson(const std::vector<std::string>& args, Streams& io);
int runGemm(const std::vector<std::string>& args, Streams& io);
int runMachines(const std::vector<std::string>& args, Streams& io);

} // namespace fpx::cli
