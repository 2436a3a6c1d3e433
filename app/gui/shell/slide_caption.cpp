// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/slide_caption.h"

#include "shell/lesson_prose.h"
#include "shell/main_window.h"
#include "shell/slide_bits.h"

#include <QAbstractTextDocumentLayout>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QScrollBar>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTimer>
#include <QVBoxLayout>

#include <array>
#include <cmath>

namespace fpx::gui {

namespace {

// The prose's type over the window's (already the presentation's zoom), largest first: the
// fit takes the first at which the whole step shows.
constexpr std::array<double, 9> kProseScales{2.4, 2.1, 1.85, 1.65, 1.5, 1.35, 1.2, 1.1, 1.0};
constexpr double kHeadingScale = 1.25;
constexpr double kKeysScale = 0.9;
constexpr double kBitsScale = 1.3;
// The caption's width, in characters of its type, from which the keys show beside the heading.
constexpr int kKeysWidth = 110;

} // namespace

SlideCaption::SlideCaption(MainWindow& window, QWidget* parent) : QWidget(parent), window_(window) {
    setObjectName("slideCaption");
    setFocusPolicy(Qt::StrongFocus);
    heading_ = new QLabel(this);
    heading_->setObjectName("slideHeading");
    heading_->setWordWrap(true);
    heading_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    QFont headingFont = heading_->font();
    headingFont.setBold(true);
    headingFont.setPointSizeF(headingFont.pointSizeF() * kHeadingScale);
    heading_->setFont(headingFont);
    keys_ = new QLabel(tr("PgDn → next · PgUp ← back · Home reset · Esc leave"), this);
    keys_->setObjectName("slideKeys");
    keys_->setWordWrap(true);
    keys_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    keys_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    QFont keysFont = keys_->font();
    keysFont.setPointSizeF(keysFont.pointSizeF() * kKeysScale);
    keys_->setFont(keysFont);
    keys_->setForegroundRole(QPalette::PlaceholderText);
    bits_ = new SlideBits(window, this);
    QFont bitsFont = bits_->font();
    bitsFont.setPointSizeF(bitsFont.pointSizeF() * kBitsScale);
    bits_->setFont(bitsFont);
    bits_->hide();
    prose_ = new QTextBrowser(this);
    prose_->setObjectName("slideProse");
    prose_->setOpenExternalLinks(true);
    prose_->setFrameShape(QFrame::NoFrame);
    prose_->setFocusPolicy(Qt::NoFocus);
    // The prose comes first: three lines at least, whatever the bits would take.
    prose_->setMinimumHeight(QFontMetrics(prose_->font()).height() * 3);
    prose_->installEventFilter(this);
    prose_->viewport()->installEventFilter(this);

    auto* top = new QHBoxLayout;
    top->addWidget(heading_, 3);
    top->addWidget(keys_, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(bits_);
    layout->addWidget(prose_, 1);
}

void SlideCaption::showStep(const Lesson& lesson, std::size_t index, bool oneFormat) {
    const LessonStep& step = lesson.steps[index];
    // The lesson's title is the dock's and the tool tip's: on a small screen every line counts.
    heading_->setText(tr("%1 / %2 · %3")
                          .arg(index + 1)
                          .arg(lesson.steps.size())
                          .arg(QString::fromStdString(step.title)));
    heading_->setToolTip(QString::fromStdString(lesson.title));
    QString markdown;
    if (index == 0 && !lesson.introduction.empty())
        markdown += QString::fromStdString(lesson.introduction) + "\n\n";
    markdown += QString::fromStdString(step.prose);
    prose_->setProperty("fpxMarkdown", markdown);
    bits_->setVisible(oneFormat);
    fitProse();
    fitLater(); // again once the layout has given the bits their height
}

void SlideCaption::showNoLesson() {
    heading_->setText(tr("No lesson is open"));
    prose_->setProperty("fpxMarkdown",
                        tr("Slide mode shows a lesson one step per screen. Leave with **F6** or "
                           "**Esc**, open a lesson from the **Lessons** menu (or File → Open "
                           "lesson…), then press **F6** again."));
    bits_->hide();
    fitProse();
}

double SlideCaption::proseScale() const {
    const double window = window_.font().pointSizeF();
    return window > 0 ? prose_->document()->defaultFont().pointSizeF() / window : 1.0;
}

int SlideCaption::wholeHeightAtWindowType(int width) const {
    // At `width`: the caption may not have been laid out at the window's new size yet.
    const QMargins margins = layout()->contentsMargins();
    QTextDocument probe;
    probe.setDocumentMargin(prose_->document()->documentMargin());
    const double lines =
        layOutProse(probe, 1.0,
                    width - margins.left() - margins.right() - 2 * prose_->frameWidth() -
                        (prose_->verticalScrollBar()->isVisibleTo(prose_)
                             ? prose_->verticalScrollBar()->sizeHint().width()
                             : 0));
    // What surrounds the prose's view: the margins, the heading's and the keys' lines as they
    // wrap at `width` (3 : 2 of the row), the bits where they are shown. Each from its own
    // hint, not from the layout, which may still be the previous step's.
    const int spacing = layout()->spacing();
    const int row = width - margins.left() - margins.right() - spacing;
    const int top = std::max(heading_->heightForWidth(row * 3 / 5),
                             keys_->isVisibleTo(this) ? keys_->heightForWidth(row * 2 / 5) : 0);
    const int bits = bits_->isVisibleTo(this) ? bits_->sizeHint().height() + spacing : 0;
    const int around =
        margins.top() + top + spacing + bits + 2 * prose_->frameWidth() + margins.bottom();
    return around + int(std::ceil(lines));
}

double SlideCaption::layOutProse(QTextDocument& document, double scale, int width) const {
    QFont font = prose_->font();
    font.setPointSizeF(window_.font().pointSizeF() * scale);
    document.setDefaultFont(font);
    setLessonMarkdown(document, prose_->property("fpxMarkdown").toString(), prose_->palette());
    document.setTextWidth(width);
    return document.documentLayout()->documentSize().height();
}

void SlideCaption::fitProse() {
    fitQueued_ = false;
    const int available = prose_->viewport()->height();
    for (double scale : kProseScales)
        if (layOutProse(*prose_->document(), scale, prose_->viewport()->width()) <= available)
            break;
    // From the top, the cursor too: at the text's end it would scroll there at the next resize.
    prose_->moveCursor(QTextCursor::Start);
    prose_->verticalScrollBar()->setValue(0);
}

void SlideCaption::fitLater() {
    if (fitQueued_)
        return;
    fitQueued_ = true;
    QTimer::singleShot(0, this, &SlideCaption::fitProse);
}

void SlideCaption::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange)
        fitLater();
    QWidget::changeEvent(event);
}

bool SlideCaption::eventFilter(QObject* watched, QEvent* event) {
    // A new size of the prose's viewport (the window full screen, the bits shown or hidden) or
    // a new type (the zoom) calls for a new fit.
    if (watched == prose_->viewport() && event->type() == QEvent::Resize)
        // The keys' line only where it does not take a line of its own.
        keys_->setVisible(width() >= kKeysWidth * fontMetrics().averageCharWidth());
    if ((watched == prose_->viewport() && event->type() == QEvent::Resize) ||
        (watched == prose_ && event->type() == QEvent::FontChange))
        fitLater();
    return QWidget::eventFilter(watched, event);
}

} // namespace fpx::gui
