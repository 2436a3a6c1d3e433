// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fpx {

// A guided lesson: Markdown prose in steps, each step with explorer actions whose keys are the
// explorer's command-line option names (docs/lessons.md has the format and the keys).

// One line of a step's ```fpx block: `KEY VALUE`, or a bare `KEY` (a flag; value empty).
struct LessonAction {
    std::string key;
    std::string value;
    std::size_t line = 0;   // 1-based, in the lesson file
    std::size_t column = 0; // 1-based, in characters, where the key starts
};

struct LessonStep {
    std::string title;                 // the `## ` heading's text
    std::string prose;                 // Markdown, the action block removed
    std::vector<LessonAction> actions; // in file order
    std::size_t line = 0;              // the heading's line
};

struct Lesson {
    std::string name; // [a-z0-9-]+: what `--lesson NAME` finds
    std::string title;
    std::string summary;      // may be empty
    std::string introduction; // Markdown between the front matter and the first step
    std::vector<LessonStep> steps;
    std::string source; // the file's path, or "built-in lessons/FILE.md"
};

struct LessonError {
    std::size_t line = 0;   // 1-based
    std::size_t column = 0; // 1-based, in characters
    std::string message;
};

struct LessonParse {
    std::optional<Lesson> lesson;
    LessonError error;
    explicit operator bool() const { return lesson.has_value(); }
};

// Files larger than this are refused before anything else is read.
inline constexpr std::size_t kMaxLessonBytes = std::size_t{1} << 20;

// Reads a lesson. Work is linear in the text, nothing recurses on the input, and no exception
// escapes: every problem comes back as a LessonError.
LessonParse parseLesson(std::string_view text, std::string_view source);

// "SOURCE:LINE:COLUMN: message", the form compilers use, so editors can jump to it.
std::string lessonErrorText(std::string_view source, const LessonError& error);

// The key of what a step's text refers to and so must be on screen ("show column:error, plot"):
// it belongs to its step alone and is no part of any step's state.
inline constexpr std::string_view kShowKey = "show";

// The state of step `stepIndex` (0-based): the actions of steps 0 … stepIndex, a later value of
// a key replacing an earlier one, `show` left out. Keys keep the order of their first
// appearance; each action keeps the line and column of the occurrence that gave its value. A
// `tab` given in an earlier step than the `plot` is left out (`plot` shows the Plots tab; the
// later step wins, and within one step `tab`, which is applied after `plot`).
std::vector<LessonAction> mergedActions(const Lesson& lesson, std::size_t stepIndex);

// The step's own `show` action (its last, when it has several), or null.
const LessonAction* showAction(const Lesson& lesson, std::size_t stepIndex);

// The lessons built into the programs: the files lessons/*.md of the source tree, in the order
// of their file names.
struct BuiltInLesson {
    std::string_view fileName; // "01-what-is-a-float.md"
    std::string_view text;
};
std::span<const BuiltInLesson> builtInLessons();

// The built-in lesson whose front-matter name (or file name, with or without ".md") is `name`,
// parsed, with source "built-in lessons/FILE.md"; nullopt when there is none. A built-in lesson
// that does not parse comes back as its LessonParse error, so it is never silently missing.
std::optional<LessonParse> findBuiltInLesson(std::string_view name);

} // namespace fpx
