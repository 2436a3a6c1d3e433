// SPDX-License-Identifier: GPL-3.0-or-later
// The built-in lessons: lessons/*.md of the source tree, copied into the program at build time
// (tools/embed_lessons.cmake writes builtin_lessons_data.inc), so the CLI and the explorer
// read the same text and neither depends on files installed beside it.
#include "fpx/lesson/lesson.h"

#include <array>

namespace fpx {
namespace {

#include "builtin_lessons_data.inc" // kBuiltInLessons, ordered by file name

std::string_view withoutSuffix(std::string_view name) {
    if (name.size() > 3 && name.substr(name.size() - 3) == ".md")
        name.remove_suffix(3);
    return name;
}

} // namespace

std::span<const BuiltInLesson> builtInLessons() {
    return {kBuiltInLessons.data(), kBuiltInLessons.size()};
}

std::optional<LessonParse> findBuiltInLesson(std::string_view name) {
    for (const BuiltInLesson& builtIn : builtInLessons()) {
        // Named by its file in the source tree, so a problem's FILE:LINE:COLUMN leads there.
        LessonParse parse =
            parseLesson(builtIn.text, "built-in lessons/" + std::string(builtIn.fileName));
        const bool byFile = withoutSuffix(builtIn.fileName) == withoutSuffix(name);
        if (byFile || (parse && parse.lesson->name == name))
            return parse;
    }
    return std::nullopt;
}

} // namespace fpx
