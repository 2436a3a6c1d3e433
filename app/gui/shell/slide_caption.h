// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/lesson/lesson.h"

#include <QWidget>

class QLabel;
class QTextBrowser;
class QTextDocument;

namespace fpx::gui {

class MainWindow;
class SlideBits;

// The slide above the page in slide mode: the step's number and title, the keys, the one
// format the step is about drawn large (SlideBits) and the step's prose in the largest type at
// which it fits the space left (never smaller than the window's type; past that it scrolls).
class SlideCaption : public QWidget {
    Q_OBJECT

  public:
    explicit SlideCaption(MainWindow& window, QWidget* parent = nullptr);

    // Step `index` of `lesson`; `oneFormat`: whether to draw the selected format's bits.
    void showStep(const Lesson& lesson, std::size_t index, bool oneFormat);
    // No lesson is open: the caption says so and how to open one.
    void showNoLesson();

    QLabel* heading() const { return heading_; }
    QLabel* keys() const { return keys_; }
    QTextBrowser* prose() const { return prose_; }
    SlideBits* bits() const { return bits_; }
    // The prose's point size over the window's: how far the fit could enlarge it.
    double proseScale() const;
    // The height that shows the whole step (heading, bits where shown, prose) with the prose in
    // the window's type, the least at which nothing scrolls, were the caption `width` wide.
    int wholeHeightAtWindowType(int width) const;

  protected:
    void changeEvent(QEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

  private:
    void fitProse();
    void fitLater();
    // The step's prose laid out in `document` at `scale` times the window's type, `width`
    // wide; its height.
    double layOutProse(QTextDocument& document, double scale, int width) const;

    MainWindow& window_;
    QLabel* heading_;
    QLabel* keys_;
    SlideBits* bits_;
    QTextBrowser* prose_;
    bool fitQueued_ = false;
};

} // namespace fpx::gui
