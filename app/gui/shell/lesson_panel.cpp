// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/lesson_panel.h"

#include "common/error_style.h"
#include "common/page.h"
#include "common/settled_scroll_bar.h"
#include "pages/explorer/table_fit.h"
#include "shell/lesson_prose.h"
#include "shell/main_window.h"
#include "shell/pages_scroller.h"
#include "shell/slide_mode.h"

#include <QAction>
#include <QComboBox>
#include <QCoreApplication>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLayout>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QStyle>
#include <QTextBrowser>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>

#include <qcustomplot.h>

#include <algorithm>

namespace fpx::gui {
namespace {

// Read in a lecture hall: the lesson's text is larger than the window's type (the controls
// keep the window's, so that the dock stays narrow beside the explorer at 1024 pixels).
constexpr double kTypeScale = 1.25;
// The prose's narrowest width. The dock opens as wide as kReadableCharacters of the prose's
// type, a comfortable line, but at most kOpeningShare of the window and never so wide that the
// pages beside it would have to scroll.
constexpr int kMinimumWidth = 160;
constexpr int kReadableCharacters = 55;
constexpr double kOpeningShare = 0.4;
// The dock's separator and frame beside the pages.
constexpr int kSeparator = 8;

} // namespace

LessonPanel::LessonPanel(MainWindow& window)
    : QDockWidget(tr("Lesson"), &window), window_(window), runner_(window) {
    setObjectName("lessonPanel");
    setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable |
                QDockWidget::DockWidgetFloatable);
    auto* body = new QWidget(this);
    QFont font = body->font();
    font.setPointSizeF(font.pointSizeF() * kTypeScale);

    title_ = new QLabel(body);
    QFont titleFont = font;
    titleFont.setBold(true);
    titleFont.setPointSizeF(font.pointSizeF() * 1.2);
    title_->setFont(titleFont);
    title_->setWordWrap(true);
    summary_ = new QLabel(body);
    summary_->setWordWrap(true);
    summary_->setFont(font);
    steps_ = new QComboBox(body);
    steps_->setToolTip(tr("Go to a step"));
    stepLabel_ = new QLabel(body);
    prose_ = new QTextBrowser(body);
    prose_->setFont(font);
    prose_->setOpenExternalLinks(true);
    // Words whole, in a table cell too ("for|mat" reads as two words): a table wider than the
    // panel scrolls sideways instead.
    prose_->setWordWrapMode(QTextOption::WordWrap);
    problemsLabel_ = new QLabel(body);
    problemsLabel_->setWordWrap(true);
    problemsLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    styleErrorLabel(*problemsLabel_);
    problemsLabel_->hide();
    // Not an error of the lesson: the window is too small, or the zoom too large, for it.
    hiddenLabel_ = new QLabel(body);
    hiddenLabel_->setObjectName("lessonHidden");
    hiddenLabel_->setWordWrap(true);
    hiddenLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    hiddenLabel_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    hiddenLabel_->hide();

    previous_ = new QPushButton(tr("◀ &Previous"), body);
    next_ = new QPushButton(tr("&Next ▶"), body);
    previous_->setToolTip(tr("The previous step's state (Alt+PgUp)"));
    next_->setToolTip(tr("The next step's state (Alt+PgDown); explore freely in between"));
    auto* lessons = new QToolButton(body);
    lessons->setText(tr("Lessons"));
    lessons->setPopupMode(QToolButton::InstantPopup);
    auto* close = new QPushButton(tr("Close"), body);

    // Narrow, so the explorer keeps its columns beside it: the controls stack in short rows.
    steps_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    steps_->setMinimumContentsLength(4);
    prose_->setMinimumWidth(kMinimumWidth);
    keepScrollBarSettled(*prose_);
    // A long path in a message must not widen the dock; it wraps where it can.
    problemsLabel_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    title_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    summary_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    auto* steps = new QHBoxLayout;
    steps->addWidget(stepLabel_);
    steps->addWidget(steps_, 1);
    auto* move = new QHBoxLayout;
    move->addWidget(previous_);
    move->addWidget(next_);
    auto* other = new QHBoxLayout;
    other->addWidget(lessons);
    other->addStretch(1);
    other->addWidget(close);
    auto* layout = new QVBoxLayout(body);
    layout->addWidget(title_);
    layout->addWidget(summary_);
    layout->addLayout(steps);
    layout->addWidget(prose_, 1);
    layout->addWidget(problemsLabel_);
    layout->addWidget(hiddenLabel_);
    layout->addLayout(move);
    layout->addLayout(other);
    setWidget(body);

    menu_ = new QMenu(tr("&Lessons"), this);
    for (const BuiltInLesson& builtIn : builtInLessons()) {
        const LessonParse parse = parseLesson(builtIn.text, "built-in");
        const QString name =
            parse ? QString::fromStdString(parse.lesson->name)
                  : QString::fromUtf8(builtIn.fileName.data(), qsizetype(builtIn.fileName.size()));
        const QString title = parse ? QString::fromStdString(parse.lesson->title) : name;
        QAction* open = menu_->addAction(title, this, [this, name] {
            if (const QString error = openBuiltIn(name); !error.isEmpty())
                QMessageBox::warning(&window_, tr("Lesson"), error);
        });
        if (parse)
            open->setToolTip(QString::fromStdString(parse.lesson->summary));
    }
    menu_->addSeparator();
    menu_->addAction(tr("&Open lesson…"), this, &LessonPanel::openFileDialog);
    menu_->addSeparator();
    // Window-wide, so the keys work while exploring; Alt+Left/Right are Back/Forward.
    nextAction_ = menu_->addAction(tr("&Next step"), this, &LessonPanel::next);
    nextAction_->setShortcut(QKeySequence(Qt::ALT | Qt::Key_PageDown));
    previousAction_ = menu_->addAction(tr("&Previous step"), this, &LessonPanel::previous);
    previousAction_->setShortcut(QKeySequence(Qt::ALT | Qt::Key_PageUp));
    resetAction_ = menu_->addAction(tr("&Reset step"), this, &LessonPanel::resetStep);
    resetAction_->setObjectName("resetStepAction");
    resetAction_->setShortcut(QKeySequence(Qt::ALT | Qt::Key_Home));
    resetAction_->setToolTip(tr("Set the window to this step's state again, undoing what was "
                                "changed since (Alt+Home)."));
    menu_->addAction(toggleViewAction());
    lessons->setMenu(menu_);

    connect(previous_, &QPushButton::clicked, this, &LessonPanel::previous);
    connect(next_, &QPushButton::clicked, this, &LessonPanel::next);
    connect(close, &QPushButton::clicked, this, &QDockWidget::hide);
    connect(steps_, &QComboBox::activated, this,
            [this](int index) { showStep(static_cast<std::size_t>(index)); });
    hide();
}

QString LessonPanel::openFile(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return path + ": " + file.errorString();
    // One byte more than the limit is enough to know a file is too large.
    const QByteArray bytes = file.read(qint64(kMaxLessonBytes) + 1);
    const LessonParse parse = parseLesson(
        std::string_view(bytes.constData(), std::size_t(bytes.size())), path.toStdString());
    if (!parse)
        return QString::fromStdString(lessonErrorText(path.toStdString(), parse.error));
    setLesson(*parse.lesson);
    return {};
}

QString LessonPanel::openBuiltIn(const QString& name) {
    const std::optional<LessonParse> found = findBuiltInLesson(name.toStdString());
    if (!found) {
        QStringList names;
        for (const BuiltInLesson& builtIn : builtInLessons())
            if (const LessonParse parse = parseLesson(builtIn.text, "built-in"))
                names << QString::fromStdString(parse.lesson->name);
        return tr("no built-in lesson '%1' and no such file (built in: %2)")
            .arg(name, names.isEmpty() ? tr("none") : names.join(", "));
    }
    if (!*found)
        return QString::fromStdString(
            lessonErrorText("built-in lessons/" + name.toStdString(), found->error));
    setLesson(*found->lesson);
    return {};
}

QString LessonPanel::openNameOrFile(const QString& argument) {
    if (QFileInfo(argument).isFile())
        return openFile(argument);
    return openBuiltIn(argument);
}

void LessonPanel::setLesson(Lesson lesson) {
    lesson_ = std::move(lesson);
    title_->setText(QString::fromStdString(lesson_->title));
    summary_->setText(QString::fromStdString(lesson_->summary));
    summary_->setVisible(!lesson_->summary.empty());
    {
        const QSignalBlocker blocker(steps_);
        steps_->clear();
        for (std::size_t i = 0; i < lesson_->steps.size(); ++i)
            steps_->addItem(
                QString("%1. %2").arg(i + 1).arg(QString::fromStdString(lesson_->steps[i].title)));
    }
    if (isHidden()) {
        show();
        window_.resizeDocks({this}, {openingWidth()}, Qt::Horizontal);
        // The explorer's columns were fitted to the width it had before the dock: once the
        // dock has taken its width (the next turn of the event loop), fit them to what is left.
        QTimer::singleShot(0, &window_, [window = &window_] { window->tableFitter()->fit(); });
    }
    showStep(0);
}

bool LessonPanel::showStep(std::size_t index) {
    if (!lesson_ || index >= lesson_->steps.size())
        return false;
    step_ = index;
    {
        const QSignalBlocker blocker(steps_);
        steps_->setCurrentIndex(static_cast<int>(index));
    }
    stepLabel_->setText(tr("Step %1 of %2").arg(index + 1).arg(lesson_->steps.size()));
    setLessonMarkdown(*prose_->document(), stepMarkdown(*lesson_, index), prose_->palette());
    // The new text pushed the view's cursor to its end, where the view would scroll at its next
    // resize (a window manager's first placing): the step opens at its heading.
    prose_->moveCursor(QTextCursor::Start);
    settleScrollBar(*prose_);
    previous_->setEnabled(index > 0);
    next_->setEnabled(index + 1 < lesson_->steps.size());
    problems_ = runner_.applyStep(*lesson_, index);
    showProblems();
    // The page lays its results out when its work ends: read what is on screen once that
    // layout is done.
    hidden_.clear();
    hiddenLabel_->hide();
    auto checkLaidOut = [this] { QTimer::singleShot(0, this, &LessonPanel::checkShown); };
    if (Page* page = window_.hostedPage(window_.currentPage()); page && page->busy())
        connect(page, &Page::idle, this, checkLaidOut, Qt::SingleShotConnection);
    else
        checkLaidOut();
    emit stepShown(static_cast<int>(index));
    return true;
}

int LessonPanel::readableWidth() const {
    // The prose's line, plus what surrounds it: the document's margins, the scroll bar, the
    // layout's margins and the dock's frame.
    const QFontMetrics metrics(prose_->font());
    const int line = metrics.averageCharWidth() * kReadableCharacters;
    const QMargins layout = widget()->layout()->contentsMargins();
    const int around = 2 * int(prose_->document()->documentMargin()) + 2 * prose_->frameWidth() +
                       style()->pixelMetric(QStyle::PM_ScrollBarExtent) + layout.left() +
                       layout.right() + 2 * style()->pixelMetric(QStyle::PM_DockWidgetFrameWidth);
    return line + around;
}

int LessonPanel::openingWidth() const {
    // The pages keep the width they need (the explorer's controls and columns whole), so a
    // small window opens a narrower dock; dragging it wider makes the pages scroll sideways.
    int pagesNeed = 0;
    if (const auto* pages = qobject_cast<const QScrollArea*>(window_.centralWidget()))
        if (pages->widget())
            pagesNeed = pages->widget()->minimumSizeHint().width();
    const int width = std::min({readableWidth(), int(window_.width() * kOpeningShare),
                                window_.width() - pagesNeed - kSeparator});
    return std::max(minimumSizeHint().width(), width);
}

void LessonPanel::resetStep() {
    if (lesson_)
        showStep(step_);
}

void LessonPanel::showProblems() {
    problemsLabel_->setVisible(!problems_.isEmpty());
    problemsLabel_->setText("⚠ " + problems_.join("\n⚠ "));
}

void LessonPanel::checkShown() {
    // Put away (slide mode shows the step instead), the panel still brings what the step names
    // into view once the page is laid out; only its notice waits for the panel.
    if (!lesson_ || !window_.isVisible())
        return;
    // Read the window as it will stay, not half laid out: the widgets' pending layouts, then
    // each plot's own layout, which QCustomPlot makes only as it draws, until neither moves a
    // plot. A plot's layout can ask the page for another (its least height grows, a form folds
    // away), and a new axis is measured right only once it has been drawn
    // (common/plot_legibility).
    const QWidget* page = window_.hostedPage(window_.currentPage());
    const QList<QCustomPlot*> plots =
        page ? page->findChildren<QCustomPlot*>() : QList<QCustomPlot*>();
    auto plotsPlaced = [&] {
        QList<QRect> placed;
        for (const QCustomPlot* plot : plots)
            if (plot->isVisible())
                placed << QRect(plot->mapTo(&window_, QPoint()), plot->size());
        return placed;
    };
    // Twice at least: the second draw is the one that measures a new axis right.
    for (int round = 0; round < 4; ++round) {
        const QList<QRect> before = plotsPlaced();
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        for (QCustomPlot* plot : plots)
            if (plot->isVisible())
                plot->replot();
        QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
        if (round > 0 && plotsPlaced() == before)
            break;
    }
    runner_.bringIntoViewAgain(*lesson_, step_);
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    if (!isVisible())
        return;
    hidden_ = runner_.hiddenTargets(*lesson_, step_);
    hiddenLabel_->setVisible(!hidden_.isEmpty());
    hiddenLabel_->setText(tr("Not on screen whole at this window size and zoom:") + "\n• " +
                          hidden_.join("\n• "));
    // The prose's room as the step leaves it, the notice included.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    settleScrollBar(*prose_);
}

void LessonPanel::next() {
    if (lesson_ && step_ + 1 < lesson_->steps.size())
        showStep(step_ + 1);
}

void LessonPanel::previous() {
    if (lesson_ && step_ > 0)
        showStep(step_ - 1);
}

void LessonPanel::openFileDialog() {
    const QString path = QFileDialog::getOpenFileName(&window_, tr("Open lesson"), QString(),
                                                      tr("Lessons (*.md);;All files (*)"));
    if (path.isEmpty())
        return;
    if (const QString error = openFile(path); !error.isEmpty())
        QMessageBox::warning(&window_, tr("Lesson"), error);
}

LessonPanel* installLessons(MainWindow& window) {
    auto* panel = new LessonPanel(window);
    // The pages scroll sideways rather than hold the dock to a narrow column.
    window.setCentralWidget(new PagesScroller(window.takeCentralWidget(), &window));
    window.addDockWidget(Qt::RightDockWidgetArea, panel);
    panel->hide();
    // File → Open lesson…, before the File menu's last separator (Quit).
    for (QAction* action : window.menuBar()->actions()) {
        QMenu* menu = action->menu();
        if (!menu || QString(menu->title()).remove('&') != "File")
            continue;
        QAction* before = nullptr;
        for (QAction* item : menu->actions())
            if (item->isSeparator())
                before = item;
        auto* open = new QAction(LessonPanel::tr("Open &lesson…"), menu);
        QObject::connect(open, &QAction::triggered, panel, &LessonPanel::openFileDialog);
        menu->insertAction(before, open);
    }
    // The Lessons menu, before Help.
    QAction* help = nullptr;
    for (QAction* action : window.menuBar()->actions())
        if (action->menu() && QString(action->menu()->title()).remove('&') == "Help")
            help = action;
    window.menuBar()->insertMenu(help, panel->lessonsMenu());
    window.addActions({panel->nextAction(), panel->previousAction(), panel->resetAction()});
    // Slide mode (F6): the lesson one step per screen; in this menu and the View menu.
    auto* slides = new SlideMode(window, *panel);
    panel->lessonsMenu()->insertAction(panel->toggleViewAction(), slides->action());
    return panel;
}

} // namespace fpx::gui
