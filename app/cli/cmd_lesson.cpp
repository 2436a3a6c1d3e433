// SPDX-License-Identifier: GPL-3.0-or-later
// fpx lesson: the built-in lessons, or one lesson's steps as the Lessons panel shows them, with
// the fpx-explorer command line of each step's state. The options, the list or the lesson read
// and its steps chosen, and their text and JSON renderers.
#include "arguments.h"
#include "commands.h"
#include "presentation.h"
#include "text_table.h"

#include "fpx/lesson/lesson.h"

#include <filesystem>
#include <fstream>
#include <ostream>

namespace fpx::cli {

namespace {

constexpr const char* kUsage = "usage: fpx lesson [NAME|FILE] [--step K] [--json]\n";

struct LessonOptions {
    std::optional<std::string> lesson; // NAME or FILE; none lists the built-in lessons
    // --step K as typed: whether it is a step is known once the lesson is read.
    std::optional<std::string> step;
    bool json = false;
};

Outcome<LessonOptions> parseLessonOptions(const Arguments& args) {
    if (args.positionals().size() > 1)
        return CommandError{"expected one lesson, a NAME or a FILE"};
    LessonOptions options;
    if (!args.positionals().empty())
        options.lesson = args.positionals().front();
    options.step = args.value("step");
    if (options.step && !options.lesson)
        return CommandError{"--step: only with a lesson"};
    options.json = args.has("json");
    return options;
}

// A built-in lesson as the list shows it.
struct ListedLesson {
    std::string name;
    std::string fileName;
    std::string title;
    std::string summary;
    std::size_t steps = 0;
};

struct LessonListReport {
    std::vector<ListedLesson> lessons;
    // A built-in lesson that does not parse is named, never silently missing; kExitDataError
    // then, though the others are still listed.
    std::vector<std::string> broken;
    int status = kExitOk;
};

LessonListReport computeLessonList() {
    LessonListReport report;
    for (const BuiltInLesson& builtIn : builtInLessons()) {
        const LessonParse parse = parseLesson(builtIn.text, "built-in");
        if (!parse) {
            report.broken.push_back(std::string(builtIn.fileName) + ": " +
                                    lessonErrorText("built-in", parse.error));
            report.status = kExitDataError;
            continue;
        }
        const Lesson& lesson = *parse.lesson;
        report.lessons.push_back({lesson.name, std::string(builtIn.fileName), lesson.title,
                                  lesson.summary, lesson.steps.size()});
    }
    return report;
}

// One lesson and the steps to show, [first, last).
struct LessonReport {
    Lesson lesson;
    std::size_t first = 0;
    std::size_t last = 0;
};

// A built-in name wins over a file of that name in the current folder; a path (with a / or
// ending in .md) is a file first. Only a regular file is read (not a folder).
Outcome<Lesson> readLesson(const std::string& argument) {
    const bool looksLikePath = argument.find('/') != std::string::npos || argument.ends_with(".md");
    std::error_code ec;
    const bool regularFile = std::filesystem::is_regular_file(argument, ec);
    std::optional<LessonParse> builtIn;
    if (!looksLikePath || !regularFile)
        builtIn = findBuiltInLesson(argument);
    std::string source = argument;
    LessonParse parse;
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
        return CommandError{"'" + argument +
                            "' is neither a lesson file nor a built-in lesson (fpx lesson lists "
                            "them)"};
    }
    if (!parse)
        return dataError(lessonErrorText(source, parse.error));
    return std::move(*parse.lesson);
}

Outcome<LessonReport> computeLesson(const LessonOptions& options) {
    Outcome<Lesson> lesson = readLesson(*options.lesson);
    if (!lesson)
        return lesson.error();
    LessonReport report{std::move(*lesson), 0, 0};
    const std::size_t count = report.lesson.steps.size();
    report.last = count;
    if (const auto& step = options.step) {
        // Digits only, and few enough that stoul cannot overflow.
        const bool number = !step->empty() &&
                            step->find_first_not_of("0123456789") == std::string::npos &&
                            step->size() < 10;
        const std::size_t k = number ? std::stoul(*step) : 0;
        if (k < 1 || k > count)
            return CommandError{"--step: '" + *step + "' is not a step of " + report.lesson.name +
                                " (1 to " + std::to_string(count) + ")"};
        report.first = k - 1;
        report.last = k;
    }
    return report;
}

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

void renderLessonListJson(const LessonListReport& report, std::ostream& out) {
    Json list = Json::array();
    for (const ListedLesson& lesson : report.lessons)
        list.push_back({{"name", lesson.name},
                        {"file", lesson.fileName},
                        {"title", lesson.title},
                        {"summary", lesson.summary},
                        {"steps", lesson.steps}});
    printJson(out, list);
}

void renderLessonListText(const LessonListReport& report, const TerminalStyle& style,
                          std::ostream& out) {
    if (report.lessons.empty()) {
        out << "No built-in lessons.\n";
        return;
    }
    TextTable table({"name", "steps", "title"});
    for (const ListedLesson& lesson : report.lessons)
        table.addRow({lesson.name, std::to_string(lesson.steps), lesson.title});
    table.print(out, style.enabled);
    out << "\nfpx lesson NAME shows one; fpx-explorer --lesson NAME opens it.\n";
}

void renderLessonJson(const LessonReport& report, std::ostream& out) {
    const Lesson& lesson = report.lesson;
    Json steps = Json::array();
    for (std::size_t i = report.first; i < report.last; ++i)
        steps.push_back(stepJson(lesson, i));
    printJson(out, {{"name", lesson.name},
                    {"title", lesson.title},
                    {"summary", lesson.summary},
                    {"source", lesson.source},
                    {"introduction", lesson.introduction},
                    {"stepCount", lesson.steps.size()},
                    {"steps", std::move(steps)}});
}

// The prose is printed as written: Markdown is plain text meant to be read as it stands.
void renderLessonText(const LessonReport& report, std::ostream& out) {
    const Lesson& lesson = report.lesson;
    out << lesson.title << " (" << lesson.name << ", " << lesson.source << ")\n";
    if (!lesson.summary.empty())
        out << lesson.summary << '\n';
    if (report.first == 0 && !lesson.introduction.empty())
        out << '\n' << lesson.introduction << '\n';
    for (std::size_t i = report.first; i < report.last; ++i) {
        const LessonStep& step = lesson.steps[i];
        out << "\nStep " << i + 1 << " of " << lesson.steps.size() << ": " << step.title << '\n';
        if (!step.prose.empty())
            out << '\n' << step.prose << '\n';
        out << "\n  $ " << explorerCommand(lesson, i) << '\n';
    }
}

} // namespace

int runLesson(const std::vector<std::string>& rawArgs, Streams& io) {
    const Arguments args(rawArgs, {"step"}, {"json"});
    if (const auto stop = checkArguments(args, io, "lesson", kUsage))
        return *stop;
    const Outcome<LessonOptions> options = parseLessonOptions(args);
    if (!options)
        return reportError(io, "lesson", options.error());
    if (!options->lesson) {
        const LessonListReport report = computeLessonList();
        for (const std::string& broken : report.broken)
            io.err << "fpx lesson: " << broken << '\n';
        if (options->json)
            renderLessonListJson(report, io.out);
        else
            renderLessonListText(report, TerminalStyle{io.outIsTerminal}, io.out);
        return report.status;
    }
    const Outcome<LessonReport> report = computeLesson(*options);
    if (!report)
        return reportError(io, "lesson", report.error());
    if (options->json)
        renderLessonJson(*report, io.out);
    else
        renderLessonText(*report, io.out);
    return kExitOk;
}

} // namespace fpx::cli
