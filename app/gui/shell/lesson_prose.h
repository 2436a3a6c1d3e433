// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/lesson/lesson.h"

#include <QString>

class QPalette;
class QTextDocument;

namespace fpx::gui {

// The Markdown a step shows: the lesson's introduction above its first step, then the step's
// title as a heading and its prose.
QString stepMarkdown(const Lesson& lesson, std::size_t index);

// Sets `document` to a step's Markdown with its tables made legible: Qt's Markdown import draws
// a table with no rules and its cells touching, so each table gets rules between the cells,
// padding inside them and a shaded, bold header row (the first row of a Markdown table).
void setLessonMarkdown(QTextDocument& document, const QString& markdown, const QPalette& palette);

// The padding inside a table cell of the prose, in pixels at the document's type: a third of
// its line height.
qreal lessonCellPadding(const QTextDocument& document);

} // namespace fpx::gui
