// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QScrollArea>

namespace fpx::gui {

// The window's pages, in a view that scrolls them where the window gives them less than they
// need, so that the Lessons dock can be dragged to half the window and slide mode's caption can
// take half the screen without the window growing past the screen. Sideways it always may
// scroll; downwards only while scrollsVertically() (slide mode), so that elsewhere the window's
// height stays what the pages ask.
class PagesScroller : public QScrollArea {
    Q_OBJECT

  public:
    explicit PagesScroller(QWidget* pages, QWidget* parent = nullptr);

    bool scrollsVertically() const { return vertical_; }
    void setScrollsVertically(bool on);

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    bool vertical_ = false;
};

} // namespace fpx::gui
