// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
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

class Arguments;
// The first checks of a command that takes options only: that they were read, --help, and no
// stray positional argument. Returns the exit status to stop with, or nullopt to go on.
std::optional<int> checkOptionsOnly(const Arguments& args, Streams& io, const char* command,
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
int runMemory(const std::vector<std::string>& args, Streams& io);
int runLesson(const std::vector<std::string>& args, Streams& io);

} // namespace fpx::cli
