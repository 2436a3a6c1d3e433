// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/lesson_prose.h"

#include <QFontMetricsF>
#include <QPalette>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextFrame>
#include <QTextTable>

namespace fpx::gui {

QString stepMarkdown(const Lesson& lesson, std::size_t index) {
    const LessonStep& step = lesson.steps[index];
    QString text;
    if (index == 0 && !lesson.introduction.empty())
        text += QString::fromStdString(lesson.introduction) + "\n\n";
    text +=
        "## " + QString::fromStdString(step.title) + "\n\n" + QString::fromStdString(step.prose);
    return text;
}

qreal lessonCellPadding(const QTextDocument& document) {
    return QFontMetricsF(document.defaultFont()).height() / 3;
}

void setLessonMarkdown(QTextDocument& document, const QString& markdown, const QPalette& palette) {
    document.setMarkdown(markdown);
    const qreal padding = lessonCellPadding(document);
    QTextCursor cursor(&document);
    cursor.beginEditBlock();
    for (QTextFrame* frame : document.rootFrame()->childFrames()) {
        auto* table = qobject_cast<QTextTable*>(frame);
        if (!table)
            continue;
        QTextTableFormat format = table->format();
        format.setBorder(1);
        format.setBorderBrush(palette.color(QPalette::Mid));
        format.setBorderStyle(QTextFrameFormat::BorderStyle_Solid);
        format.setBorderCollapse(true);
        format.setCellSpacing(0);
        format.setCellPadding(padding);
        format.setHeaderRowCount(1);
        // The table's own left margin keeps it off the dock's edge like the paragraphs.
        format.setMargin(padding);
        table->setFormat(format);
        QTextCharFormat bold;
        bold.setFontWeight(QFont::Bold);
        for (int column = 0; column < table->columns(); ++column) {
            QTextTableCell cell = table->cellAt(0, column);
            QTextTableCellFormat shaded = cell.format().toTableCellFormat();
            shaded.setBackground(palette.color(QPalette::Button));
            cell.setFormat(shaded);
            QTextCursor text = cell.firstCursorPosition();
            text.setPosition(cell.lastCursorPosition().position(), QTextCursor::KeepAnchor);
            text.mergeCharFormat(bold);
        }
    }
    cursor.endEditBlock();
}

} // namespace fpx::gui
