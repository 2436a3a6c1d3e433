// SPDX-License-Identifier: GPL-3.0-or-later
// The lesson file reader (front matter, steps, actions, Markdown text), as `fpx lesson FILE`
// and the explorer's Lessons page use it: parse, then every step's merged actions, or the
// error's "SOURCE:LINE:COLUMN: message" text, whose position must lie in the input.
#include "fuzz_support.h"

#include "fpx/lesson/lesson.h"

#include <algorithm>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text = fpx::fuzz::asText(data, size);
    const fpx::LessonParse parse = fpx::parseLesson(text, "input.md");
    if (!parse) {
        const std::size_t lines =
            1 + static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
        if (parse.error.line > lines + 1)
            std::abort(); // an error placed past the end of the file
        (void)fpx::lessonErrorText("input.md", parse.error);
        return 0;
    }
    for (std::size_t step = 0; step < parse.lesson->steps.size(); ++step)
        (void)fpx::mergedActions(*parse.lesson, step);
    return 0;
}
