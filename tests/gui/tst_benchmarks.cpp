// SPDX-License-Identifier: GPL-3.0-or-later
// The Benchmarks view with real widgets, offscreen, on the CPU backend with a tiny budget:
// running with the window responsive, cancelling, exporting JSON and CSV, comparing with a
// saved run, bad saved runs, closing the window mid-run; the CPU's sums and quantizers run,
// exported and compared like conversions, a CLI run's loaded, and a run saved without them;
// the class run's few bars, named as a class reads them.
#include "pages/benchmarks/bench_controller.h"
#include "pages/benchmarks/bench_results_model.h"
#include "pages/benchmarks/benchmarks_chart.h"
#include "pages/benchmarks/benchmarks_panel.h"
#include "pages/benchmarks/saved_run.h"
#include "shell/main_window.h"

#include <qcustomplot.h>

#include "fpx/bench/backend.h"
#include "fpx/bench/bench_preset.h"
#include "fpx/bench/ratio_results.h"
#include "fpx/bench/result_io.h"

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSet>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>

#include <cmath>
#include <fstream>
#include <map>

using namespace fpx;
using namespace fpx::gui;

namespace {

// A backend that is never available, to see how the form shows one.
class AbsentBackend : public bench::Backend {
  public:
    std::string id() const override { return "absent"; }
    std::string displayName() const override { return "Absent"; }
    std::string unavailableReason() const override { return "no absent driver (test)"; }
    std::vector<bench::DeviceInfo> devices() const override { return {}; }
    bench::Support support(int, const FormatSpec&, bench::Direction) const override {
        return bench::Support::Unsupported;
    }
    void run(const bench::BenchRequest&, const bench::ResultSink&, const bench::ProgressSink&,
             const std::atomic<bool>*) override {}
};

bench::LoadedBackends cpuOnly() {
    bench::LoadedBackends loaded;
    loaded.backends.push_back(bench::createCpuBackend());
    return loaded;
}

bench::LoadedBackends cpuAndAbsent() {
    bench::LoadedBackends loaded = cpuOnly();
    loaded.backends.push_back(std::make_unique<AbsentBackend>());
    loaded.problems.push_back("opencl: libOpenCL.so.1: cannot open shared object file");
    return loaded;
}

void waitForBackends(BenchmarksPanel& panel) {
    panel.loadBackends();
    QTRY_VERIFY_WITH_TIMEOUT(panel.controller()->backendsLoaded(), 30000);
}

// Two formats, both directions, 4 Ki elements, one thread, 10 ms per measurement.
void tinyRun(BenchmarksPanel& panel) {
    panel.setBackendsChecked({"cpu"});
    panel.setFormats({"fp16", "fp8_e4m3"});
    panel.setDirections(true, true);
    panel.setSizes(false, false, "4k");
    panel.setThreads(true, false);
    panel.setBudget(0.01);
    panel.setArithmetic(false);
}

void runToEnd(BenchmarksPanel& panel) {
    QSignalSpy finished(panel.controller(), &BenchController::finished);
    QVERIFY(panel.runButton()->isEnabled());
    QTest::mouseClick(panel.runButton(), Qt::LeftButton);
    QVERIFY(panel.controller()->isRunning());
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 120000);
    QCOMPARE(finished.first().first().toBool(), false);
}

QSet<QString> columnValues(const BenchResultsModel* model, int column) {
    QSet<QString> values;
    for (int r = 0; r < model->rowCount(); ++r)
        values.insert(model->data(model->index(r, column)).toString());
    return values;
}

} // namespace

class TestBenchmarks : public QObject {
    Q_OBJECT

  private slots:
    void init();
    void formShowsBackends();
    void everyControlHasATooltip();
    void parsesCustomSizes();
    void runStreamsResultsWithoutBlocking();
    void cancelStopsALongRun();
    void exportAndCompare();
    void comparisonAcrossDevices();
    void sumsAndQuantizersRunExportAndCompare();
    void savedSumsAndQuantizersCompare();
    void runSavedWithoutRatiosCompares();
    void badSavedRunsAreReported();
    void formErrorsAreShown();
    void windowPageAndClosingMidRun();
    void classRunShowsAFewReadableBars();

  private:
    QTemporaryDir dir_;
};

void TestBenchmarks::init() {
    QVERIFY(dir_.isValid());
}

void TestBenchmarks::formShowsBackends() {
    BenchmarksPanel panel(nullptr, &cpuAndAbsent);
    QVERIFY(!panel.controller()->backendsLoaded());
    panel.show(); // the first show looks for backends
    QTRY_VERIFY_WITH_TIMEOUT(panel.controller()->backendsLoaded(), 30000);
    QTreeWidget* tree = panel.backendTree();
    QCOMPARE(tree->topLevelItemCount(), 3);
    QTreeWidgetItem* cpu = tree->topLevelItem(0);
    QCOMPARE(cpu->text(0), QString("CPU"));
    QVERIFY(cpu->flags() & Qt::ItemIsEnabled);
    QVERIFY(cpu->childCount() >= 1);
    QCOMPARE(cpu->child(0)->checkState(0), Qt::Checked);
    QVERIFY(!cpu->child(0)->toolTip(0).isEmpty());
    QTreeWidgetItem* absent = tree->topLevelItem(1);
    QVERIFY(!(absent->flags() & Qt::ItemIsEnabled));
    QCOMPARE(absent->toolTip(0), QString("no absent driver (test)"));
    QTreeWidgetItem* opencl = tree->topLevelItem(2);
    QVERIFY(!(opencl->flags() & Qt::ItemIsEnabled));
    QVERIFY(opencl->text(0).contains("OPENCL"));
    QVERIFY(opencl->toolTip(0).contains("libOpenCL.so.1"));
    // The default formats.
    QCOMPARE(panel.checkedFormats(), QStringList({"bf16", "fp16", "fp8_e4m3", "fp8_e5m2",
                                                  "fp6_e3m2", "fp4_e2m1", "int8", "nf4"}));
    // Unavailable backends get no job.
    QString error;
    const auto jobs = panel.jobs(&error);
    QVERIFY2(jobs.has_value(), qPrintable(error));
    QCOMPARE(jobs->size(), std::size_t(1));
    QCOMPARE(jobs->front().backend, 0);
}

void TestBenchmarks::everyControlHasATooltip() {
    BenchmarksPanel panel(nullptr, &cpuOnly);
    waitForBackends(panel);
    QStringList missing;
    const auto controls = panel.findChildren<QWidget*>();
    for (QWidget* w : controls) {
        const bool control =
            qobject_cast<QAbstractButton*>(w) || qobject_cast<QComboBox*>(w) ||
            qobject_cast<QAbstractSpinBox*>(w) ||
            (qobject_cast<QLineEdit*>(w) && !qobject_cast<QComboBox*>(w->parent()) &&
             !qobject_cast<QAbstractSpinBox*>(w->parent()));
        // (Qt's own parts of item views, such as the table's corner button, are not ours.)
        const bool internal = w->objectName().startsWith("qt_") ||
                              QByteArray(w->metaObject()->className()) == "QTableCornerButton";
        if (control && !internal && w->toolTip().isEmpty())
            missing << QStringLiteral("%1 %2").arg(w->metaObject()->className(), w->objectName());
    }
    QVERIFY2(missing.isEmpty(), qPrintable(missing.join(", ")));
}

void TestBenchmarks::parsesCustomSizes() {
    QString error;
    const auto sizes = BenchmarksPanel::parseSizes("4k, 1M,100000 2Ki", &error);
    QVERIFY2(sizes.has_value(), qPrintable(error));
    QCOMPARE(*sizes, (std::vector<std::size_t>{4096, 1 << 20, 100000, 2048}));
    QVERIFY(!BenchmarksPanel::parseSizes("4x", &error));
    QVERIFY(error.contains("4x"));
    QVERIFY(!BenchmarksPanel::parseSizes("0", &error));
    QVERIFY(!BenchmarksPanel::parseSizes("3G", &error)); // more than 2 Gi elements
    QVERIFY(!BenchmarksPanel::parseSizes("", &error));
    // The page and fpx bench read the same text: 2G is the largest size of both.
    const auto largest = BenchmarksPanel::parseSizes("2G", &error);
    QVERIFY2(largest.has_value(), qPrintable(error));
    QCOMPARE(*largest, std::vector<std::size_t>{std::size_t{1} << 31});
    QCOMPARE(BenchResultsModel::elementsText(4096), QString("4 Ki"));
    QCOMPARE(BenchResultsModel::elementsText(1 << 24), QString("16 Mi"));
    QCOMPARE(BenchResultsModel::elementsText(100000), QString("100000"));
}

void TestBenchmarks::runStreamsResultsWithoutBlocking() {
    BenchmarksPanel panel(nullptr, &cpuOnly);
    panel.resize(1400, 900);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    waitForBackends(panel);
    tinyRun(panel);

    // The event loop keeps turning while the benchmark runs: a 10 ms timer never waits long.
    QElapsedTimer clock;
    qint64 last = 0;
    qint64 longestGap = 0;
    int ticks = 0;
    QTimer heartbeat;
    connect(&heartbeat, &QTimer::timeout, this, [&] {
        const qint64 now = clock.elapsed();
        longestGap = std::max(longestGap, now - last);
        last = now;
        ++ticks;
    });
    QSignalSpy added(panel.controller(), &BenchController::resultAdded);
    QSignalSpy progress(panel.controller(), &BenchController::progress);
    clock.start();
    heartbeat.start(10);
    runToEnd(panel);
    heartbeat.stop();
    const qint64 ran = clock.elapsed();
    QVERIFY(ticks > 5);
    // A ratio, not a time: measured on the GUI thread, the run would stall the loop for about
    // all of it; on the worker the loop turns many times within it.
    QVERIFY2(longestGap < std::max<qint64>(500, ran / 3),
             qPrintable(
                 QString("the GUI thread stalled %1 ms of a %2 ms run").arg(longestGap).arg(ran)));
    QVERIFY(progress.count() > 1);
    QCOMPARE(panel.progressBar()->value(), panel.progressBar()->maximum());

    // Rows in the table: copies and both formats, both directions, 4 Ki elements, 1 thread.
    const BenchResultsModel* model = panel.model();
    QVERIFY(model->rowCount() >= 4);
    QCOMPARE(model->rowCount(), added.count());
    QCOMPARE(panel.table()->model()->rowCount(), model->rowCount());
    const QSet<QString> formats = columnValues(model, BenchResultsModel::Format);
    QVERIFY(formats.contains("fp16"));
    QVERIFY(formats.contains("fp8_e4m3"));
    QVERIFY(columnValues(model, BenchResultsModel::Direction).contains("encode"));
    QVERIFY(columnValues(model, BenchResultsModel::Direction).contains("decode"));
    QCOMPARE(columnValues(model, BenchResultsModel::Elements), QSet<QString>{"4 Ki"});
    QCOMPARE(columnValues(model, BenchResultsModel::Threads), QSet<QString>{"1"});
    QVERIFY(columnValues(model, BenchResultsModel::Operation).contains("copy"));
    int conversions = 0;
    for (int r = 0; r < model->rowCount(); ++r) {
        const bench::BenchResult& result = model->result(r);
        QVERIFY(result.throughput() > 0);
        if (result.operation != bench::Operation::Convert)
            continue;
        ++conversions;
        // Every conversion has its ceiling (the copy of its size and threads).
        QVERIFY(model->ceiling(r) > 0);
        QVERIFY(model->data(model->index(r, BenchResultsModel::PercentOfCeiling))
                    .toString()
                    .endsWith("%"));
        QVERIFY(!model->data(model->index(r, BenchResultsModel::Verified)).toString().isEmpty());
    }
    QVERIFY(conversions >= 4);
    // Sorting by throughput orders the view, not the model.
    panel.table()->sortByColumn(BenchResultsModel::Throughput, Qt::DescendingOrder);
    const QAbstractItemModel* view = panel.table()->model();
    for (int r = 1; r < view->rowCount(); ++r)
        QVERIFY(view->index(r - 1, BenchResultsModel::Throughput).data(Qt::UserRole).toDouble() >=
                view->index(r, BenchResultsModel::Throughput).data(Qt::UserRole).toDouble());

    // Bars in the chart: one per copy or conversion, with ceiling ticks and error bars.
    panel.chart()->rebuild();
    QCOMPARE(panel.chart()->barCount(), model->rowCount());
    QCOMPARE(panel.chart()->savedBarCount(), 0);
    QVERIFY(panel.chart()->ceilingCount() >= conversions);
    int bars = 0;
    QCustomPlot* plot = panel.chart()->plot();
    for (int i = 0; i < plot->plottableCount(); ++i)
        if (auto* series = qobject_cast<QCPBars*>(plot->plottable(i)))
            bars += series->dataCount();
    QCOMPARE(bars, model->rowCount());
    QVERIFY(plot->legend->itemCount() >= 3); // fp16, fp8_e4m3, copy, ceiling
    // A click on a bar selects its row in the table.
    plot->replot();
    QSignalSpy clicked(panel.chart(), &BenchmarksChart::resultClicked);
    const int lastRow = model->rowCount() - 1;
    const QPoint bar(plot->axisRect()->rect().left() + 5,
                     static_cast<int>(plot->yAxis->coordToPixel(lastRow)));
    QTest::mouseClick(plot, Qt::LeftButton, {}, bar);
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.first().first().toInt(), lastRow);
    const QModelIndex selected = panel.table()->selectionModel()->currentIndex();
    QVERIFY(selected.isValid());
    auto* proxy = qobject_cast<QSortFilterProxyModel*>(panel.table()->model());
    QVERIFY(proxy);
    QCOMPARE(proxy->mapToSource(selected).row(), lastRow);
    QVERIFY(panel.findChild<QPushButton*>("benchExportJson")->isEnabled());
}

void TestBenchmarks::cancelStopsALongRun() {
    BenchmarksPanel panel(nullptr, &cpuOnly);
    panel.show();
    waitForBackends(panel);
    tinyRun(panel);
    panel.setFormats(
        {"fp16", "bf16", "fp8_e4m3", "fp8_e5m2", "fp6_e3m2", "fp4_e2m1", "int8", "nf4"});
    const double budgetMinutes = 2.0;
    panel.setBudget(budgetMinutes);
    QSignalSpy finished(panel.controller(), &BenchController::finished);
    QSignalSpy added(panel.controller(), &BenchController::resultAdded);
    QTest::mouseClick(panel.runButton(), Qt::LeftButton);
    QVERIFY(panel.controller()->isRunning());
    QVERIFY(!panel.runButton()->isEnabled());
    QVERIFY(panel.cancelButton()->isEnabled());
    QTRY_VERIFY_WITH_TIMEOUT(added.count() >= 1, 30000);
    QElapsedTimer clock;
    clock.start();
    QTest::mouseClick(panel.cancelButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 30000);
    // A fraction of the run's budget: cancelling waits for one measurement, not the run.
    QVERIFY2(clock.elapsed() * 8 < budgetMinutes * 60'000,
             "cancelling waited for more than one measurement");
    QCOMPARE(finished.first().first().toBool(), true);
    QVERIFY(!panel.controller()->isRunning());
    QVERIFY(panel.controller()->wasCancelled());
    QVERIFY(panel.progressBar()->value() < panel.progressBar()->maximum());
    // What was measured stays; far from all of it.
    QVERIFY(panel.model()->rowCount() >= 1);
    QVERIFY(panel.model()->rowCount() < 20);
    QVERIFY(panel.runButton()->isEnabled());
    QVERIFY(!panel.cancelButton()->isEnabled());
}

void TestBenchmarks::exportAndCompare() {
    BenchmarksPanel panel(nullptr, &cpuOnly);
    panel.show();
    waitForBackends(panel);
    tinyRun(panel);
    runToEnd(panel);
    const int rows = panel.model()->rowCount();
    QVERIFY(rows > 0);

    const QString json = dir_.filePath("run.json");
    const QString csv = dir_.filePath("run.csv");
    QVERIFY(panel.exportJson(json));
    QVERIFY(panel.exportCsv(csv));

    QFile jsonFile(json);
    QVERIFY(jsonFile.open(QIODevice::ReadOnly));
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(jsonFile.readAll(), &error);
    QCOMPARE(error.error, QJsonParseError::NoError);
    const QJsonObject root = document.object();
    QCOMPARE(root.value("format").toString(), QString("fpx-bench"));
    QVERIFY(!root.value("build").toString().isEmpty());
    QVERIFY(!root.value("host").toString().isEmpty());
    QVERIFY(!root.value("started_at").toString().isEmpty());
    QCOMPARE(root.value("budget_seconds").toDouble(), 0.01);
    const QJsonArray devices = root.value("devices").toArray();
    QCOMPARE(devices.size(), 1);
    QCOMPARE(devices[0].toObject().value("backend").toString(), QString("cpu"));
    QVERIFY(!devices[0].toObject().value("name").toString().isEmpty());
    const QJsonArray results = root.value("results").toArray();
    QCOMPARE(results.size(), rows);
    QCOMPARE(results[0].toObject().value("format").toString().toStdString(),
             panel.model()->result(0).format);

    QFile csvFile(csv);
    QVERIFY(csvFile.open(QIODevice::ReadOnly | QIODevice::Text));
    const QStringList lines = QString::fromUtf8(csvFile.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), rows + 1);
    QVERIFY(lines.first().startsWith("backend,device,operation,format,direction,path"));
    QVERIFY(lines[1].startsWith("cpu,"));

    // The run compared with itself: every row matches, at a ratio of 1.
    QVERIFY(panel.table()->isColumnHidden(BenchResultsModel::VsSaved));
    QVERIFY(panel.loadComparison(json));
    QVERIFY(panel.model()->hasComparison());
    QVERIFY(!panel.table()->isColumnHidden(BenchResultsModel::VsSaved));
    QCOMPARE(panel.model()->matchedCount(), rows);
    QVERIFY(!panel.model()->comparisonIgnoresDevice());
    for (int r = 0; r < rows; ++r) {
        const auto ratio = panel.model()->ratioToSaved(r);
        QVERIFY(ratio.has_value());
        QVERIFY(std::abs(*ratio - 1) < 1e-6);
        QCOMPARE(
            panel.model()->data(panel.model()->index(r, BenchResultsModel::VsSaved)).toString(),
            QString("1.00×"));
    }
    QVERIFY(panel.statusLabel()->text().contains("run.json"));
    panel.chart()->rebuild();
    QCOMPARE(panel.chart()->savedBarCount(), panel.chart()->barCount());

    // A new run is compared with the saved one as its results come in.
    runToEnd(panel);
    QVERIFY(panel.model()->hasComparison());
    QCOMPARE(panel.model()->matchedCount(), panel.model()->rowCount());
    for (int r = 0; r < panel.model()->rowCount(); ++r) {
        const auto ratio = panel.model()->ratioToSaved(r);
        QVERIFY(ratio.has_value());
        QVERIFY2(*ratio > 0.01 && *ratio < 100, qPrintable(QString::number(*ratio)));
    }

    panel.clearComparison();
    QVERIFY(!panel.model()->hasComparison());
    QVERIFY(panel.table()->isColumnHidden(BenchResultsModel::VsSaved));
    panel.chart()->rebuild();
    QCOMPARE(panel.chart()->savedBarCount(), 0);
}

void TestBenchmarks::comparisonAcrossDevices() {
    // A run saved on another machine matches without the device's name.
    bench::BenchResult r;
    r.backend = "cpu";
    r.device = "Some Other CPU";
    r.operation = bench::Operation::Convert;
    r.format = "fp16";
    r.direction = bench::Direction::Encode;
    r.path = "F16C";
    r.elements = 4096;
    r.threads = 1;
    r.bytesPerSecond = 2e10;
    r.time = {1e-6, 0.9e-6, 1.2e-6, 100, 7};
    std::ofstream out(dir_.filePath("other.json").toStdString());
    bench::writeResultsJson(out, bench::RunMetadata{}, {r});
    out.close();
    const auto saved = loadSavedRun(dir_.filePath("other.json"), nullptr);
    QVERIFY(saved.has_value());
    QCOMPARE(saved->results.size(), std::size_t(1));
    QCOMPARE(saved->results[0].time.max, 1.2e-6);

    BenchResultsModel model;
    bench::BenchResult here = r;
    here.device = "This CPU";
    here.bytesPerSecond = 4e10;
    model.append(here);
    bench::BenchResult unmatched = here;
    unmatched.path = "bit trick";
    model.append(unmatched);
    model.setComparison(&*saved);
    QCOMPARE(model.matchedCount(), 1);
    QVERIFY(model.comparisonIgnoresDevice());
    QCOMPARE(*model.ratioToSaved(0), 2.0);
    QVERIFY(!model.ratioToSaved(1).has_value());
    QCOMPARE(model.data(model.index(0, BenchResultsModel::VsSaved)).toString(), QString("2.00×"));
    QVERIFY(model.data(model.index(1, BenchResultsModel::VsSaved)).toString().isEmpty());
}

void TestBenchmarks::sumsAndQuantizersRunExportAndCompare() {
    BenchmarksPanel panel(nullptr, &cpuOnly);
    panel.resize(1400, 900);
    panel.show();
    waitForBackends(panel);
    tinyRun(panel);
    panel.setFormats({"fp16"});
    panel.setDirections(true, false);
    panel.setSumsAndQuantizers(true);
    QVERIFY(panel.table()->isColumnHidden(BenchResultsModel::Ratio));
    runToEnd(panel);
    const BenchResultsModel* model = panel.model();
    const int rows = model->rowCount();
    std::map<bench::Operation, int> count;
    for (int r = 0; r < rows; ++r) {
        const bench::BenchResult& result = model->result(r);
        ++count[result.operation];
        if (result.ratio <= 0)
            continue;
        // Each with its ratio, goal and reference, as fpx bench prints them.
        QVERIFY(result.elements == 4096);
        QVERIFY(!result.workload.empty());
        QVERIFY(!result.ceilingName.empty());
        QVERIFY(result.goalAtLeast > 0 || result.goalAtMost > 0);
        const QString ratio = model->data(model->index(r, BenchResultsModel::Ratio)).toString();
        QVERIFY2(ratio.startsWith(QString::number(result.ratio, 'f', 2) + "× (goal "),
                 qPrintable(ratio));
        QVERIFY(model->description(r).contains("ratio "));
        if (result.operation != bench::Operation::QuantizeFile)
            QVERIFY2(model->data(model->index(r, BenchResultsModel::Verified))
                         .toString()
                         .startsWith("yes"),
                     qPrintable(model->label(r)));
    }
    QCOMPARE(count[bench::Operation::Accumulate], 7);
    QCOMPARE(count[bench::Operation::Quantize], 5);
    QCOMPARE(count[bench::Operation::QuantizeFile], 2); // fpx quantize: MXFP4, six formats
    QVERIFY(count[bench::Operation::Convert] >= 1);
    QVERIFY(!panel.table()->isColumnHidden(BenchResultsModel::Ratio));
    QVERIFY(!panel.table()->isColumnHidden(BenchResultsModel::Workload));
    // Their own chart, beside the conversions'.
    panel.chart()->setMetric(BenchmarksChart::Metric::SumsAndQuantizers);
    QCOMPARE(panel.chart()->barCount(), 14);

    // Exported with the conversions, and compared with itself row for row.
    const QString json = dir_.filePath("ratios.json");
    QVERIFY(panel.exportJson(json));
    const auto saved = loadSavedRun(json, nullptr);
    QVERIFY(saved.has_value());
    QCOMPARE(static_cast<int>(saved->results.size()), rows);
    QVERIFY(panel.loadComparison(json));
    QCOMPARE(panel.model()->matchedCount(), rows);
    for (int r = 0; r < rows; ++r) {
        QCOMPARE(model->savedFor(r)->ratio, model->result(r).ratio);
        QCOMPARE(model->data(model->index(r, BenchResultsModel::VsSaved)).toString(),
                 QString("1.00×"));
    }
    panel.chart()->rebuild();
    QCOMPARE(panel.chart()->savedBarCount(), 14);
    panel.chart()->setMetric(BenchmarksChart::Metric::Bandwidth);
}

void TestBenchmarks::savedSumsAndQuantizersCompare() {
    // A run saved by fpx bench --json on another machine: its sums and quantizers match this
    // run's like conversions, by format, path, size, threads and workload.
    std::vector<bench::AccumulationBenchRow> sums(2);
    const std::vector<bench::AccumulationWorkload> workloads = bench::accumulationWorkloads();
    for (std::size_t i = 0; i < sums.size(); ++i) {
        bench::AccumulationBenchRow& s = sums[i];
        s.format = "fp16";
        s.workload = workloads[i].label;
        s.path = "fp32 hardware";
        s.reference = "float loop";
        s.verified = true;
        s.checked = 4096;
        s.time = {4e-6 * double(i + 1), 4e-6, 5e-6, 10, 5};
        s.referenceTime = {1e-6, 1e-6, 1e-6, 40, 5};
        s.termsPerSecond = 4096 / s.time.median;
        s.referenceTermsPerSecond = 4096 / 1e-6;
        s.ratio = 1e-6 / s.time.median;
        s.goal = 0.25;
    }
    bench::QuantizationBenchReport quantizers;
    quantizers.elements = 4096;
    quantizers.threads = 2;
    bench::QuantizationBenchRow q;
    q.format = "nvfp4";
    q.path = "NV blocks (AVX2)";
    q.verified = true;
    q.time = {1e-5, 1e-5, 1e-5, 3, 5};
    q.referenceTime = {5e-6, 5e-6, 5e-6, 7, 5};
    q.elementsPerSecond = 4096 / 1e-5;
    q.bytesPerSecond = 2e9;
    q.referenceBytesPerSecond = 6e9;
    q.ratio = 2.0 / 6.0;
    q.goal = 0.5;
    q.passes = 2;
    q.bareRatio = 0.75;
    quantizers.rows = {q};
    bench::DeviceInfo other;
    other.backend = "cpu";
    other.name = "Some Other CPU";
    std::vector<bench::BenchResult> saved = bench::accumulationResults(sums, 4096, other);
    for (const bench::BenchResult& r : bench::quantizationResults(quantizers, other))
        saved.push_back(r);
    QCOMPARE(saved.size(), std::size_t{3});
    {
        std::ofstream out(dir_.filePath("cli-ratios.json").toStdString());
        bench::writeResultsJson(out, bench::RunMetadata{}, saved);
    }

    BenchmarksPanel panel(nullptr, &cpuOnly);
    waitForBackends(panel);
    BenchResultsModel* model = panel.model();
    // This machine's rows: twice as fast, and a sum on a workload the saved run lacks.
    for (bench::BenchResult r : saved) {
        r.device = "This CPU";
        r.bytesPerSecond *= 2;
        r.elementsPerSecond *= 2;
        model->append(r);
    }
    bench::BenchResult unmatched = saved.front();
    unmatched.device = "This CPU";
    unmatched.workload = "uniform:-1:1";
    model->append(unmatched);
    QVERIFY(panel.loadComparison(dir_.filePath("cli-ratios.json")));
    QCOMPARE(model->matchedCount(), 3);
    QVERIFY(model->comparisonIgnoresDevice());
    for (int r = 0; r < 3; ++r) {
        QCOMPARE(*model->ratioToSaved(r), 2.0);
        QCOMPARE(model->data(model->index(r, BenchResultsModel::VsSaved)).toString(),
                 QString("2.00×"));
    }
    QVERIFY(!model->ratioToSaved(3).has_value());
    // The saved rows keep their ratios; the table shows this run's as fpx bench prints them.
    QCOMPARE(model->savedFor(1)->ratio, 0.125);
    QCOMPARE(model->savedFor(2)->bareRatio, 0.75);
    QCOMPARE(model->savedFor(2)->passes, 2);
    QCOMPARE(model->data(model->index(0, BenchResultsModel::Ratio)).toString(),
             QString("0.25× (goal ≥ 0.25×)"));
    QCOMPARE(model->data(model->index(1, BenchResultsModel::Workload)).toString(),
             QString::fromStdString(workloads[1].distribution));
    // 0.125 is below its goal of 0.25: marked.
    QVERIFY(model->data(model->index(1, BenchResultsModel::Ratio), Qt::ForegroundRole).isValid());
    QVERIFY(!model->data(model->index(0, BenchResultsModel::Ratio), Qt::ForegroundRole).isValid());
    const QString description = model->description(2);
    QVERIFY2(description.contains("ratio 0.33× against memcpy alongside, 4 Ki, 2 threads, goal "
                                  "≥ 0.5× (not met); 2 passes, bare loop 0.75×"),
             qPrintable(description));
    QVERIFY(model->label(0).contains("fp16 sum · uniform:0:1"));
    QVERIFY(panel.statusLabel()->text().contains("3 of 3 saved results match"));
    panel.chart()->setMetric(BenchmarksChart::Metric::SumsAndQuantizers);
    QCOMPARE(panel.chart()->barCount(), 4);
    QCOMPARE(panel.chart()->savedBarCount(), 3);
    panel.chart()->setMetric(BenchmarksChart::Metric::Bandwidth);
    QCOMPARE(panel.chart()->barCount(), 0);
}

void TestBenchmarks::runSavedWithoutRatiosCompares() {
    // A run of format version 1: conversions alone, without the ratio keys. It loads, and its
    // conversions match this run's.
    QFile file(dir_.filePath("version1.json"));
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({"format": "fpx-bench", "version": 1, "devices": [{"name": "Old CPU"}],
        "results": [{"backend": "cpu", "device": "Old CPU", "device_index": 0,
        "operation": "convert", "format": "fp16", "direction": "encode", "path": "F16C",
        "hardware": true, "elements": 4096, "threads": 1, "median_seconds": 1e-6,
        "min_seconds": 9e-7, "max_seconds": 1.2e-6, "samples": 7,
        "bytes_per_second": 2e10, "elements_per_second": 4e9, "ceiling": 4e10,
        "ceiling_name": "memcpy alongside, 4 Ki, 1 thread", "verified": true,
        "exact_by_design": true, "checked": 4096, "mismatches": 0, "note": ""}]})");
    file.close();
    BenchmarksPanel panel(nullptr, &cpuOnly);
    waitForBackends(panel);
    bench::BenchResult here;
    here.backend = "cpu";
    here.device = "This CPU";
    here.operation = bench::Operation::Convert;
    here.format = "fp16";
    here.direction = bench::Direction::Encode;
    here.path = "F16C";
    here.elements = 4096;
    here.threads = 1;
    here.bytesPerSecond = 3e10;
    panel.model()->append(here);
    QVERIFY(panel.loadComparison(file.fileName()));
    QCOMPARE(panel.model()->matchedCount(), 1);
    QCOMPARE(*panel.model()->ratioToSaved(0), 1.5);
    QVERIFY(panel.statusLabel()->text().contains("Old CPU"));
}

void TestBenchmarks::badSavedRunsAreReported() {
    BenchmarksPanel panel(nullptr, &cpuOnly);
    QStringList messages;
    panel.setMessageSink([&messages](const QString& title, const QString& text) {
        messages << title + ": " + text;
    });
    waitForBackends(panel);
    tinyRun(panel);
    runToEnd(panel);
    const int rows = panel.model()->rowCount();

    struct Case {
        const char* name;
        QByteArray content;
        const char* expected;
    };
    const Case cases[] = {
        {"corrupt.json", "{ \"results\": [ {\"format\": ", "not valid JSON"},
        {"empty.json", "", "empty"},
        {"array.json", "[1, 2, 3]", "\"results\""},
        {"foreign.json", "{\"name\": \"something else\"}", "no \"results\" array"},
        {"other-format.json", "{\"format\": \"chrome-trace\", \"results\": []}", "fpx-bench"},
        {"bad-result.json", "{\"format\": \"fpx-bench\", \"results\": [{\"backend\": \"cpu\"}]}",
         "result 1"},
        {"no-results.json", "{\"format\": \"fpx-bench\", \"results\": []}", "no results"},
    };
    for (const Case& c : cases) {
        QFile file(dir_.filePath(c.name));
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(c.content);
        file.close();
        messages.clear();
        QVERIFY(!panel.loadComparison(file.fileName()));
        QCOMPARE(messages.size(), 1);
        QVERIFY2(messages.first().contains(c.name), qPrintable(messages.first()));
        QVERIFY2(messages.first().contains(c.expected), qPrintable(messages.first()));
        // The current results are untouched, and nothing is being compared.
        QCOMPARE(panel.model()->rowCount(), rows);
        QVERIFY(!panel.model()->hasComparison());
        QVERIFY(panel.table()->isColumnHidden(BenchResultsModel::VsSaved));
    }
    messages.clear();
    QVERIFY(!panel.loadComparison(dir_.filePath("missing.json")));
    QCOMPARE(messages.size(), 1);
    QVERIFY(messages.first().contains("missing.json"));
    // An export that cannot be written says so.
    messages.clear();
    QVERIFY(!panel.exportJson(dir_.filePath("no/such/dir/run.json")));
    QCOMPARE(messages.size(), 1);
}

void TestBenchmarks::formErrorsAreShown() {
    BenchmarksPanel panel(nullptr, &cpuOnly);
    waitForBackends(panel);
    tinyRun(panel);
    QString error;
    panel.setFormats({});
    QVERIFY(!panel.jobs(&error));
    QVERIFY(error.contains("format"));
    panel.setFormats({"fp16"});
    panel.setDirections(false, false);
    QVERIFY(!panel.jobs(&error));
    panel.setDirections(true, false);
    panel.setSizes(false, false, "lots");
    QVERIFY(!panel.jobs(&error));
    QVERIFY(error.contains("lots"));
    panel.setSizes(true, false, "1k");
    panel.setThreads(false, false);
    QVERIFY(!panel.jobs(&error));
    panel.setThreads(true, true);
    panel.setBackendsChecked({});
    QVERIFY(!panel.jobs(&error));
    QVERIFY(error.contains("backend"));
    // Clicking Run with a bad form shows why and starts nothing.
    QTest::mouseClick(panel.runButton(), Qt::LeftButton);
    QVERIFY(!panel.controller()->isRunning());
    QVERIFY(panel.statusLabel()->text().contains("backend"));
    panel.setBackendsChecked({"cpu"});
    const auto jobs = panel.jobs(&error);
    QVERIFY2(jobs.has_value(), qPrintable(error));
    const bench::BenchRequest& request = jobs->front().request;
    // "In cache" is fpx bench's: 32 Ki elements, so that a saved CLI run compares like with like.
    QCOMPARE(request.sizes, (std::vector<std::size_t>{1024, std::size_t{32} << 10}));
    QCOMPARE(request.directions, std::vector<bench::Direction>{bench::Direction::Encode});
    QVERIFY(request.conversions);
    QVERIFY(!request.arithmetic);
    QCOMPARE(request.plan.budget.count(), 0.01);
}

void TestBenchmarks::windowPageAndClosingMidRun() {
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QCOMPARE(window.currentPage(), MainWindow::Page::Explorer);
    BenchmarksPanel* panel = window.benchmarksPanel();
    QVERIFY(!panel->controller()->backendsLoaded()); // not before the page is shown
    window.showPage(MainWindow::Page::Benchmarks);
    QCOMPARE(window.currentPage(), MainWindow::Page::Benchmarks);
    QTRY_VERIFY_WITH_TIMEOUT(panel->controller()->backendsLoaded(), 30000);
    QVERIFY(!panel->controller()->summaries().empty());
    QCOMPARE(panel->controller()->summaries().front().id, QString("cpu"));
    tinyRun(*panel);
    const double budgetMinutes = 2.0;
    panel->setBudget(budgetMinutes);
    QSignalSpy progress(panel->controller(), &BenchController::progress);
    QTest::mouseClick(panel->runButton(), Qt::LeftButton);
    QVERIFY(panel->controller()->isRunning());
    QVERIFY(progress.wait(30000)); // measuring
    QElapsedTimer clock;
    clock.start();
    QVERIFY(window.close());
    QVERIFY(!panel->controller()->isRunning());
    QVERIFY2(clock.elapsed() * 8 < budgetMinutes * 60'000,
             "closing waited for more than one measurement");
}

// The class run leaves the form as it is and ends on one bar per conversion (FP32 → BF16,
// FP16, FP8 E4M3, FP4 E2M1), its fastest path that agreed with the exact core, beside memcpy;
// the full run is the other button and shows every path again.
void TestBenchmarks::classRunShowsAFewReadableBars() {
    BenchmarksPanel panel(nullptr, &cpuOnly);
    panel.resize(1024, 768);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    waitForBackends(panel);
    tinyRun(panel);
    const QStringList formBefore = panel.checkedFormats();
    QSignalSpy finished(panel.controller(), &BenchController::finished);
    QVERIFY(panel.classRunButton()->isEnabled());
    QTest::mouseClick(panel.classRunButton(), Qt::LeftButton);
    QVERIFY2(panel.controller()->isRunning(),
             qPrintable(panel.statusLabel()->text() + " visible " +
                        QString::number(panel.classRunButton()->isVisible())));
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 120000);
    QCOMPARE(panel.checkedFormats(), formBefore);

    BenchResultsModel* model = panel.model();
    // Every conversion the run measured, by key, and its fastest verified path: worked out
    // here from the controller's raw results, not by the code under test.
    std::map<std::string, double> fastest;
    int conversions = 0;
    for (const bench::BenchResult& r : panel.controller()->results()) {
        if (r.operation != bench::Operation::Convert)
            continue;
        QCOMPARE(r.direction, bench::Direction::Encode);
        QCOMPARE(r.elements, std::size_t{32 * 1024});
        QCOMPARE(r.threads, 1);
        ++conversions;
        if (r.verified && r.path.find("bare loop") == std::string::npos)
            fastest[r.format] = std::max(fastest[r.format], r.bytesPerSecond);
    }
    QVERIFY2(conversions > 4, "each format has more than one path on the CPU");
    QCOMPARE(fastest.size(), std::size_t{4});
    QCOMPARE(model->rowCount(), 5); // four conversions and memcpy
    QStringList labels;
    for (int row = 0; row < model->rowCount(); ++row) {
        const bench::BenchResult& r = model->result(row);
        labels << model->label(row);
        if (r.operation == bench::Operation::Copy)
            continue;
        QVERIFY(r.verified);
        QCOMPARE(r.bytesPerSecond, fastest[r.format]);
    }
    for (const char* name : {"FP32 → BF16, ", "FP32 → FP16, ", "FP32 → FP8 E4M3, ",
                             "FP32 → FP4 E2M1, ", "FP32 copy (memcpy)"})
        QVERIFY2(std::any_of(labels.begin(), labels.end(),
                             [&](const QString& l) { return l.startsWith(name); }),
                 qPrintable(labels.join(" | ")));
    // A label names an instruction set or a path's first word, not the whole path.
    for (const QString& l : labels)
        QVERIFY2(!l.contains("bit trick") && !l.contains("·"), qPrintable(l));
    panel.chart()->rebuild();
    QCOMPARE(panel.chart()->barCount(), 5);

    // The full run, one click away: every path again, named as before.
    finished.clear();
    QTest::mouseClick(panel.runButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 120000);
    QVERIFY(model->rowCount() > 5);
    QVERIFY(!model->label(0).contains("→"));
}

QTEST_MAIN(TestBenchmarks)
#include "tst_benchmarks.moc"
