// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/lesson/lesson.h"

#include <algorithm>
#include <exception>
#include <unordered_map>
#include <utility>

namespace fpx {
namespace {

// Lesson text is untrusted (teachers' files, a fuzz target): one pass over the lines, no
// recursion, and every problem is a LessonError thrown nowhere.

struct Line {
    std::string_view text; // without the line end
    std::size_t number = 0;
};

bool isBlank(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t'; });
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
        s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
        s.remove_suffix(1);
    return s;
}

// 1-based column, in characters, of byte `offset` of a line (the line is valid UTF-8 by then).
std::size_t columnOf(std::string_view line, std::size_t offset) {
    std::size_t column = 1;
    for (std::size_t i = 0; i < offset && i < line.size(); ++i)
        if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80)
            ++column;
    return column;
}

// The length of the UTF-8 sequence at `i`, or 0 when it is not a valid one (overlong forms,
// surrogates and code points beyond U+10FFFF included).
std::size_t utf8Length(std::string_view s, std::size_t i) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char b = byte(i);
    if (b < 0x80)
        return 1;
    std::size_t length = 0;
    unsigned char low = 0x80, high = 0xBF; // the range of the second byte
    if (b >= 0xC2 && b <= 0xDF)
        length = 2;
    else if (b >= 0xE0 && b <= 0xEF) {
        length = 3;
        if (b == 0xE0)
            low = 0xA0;
        if (b == 0xED)
            high = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
        length = 4;
        if (b == 0xF0)
            low = 0x90;
        if (b == 0xF4)
            high = 0x8F;
    } else
        return 0;
    if (i + length > s.size())
        return 0;
    if (byte(i + 1) < low || byte(i + 1) > high)
        return 0;
    for (std::size_t k = 2; k < length; ++k)
        if (byte(i + k) < 0x80 || byte(i + k) > 0xBF)
            return 0;
    return length;
}

LessonParse failure(std::size_t line, std::size_t column, std::string message) {
    LessonParse parse;
    parse.error = {line, column, std::move(message)};
    return parse;
}

// Splits into lines (LF or CRLF), after checking bytes: no NUL, valid UTF-8.
std::optional<LessonError> splitLines(std::string_view text, std::vector<Line>& lines) {
    std::size_t number = 1, start = 0;
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (c == '\0')
            return LessonError{number, columnOf(text.substr(start), i - start), "NUL byte"};
        if (c == '\n') {
            std::string_view line = text.substr(start, i - start);
            if (!line.empty() && line.back() == '\r')
                line.remove_suffix(1);
            lines.push_back({line, number++});
            start = ++i;
            continue;
        }
        const std::size_t length = utf8Length(text, i);
        if (length == 0)
            return LessonError{number, columnOf(text.substr(start), i - start),
                               "invalid UTF-8 (the file must be UTF-8 text)"};
        i += length;
    }
    if (start < text.size()) {
        std::string_view line = text.substr(start);
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        lines.push_back({line, number});
    }
    return std::nullopt;
}

// A fence line: up to three spaces, then three or more ` or ~.
struct Fence {
    char mark = 0;
    std::size_t length = 0;
    std::size_t indent = 0;
    std::string_view info; // trimmed
};

std::optional<Fence> readFence(std::string_view line) {
    std::size_t indent = 0;
    while (indent < line.size() && indent < 4 && line[indent] == ' ')
        ++indent;
    if (indent > 3 || indent >= line.size())
        return std::nullopt;
    const char mark = line[indent];
    if (mark != '`' && mark != '~')
        return std::nullopt;
    std::size_t end = indent;
    while (end < line.size() && line[end] == mark)
        ++end;
    if (end - indent < 3)
        return std::nullopt;
    const std::string_view info = trim(line.substr(end));
    if (mark == '`' && info.find('`') != std::string_view::npos)
        return std::nullopt; // CommonMark: not a fence
    return Fence{mark, end - indent, indent, info};
}

bool closesFence(std::string_view line, const Fence& open) {
    const std::optional<Fence> fence = readFence(line);
    return fence && fence->mark == open.mark && fence->length >= open.length && fence->info.empty();
}

bool isActionInfo(std::string_view info) {
    const std::size_t space = info.find_first_of(" \t");
    return info.substr(0, space) == "fpx";
}

// A level-2 ATX heading: up to three spaces, "##", then a blank or the line's end.
std::optional<std::string_view> stepHeading(std::string_view line) {
    std::size_t indent = 0;
    while (indent < line.size() && indent < 4 && line[indent] == ' ')
        ++indent;
    if (indent > 3)
        return std::nullopt;
    std::string_view rest = line.substr(indent);
    if (rest.substr(0, 2) != "##" || (rest.size() > 2 && rest[2] != ' ' && rest[2] != '\t'))
        return std::nullopt;
    rest = trim(rest.substr(2));
    // Closing #s, when a blank precedes them.
    std::size_t hashes = rest.size();
    while (hashes > 0 && rest[hashes - 1] == '#')
        --hashes;
    if (hashes == 0)
        rest = {};
    else if (hashes < rest.size() && (rest[hashes - 1] == ' ' || rest[hashes - 1] == '\t'))
        rest = trim(rest.substr(0, hashes));
    return rest;
}

bool isKeyCharacter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

std::string joinProse(const std::vector<std::string_view>& lines) {
    std::size_t first = 0, last = lines.size();
    while (first < last && isBlank(lines[first]))
        ++first;
    while (last > first && isBlank(lines[last - 1]))
        --last;
    std::string prose;
    for (std::size_t i = first; i < last; ++i) {
        prose.append(lines[i]);
        if (i + 1 < last)
            prose.push_back('\n');
    }
    return prose;
}

LessonParse parseFrontMatter(const std::vector<Line>& lines, std::size_t& next, Lesson& lesson) {
    if (lines.empty() || trim(lines[0].text) != "---")
        return failure(1, 1,
                       "a lesson starts with front matter: a line '---', then name: and "
                       "title:, then '---'");
    bool haveName = false, haveTitle = false, haveSummary = false;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        const Line& line = lines[i];
        if (trim(line.text) == "---") {
            if (!haveName)
                return failure(line.number, 1, "the front matter has no 'name:'");
            if (!haveTitle)
                return failure(line.number, 1, "the front matter has no 'title:'");
            next = i + 1;
            return {lesson, {}};
        }
        if (isBlank(line.text))
            continue;
        const std::size_t colon = line.text.find(':');
        if (colon == std::string_view::npos)
            return failure(line.number, columnOf(line.text, line.text.find_first_not_of(" \t")),
                           "expected 'key: value' in the front matter");
        const std::string_view key = trim(line.text.substr(0, colon));
        std::string_view value = trim(line.text.substr(colon + 1));
        // YAML habit: a value in matching quotes (needed there for a title with a colon).
        if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
            value.back() == value.front())
            value = value.substr(1, value.size() - 2);
        const std::size_t keyColumn = columnOf(line.text, line.text.find_first_not_of(" \t"));
        const std::size_t valueOffset =
            value.empty() ? colon + 1 : std::size_t(value.data() - line.text.data());
        const std::size_t valueColumn = columnOf(line.text, valueOffset);
        bool* seen = key == "name"      ? &haveName
                     : key == "title"   ? &haveTitle
                     : key == "summary" ? &haveSummary
                                        : nullptr;
        if (!seen)
            return failure(line.number, keyColumn,
                           "unknown front-matter key '" + std::string(key) +
                               "' (use name, title and summary)");
        if (*seen)
            return failure(line.number, keyColumn, "'" + std::string(key) + "' is given twice");
        *seen = true;
        if (key == "name") {
            if (value.empty() || !std::all_of(value.begin(), value.end(), isKeyCharacter))
                return failure(line.number, valueColumn,
                               "a lesson name is lower-case letters, digits and '-'");
            lesson.name = value;
        } else if (key == "title") {
            if (value.empty())
                return failure(line.number, valueColumn, "the title is empty");
            lesson.title = value;
        } else {
            lesson.summary = value;
        }
    }
    return failure(1, 1, "the front matter that starts here has no closing '---'");
}

// Reads one action line (not blank, not a comment) into `action`.
std::optional<LessonError> readAction(const Line& line, LessonAction& action) {
    const std::size_t start = line.text.find_first_not_of(" \t");
    std::size_t end = start;
    while (end < line.text.size() && line.text[end] != ' ' && line.text[end] != '\t') {
        if (!isKeyCharacter(line.text[end]))
            return LessonError{line.number, columnOf(line.text, end),
                               "an action key is lower-case letters, digits and '-' (as the "
                               "explorer's options without '--')"};
        ++end;
    }
    if (line.text[start] == '-')
        return LessonError{line.number, columnOf(line.text, start),
                           "write the option without '--': 'value 0.1', not '--value 0.1'"};
    action.key = line.text.substr(start, end - start);
    action.value = trim(line.text.substr(end));
    action.line = line.number;
    action.column = columnOf(line.text, start);
    return std::nullopt;
}

LessonParse parseLines(const std::vector<Line>& lines, std::string_view source) {
    Lesson lesson;
    lesson.source = source;
    std::size_t next = 0;
    if (LessonParse front = parseFrontMatter(lines, next, lesson); !front)
        return front;

    std::vector<std::string_view> prose; // of the introduction, then of the current step
    bool inStep = false, stepHasActions = false;
    auto finishPart = [&] {
        if (inStep)
            lesson.steps.back().prose = joinProse(prose);
        else
            lesson.introduction = joinProse(prose);
        prose.clear();
    };
    for (std::size_t i = next; i < lines.size(); ++i) {
        const Line& line = lines[i];
        if (const std::optional<Fence> fence = readFence(line.text)) {
            const bool actions = isActionInfo(fence->info);
            if (actions && !inStep)
                return failure(line.number, columnOf(line.text, fence->indent),
                               "an action block before the first step ('## ' heading)");
            if (actions && stepHasActions)
                return failure(line.number, columnOf(line.text, fence->indent),
                               "a second action block in step '" + lesson.steps.back().title +
                                   "' (a step has at most one)");
            std::size_t close = i + 1;
            while (close < lines.size() && !closesFence(lines[close].text, *fence))
                ++close;
            if (close == lines.size())
                return failure(line.number, columnOf(line.text, fence->indent),
                               "this code block is not closed");
            if (actions) {
                stepHasActions = true;
                for (std::size_t k = i + 1; k < close; ++k) {
                    const std::string_view text = trim(lines[k].text);
                    if (text.empty() || text.front() == '#')
                        continue;
                    LessonAction action;
                    if (std::optional<LessonError> error = readAction(lines[k], action))
                        return failure(error->line, error->column, error->message);
                    lesson.steps.back().actions.push_back(std::move(action));
                }
            } else {
                for (std::size_t k = i; k <= close; ++k)
                    prose.push_back(lines[k].text);
            }
            i = close;
            continue;
        }
        if (const std::optional<std::string_view> title = stepHeading(line.text)) {
            if (title->empty())
                return failure(line.number, 1, "a step heading needs a title");
            finishPart();
            lesson.steps.push_back({std::string(*title), {}, {}, line.number});
            inStep = true;
            stepHasActions = false;
            continue;
        }
        prose.push_back(line.text);
    }
    finishPart();
    if (lesson.steps.empty())
        return failure(lines.empty() ? 1 : lines.back().number, 1,
                       "no steps: each step starts with a '## ' heading");
    return {std::move(lesson), {}};
}

} // namespace

LessonParse parseLesson(std::string_view text, std::string_view source) {
    try {
        if (text.size() > kMaxLessonBytes)
            return failure(1, 1, "the file is larger than 1 MiB");
        if (text.substr(0, 3) == "\xEF\xBB\xBF")
            text.remove_prefix(3); // a byte-order mark some editors write
        std::vector<Line> lines;
        if (std::optional<LessonError> error = splitLines(text, lines))
            return failure(error->line, error->column, error->message);
        return parseLines(lines, source);
    } catch (const std::exception& e) {
        return failure(1, 1, std::string("cannot read the lesson: ") + e.what());
    }
}

std::string lessonErrorText(std::string_view source, const LessonError& error) {
    return std::string(source) + ":" + std::to_string(error.line) + ":" +
           std::to_string(error.column) + ": " + error.message;
}

std::vector<LessonAction> mergedActions(const Lesson& lesson, std::size_t stepIndex) {
    std::vector<LessonAction> merged;
    std::unordered_map<std::string, std::size_t> index;  // key -> its place in `merged`
    std::unordered_map<std::string, std::size_t> stepOf; // key -> the step that gave its value
    for (std::size_t s = 0; s <= stepIndex && s < lesson.steps.size(); ++s)
        for (const LessonAction& action : lesson.steps[s].actions) {
            if (action.key == kShowKey)
                continue;
            const auto [place, added] = index.try_emplace(action.key, merged.size());
            if (added)
                merged.push_back(action);
            else
                merged[place->second] = action;
            stepOf[action.key] = s;
        }
    // `plot` shows the Plots tab and `tab` is applied after it, so an earlier step's `tab`
    // would hide a later step's plot: of the two, the later step wins (within one step, `tab`).
    if (stepOf.count("tab") && stepOf.count("plot") && stepOf["plot"] > stepOf["tab"])
        std::erase_if(merged, [](const LessonAction& a) { return a.key == "tab"; });
    return merged;
}

const LessonAction* showAction(const Lesson& lesson, std::size_t stepIndex) {
    if (stepIndex >= lesson.steps.size())
        return nullptr;
    const std::vector<LessonAction>& actions = lesson.steps[stepIndex].actions;
    const auto found = std::find_if(actions.rbegin(), actions.rend(),
                                    [](const LessonAction& a) { return a.key == kShowKey; });
    return found == actions.rend() ? nullptr : &*found;
}

} // namespace fpx
