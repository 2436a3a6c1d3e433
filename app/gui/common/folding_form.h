// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QLabel>
#include <QWidget>

#include <functional>
#include <optional>

class QHBoxLayout;
class QScrollArea;
class QToolButton;

namespace fpx::gui {

// A lab's form above its plots, in the scroll area that holds them (plotsScrollArea): a header
// line (the Form button first, then what the page adds: Run, Export, a status) and under it the
// form. Where the room is too short for the form and the first plot at its legible height
// together, the form folds away behind its button, so that the plot is on screen whole without
// scrolling (docs/presentation.md, "Legible plots"). The button unfolds it, and the view then
// scrolls; the choice holds until the page's options are applied again (a lesson step, the
// command line), which give the fold back to the room: the same options at the same size show
// the same pixels.
class FoldingForm : public QWidget {
    Q_OBJECT

  public:
    explicit FoldingForm(QWidget* parent = nullptr);

    // Where the page adds its buttons and status, after the Form button.
    QHBoxLayout* header() const { return header_; }
    // The form, shown under the header unless folded.
    void setForm(QWidget* form);
    QWidget* form() const { return form_; }
    QToolButton* foldButton() const { return button_; }

    // The scroll area whose viewport is the room (its scroll bar then always shows), and the
    // height the page needs under this widget down to the bottom of its first plot at the
    // plot's least height. Decides at once and again whenever the room, the type size or the
    // content's layout changes.
    void setRoom(QScrollArea* room, std::function<int()> neededBelow);

    bool isFolded() const;
    // The user's choice (the button): it holds until forgetChoice().
    void setFolded(bool folded);
    // Folds again by the room.
    void forgetChoice();

  protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    void decide();
    void fitFormWidth();

    QHBoxLayout* header_;
    QToolButton* button_;
    QWidget* form_ = nullptr;
    QScrollArea* room_ = nullptr;
    std::function<int()> neededBelow_;
    std::optional<bool> choice_;
    bool folded_ = false;
    bool decided_ = false;
    bool deciding_ = false;
};

// A status in one line, for a header beside buttons: the text cut with an ellipsis where the
// line is too narrow, whole in the tooltip. It asks for little width, so that a long status
// never holds the page wider than its room, and it never takes a second line from the plots.
class StatusLine : public QLabel {
    Q_OBJECT

  public:
    explicit StatusLine(QWidget* parent = nullptr);

    void setStatus(const QString& text);
    QString status() const { return status_; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

  protected:
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    void elide();

    QString status_;
};

// The least height a layout gives `widget` (its minimum size where set, else its hint).
int leastHeight(const QWidget& widget);

} // namespace fpx::gui
