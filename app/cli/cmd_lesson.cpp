// SPDX-License-Identifier: GPL-3.0-or-later
// fpx lesson: the built-in lessons, or one lesson's steps as the Lessons panel shows them, with
// the fpx-explorer command line of each step's state.
#include "arguments.h"
#include "commands.h"
#include "presentation.h"
#include "text_table.h"

#include "fpx/lesson/lesson.h"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>

namespace fpx::cli {

namespace {

const char* kLessonUsage = "usage: fpx lesson [NAME|FILE] [--step K] [--json]\n";

// A shell word: as is when it is plain, else in single quotes.
std::string shellWord(const std::string& text) {
    const bool plain =
        !text.empty() && text.find_first_not_of("abcdefghijklmnopqrstuvwxyz"
                                                "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                "0123456789_.,:/+=^-@%") == std::string::npos;
    if (plain)
        return text;
    std::string quoted = "'";
    for (char c : text)
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

// The explorer started in step `index`'s state: no remembered settings, then every key of the
// merged state as its option.
std::string explorerCommand(const Lesson& lesson, std::size_t index) {
    std::string command = "fpx-explorer --no-settings";
    for (const LessonAction& action : mergedActions(lesson, index)) {
        command += " --" + action.key;
        if (!action.value.empty())
            command += " " + shellWord(action.value);
    }
    return command;
}

Json stepJson(const Lesson& lesson, std::size_t index) {
    const LessonStep& step = lesson.steps[index];
    Json actions = Json::array();
    for (const LessonAction& a : step.actions)
        actions.push_back(
            {{"key", a.key}, {"value", a.value}, {"line", a.line}, {"column", a.column}});
    Json state = Json::object();
    for (const LessonAction& a : mergedActions(lesson, index))
        state[a.key] = a.value;
    return {{"number", index + 1},
            {"title", step.title},
            {"line", step.line},
            {"prose", step.prose},
            {"actions", std::move(actions)},
            {"state", std::move(state)},
            {"command", explorerCommand(lesson, index)}};
}

int listBuiltIns(const Arguments& args, Streams& io) {
    Json list = Json::array();
    TextTable table({"name", "steps", "title"});
    int status = kExitOk;
    for (const BuiltInLesson& builtIn : builtInLessons()) {
        const LessonParse parse = parseLesson(builtIn.text, "built-in");
        if (!parse) { // never silently missing: a broken built-in lesson is named
            io.err << "fpx lesson: " << builtIn.fileName << ": "
                   << lessonErrorText("built-in", parse.error) << '\n';
            status = kExitDataError;
            continue;
        }
        const Lesson& lesson = *parse.lesson;
        list.push_back({{"name", lesson.name},
                        {"file", builtIn.fileName},
                        {"title", lesson.title},
                        {"summary", lesson.summary},
                        {"steps", lesson.steps.size()}});
        table.addRow({lesson.name, std::to_string(lesson.steps.size()), lesson.title});
    }
    if (args.has("json"))
        io.out << list.dump(2) << '\n';
    else if (list.empty())
        io.out << "No built-in lessons.\n";
    else {
        table.print(io.out, io.outIsTerminal);
        io.out << "\nfpx lesson NAME shows one; fpx-explorer --lesson NAME opens it.\n";
    }
    return status;
}

} // namespace

int runLesson(const std::vector<std::string>& rawArgs, Streams& io) {
    Arguments args(rawArgs, {"step"}, {"json"});
    if (const auto stop = checkArguments(args, io, "lesson", kLessonUsage))
        return *stop;
    if (args.positionals().size() > 1)
        return usageError(io, "lesson", "expected one lesson, a NAME or a FILE");
    if (args.positionals().empty()) {
        if (args.has("step"))
            return usageError(io, "lesson", "--step: only with a lesson");
        return listBuiltIns(args, io);
    }

    const std::string& argument = args.positionals().front();
    LessonParse parse;
    std::string source = argument;
    // A built-in name wins over a file of that name in the current folder; a path (with a /
    // or ending in .md) is a file first. Only a regular file is read (not a folder).
    const bool looksLikePath = argument.find('/') != std::string::npos || argument.ends_with(".md");
    std::error_code ec;
    const bool regularFile = std::filesystem::is_regular_file(argument, ec);
    std::optional<LessonParse> builtIn;
    if (!looksLikePath || !regularFile)
        builtIn = findBuiltInLesson(argument);
    if (builtIn) {
        parse = std::move(*builtIn);
        source = parse ? parse.lesson->source : "built-in lessons/" + argument;
    } else if (std::ifstream file(argument, std::ios::binary); regularFile && file) {
        // One byte more than the limit is enough to know a file is too large.
        std::string text(kMaxLessonBytes + 1, '\0');
        file.read(text.data(), std::streamsize(text.size()));
        text.resize(std::size_t(file.gcount()));
        parse = parseLesson(text, argument);
    } else {
        return usageError(io, "lesson",
                          "'" + argument +
                              "' is neither a lesson file nor a built-in lesson (fpx lesson "
                              "lists them)");
    }
    if (!parse) {
        io.err << "fpx lesson: " << lessonErrorText(source, parse.error) << '\n';
        return kExitDataError;
    }
    const Lesson& lesson = *parse.lesson;

    std::size_t first = 0, last = lesson.steps.size();
    if (auto step = args.value("step")) {
        std::size_t k = 0;
        const bool number = !step->empty() &&
                            step->find_first_not_of("0123456789") == std::string::npos &&
                            step->size() < 10;
        if (number)
            k = std::stoul(*step);
        if (!number || k < 1 || k > lesson.steps.size())
            return usageError(io, "lesson",
                              "--step: '" + *step + "' is not a step of " + lesson.name +
                                  " (1 to " + std::to_string(lesson.steps.size()) + ")");
        first = k - 1;
        last = k;
    }

    if (args.has("json")) {
        Json steps = Json::array();
        for (std::size_t i = first; i < last; ++i)
            steps.push_back(stepJson(lesson, i));
        const Json json = {{"name", lesson.name},
                           {"title", lesson.title},
                           {"summary", lesson.summary},
                           {"source", lesson.source},
                           {"introduction", lesson.introduction},
                           {"stepCount", lesson.steps.size()},
                           {"steps", std::move(steps)}};
        io.out << json.dump(2) << '\n';
        return kExitOk;
    }
    io.out << lesson.title << " (" << lesson.name << ", " << lesson.source << ")\n";
    if (!lesson.summary.empty())
        io.out << lesson.summary << '\n';
    if (first == 0 && !lesson.introduction.empty())
        io.out << '\n' << lesson.introduction << '\n';
    // The prose is printed as written: Markdown is plain text meant to be read as it stands.
    for (std::size_t i = first; i < last; ++i) {
        const LessonStep& step = lesson.steps[i];
        io.out << "\nStep " << i + 1 << " of " << lesson.steps.size() << ": " << step.title << '\n';
        if (!step.prose.empty())
            io.out << '\n' << step.prose << '\n';
        io.out << "\n  $ " << explorerCommand(lesson, i) << '\n';
    }
    return kExitOk;
}

} // namespace fpx::cli
