// SPDX-License-Identifier: GPL-3.0-or-later
// The explorer computes slow inputs off the GUI thread, offscreen: the window keeps handling
// events while they are computed, says so, and shows the newest input, never a superseded one.
#include "explorer_table.h"
#include "gui_waits.h"
#include "pages/explorer/detail_panel.h"
#include "pages/explorer/explorer_history.h"
#include "pages/explorer/explorer_job.h"
#include "pages/explorer/format_table_model.h"
#include "shell/main_window.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/value_parser.h"

#include <QAction>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>
#include <QThread>
#include <QTimer>
#include <QUndoStack>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <utility>

using namespace fpx;
using namespace fpx::gui;
using fpx::test::rowOf;

namespace {

// Accepted by the parser, but a fraction of two 100000-bit integers, about 0.2: inside every
// format's range, so every row rounds it and measures its errors exactly.
const QString kSlowText = QStringLiteral("3^66500/7^37545");
// The job of the slow text must take far longer than the controller's short wait and the
// window's delay before it says "computing", or these tests would pass without any worker; and
// longer than the gap between timer ticks typingStaysResponsive allows (250 ms, room for a
// loaded machine's scheduling), so that an event loop blocked for the whole job fails it.
constexpr qint64 kSlowEnoughMs = 400;

// The default formats `copies` times over: many rows make the slow text slow on a fast machine
// too.
std::vector<FormatSpec> slowFormats(int copies) {
    std::vector<FormatSpec> formats;
    for (int copy = 0; copy < copies; ++copy)
        for (FormatSpec& spec : defaultExplorerFormats())
            formats.push_back(std::move(spec));
    return formats;
}

QString hexOf(const MainWindow& window, const QString& id) {
    return window.model()->fullText(rowOf(window.model(), id), FormatTableModel::Hex);
}

// Holds the jobs of a stand-in job function until the test opens it; opens by itself after
// kBackstopMs, so that a test failing meanwhile does not hang on its jobs.
struct Gate {
    static constexpr int kBackstopMs = 10000;
    void open() {
        {
            const std::lock_guard lock(mutex_);
            open_ = true;
        }
        opened_.notify_all();
    }
    void wait() {
        std::unique_lock lock(mutex_);
        opened_.wait_for(lock, std::chrono::milliseconds(kBackstopMs), [this] { return open_; });
    }

  private:
    std::mutex mutex_;
    std::condition_variable opened_;
    bool open_ = false;
};

void typeValue(MainWindow& window, const QString& text) {
    QLineEdit* edit = window.valueEdit();
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Backspace);
    QTest::keyClicks(edit, text);
}

// The longest time between two ticks of a 10 ms timer that both came while the controller was
// computing, until it no longer is (woken by computingChanged, not by polling). Showing the
// result, once it is there, is not counted: that is the GUI's own work, done once per result,
// not per keystroke.
qint64 longestTickGap(ExplorerController& controller, int timeoutMs) {
    const std::function<bool()> busy = [&] { return controller.computing(); };
    QElapsedTimer clock;
    clock.start();
    qint64 last = 0;
    qint64 longest = 0;
    QTimer ticker;
    ticker.setInterval(10);
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        const qint64 now = clock.elapsed();
        if (busy())
            longest = std::max(longest, now - last);
        last = now;
    });
    ticker.start();
    fpx::test::waitWhileBusy(&controller, &ExplorerController::computingChanged, busy, timeoutMs);
    return longest;
}

// A window with `formats` and `value`, shown, nothing to undo. Its controller does not wait
// for its worker: every text and large value is computed asynchronously, however fast this
// machine.
void prepare(MainWindow& window, std::vector<FormatSpec> formats, const QString& value) {
    window.controller()->setSynchronousWait(std::chrono::milliseconds(0));
    window.controller()->setFormats(std::move(formats));
    window.controller()->setInputText(value);
    window.controller()->waitForIdle();
    window.history()->clear();
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    window.valueEdit()->setFocus();
}

} // namespace

class TestExplorerResponsive : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase();
    void typingStaysResponsive();
    void olderErrorGoesWhileComputing();
    void greyedBitCellsArePale();
    void noticeFollowsTheText();
    void waitWithADeadline();
    void staleRowsAreFreedOnTheWorker();
    void newestInputWins();
    void slowErrorComesLater();
    void undoAndBackOverASlowValue();
    void undoAndBackWhileComputing();
    void focusMovedWhileComputingStays();
    void failedJobIsShown();
    void codeOfAnOldFormatListIsIgnored();

  private:
    // Long enough for every superseded job still running to finish.
    int staleJobsDoneMs() const { return static_cast<int>(3 * slowJobMs_) + 1000; }
    // Long enough for the newest job and the two it may wait behind; a job lost on the way
    // fails the test instead of hanging it.
    bool waitUntilIdle(ExplorerController* controller) const {
        return controller->waitForIdle(std::chrono::milliseconds(staleJobsDoneMs() + 10000));
    }
    // Until every job, the superseded ones too, has finished and been dropped: what a stale
    // job would show is then known, by an event rather than a sleep long enough for it.
    bool waitForStaleJobs(ExplorerController* controller) const {
        if (!controller->jobsInFlight())
            return true;
        QSignalSpy drained(controller, &ExplorerController::jobsDrained);
        return drained.wait(staleJobsDoneMs() + 10000) || !controller->jobsInFlight();
    }

    // How many copies of the default formats make the slow text slow enough here.
    int copies_ = 32;
    qint64 slowJobMs_ = 2000;
};

// How slow the slow text is here, with more formats on a fast machine: every test below needs
// it slower than the waits it tests.
void TestExplorerResponsive::initTestCase() {
    ExplorerJob job;
    job.text = kSlowText;
    job.parseText = true;
    for (;;) {
        job.formats = slowFormats(copies_);
        QElapsedTimer clock;
        clock.start();
        const ExplorerJobResult result = runExplorerJob(job);
        slowJobMs_ = clock.elapsed();
        qInfo("%s: %lld ms for parsing and %zu rows", qPrintable(kSlowText), slowJobMs_,
              job.formats.size());
        QVERIFY(result.parseError.isEmpty());
        QVERIFY(result.rows != nullptr);
        if (slowJobMs_ >= kSlowEnoughMs || copies_ >= 1024)
            break;
        copies_ *= 2; // a fast machine
    }
    QVERIFY2(slowJobMs_ >= kSlowEnoughMs, "the slow input is too fast to test the worker");
}

void TestExplorerResponsive::typingStaysResponsive() {
    MainWindow window;
    prepare(window, slowFormats(copies_), "0.3952");
    ExplorerController* controller = window.controller();
    auto* notice = window.findChild<QLabel*>("computingLabel");
    QVERIFY(notice);
    QStringList fp64Shown; // fp64's code every time the rows changed
    connect(controller, &ExplorerController::rowsChanged, this,
            [&] { fp64Shown << hexOf(window, "fp64"); });

    typeValue(window, kSlowText);
    QVERIFY(controller->computing());
    QCOMPARE(controller->inputText(), kSlowText);
    // Until it is done the rows are an older value's, and the window says so once it is clear
    // that it takes a while.
    const QString fp64Before = hexOf(window, "fp64");
    QTRY_VERIFY_WITH_TIMEOUT(notice->isVisible() || !controller->computing(), 5000);
    QVERIFY2(controller->computing(), "done before the notice: the slow input is too fast");
    QVERIFY(notice->text().contains(kSlowText));
    QVERIFY(!window.table()->isEnabled());
    const qint64 gap = longestTickGap(*controller, 60000);
    qInfo("longest gap between 10 ms ticks while computing: %lld ms", gap);
    QVERIFY(!controller->computing());
    // A ratio, not a time: computed on the GUI thread, the job would stall the loop for about
    // all of its slowJobMs_; on the worker the loop turns many times within it.
    QVERIFY2(
        gap * 2 < slowJobMs_,
        qPrintable(
            QString("the event loop stalled for %1 ms of a %2 ms job").arg(gap).arg(slowJobMs_)));
    QVERIFY(!notice->isVisible());
    QVERIFY(window.table()->isEnabled());
    const QString fp64Slow = hexOf(window, "fp64");
    QVERIFY(fp64Slow != fp64Before);
    QCOMPARE(fp64Shown.last(), fp64Slow);

    // The slow value again, then at once a fast one: the fast one is what stays.
    typeValue(window, "1");
    QVERIFY(waitUntilIdle(controller));
    typeValue(window, kSlowText);
    QVERIFY(controller->computing());
    typeValue(window, "1.5");
    QTRY_VERIFY_WITH_TIMEOUT(!controller->computing(), 60000);
    QCOMPARE(hexOf(window, "fp64"), QString("0x3ff8000000000000"));
    // However long the slow jobs still run, their rows never come.
    fp64Shown.clear();
    QVERIFY(waitForStaleJobs(controller));
    QVERIFY(fp64Shown.isEmpty());
    QCOMPARE(hexOf(window, "fp64"), QString("0x3ff8000000000000"));
}

void TestExplorerResponsive::newestInputWins() {
    ExplorerController controller;
    controller.setSynchronousWait(std::chrono::milliseconds(0));
    controller.setFormats(slowFormats(copies_));
    QSignalSpy rows(&controller, &ExplorerController::rowsChanged);
    QSignalSpy computing(&controller, &ExplorerController::computingChanged);
    controller.setInputText(kSlowText);
    QVERIFY(controller.computing());
    QCOMPARE(computing.count(), 1);
    // The slow job runs; the next one starts beside it and finishes first.
    controller.setInputText("0.3952");
    QVERIFY(waitUntilIdle(&controller));
    QVERIFY(!controller.computing());
    QCOMPARE(rows.count(), 1);
    QCOMPARE(QString::fromStdString(controller.rows()[4].spec.id), QString("fp16"));
    QVERIFY(controller.rows()[4].report.conversion.code == Code(0x3653));
    QVERIFY(controller.inputValue().isIdenticalTo(*parseValue("0.3952").value));
    // The slow job's result, when it comes, is dropped.
    QVERIFY(waitForStaleJobs(&controller));
    QCOMPARE(rows.count(), 1);
    QVERIFY(controller.rows()[4].report.conversion.code == Code(0x3653));

    // A change that is not typing supersedes a text being parsed too.
    controller.setInputText(kSlowText);
    QVERIFY(controller.computing());
    controller.setInputFromCode(4, 0x3c00); // fp16's 1: small, computed at once
    QVERIFY(!controller.computing());
    QCOMPARE(controller.inputText(), QString("1"));
    QVERIFY(waitForStaleJobs(&controller));
    QCOMPARE(controller.inputText(), QString("1"));
    QVERIFY(controller.rows()[0].report.conversion.code == Code(0x3ff0000000000000));
}

void TestExplorerResponsive::slowErrorComesLater() {
    ExplorerController controller;
    controller.setSynchronousWait(std::chrono::milliseconds(0));
    QSignalSpy errors(&controller, &ExplorerController::inputErrorChanged);
    QSignalSpy rows(&controller, &ExplorerController::rowsChanged);
    // Refused only once the slow quotient is worked out: on the worker.
    controller.setInputText(kSlowText + "/0");
    QVERIFY(controller.computing());
    QCOMPARE(errors.count(), 0);
    QVERIFY(waitUntilIdle(&controller));
    QVERIFY2(controller.inputError().contains("zero"), qPrintable(controller.inputError()));
    QCOMPARE(errors.count(), 1);
    // The rows keep the last good value.
    QCOMPARE(rows.count(), 0);
    QVERIFY(controller.rows()[4].report.conversion.code == Code(0x3653));
}

void TestExplorerResponsive::olderErrorGoesWhileComputing() {
    MainWindow window;
    prepare(window, slowFormats(copies_), "1");
    ExplorerController* controller = window.controller();
    auto* error = window.findChild<QLabel*>("inputError");
    QVERIFY(error);
    // The prefix typed on the way to the slow value does not parse.
    controller->setInputText("3^66500/7^");
    QVERIFY(waitUntilIdle(controller));
    QVERIFY(!controller->inputError().isEmpty());
    QVERIFY(error->isVisible());
    // Its message is not the slow value's: gone while that is computed.
    controller->setInputText(kSlowText);
    QVERIFY(controller->computing());
    QVERIFY(controller->inputError().isEmpty());
    QVERIFY(!error->isVisible());
    QVERIFY(waitUntilIdle(controller));
    QVERIFY(controller->inputError().isEmpty());
    // A slow text with an error of its own says so when it is known.
    controller->setInputText(kSlowText + "/0");
    QVERIFY(controller->computing());
    QVERIFY(!error->isVisible());
    QVERIFY(waitUntilIdle(controller));
    QVERIFY(controller->inputError().contains("zero"));
    QVERIFY(error->isVisible());
}

// The field colours are the loudest thing on the screen: greyed, they must pale with the text.
void TestExplorerResponsive::greyedBitCellsArePale() {
    BitStrip strip;
    const FormatSpec fp16 = *findFormat("fp16").spec;
    strip.setRow(fp16, decodeCode(fp16, 0xbc01)); // every field has set bits
    strip.resize(strip.sizeHint());
    const auto mostColourful = [&] {
        const QImage image = strip.grab().toImage();
        int most = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x) {
                const QColor c = image.pixelColor(x, y); // chroma: how far from a grey
                most = std::max(most, std::max({c.red(), c.green(), c.blue()}) -
                                          std::min({c.red(), c.green(), c.blue()}));
            }
        return most;
    };
    const int enabled = mostColourful();
    strip.setEnabled(false);
    const int disabled = mostColourful();
    QVERIFY2(enabled > 100, qPrintable(QString::number(enabled)));
    QVERIFY2(disabled < enabled * 6 / 10,
             qPrintable(QString("%1 greyed, %2 not").arg(disabled).arg(enabled)));
}

void TestExplorerResponsive::noticeFollowsTheText() {
    MainWindow window;
    prepare(window, slowFormats(copies_), "1");
    ExplorerController* controller = window.controller();
    auto* notice = window.findChild<QLabel*>("computingLabel");
    QVERIFY(notice);
    controller->setInputText(kSlowText);
    QTRY_VERIFY_WITH_TIMEOUT(notice->isVisible() || !controller->computing(), 5000);
    QVERIFY2(controller->computing(), "done before the notice: the slow input is too fast");
    QVERIFY(notice->text().contains(kSlowText));
    // The table's copies would be the previous value's rows under the new value's name.
    auto* copyJson = window.findChild<QAction*>("copyTableJson");
    QVERIFY(copyJson);
    QVERIFY(!copyJson->isEnabled());
    // Stepping from them too: the step would start from the previous value.
    QAction* step = nullptr;
    for (QAction* action : window.findChildren<QAction*>())
        if (action->text() == "&Next value")
            step = action;
    QVERIFY(step);
    QVERIFY(!step->isEnabled());
    // Another slow value while the first is computed: the notice names the newest at once.
    const QString next = QStringLiteral("3^66499/7^37545");
    controller->setInputText(next);
    QVERIFY(controller->computing());
    QVERIFY(notice->isVisible());
    QVERIFY2(notice->text().contains(next), qPrintable(notice->text()));
    QVERIFY(waitUntilIdle(controller));
    QVERIFY(controller->inputError().isEmpty());
    QVERIFY(!notice->isVisible());
    QVERIFY(copyJson->isEnabled());
    QVERIFY(step->isEnabled());
    QCOMPARE(window.valueEdit()->text(), next);
    QVERIFY(controller->inputValue().isIdenticalTo(*parseValue(next.toStdString()).value));
}

void TestExplorerResponsive::waitWithADeadline() {
    // Jobs held at a gate: how long they take is up to the test, not to this machine.
    Gate gate;
    ExplorerController controller;
    controller.setSynchronousWait(std::chrono::milliseconds(0));
    controller.setJobFunction([&gate](const ExplorerJob& job) {
        gate.wait();
        return runExplorerJob(job);
    });
    // Three values at once: two run, the newest waits behind them. Neither the setters'
    // short waits nor a short deadline wait for the gate.
    QElapsedTimer clock;
    clock.start();
    controller.setInputText("1");
    controller.setInputText("2");
    controller.setInputText("3");
    QVERIFY(controller.computing());
    QVERIFY(!controller.waitForIdle(std::chrono::milliseconds(10)));
    QVERIFY2(clock.elapsed() < Gate::kBackstopMs / 2, "a short deadline was not kept");
    QVERIFY(controller.computing());
    // A deadline long enough sees it through, the wait behind the older job included.
    gate.open();
    QVERIFY(waitUntilIdle(&controller));
    QVERIFY(!controller.computing());
    QCOMPARE(controller.inputText(), QString("3"));
    QVERIFY(controller.inputError().isEmpty());
    QVERIFY(controller.inputValue().isIdenticalTo(*parseValue("3").value));
    QVERIFY(controller.rows()[0].report.conversion.code == Code(0x4008000000000000));
    // Nothing to wait for: at once.
    QVERIFY(controller.waitForIdle(std::chrono::milliseconds(0)));
}

void TestExplorerResponsive::staleRowsAreFreedOnTheWorker() {
    // The real job, then its rows handed over in a vector that notes the thread it dies on.
    QThread* const guiThread = QThread::currentThread();
    std::mutex mutex;
    std::vector<std::pair<QString, QThread*>> freed; // (input text, thread)
    ExplorerController controller;
    controller.setSynchronousWait(std::chrono::milliseconds(0));
    Gate gate;
    controller.setJobFunction([&](const ExplorerJob& job) {
        if (job.text == "1")
            gate.wait(); // still running when superseded
        ExplorerJobResult result = runExplorerJob(job);
        if (result.rows) {
            const QString text = job.text;
            result.rows = std::shared_ptr<const std::vector<ExplorerRow>>(
                new std::vector<ExplorerRow>(*result.rows),
                [&mutex, &freed, text](const std::vector<ExplorerRow>* rows) {
                    const std::lock_guard lock(mutex);
                    freed.emplace_back(text, QThread::currentThread());
                    delete rows;
                });
        }
        return result;
    });
    controller.setInputText("1");
    QVERIFY(controller.computing());
    controller.setInputText("2");
    gate.open();
    QVERIFY(waitUntilIdle(&controller));
    QCOMPARE(controller.inputText(), QString("2"));
    const auto freedCount = [&] {
        const std::lock_guard lock(mutex);
        return freed.size();
    };
    QTRY_COMPARE_WITH_TIMEOUT(freedCount(), std::size_t(1), staleJobsDoneMs());
    {
        const std::lock_guard lock(mutex);
        QCOMPARE(freed[0].first, QString("1"));
        QVERIFY2(freed[0].second != guiThread, "a superseded job's rows were freed on the GUI "
                                               "thread");
    }
    // The rows shown are freed when the next ones replace them, on the GUI thread.
    controller.setInputText("3");
    QVERIFY(waitUntilIdle(&controller));
    QCOMPARE(freedCount(), std::size_t(2));
    {
        const std::lock_guard lock(mutex);
        QCOMPARE(freed[1].first, QString("2"));
        QCOMPARE(freed[1].second, guiThread);
    }
}

void TestExplorerResponsive::undoAndBackOverASlowValue() {
    MainWindow window;
    prepare(window, slowFormats(copies_), "1");
    ExplorerController* controller = window.controller();
    ExplorerHistory* history = window.history();
    typeValue(window, kSlowText);
    QTest::keyClick(window.valueEdit(), Qt::Key_Return); // before the value is there
    QVERIFY(waitUntilIdle(controller));
    const QString fp64Slow = hexOf(window, "fp64");
    typeValue(window, "2");
    QVERIFY(waitUntilIdle(controller));
    // The slow value is its own step although it came after Enter ended its edit.
    QCOMPARE(history->undoStack()->count(), 2);
    QCOMPARE(history->trailTexts(), QStringList({"1", kSlowText, "2"}));

    // Back to the slow value: one step named after the move, the trail unchanged.
    history->backAction()->trigger();
    QVERIFY(controller->computing());
    QCOMPARE(history->undoAction()->text(), QString("&Undo back to %1").arg(kSlowText));
    QVERIFY(waitUntilIdle(controller));
    QCOMPARE(hexOf(window, "fp64"), fp64Slow);
    QCOMPARE(history->undoStack()->count(), 3);
    QCOMPARE(history->trailTexts(), QStringList({"1", kSlowText, "2"}));
    QCOMPARE(history->trailIndex(), 1);
    history->forwardAction()->trigger();
    QVERIFY(waitUntilIdle(controller));
    QCOMPARE(window.valueEdit()->text(), QString("2"));
    QCOMPARE(history->trailIndex(), 2);
    QCOMPARE(history->undoStack()->count(), 4);

    // Undo to the slow value: computed on the worker, and no step of its own.
    history->undoAction()->trigger();
    QVERIFY(controller->computing());
    QVERIFY(waitUntilIdle(controller));
    QCOMPARE(window.valueEdit()->text(), kSlowText);
    QCOMPARE(hexOf(window, "fp64"), fp64Slow);
    QCOMPARE(history->undoStack()->count(), 4);
    QCOMPARE(history->undoStack()->index(), 3);
    QCOMPARE(history->redoAction()->text(), QString("&Redo forward to 2"));
    history->redoAction()->trigger();
    QVERIFY(waitUntilIdle(controller));
    QCOMPARE(window.valueEdit()->text(), QString("2"));
    QCOMPARE(history->undoStack()->index(), 4);

    // A bit flipped in the slow value's rows, once they came, is named after that bit. The
    // table, greyed meanwhile, has the keyboard again.
    window.table()->setFocus();
    QTRY_VERIFY(window.table()->hasFocus());
    history->undoAction()->trigger();
    QVERIFY(controller->computing());
    QTRY_VERIFY_WITH_TIMEOUT(!window.table()->isEnabled() || !controller->computing(), 5000);
    QVERIFY(waitUntilIdle(controller));
    QVERIFY(window.table()->isEnabled());
    QTRY_VERIFY(window.table()->hasFocus());
    window.model()->toggleBit(rowOf(window.model(), "fp16"), 0);
    QCOMPARE(history->undoAction()->text(), QString("&Undo flip bit 0 of fp16"));
}

void TestExplorerResponsive::undoAndBackWhileComputing() {
    MainWindow window;
    prepare(window, slowFormats(copies_), "0.3952");
    ExplorerController* controller = window.controller();
    ExplorerHistory* history = window.history();
    typeValue(window, "1");
    QTest::keyClick(window.valueEdit(), Qt::Key_Return); // the next text is another edit
    QVERIFY(waitUntilIdle(controller));
    QCOMPARE(history->trailTexts(), QStringList({"0.3952", "1"}));

    // Back pressed before the new value's rows came: the value is recorded first, and Back
    // goes to the value before it, not to the one before that. Set whole, not typed: a prefix
    // typed before it (3^6) may arrive first and be recorded, hiding the lost value.
    controller->setInputText(kSlowText);
    QVERIFY(controller->computing());
    history->backAction()->trigger();
    QVERIFY(waitUntilIdle(controller));
    QCOMPARE(history->trailTexts(), QStringList({"0.3952", "1", kSlowText}));
    QCOMPARE(window.valueEdit()->text(), QString("1"));
    QCOMPARE(history->trailIndex(), 1);
    history->forwardAction()->trigger();
    QVERIFY(waitUntilIdle(controller));
    QCOMPARE(window.valueEdit()->text(), kSlowText);

    // Undo pressed likewise undoes the typed value itself, and Redo brings it back.
    typeValue(window, "1");
    QTest::keyClick(window.valueEdit(), Qt::Key_Return);
    QVERIFY(waitUntilIdle(controller));
    controller->setInputText(kSlowText);
    QVERIFY(controller->computing());
    const int steps = history->undoStack()->count();
    history->undoAction()->trigger();
    QVERIFY(waitUntilIdle(controller));
    QCOMPARE(history->undoStack()->count(), steps + 1);
    QCOMPARE(window.valueEdit()->text(), QString("1"));
    history->redoAction()->trigger();
    QVERIFY(waitUntilIdle(controller));
    QCOMPARE(window.valueEdit()->text(), kSlowText);
}

void TestExplorerResponsive::focusMovedWhileComputingStays() {
    MainWindow window;
    prepare(window, slowFormats(copies_), "1");
    ExplorerController* controller = window.controller();
    window.table()->setFocus();
    QTRY_VERIFY(window.table()->hasFocus());
    controller->setInputText(kSlowText);
    QVERIFY(controller->computing());
    QTRY_VERIFY_WITH_TIMEOUT(!window.table()->isEnabled() || !controller->computing(), 5000);
    QVERIFY2(controller->computing(), "done before the table was greyed: too fast to test");
    // The learner clicks into the value field while the rows are computed: it keeps the
    // keyboard when they come.
    window.valueEdit()->setFocus();
    QTRY_VERIFY(window.valueEdit()->hasFocus());
    QVERIFY(waitUntilIdle(controller));
    QVERIFY(window.table()->isEnabled());
    QCoreApplication::processEvents(); // a focus change would be a posted event: none came
    QVERIFY(window.valueEdit()->hasFocus());
    QVERIFY(!window.table()->hasFocus());
}

void TestExplorerResponsive::failedJobIsShown() {
    MainWindow window;
    prepare(window, defaultExplorerFormats(), "1");
    ExplorerController* controller = window.controller();
    const QString fp64One = hexOf(window, "fp64");
    controller->setJobFunction(
        [](const ExplorerJob&) -> ExplorerJobResult { throw std::bad_alloc(); });
    auto* error = window.findChild<QLabel*>("inputError");
    QVERIFY(error);

    // On the worker: the window is told, like a parse error, and waits no longer.
    controller->setInputText("2");
    QTRY_VERIFY2_WITH_TIMEOUT(!controller->computing(), "a failed job never finished", 10000);
    QVERIFY2(controller->inputError().contains("bad_alloc"), qPrintable(controller->inputError()));
    QVERIFY(error->isVisible());
    QVERIFY(error->text().contains("bad_alloc"));
    QCOMPARE(hexOf(window, "fp64"), fp64One); // the rows keep what they showed
    // Computed here (a small value), the same.
    controller->setInputFromCode(rowOf(window.model(), "fp16"), 0x4000);
    QVERIFY(!controller->computing());
    QVERIFY(controller->inputError().contains("bad_alloc"));
    QCOMPARE(hexOf(window, "fp64"), fp64One);

    // The next job that succeeds shows its rows and no error.
    controller->setJobFunction(runExplorerJob);
    controller->setRoundingMode(RoundingMode::TowardZero);
    QTRY_VERIFY_WITH_TIMEOUT(!controller->computing(), 10000);
    QVERIFY(controller->inputError().isEmpty());
    QVERIFY(!error->isVisible());
    QCOMPARE(hexOf(window, "fp64"), QString("0x4000000000000000"));
}

void TestExplorerResponsive::codeOfAnOldFormatListIsIgnored() {
    ExplorerController controller;
    controller.setSynchronousWait(std::chrono::milliseconds(0));
    controller.setFormats(slowFormats(copies_));
    controller.setInputText(kSlowText);
    QVERIFY(waitUntilIdle(&controller));
    QCOMPARE(QString::fromStdString(controller.rows()[0].spec.id), QString("fp64"));
    // fp16 first now; the rows still show fp64 there while the new list is computed.
    std::vector<FormatSpec> formats = slowFormats(copies_);
    std::swap(formats[0], formats[4]);
    controller.setFormats(formats);
    QVERIFY(controller.computing());
    // A code read from the rows shown (fp64's 1) is not read as fp16's.
    const QString before = controller.inputText();
    controller.setInputFromCode(0, Code(0x3ff0000000000000));
    QCOMPARE(controller.inputText(), before);
    QVERIFY(!controller.input().pinnedCode);
    QVERIFY(waitUntilIdle(&controller));
    QCOMPARE(QString::fromStdString(controller.rows()[0].spec.id), QString("fp16"));
    controller.setInputFromCode(0, Code(0x3c00)); // fp16's 1, the rows being fp16's now
    QCOMPARE(controller.inputText(), QString("1"));
}

QTEST_MAIN(TestExplorerResponsive)
#include "tst_explorer_responsive.moc"
