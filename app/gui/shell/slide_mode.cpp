// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/slide_mode.h"

#include "shell/lesson_panel.h"
#include "shell/main_window.h"
#include "shell/pages_scroller.h"
#include "shell/presentation_mode.h"
#include "shell/slide_caption.h"
#include "shell/visible_targets.h"
#include "shell/window_keys.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QKeyEvent>
#include <QMenu>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolTip>

#include <algorithm>

namespace fpx::gui {

namespace {

// Whether step `index` names a plot among what it must show.
bool showsPlot(const Lesson& lesson, std::size_t index) {
    const LessonAction* show = showAction(lesson, index);
    if (!show)
        return false;
    QString error;
    const auto targets = parseVisibleTargets(QString::fromStdString(show->value), error);
    return targets && std::any_of(targets->begin(), targets->end(), [](const VisibleTarget& t) {
               return t.kind == VisibleTarget::Kind::Plot;
           });
}

// Whether step `index` is about one format: its state selects a row of the explorer, the
// explorer is the page it shows, and it names no plot to show (a plot is what such a step is
// about, and it needs the room the bits would take).
bool aboutOneFormat(const Lesson& lesson, std::size_t index, const MainWindow& window) {
    const std::vector<LessonAction> state = mergedActions(lesson, index);
    const bool selects = std::any_of(state.begin(), state.end(),
                                     [](const LessonAction& a) { return a.key == "select"; });
    return selects && !showsPlot(lesson, index) &&
           window.currentPage() == MainWindow::Page::Explorer && window.selectedRow() >= 0;
}

} // namespace

SlideMode::SlideMode(MainWindow& window, LessonPanel& lessons)
    : QObject(&window), window_(window), lessons_(lessons) {
    setObjectName("slideMode");
    dock_ = new QDockWidget(tr("Slide"), &window);
    dock_->setObjectName("slideDock");
    dock_->setFeatures(QDockWidget::NoDockWidgetFeatures);
    dock_->setAllowedAreas(Qt::TopDockWidgetArea);
    dock_->setTitleBarWidget(new QWidget(dock_)); // a slide, not a panel: no title bar
    caption_ = new SlideCaption(window, dock_);
    dock_->setWidget(caption_);
    window.addDockWidget(Qt::TopDockWidgetArea, dock_);
    dock_->hide();

    action_ = new QAction(tr("&Slide mode"), this);
    action_->setObjectName("slideModeAction");
    action_->setCheckable(true);
    action_->setShortcut(QKeySequence(Qt::Key_F6));
    action_->setToolTip(tr("The lesson one step per screen: full screen, the step's text large "
                           "above the live page, the format it is about drawn large. PgDown and "
                           "PgUp step, Home resets the step, F6 or Esc leaves."));
    connect(action_, &QAction::triggered, this, [this] { toggle(); });
    window.addAction(action_); // works with the menu bar hidden
    // In the View menu too, beside presentation mode.
    if (auto* present = window.findChild<QAction*>("presentationAction"))
        for (QObject* object : present->associatedObjects())
            if (auto* menu = qobject_cast<QMenu*>(object)) {
                const QList<QAction*> items = menu->actions();
                const qsizetype at = items.indexOf(present);
                menu->insertAction(at + 1 < items.size() ? items[at + 1] : nullptr, action_);
            }

    connect(&lessons, &LessonPanel::stepShown, this, [this] {
        if (active_)
            showStep();
    });
    if (auto* pages = window.findChild<QTabWidget*>("pages"))
        connect(pages, &QTabWidget::currentChanged, this, [this] {
            if (active_)
                showStep();
        });
    // F5 leaves presentation mode, and slide mode with it.
    connect(window.presentation(), &PresentationMode::activeChanged, this, [this](bool on) {
        if (!on)
            setActive(false);
    });
}

void SlideMode::setActive(bool active) {
    if (active == active_) {
        action_->setChecked(active_);
        return;
    }
    if (active && !lessons_.lesson()) {
        const QString message = tr("Slide mode shows a lesson: open one from the Lessons menu "
                                   "first (or File → Open lesson…).");
        if (window_.statusBar()->isVisible())
            window_.statusBar()->showMessage(message, 10'000);
        else
            QToolTip::showText(window_.mapToGlobal(window_.rect().center()), message, &window_);
        action_->setChecked(false);
        return;
    }
    active_ = active;
    if (active) {
        presentationBefore_ = window_.presentation()->isActive();
        lessonsShownBefore_ = !lessons_.isHidden();
        lessons_.hide();
        if (auto* pages = qobject_cast<PagesScroller*>(window_.centralWidget()))
            pages->setScrollsVertically(true);
        dock_->show();
        window_.presentation()->setActive(true);
        showStep();
        placeCaption();
        qApp->installEventFilter(this);
        caption_->setFocus();
    } else {
        qApp->removeEventFilter(this);
        dock_->hide();
        if (auto* pages = qobject_cast<PagesScroller*>(window_.centralWidget()))
            pages->setScrollsVertically(false);
        if (lessonsShownBefore_)
            lessons_.show();
        if (!presentationBefore_)
            window_.presentation()->setActive(false);
    }
    action_->setChecked(active_);
    emit activeChanged(active_);
}

void SlideMode::showStep() {
    if (!lessons_.lesson()) {
        caption_->showNoLesson();
        return;
    }
    const Lesson& lesson = *lessons_.lesson();
    const std::size_t index = lessons_.currentStep();
    caption_->showStep(lesson, index, aboutOneFormat(lesson, index, window_));
    placeCaption();
}

void SlideMode::placeCaption() {
    const std::optional<Lesson>& lesson = lessons_.lesson();
    int height = int(window_.height() * kCaptionShare);
    if (lesson && showsPlot(*lesson, lessons_.currentStep()))
        height = std::clamp(caption_->wholeHeightAtWindowType(window_.width()) +
                                (dock_->height() - caption_->height()),
                            int(window_.height() * kPlotCaptionLeast),
                            int(window_.height() * kPlotCaptionShare));
    window_.resizeDocks({dock_}, {height}, Qt::Vertical);
}

bool SlideMode::eventFilter(QObject* watched, QEvent* event) {
    // The window goes full screen after slide mode starts: the slide takes its share again.
    if (watched == &window_ && event->type() == QEvent::Resize) {
        placeCaption();
        return false;
    }
    const QKeyEvent* key = windowKeyPress(watched, event, &window_);
    if (!key || (key->modifiers() & ~Qt::KeypadModifier) != Qt::NoModifier)
        return false;
    const bool navigationFree = !focusTakesNavigationKeys(&window_);
    switch (key->key()) {
    case Qt::Key_Escape:
        setActive(false);
        return true;
    case Qt::Key_PageDown:
        lessons_.next();
        return true;
    case Qt::Key_PageUp:
        lessons_.previous();
        return true;
    case Qt::Key_Right:
        if (navigationFree)
            lessons_.next();
        return navigationFree;
    case Qt::Key_Left:
        if (navigationFree)
            lessons_.previous();
        return navigationFree;
    case Qt::Key_Home:
        if (navigationFree)
            lessons_.resetStep();
        return navigationFree;
    default:
        return false;
    }
}

} // namespace fpx::gui
