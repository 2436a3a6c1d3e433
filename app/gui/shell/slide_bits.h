// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QWidget>

namespace fpx::gui {

class MainWindow;

// One format's bits as large as the slide's width allows, for the back of a lecture hall: the
// explorer's selected row, its name, hex code and stored value (as the table shows it), its
// fields named over the cells. It follows the row as the value, the selection or the zoom
// change, and paints nothing when no row is selected.
class SlideBits : public QWidget {
    Q_OBJECT

  public:
    explicit SlideBits(MainWindow& window, QWidget* parent = nullptr);

    // The row drawn (−1: none) and the width of one of its cells at the current size.
    int row() const;
    int cellWidth() const;
    // What the line above the cells says: "FP32 E8M23  0x3eca57a8  = 0.3952…".
    QString caption() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

  protected:
    void paintEvent(QPaintEvent* event) override;

  private:
    int cellWidthFor(const QRect& area, int cells) const;
    int captionHeight() const;
    int labelHeight() const;
    QFont labelFont() const;

    MainWindow& window_;
};

} // namespace fpx::gui
