// SPDX-License-Identifier: GPL-3.0-or-later
// A broken OpenCL driver must cost fpx the OpenCL backend, nothing else. A fake driver
// (fake_icd.cpp) that aborts, or hangs, as soon as it is asked for its platforms is put in
// front of the ocl-icd loader with OCL_ICD_VENDORS; then the real fpx binary and the
// explorer's Benchmarks page must keep working: a CPU run never touches the driver, and a
// listing shows OpenCL unavailable with why. Without the probe, both end with SIGABRT.
#include "pages/benchmarks/bench_controller.h"
#include "pages/benchmarks/bench_results_model.h"
#include "pages/benchmarks/benchmarks_panel.h"
#include "shell/main_window.h"

#include "fpx/bench/backend.h"

#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QPushButton>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace fpx;
using namespace fpx::gui;

namespace {

struct Run {
    int exitCode = -1; // -1: killed by a signal or never finished
    QByteArray out;
    QByteArray err;
    qint64 milliseconds = 0;
};

Run runFpx(const QString& program, const QStringList& args,
           const QProcessEnvironment& environment) {
    QProcess process;
    process.setProcessEnvironment(environment);
    QElapsedTimer clock;
    clock.start();
    process.start(program, args);
    if (!process.waitForStarted())
        qFatal("cannot start %s", qPrintable(program));
    if (!process.waitForFinished(120000))
        process.kill();
    process.waitForFinished();
    Run run;
    run.milliseconds = clock.elapsed();
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

QString describe(const Run& run) {
    return QStringLiteral("exit %1\nstdout:\n%2\nstderr:\n%3")
        .arg(run.exitCode)
        .arg(QString::fromUtf8(run.out.left(4000)), QString::fromUtf8(run.err.right(4000)));
}

const QStringList kTinyCpuRun = {"bench",   "--backend", "cpu",      "--formats", "bf16",
                                 "--sizes", "1k",        "--budget", "0.01"};

} // namespace

class TestBrokenDriver : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase();
    void cpuRunNeverTouchesTheDriver();
    void listingShowsACrashedDriver();
    void listingShowsAHungDriver();
    void askingForTheBrokenBackend();
    void allBackendsRunWhatWorks();
    void withoutTheProbeNothingIsLoaded();
    void benchmarksPageShowsOpenClUnavailable();

  private:
    // This process's environment, with the fake driver registered in `vendors` as the only
    // OpenCL driver.
    QProcessEnvironment withDriver(const QString& vendors) const;

    QTemporaryDir dir_;
    QString abortVendors_; // directories holding one .icd file each
    QString hangVendors_;
};

void TestBrokenDriver::initTestCase() {
    QVERIFY(dir_.isValid());
    for (auto [name, library, vendors] : {std::tuple{"abort", FPX_FAKE_ICD_ABORT, &abortVendors_},
                                          std::tuple{"hang", FPX_FAKE_ICD_HANG, &hangVendors_}}) {
        QVERIFY2(QFile::exists(library), library);
        *vendors = dir_.filePath(name);
        QVERIFY(QDir().mkpath(*vendors));
        QFile icd(*vendors + "/fake.icd");
        QVERIFY(icd.open(QIODevice::WriteOnly));
        icd.write(QByteArray(library) + "\n");
    }
    // The plugin must be there, or this test would pass without testing anything.
    QVERIFY2(QFile::exists(FPX_BACKEND_DIR "/libfpx_backend_opencl.so"), FPX_BACKEND_DIR);
}

QProcessEnvironment TestBrokenDriver::withDriver(const QString& vendors) const {
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("OCL_ICD_VENDORS", vendors);
    environment.insert("FPX_BACKEND_DIR", FPX_BACKEND_DIR);
    environment.remove("FPX_BACKEND_PROBE_TIMEOUT");
    return environment;
}

void TestBrokenDriver::cpuRunNeverTouchesTheDriver() {
    // A hung driver and a probe time limit longer than the wait below: were the OpenCL plugin
    // probed or loaded, this run could not finish in time.
    QProcessEnvironment environment = withDriver(hangVendors_);
    environment.insert("FPX_BACKEND_PROBE_TIMEOUT", "600");
    environment.insert("LD_DEBUG", "files"); // glibc names every library it opens on stderr
    const Run run = runFpx(FPX_CLI_PATH, kTinyCpuRun, environment);
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QVERIFY2(run.out.contains("bf16"), qPrintable(describe(run)));
    if (run.err.contains("calling init"))
        QVERIFY2(!run.err.contains("libfpx_backend_"), "a CPU run opened a backend plugin");

    const Run crashing = runFpx(FPX_CLI_PATH, kTinyCpuRun, withDriver(abortVendors_));
    QVERIFY2(crashing.exitCode == 0, qPrintable(describe(crashing)));
    QVERIFY2(crashing.out.contains("bf16"), qPrintable(describe(crashing)));
}

void TestBrokenDriver::listingShowsACrashedDriver() {
    const Run run = runFpx(FPX_CLI_PATH, {"bench", "--list"}, withDriver(abortVendors_));
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QVERIFY2(run.out.contains("CPU (cpu): available"), qPrintable(describe(run)));
    QVERIFY2(run.out.contains("OpenCL (opencl): unavailable: the OpenCL driver crashed while "
                              "listing its platforms and devices (signal 6, SIGABRT)"),
             qPrintable(describe(run)));
}

void TestBrokenDriver::listingShowsAHungDriver() {
    QProcessEnvironment environment = withDriver(hangVendors_);
    environment.insert("FPX_BACKEND_PROBE_TIMEOUT", "1");
    const Run run = runFpx(FPX_CLI_PATH, {"bench", "--list"}, environment);
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QVERIFY2(run.out.contains("CPU (cpu): available"), qPrintable(describe(run)));
    QVERIFY2(run.out.contains("OpenCL (opencl): unavailable: the OpenCL driver did not answer "
                              "within 1 s while listing its platforms and devices"),
             qPrintable(describe(run)));
    // Killed at the limit, not waited for (the wait above would give up after 120 s).
    QVERIFY2(run.milliseconds < 60000, qPrintable(describe(run)));
}

void TestBrokenDriver::askingForTheBrokenBackend() {
    const Run run = runFpx(FPX_CLI_PATH, {"bench", "--backend", "opencl", "--formats", "fp16"},
                           withDriver(abortVendors_));
    QVERIFY2(run.exitCode == 2, qPrintable(describe(run)));
    QVERIFY2(run.err.contains("OpenCL is unavailable: the OpenCL driver crashed"),
             qPrintable(describe(run)));
    QVERIFY(run.out.isEmpty());
}

void TestBrokenDriver::allBackendsRunWhatWorks() {
    const Run run = runFpx(FPX_CLI_PATH,
                           {"bench", "--backend", "all", "--formats", "bf16", "--sizes", "1k",
                            "--budget", "0.01", "--no-arithmetic"},
                           withDriver(abortVendors_));
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QVERIFY2(run.err.contains("OpenCL is unavailable: the OpenCL driver crashed"),
             qPrintable(describe(run)));
    QVERIFY2(run.out.contains("cpu"), qPrintable(describe(run)));
}

void TestBrokenDriver::withoutTheProbeNothingIsLoaded() {
    // fpx copied where no fpx-backend-probe stands beside it: the plugin is not loaded blind.
    const QString lonely = dir_.filePath("lonely");
    QVERIFY(QDir().mkpath(lonely));
    const QString copy = lonely + "/fpx";
    QVERIFY(QFile::copy(FPX_CLI_PATH, copy));
    QVERIFY(QFile::setPermissions(copy, QFile::permissions(FPX_CLI_PATH)));
    const Run run = runFpx(copy, {"bench", "--list"}, withDriver(abortVendors_));
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QVERIFY2(run.out.contains("CPU (cpu): available"), qPrintable(describe(run)));
    QVERIFY2(run.out.contains("OpenCL (opencl): unavailable: ") &&
                 run.out.contains(QFile::encodeName(lonely + "/fpx-backend-probe is missing")),
             qPrintable(describe(run)));
}

void TestBrokenDriver::benchmarksPageShowsOpenClUnavailable() {
    // The probe inherits this process's environment.
    qputenv("OCL_ICD_VENDORS", QFile::encodeName(abortVendors_));
    qputenv("FPX_BACKEND_DIR", FPX_BACKEND_DIR);
    qunsetenv("FPX_BACKEND_PROBE_TIMEOUT");

    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.showPage(MainWindow::Page::Benchmarks);
    BenchmarksPanel* panel = window.benchmarksPanel();
    QTRY_VERIFY_WITH_TIMEOUT(panel->controller()->backendsLoaded(), 60000);

    QTreeWidget* tree = panel->backendTree();
    QTreeWidgetItem* cpu = nullptr;
    QTreeWidgetItem* opencl = nullptr;
    for (int i = 0; i < tree->topLevelItemCount(); ++i) {
        QTreeWidgetItem* item = tree->topLevelItem(i);
        if (item->text(0) == "CPU")
            cpu = item;
        if (item->text(0).startsWith("OpenCL"))
            opencl = item;
    }
    QVERIFY(cpu != nullptr);
    QVERIFY(cpu->flags() & Qt::ItemIsEnabled);
    QVERIFY2(opencl != nullptr, "OpenCL is not listed at all");
    QVERIFY2(!(opencl->flags() & Qt::ItemIsEnabled), qPrintable(opencl->text(0)));
    QVERIFY2(opencl->text(0).contains("unavailable"), qPrintable(opencl->text(0)));
    QVERIFY2(opencl->toolTip(0).contains("the OpenCL driver crashed while listing its platforms "
                                         "and devices (signal 6, SIGABRT)"),
             qPrintable(opencl->toolTip(0)));

    // The CPU still measures.
    panel->setBackendsChecked({"cpu"});
    panel->setFormats({"bf16"});
    panel->setDirections(true, false);
    panel->setSizes(false, false, "4k");
    panel->setThreads(true, false);
    panel->setBudget(0.01);
    panel->setArithmetic(false);
    QSignalSpy finished(panel->controller(), &BenchController::finished);
    QVERIFY(panel->runButton()->isEnabled());
    QTest::mouseClick(panel->runButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(finished.count() == 1, 120000);
    QCOMPARE(finished.first().first().toBool(), false);
    QVERIFY(panel->model()->rowCount() > 0);
}

QTEST_MAIN(TestBrokenDriver)
#include "tst_broken_driver.moc"
