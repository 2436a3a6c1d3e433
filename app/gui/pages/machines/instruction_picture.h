// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/machines/machines_model.h"

#include <QString>
#include <QWidget>

#include <optional>

class QPainter;

namespace fpx::gui {

// One tensor-core instruction drawn term by term (docs/behaviour.md, "Machines"): a row of bit
// cells per term (c, a1·b1, …), every row aligned on the largest exponent E, the window of F
// bits below E shaded and closed by a line at 2^(E−F), the bits below it struck in red; then the
// exact sum of what was kept, the output in its format (its significand framed where it lands
// after normalisation) and the exact sum of the terms as they came. Each row's value stands
// beside it as text. Products that are zero only because fewer were typed than the instruction
// takes are left out and counted under the rows.
class InstructionPicture : public QWidget {
    Q_OBJECT

  public:
    explicit InstructionPicture(QWidget* parent = nullptr);

    // What to draw; nullopt with `message` draws the message instead (a form that does not read).
    void setInstruction(std::optional<DrawnInstruction> drawn, const QString& message = {});
    const std::optional<DrawnInstruction>& drawn() const { return drawn_; }

    // The rows drawn, top to bottom, as their labels ("c", "a1·b1", …, "kept sum", "output",
    // "exact"): what a reader of the picture sees listed.
    QStringList rowLabels() const;

    // Paints the picture into `rect` of any device (the widget, a PNG or an SVG export).
    void paintPicture(QPainter& painter, const QRect& rect) const;
    // The picture as PNG or SVG, by the suffix, at the widget's size.
    bool exportTo(const QString& path, QString* error = nullptr) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool hasHeightForWidth() const override;
    int heightForWidth(int width) const override;

  protected:
    void paintEvent(QPaintEvent* event) override;
    bool event(QEvent* event) override; // tooltips: a row's values in full
    void changeEvent(QEvent* event) override;

  private:
    struct Row;
    std::vector<Row> rows() const;
    // The bit positions drawn, high to low: [top, bottom].
    std::pair<std::int64_t, std::int64_t> columnRange() const;
    // The rows' height for cells `cell` wide, and the cells' width in a picture `width` wide.
    int rowHeight(int cell) const;
    int cellWidth(int width) const;
    int labelWidth() const;
    int textWidth() const;

    std::optional<DrawnInstruction> drawn_;
    QString message_;
};

} // namespace fpx::gui
