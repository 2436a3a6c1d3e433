// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/folding_form.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace fpx::gui {

namespace {

// A form's fields grow with the room up to this many average characters: wider, a field's
// text would sit far from its label on a wide window.
constexpr int kFormChars = 64;

} // namespace

FoldingForm::FoldingForm(QWidget* parent) : QWidget(parent) {
    auto* column = new QVBoxLayout(this);
    column->setContentsMargins(0, 0, 0, 0);
    header_ = new QHBoxLayout;
    button_ = new QToolButton(this);
    button_->setObjectName("formFold");
    button_->setText(tr("Form"));
    button_->setCheckable(true);
    button_->setChecked(true);
    button_->setArrowType(Qt::DownArrow);
    button_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    button_->setAutoRaise(true);
    button_->setToolTip(tr("Show or hide the form. Where the window is too short for the form "
                           "and the plot together, the form folds away by itself."));
    header_->addWidget(button_, 0, Qt::AlignLeft);
    column->addLayout(header_);
    connect(button_, &QToolButton::clicked, this, [this](bool shown) { setFolded(!shown); });
}

void FoldingForm::setForm(QWidget* form) {
    form_ = form;
    form_->setParent(this);
    static_cast<QVBoxLayout*>(layout())->addWidget(form_);
    fitFormWidth();
    decide();
}

void FoldingForm::setRoom(QScrollArea* room, std::function<int()> neededBelow) {
    room_ = room;
    neededBelow_ = std::move(neededBelow);
    // The scroll bar always there: the content's width, and with it the plot's least height
    // (its legend wraps to the width), must not depend on whether the form folded, or folding
    // could show the bar, narrow the plot, and unfold again.
    room_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    room_->viewport()->installEventFilter(this);
    if (QWidget* content = room_->widget())
        content->installEventFilter(this);
    decide();
}

bool FoldingForm::isFolded() const {
    return folded_;
}

void FoldingForm::setFolded(bool folded) {
    choice_ = folded;
    decide();
}

void FoldingForm::forgetChoice() {
    choice_.reset();
    decide();
}

bool FoldingForm::eventFilter(QObject* watched, QEvent* event) {
    // The room's height, or what the content needs (a plot's least height after a new result,
    // a status of more lines), changed.
    if (event->type() == QEvent::Resize || event->type() == QEvent::LayoutRequest)
        decide();
    return QWidget::eventFilter(watched, event);
}

void FoldingForm::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange) { // the zoom
        fitFormWidth();
        decide();
    }
    QWidget::changeEvent(event);
}

void FoldingForm::fitFormWidth() {
    if (form_)
        form_->setMaximumWidth(fontMetrics().averageCharWidth() * kFormChars);
}

void FoldingForm::decide() {
    if (!form_ || deciding_)
        return;
    deciding_ = true;
    bool fold = false;
    if (choice_) {
        fold = *choice_;
    } else if (room_ && neededBelow_) {
        // From the top of the scrolling content to the bottom of the first plot, the form shown.
        const QWidget* content = room_->widget();
        const int top = content && content->isAncestorOf(this) ? mapTo(content, QPoint()).y() : 0;
        const int needed = top + header_->sizeHint().height() + layout()->spacing() +
                           form_->sizeHint().height() + neededBelow_();
        fold = needed > room_->viewport()->height();
    }
    if (!decided_ || folded_ != fold) {
        folded_ = fold;
        decided_ = true;
        form_->setVisible(!fold);
    }
    {
        const QSignalBlocker blocker(button_);
        button_->setChecked(!fold);
    }
    button_->setArrowType(fold ? Qt::RightArrow : Qt::DownArrow);
    deciding_ = false;
}

StatusLine::StatusLine(QWidget* parent) : QLabel(parent) {
    setTextFormat(Qt::PlainText);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void StatusLine::setStatus(const QString& text) {
    status_ = text;
    setToolTip(text);
    elide();
    updateGeometry();
}

QSize StatusLine::sizeHint() const {
    // From the whole text, never from what was cut: the hint does not change with the width.
    return {fontMetrics().horizontalAdvance(status_) + 2 * margin() + 2,
            QLabel::minimumSizeHint().height()};
}

QSize StatusLine::minimumSizeHint() const {
    return {fontMetrics().averageCharWidth() * 8, QLabel::minimumSizeHint().height()};
}

void StatusLine::resizeEvent(QResizeEvent* event) {
    QLabel::resizeEvent(event);
    elide();
}

void StatusLine::changeEvent(QEvent* event) {
    QLabel::changeEvent(event);
    if (event->type() == QEvent::FontChange)
        elide();
}

void StatusLine::elide() {
    const QString shown =
        fontMetrics().elidedText(status_, Qt::ElideRight, std::max(0, width() - 2 * margin()));
    if (text() != shown)
        setText(shown);
}

int leastHeight(const QWidget& widget) {
    return widget.minimumHeight() > 0 ? widget.minimumHeight()
                                      : std::max(0, widget.minimumSizeHint().height());
}

} // namespace fpx::gui
