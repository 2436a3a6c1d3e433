// SPDX-License-Identifier: GPL-3.0-or-later
// The explorer's Machines page with real widgets, offscreen: one instruction drawn term by term
// against values worked out here by hand (a product cut, one vanishing at Hopper's F = 13 and
// kept at Blackwell's F = 25), error against K through the page's worker with and without
// promotion, one dot product on every machine in the table, the page's options and their
// problems, a machine file's machines beside the built-in ones, the exports and the headless
// screenshot.
#include "pages/machines/instruction_picture.h"
#include "pages/machines/machines_page.h"
#include "shell/command_line.h"
#include "shell/main_window.h"

#include <qcustomplot.h>

#include "fpx/exact/conversion.h"
#include "fpx/exact/value_parser.h"
#include "fpx/machines/machine.h"

#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QSlider>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextStream>

#include <chrono>
#include <cmath>
#include <map>

using namespace fpx;
using namespace fpx::gui;

namespace {

constexpr std::chrono::minutes kIdleWait{4};

ExactValue v(const char* text) {
    return *parseValue(text).value;
}

// Sets `settings` as the command line would and applies them; the first problem, or empty.
QString applySettings(MainWindow& window, const std::vector<OptionSetting>& settings) {
    PageStates states(PageStates::Source::CommandLine);
    for (const QString& problem : states.set(settings))
        if (!problem.isEmpty())
            return problem;
    return states.apply(window);
}

// The machines the core has with an instruction for `element`: the table's rows.
int machinesTakingCount(const std::string& element) {
    int count = 0;
    for (const MachineModel& machine : builtInMachines())
        count += machine.instructionFor(element) ? 1 : 0;
    return count;
}

// Writes `text` to `path`; false when it cannot.
bool writeFile(const QString& path, const QString& text) {
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly | QIODevice::Text))
        return false;
    QTextStream(&file) << text;
    return true;
}

// Chooses the element and the machine in their combo boxes and types the vectors.
void drive(MachinesPage& page, const QString& machine, const QString& element, const QString& a,
           const QString& b, const QString& c) {
    QComboBox* elements = page.elementCombo();
    elements->setCurrentIndex(elements->findData(element));
    page.machineCombo()->setCurrentText(machine);
    page.aEdit()->setText(a);
    page.bEdit()->setText(b);
    page.cEdit()->setText(c);
}

// Typed vectors of `n` values, zeros but for `at` (1-based positions).
QString vectorWith(int n, const std::map<int, QString>& at) {
    QStringList values;
    for (int i = 1; i <= n; ++i)
        values << (at.count(i) ? at.at(i) : QStringLiteral("0"));
    return values.join(", ");
}

// The hand-worked instruction: c = 1 and four fp8_e4m3 products,
//   a1·b1 = 2^-7 · 1.875·2^-4 = 1.875·2^-11  (bits 2^-11, 2^-12, 2^-13, 2^-14)
//   a2·b2 = 2^-7 · 2^-7       = 2^-14
//   a3·b3 = 0.5 · 0.375       = 0.1875
//   a4·b4 = 2^-7 · 2^-6       = 2^-13
// The largest exponent is c's, E = 0. Hopper keeps F = 13 bits: multiples of 2^-13, so a1·b1
// loses its 2^-14 bit (kept 1.75·2^-11) and a2·b2 vanishes; the kept sum is
// 1 + 2^-3 + 2^-4 + 2^-10 = 1.1884765625, which e8m13 holds. Blackwell keeps F = 25 bits: every
// term whole, the exact sum 1 + 2^-3 + 2^-4 + 2^-10 + 2^-13 = 1.1885986328125, which FP32 holds.
const QString kA = "0.0078125, 0.0078125, 0.5, 0.0078125";
const QString kB = "0.1171875, 0.0078125, 0.375, 0.015625";

} // namespace

class TestMachinesPage : public QObject {
    Q_OBJECT

  private slots:
    void pageAndShortcut();
    void defaultInstructionShowsACut();
    void hopperCutsWhatBlackwellKeeps();
    void errorAgainstKWithPromotion();
    void everyMachineOneDotProduct();
    void blockScaledMxfp4();
    void blockScaledNvfp4RunOfZerosAligns();
    void optionsRoundTrip();
    void badOptionsSayWhichKey();
    void machineFileJoinsTheBuiltIns();
    void exports();
    void headlessScreenshot();
};

void TestMachinesPage::pageAndShortcut() {
    MainWindow window;
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QCOMPARE(window.currentPage(), MainWindow::Page::Explorer);
    QTest::keyClick(&window, Qt::Key_6, Qt::ControlModifier);
    QCOMPARE(window.currentPage(), MainWindow::Page::Machines);
    QCOMPARE(window.hostedPage(MainWindow::Page::Machines), window.machinesPage());
    MainWindow second;
    QCOMPARE(applySettings(second, {{"page", "machines"}}), QString());
    QCOMPARE(second.currentPage(), MainWindow::Page::Machines);
    // An option of the page opens it.
    MainWindow third;
    QCOMPARE(applySettings(third, {{"machine", "nvidia-blackwell"}}), QString());
    QCOMPARE(third.currentPage(), MainWindow::Page::Machines);
}

void TestMachinesPage::defaultInstructionShowsACut() {
    MainWindow window;
    MachinesPage* page = window.machinesPage();
    const std::optional<DrawnInstruction>& drawn = page->instruction();
    QVERIFY(drawn.has_value());
    QCOMPARE(page->elementCombo()->currentData().toString(), QString("fp8_e4m3"));
    // The defaults lose bits on the narrowest window: one product cut, one vanished.
    QVERIFY2(drawn->termsLosingBits() >= 1, qPrintable(page->summaryText()));
    QVERIFY2(drawn->termsVanished() >= 1, qPrintable(page->summaryText()));
    QVERIFY(page->summaryText().contains("lost bits"));
}

void TestMachinesPage::hopperCutsWhatBlackwellKeeps() {
    MainWindow window;
    window.resize(1024, 768);
    window.showPage(MainWindow::Page::Machines);
    window.show();
    MachinesPage* page = window.machinesPage();
    drive(*page, "nvidia-hopper", "fp8_e4m3", kA, kB, "1");
    {
        const std::optional<DrawnInstruction>& drawn = page->picture()->drawn();
        QVERIFY(drawn.has_value());
        QCOMPARE(drawn->machine.name, std::string("nvidia-hopper"));
        QCOMPARE(drawn->instruction.model.fractionBits, 13);
        QCOMPARE(drawn->step.alignment, std::int64_t(0));
        const std::vector<TermFate> fates = drawn->fates;
        QCOMPARE(fates.size(), std::size_t(1 + drawn->instruction.products));
        QVERIFY(fates[0] == TermFate::Whole);    // c = 1
        QVERIFY(fates[1] == TermFate::Cut);      // 1.875·2^-11 loses 2^-14
        QVERIFY(fates[2] == TermFate::Vanished); // 2^-14
        QVERIFY(fates[3] == TermFate::Whole);    // 0.1875
        QVERIFY(fates[4] == TermFate::Whole);    // 2^-13, the last bit kept
        QVERIFY(drawn->step.terms[1].kept == v("1.75*2^-11"));
        QVERIFY(drawn->step.terms[2].kept.isZero());
        QVERIFY(drawn->step.output == v("1.1884765625"));
        QVERIFY(drawn->exact == v("1.1885986328125"));
        QCOMPARE(page->picture()->rowLabels(), QStringList({"c", "a1·b1", "a2·b2", "a3·b3", "a4·b4",
                                                            "kept sum", "output", "exact"}));
        QVERIFY2(page->summaryText().startsWith("2 of 5 terms lost bits (1 vanished)"),
                 qPrintable(page->summaryText()));
        QVERIFY2(page->summaryText().contains("-2^-13"), qPrintable(page->summaryText()));
    }
    // The picture paints at the window's size, something in the error colour among it.
    const QImage hopper = page->picture()->grab().toImage();
    QVERIFY(!hopper.isNull());

    page->machineCombo()->setCurrentText("nvidia-blackwell");
    {
        const std::optional<DrawnInstruction>& drawn = page->picture()->drawn();
        QVERIFY(drawn.has_value());
        QCOMPARE(drawn->instruction.model.fractionBits, 25);
        for (std::size_t t = 0; t <= drawn->typed; ++t)
            QVERIFY2(drawn->fates[t] == TermFate::Whole, qPrintable(QString::number(t)));
        QVERIFY(drawn->step.output == v("1.1885986328125"));
        QVERIFY2(page->summaryText().startsWith("No term lost bits; the output equals the exact"),
                 qPrintable(page->summaryText()));
    }

    // A typed value the element cannot hold is said, not hidden; a bad one is refused.
    page->aEdit()->setText("0.3, 0.0078125, 0.5, 0.0078125");
    QVERIFY(page->instruction().has_value());
    QVERIFY(!page->instruction()->notes.empty());
    page->aEdit()->setText("0.3, x");
    QVERIFY(!page->instruction().has_value());
    QVERIFY(page->errorText().contains("a: item 2 ('x')"));
}

void TestMachinesPage::errorAgainstKWithPromotion() {
    MainWindow window;
    window.resize(1280, 900);
    MachinesPage* page = window.machinesPage();
    QCOMPARE(applySettings(window, {{"page", "machines"},
                                    {"machine-element", "fp8_e4m3"},
                                    {"machines", "nvidia-hopper,nvidia-blackwell"},
                                    {"machine-results", "8x8"},
                                    {"machine-kmax", "4096"},
                                    {"promote", "128"},
                                    {"machine-view", "error"}}),
             QString());
    window.show();
    QVERIFY(page->waitUntilIdle(kIdleWait));
    QVERIFY2(page->errorText().isEmpty(), qPrintable(page->errorText()));
    const ErrorSweepResult& sweep = page->errorResult();
    QVERIFY(!sweep.cancelled);
    const std::vector<std::size_t> ks = {16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
    QCOMPARE(sweep.request.ks, ks);
    QCOMPARE(sweep.curves.size(), std::size_t(4)); // two machines, each plain and promoted
    // One graph per curve with a point per K; Hopper's FP8 window loses bits at every K, so its
    // errors are all above 0. (A machine exact on some K has no point there: 0 has no place on
    // a log axis.)
    QCustomPlot* plot = page->errorPlot();
    int curves = 0;
    for (int i = 0; i < plot->graphCount(); ++i) {
        const QCPGraph* graph = plot->graph(i);
        if (graph->name().startsWith("FP32 unit roundoff"))
            continue;
        ++curves;
        QCOMPARE(graph->data()->size(), int(ks.size()));
        for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) {
            QVERIFY2(it->value > 0 || std::isnan(it->value), qPrintable(graph->name()));
            if (graph->name().startsWith("nvidia-hopper"))
                QVERIFY2(it->value > 0, qPrintable(graph->name()));
        }
    }
    QCOMPARE(curves, 4);
    auto errorAt = [&](const std::string& machine, bool promoted, std::size_t k) {
        for (const MachineErrorCurve& curve : sweep.curves)
            if (curve.machine == machine && (curve.promoteEvery > 0) == promoted)
                for (const MachineErrorPoint& p : curve.points)
                    if (p.k == k)
                        return p.maxRelativeError;
        return -1.0;
    };
    const double plain = errorAt("nvidia-hopper", false, 4096);
    const double promoted = errorAt("nvidia-hopper", true, 4096);
    QVERIFY(plain > 0 && promoted > 0);
    QVERIFY2(promoted < plain, qPrintable(QString("%1 promoted, %2 not").arg(promoted).arg(plain)));
    for (const MachineErrorCurve& curve : sweep.curves)
        if (curve.promoteEvery > 0)
            QCOMPARE(curve.promoteEvery, std::size_t(128));

    // The slider at 0: the promoted curves go, the plain ones come from what was measured.
    page->promoteSlider()->setValue(0);
    QVERIFY(page->waitUntilIdle(kIdleWait));
    QCOMPARE(page->errorResult().curves.size(), std::size_t(2));
    QCOMPARE(plot->graphCount(), 3);
    // Unchecking a machine drops its curve.
    QListWidget* list = page->machineList();
    for (int i = 0; i < list->count(); ++i)
        if (list->item(i)->text() == "nvidia-blackwell")
            list->item(i)->setCheckState(Qt::Unchecked);
    QVERIFY(page->waitUntilIdle(kIdleWait));
    QCOMPARE(page->errorResult().curves.size(), std::size_t(1));
    // Bounded work: a point larger than the cap is refused, not started.
    page->findChild<QSpinBox*>("machineRows")->setValue(64);
    page->findChild<QSpinBox*>("machineColumns")->setValue(64);
    QComboBox* kMax = page->findChild<QComboBox*>("machineKMax");
    kMax->setCurrentIndex(kMax->findData(16384));
    QVERIFY(page->waitUntilIdle(kIdleWait));
    QVERIFY2(page->errorText().contains("at most 16777216 products a point"),
             qPrintable(page->errorText()));
    kMax->setCurrentIndex(kMax->findData(256));
    QVERIFY(page->waitUntilIdle(kIdleWait));
    QVERIFY2(page->errorText().isEmpty(), qPrintable(page->errorText()));
    // A distribution that does not read is the page's error, in its style.
    QCOMPARE(page->state().dist, std::optional<QString>("uniform:0:1"));
    page->findChild<QLineEdit*>("machineDist")->setText("normal:0");
    QVERIFY(page->waitUntilIdle(kIdleWait));
    QVERIFY2(page->errorText().startsWith("⚠ values:"), qPrintable(page->errorText()));
}

void TestMachinesPage::everyMachineOneDotProduct() {
    MainWindow window;
    window.resize(1280, 900);
    window.showPage(MainWindow::Page::Machines);
    window.show();
    MachinesPage* page = window.machinesPage();
    drive(*page, "nvidia-hopper", "fp8_e4m3", kA, kB, "1");
    page->showView(MachinesPage::View::Table);
    QVERIFY(page->waitUntilIdle(kIdleWait));
    QTableWidget* table = page->table();
    QCOMPARE(table->rowCount(), machinesTakingCount("fp8_e4m3"));
    const MachineComparison& comparison = page->comparison();
    QCOMPARE(comparison.k, std::size_t(4));
    for (const MachineComparisonRow& row : comparison.rows) {
        if (row.machine == "nvidia-hopper") {
            QVERIFY(row.value == v("1.1884765625"));
            QVERIFY(row.ulpsFromNearest && *row.ulpsFromNearest < 0);
        }
        if (row.machine == "nvidia-blackwell") {
            QVERIFY(row.value == v("1.1885986328125"));
            QVERIFY(row.ulpsFromNearest && *row.ulpsFromNearest == 0);
        }
    }
    for (int r = 0; r < table->rowCount(); ++r)
        QCOMPARE(table->item(r, machine_table::Machine)->text(),
                 QString::fromStdString(comparison.rows[std::size_t(r)].machine));
    // Another element: a row per machine taking it; K repeats the vectors.
    page->elementCombo()->setCurrentIndex(page->elementCombo()->findData("fp16"));
    page->findChild<QSpinBox*>("machineTableK")->setValue(1000);
    QVERIFY(page->waitUntilIdle(kIdleWait));
    QCOMPARE(table->rowCount(), machinesTakingCount("fp16"));
    QCOMPARE(page->comparison().k, std::size_t(1000));
}

// Blackwell's kind::mxf4 on a = b = 1, 2, 3, 4, worked by hand: MXFP4 quantizes along K in
// blocks of 32, one block here; its amax 4 = 2^2 and E2M1's largest binade is 2^2, so the E8M0
// scale is 2^(2−2) = 2^0 and every value is an E2M1 value (0.5, 1, 1.5, 2, 3, 4, 6): the
// elements are 1, 2, 3, 4 exactly. The instruction adds the products of each run of 16 exactly
// (1 + 4 + 9 + 16 = 30; one run, four typed) and the run's sum times its scales 2^0·2^0 is one
// term aligned by the scales' exponents, E = 0; F = 35 keeps every bit of 30, and FP32 holds
// it: the output is 30, as are both exact values.
void TestMachinesPage::blockScaledMxfp4() {
    MainWindow window;
    window.resize(1024, 768);
    QCOMPARE(applySettings(window, {{"page", "machines"},
                                    {"machine-element", "mxfp4"},
                                    {"machine", "nvidia-blackwell"},
                                    {"machine-a", "1, 2, 3, 4"},
                                    {"machine-b", "1, 2, 3, 4"},
                                    {"machine-c", "0"},
                                    {"machine-view", "instruction"}}),
             QString());
    window.show();
    MachinesPage* page = window.machinesPage();
    // The block formats come after the plain ones, from the catalogue's instructions.
    QComboBox* elements = page->elementCombo();
    const int mxfp4 = elements->findData("mxfp4");
    QVERIFY(mxfp4 > elements->findData("fp8_e4m3"));
    QVERIFY(elements->findData("nvfp4") > elements->findData("fp16"));
    QVERIFY(elements->findData("mxfp8_e4m3") >= 0);
    QVERIFY(elements->findData("nf4") < 0); // a block format no instruction takes
    QCOMPARE(elements->itemText(mxfp4), QString("mxfp4 (block-scaled)"));
    QCOMPARE(elements->currentIndex(), mxfp4);
    QCOMPARE(*page->state().element, QString("mxfp4"));

    const std::optional<DrawnInstruction>& drawn = page->instruction();
    QVERIFY2(drawn.has_value(), qPrintable(page->errorText()));
    QVERIFY(drawn->isBlock());
    QCOMPARE(drawn->instruction.subBlock, 16);
    QCOMPARE(drawn->instruction.model.fractionBits, 35);
    QCOMPARE(drawn->quantizedA.values.size(), std::size_t(4));
    for (std::size_t i = 0; i < 4; ++i) {
        QVERIFY(drawn->quantizedA.values[i] == ExactValue::dyadic(false, i + 1, 0));
        QVERIFY(drawn->quantizedA.scales[i] == v("1"));
        QVERIFY(drawn->quantizedB.scales[i] == v("1"));
    }
    // c and one run.
    QCOMPARE(drawn->step.terms.size(), std::size_t(2));
    QVERIFY(drawn->step.terms[1].value == v("30"));
    QCOMPARE(drawn->step.alignment, std::int64_t(0));
    QVERIFY(drawn->fates[1] == TermFate::Whole);
    QVERIFY(drawn->step.output == v("30"));
    QVERIFY(drawn->value == v("30"));
    QVERIFY(drawn->inputExact == v("30"));
    QVERIFY(drawn->dequantizedExact == v("30"));
    QCOMPARE(page->picture()->rowLabels(),
             QStringList({"c", "run 1 (a1…a4)·sa·sb", "kept sum", "output", "exact"}));
    const QString summary = page->summaryText();
    QVERIFY2(summary.contains("a → (1, 2, 3, 4) × 2^0"), qPrintable(summary));
    QVERIFY2(summary.contains("of the inputs 30, of the quantized operands 30"),
             qPrintable(summary));
    QVERIFY(!page->picture()->grab().toImage().isNull());

    // Every machine: Blackwell's row, 30 exactly; no machine without a block-scaled
    // instruction for mxfp4.
    page->showView(MachinesPage::View::Table);
    QVERIFY(page->waitUntilIdle(kIdleWait));
    QVERIFY2(page->errorText().isEmpty(), qPrintable(page->errorText()));
    const MachineComparison& comparison = page->comparison();
    QVERIFY(comparison.blockScaled);
    QCOMPARE(int(comparison.rows.size()), machinesTakingCount("mxfp4"));
    QCOMPARE(page->table()->rowCount(), int(comparison.rows.size()));
    bool blackwell = false;
    for (const MachineComparisonRow& row : comparison.rows)
        if (row.machine == "nvidia-blackwell") {
            blackwell = true;
            QVERIFY(row.value == v("30"));
            QVERIFY(row.exact == v("30"));
            QVERIFY(row.ulpsFromNearest && *row.ulpsFromNearest == 0);
        }
    QVERIFY(blackwell);

    // Error against K: Blackwell's curve, one point per K, each above 0 or exact.
    QCOMPARE(applySettings(window, {{"machines", "nvidia-blackwell,nvidia-hopper"},
                                    {"machine-results", "4x4"},
                                    {"machine-kmax", "256"},
                                    {"promote", "0"},
                                    {"machine-view", "error"}}),
             QString());
    QVERIFY(page->waitUntilIdle(kIdleWait));
    QVERIFY2(page->errorText().isEmpty(), qPrintable(page->errorText()));
    const ErrorSweepResult& sweep = page->errorResult();
    QCOMPARE(sweep.request.element.id, std::string("mxfp4"));
    QCOMPARE(sweep.curves.size(), std::size_t(1)); // Hopper has no mxfp4 instruction
    QCOMPARE(sweep.curves.front().machine, std::string("nvidia-blackwell"));
    const std::vector<std::size_t> ks = {16, 32, 64, 128, 256};
    QCOMPARE(sweep.curves.front().points.size(), ks.size());
    for (const MachineErrorPoint& p : sweep.curves.front().points) {
        QVERIFY(p.compared > 0);
        QVERIFY2(p.maxRelativeError >= 0 && std::isfinite(p.maxRelativeError),
                 qPrintable(QString::number(p.maxRelativeError)));
        QCOMPARE(p.nonFinite, std::size_t(0));
    }
    bool curve = false;
    for (int i = 0; i < page->errorPlot()->graphCount(); ++i)
        curve = curve || page->errorPlot()->graph(i)->name().startsWith("nvidia-blackwell");
    QVERIFY(curve);
}

// NVFP4 (E2M1 elements, an E4M3 scale per 16, an FP32 tensor scale) on Blackwell's
// kind::mxf4nvf4, a case worked by hand where a run's sum is zero and still sets the alignment:
//   a = 2688 at 1; 6·2^-9, 2^-10, 2^-10 at 17, 18, 19; 6 at 33 (33 values, zeros elsewhere)
//   b = 2688 at 2; 2^-10, −6·2^-9, 2^-10 at 17, 18, 19; 6 at 33
// The tensor scale is FP32(amax / (448·6)) = 2688 / 2688 = 1. Each block of 16 has the E4M3
// scale amax/6: 448 for run 1 (a → 6, 0, …; b → 0, 6, …), 6·2^-9/6 = 2^-9 (E4M3's smallest
// subnormal) for run 2 (a → 6, 0.5, 0.5; b → 0.5, −6, 0.5), 1 for run 3 (6 and 6).
// The runs: run 1's products are 6·0 and 0·6, its sum 0, but its scales 448·448 align it at
// 8 + 8 = 16, so E = 16 and, with F = 35, kept are multiples of 2^-19. Run 2's sum is
// 3 − 3 + 0.25 = 0.25, times 2^-9·2^-9 it is 2^-20: below 2^-19, it vanishes. Run 3 is 36,
// kept whole. The output is 36 (FP32 holds it; the tensor scales' FP32(1·1) = 1 changes
// nothing), where both the inputs' and the quantized operands' exact value is 36 + 2^-20.
void TestMachinesPage::blockScaledNvfp4RunOfZerosAligns() {
    MainWindow window;
    window.resize(1280, 900);
    window.showPage(MainWindow::Page::Machines);
    window.show();
    MachinesPage* page = window.machinesPage();
    const QString a =
        vectorWith(33, {{1, "2688"}, {17, "6*2^-9"}, {18, "2^-10"}, {19, "2^-10"}, {33, "6"}});
    const QString b =
        vectorWith(33, {{2, "2688"}, {17, "2^-10"}, {18, "-6*2^-9"}, {19, "2^-10"}, {33, "6"}});
    drive(*page, "nvidia-blackwell", "nvfp4", a, b, "0");
    const std::optional<DrawnInstruction>& drawn = page->instruction();
    QVERIFY2(drawn.has_value(), qPrintable(page->errorText()));
    QCOMPARE(drawn->elementId, std::string("nvfp4"));
    QVERIFY(drawn->quantizedA.tensorScale == v("1"));
    QVERIFY(drawn->quantizedA.scales[0] == v("448"));
    QVERIFY(drawn->quantizedA.scales[16] == v("2^-9"));
    QVERIFY(drawn->quantizedB.scales[16] == v("2^-9"));
    QVERIFY(drawn->quantizedA.scales[32] == v("1"));
    QVERIFY(drawn->quantizedB.values[17] == v("-6"));
    QCOMPARE(drawn->step.terms.size(), std::size_t(4)); // c and three runs
    QCOMPARE(drawn->step.alignment, std::int64_t(16));
    QVERIFY(drawn->fates[1] == TermFate::Zero);
    QVERIFY(drawn->step.terms[1].aligns);
    QVERIFY(drawn->step.terms[2].value == v("2^-20"));
    QVERIFY(drawn->fates[2] == TermFate::Vanished);
    QVERIFY(drawn->fates[3] == TermFate::Whole);
    QVERIFY(drawn->step.output == v("36"));
    QVERIFY(drawn->value == v("36"));
    QVERIFY(drawn->inputExact == v("36.00000095367431640625"));
    QVERIFY(drawn->dequantizedExact == v("36.00000095367431640625"));
    QCOMPARE(page->picture()->rowLabels(),
             QStringList({"c", "run 1 (a1…a16)·sa·sb", "run 2 (a17…a32)·sa·sb", "run 3 (a33)·sa·sb",
                          "kept sum", "output", "exact"}));
    const QString summary = page->summaryText();
    QVERIFY2(summary.contains("1 of 4 terms lost bits (1 vanished)"), qPrintable(summary));
    QVERIFY2(summary.contains("epilogue"), qPrintable(summary));
    QVERIFY2(summary.contains("2^-20 below"), qPrintable(summary));

    // The table: Blackwell's row returns the same 36.
    page->showView(MachinesPage::View::Table);
    QVERIFY(page->waitUntilIdle(kIdleWait));
    bool blackwell = false;
    for (const MachineComparisonRow& row : page->comparison().rows)
        if (row.machine == "nvidia-blackwell") {
            blackwell = true;
            QVERIFY(row.value == v("36"));
        }
    QVERIFY(blackwell);
}

void TestMachinesPage::optionsRoundTrip() {
    MainWindow window;
    QCOMPARE(applySettings(window, {{"page", "machines"},
                                    {"machine", "nvidia-blackwell"},
                                    {"machine-element", "bf16"},
                                    {"machine-a", "1, 2, 3"},
                                    {"machine-b", "0.5, 0.25, 2^-20"},
                                    {"machine-c", "10"},
                                    {"machines", "nvidia-ampere,nvidia-hopper"},
                                    {"promote", "256"},
                                    {"machine-stat", "mean"},
                                    {"machine-dist", "uniform:-1:1"},
                                    {"machine-results", "4x8"},
                                    {"machine-seed", "7"},
                                    {"machine-kmax", "1024"},
                                    {"machine-table-k", "64"},
                                    {"machine-view", "table"}}),
             QString());
    MachinesPage& page = *window.machinesPage();
    const MachinesPageState s = page.state();
    QCOMPARE(*s.machine, QString("nvidia-blackwell"));
    QCOMPARE(*s.element, QString("bf16"));
    QCOMPARE(*s.a, QString("1, 2, 3"));
    QCOMPARE(*s.b, QString("0.5, 0.25, 2^-20"));
    QCOMPARE(*s.c, QString("10"));
    QCOMPARE(*s.machines, QStringList({"nvidia-ampere", "nvidia-hopper"}));
    QCOMPARE(*s.promote, 256);
    QVERIFY(*s.statistic == MachinesPageState::Statistic::Mean);
    QCOMPARE(*s.dist, QString("uniform:-1:1"));
    QCOMPARE(*s.resultRows, 4);
    QCOMPARE(*s.resultColumns, 8);
    QCOMPARE(*s.seed, 7ULL);
    QCOMPARE(*s.kMax, 1024);
    QCOMPARE(*s.tableK, 64);
    QVERIFY(*s.view == MachinesPage::View::Table);
    QCOMPARE(page.apply(s), QString());
    const MachinesPageState t = page.state();
    QCOMPARE(*t.machine, *s.machine);
    QCOMPARE(*t.element, *s.element);
    QCOMPARE(*t.a, *s.a);
    QCOMPARE(*t.machines, *s.machines);
    QCOMPARE(*t.promote, *s.promote);
    QCOMPARE(*t.dist, *s.dist);
    QCOMPARE(*t.tableK, *s.tableK);
    QVERIFY(*t.view == *s.view);
    // A machine alone brings its own element when it lacks the one shown.
    QCOMPARE(applySettings(window, {{"machine", "nvidia-volta"}}), QString());
    QCOMPARE(*page.state().element, QString("fp16"));
}

void TestMachinesPage::badOptionsSayWhichKey() {
    PageStates states(PageStates::Source::Lesson);
    const std::vector<QString> problems = states.set({{"promote", "100"},
                                                      {"machine", ""},
                                                      {"machine-element", "nf4"},
                                                      {"machines", "fused:13"},
                                                      {"machine-results", "16"},
                                                      {"machine-kmax", "1000"},
                                                      {"machine-dist", "normal:0"},
                                                      {"machine-view", "plot"}});
    QCOMPARE(problems[0], QString("--promote: expected 0 (off) or a multiple of 16 up to 512"));
    QCOMPARE(problems[1], QString("--machine: expected a machine's name or fused:F[:G]"));
    QVERIFY2(problems[2].startsWith("--machine-element: "), qPrintable(problems[2]));
    QVERIFY(problems[3].isEmpty()); // names are the page's to check: a machine file adds some
    QCOMPARE(problems[4], QString("--machine-results: expected MxN, each 1 to 64, e.g. 16x16"));
    QCOMPARE(problems[5], QString("--machine-kmax: expected a power of two from 64 to 16384"));
    QVERIFY2(problems[6].startsWith("--machine-dist: "), qPrintable(problems[6]));
    QCOMPARE(problems[7], QString("--machine-view: use instruction, error or table"));

    // What needs the page: the machines' names, the vectors, and the machine and the element
    // together.
    MainWindow names;
    const QString unknown = applySettings(names, {{"machine", "nvidia-nope"}});
    QVERIFY2(unknown.startsWith("--machine: unknown machine 'nvidia-nope' (use nvidia-"),
             qPrintable(unknown));
    const QString notPlotted = applySettings(names, {{"machines", "nvidia-hopper,fused:13"}});
    QVERIFY2(notPlotted.startsWith("--machines: 'fused:13' is not a built-in machine (use nvidia-"),
             qPrintable(notPlotted));
    MainWindow window;
    QCOMPARE(applySettings(window, {{"machine-a", "1, x"}}),
             QString("--machine-a: item 2 ('x'): expected a number, found character 'x'"));
    MainWindow second;
    QCOMPARE(applySettings(second, {{"machine", "nvidia-volta"}, {"machine-element", "bf16"}}),
             QString("--machine-element: nvidia-volta has no instruction for bf16 (its "
                     "elements: fp16)"));
    MainWindow third;
    QVERIFY(applySettings(third, {{"machine-a", "1,2,3"}, {"machine-b", "1,2"}})
                .startsWith("--machine-b: a has 3 values and b 2"));
}

void TestMachinesPage::machineFileJoinsTheBuiltIns() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // One machine at F = 16, and a copy of Hopper's FP8 instruction under another name.
    const QString path = dir.filePath("mine.machines");
    QVERIFY(writeFile(path, "# two machines of my own\n"
                            "machine my-fp8\n"
                            "description FP8 summed at 16 fraction bits, e8m13 output\n"
                            "instruction fp8_e4m3 products=32 fraction-bits=16 "
                            "output=e8m13-toward-zero\n"
                            "\n"
                            "machine my-hopper\n"
                            "instruction fp8_e4m3,fp8_e5m2 products=32 fraction-bits=13 "
                            "output=e8m13-toward-zero\n"));
    const std::size_t builtIns = builtInMachines().size();

    MainWindow window;
    window.resize(1024, 768);
    MachinesPage* page = window.machinesPage();
    // The file is applied before the names that are its machines'.
    QCOMPARE(applySettings(window, {{"machine", "my-hopper"},
                                    {"machines", "my-fp8,my-hopper,nvidia-hopper"},
                                    {"machine-file", path},
                                    {"machine-element", "fp8_e4m3"},
                                    {"machine-a", kA},
                                    {"machine-b", kB},
                                    {"machine-c", "1"},
                                    {"machine-results", "2x2"},
                                    {"machine-kmax", "256"},
                                    {"page", "machines"}}),
             QString());
    window.show();
    QCOMPARE(page->machineFile(), path);
    QCOMPARE(page->catalogue().size(), builtIns + 2);
    QCOMPARE(page->catalogue()[0]->name, std::string("my-fp8"));
    QVERIFY2(page->machineFileLabel()->text().startsWith("2 machines from mine.machines"),
             qPrintable(page->machineFileLabel()->text()));
    // The machine combo box and the error plot's list hold them, first.
    QCOMPARE(page->machineCombo()->count(), int(builtIns + 2));
    QCOMPARE(page->machineCombo()->itemText(0), QString("my-fp8"));
    QCOMPARE(page->machineCombo()->itemText(1), QString("my-hopper"));
    QCOMPARE(page->machineList()->count(), int(builtIns + 2));
    QCOMPARE(page->machineList()->item(0)->text(), QString("my-fp8"));
    QCOMPARE(page->machineList()->item(1)->text(), QString("my-hopper"));
    QVERIFY(page->machineList()->item(0)->flags() & Qt::ItemIsEnabled);

    // The copy draws what Hopper draws, bit for bit.
    QVERIFY(page->instruction().has_value());
    const DrawnInstruction copy = *page->instruction();
    QCOMPARE(copy.machine.name, std::string("my-hopper"));
    page->machineCombo()->setCurrentText("nvidia-hopper");
    QVERIFY(page->instruction().has_value());
    const DrawnInstruction hopper = *page->instruction();
    QVERIFY(copy.step.output.isIdenticalTo(hopper.step.output));
    QCOMPARE(roundToFormat(copy.step.output, copy.outputFormat()).code,
             roundToFormat(hopper.step.output, hopper.outputFormat()).code);
    QCOMPARE(copy.step.terms.size(), hopper.step.terms.size());
    for (std::size_t t = 0; t < copy.step.terms.size(); ++t)
        QVERIFY(copy.step.terms[t].kept.isIdenticalTo(hopper.step.terms[t].kept));
    QVERIFY(copy.fates == hopper.fates);
    QVERIFY(copy.step.output == v("1.1884765625"));
    // F = 16 keeps the 2^-14 bits Hopper's F = 13 drops.
    page->machineCombo()->setCurrentText("my-fp8");
    QVERIFY(page->instruction().has_value());
    QCOMPARE(page->instruction()->instruction.model.fractionBits, 16);
    QVERIFY(page->instruction()->step.output == v("1.1885986328125"));

    // The error plot measures them, each in a colour of its own.
    page->showView(MachinesPage::View::Error);
    QVERIFY(page->waitUntilIdle(kIdleWait));
    QVERIFY2(page->errorText().isEmpty(), qPrintable(page->errorText()));
    QStringList curves;
    for (const MachineErrorCurve& curve : page->errorResult().curves)
        if (curve.promoteEvery == 0)
            curves << QString::fromStdString(curve.machine);
    QCOMPARE(curves, QStringList({"my-fp8", "my-hopper", "nvidia-hopper"}));
    QSet<QRgb> colours;
    for (int g = 0; g < page->errorPlot()->graphCount(); ++g)
        colours << page->errorPlot()->graph(g)->pen().color().rgb();
    QVERIFY(colours.size() >= 3);

    // The table: a row for each machine taking the element, one's own among them.
    page->showView(MachinesPage::View::Table);
    QVERIFY(page->waitUntilIdle(kIdleWait));
    QCOMPARE(page->table()->rowCount(), machinesTakingCount("fp8_e4m3") + 2);
    const MachineComparisonRow* mine = nullptr;
    const MachineComparisonRow* theirs = nullptr;
    for (const MachineComparisonRow& row : page->comparison().rows) {
        mine = row.machine == "my-hopper" ? &row : mine;
        theirs = row.machine == "nvidia-hopper" ? &row : theirs;
    }
    QVERIFY(mine && theirs);
    QVERIFY(mine->value.isIdenticalTo(theirs->value));
    QCOMPARE(mine->bits, theirs->bits);
    QCOMPARE(page->comparison().rows.front().machine, std::string("my-fp8"));

    // The state reads the file back, and applies unchanged.
    const MachinesPageState s = page->state();
    QCOMPARE(*s.machineFile, path);
    QCOMPARE(*s.machine, QString("my-fp8"));
    QCOMPARE(page->apply(s), QString());
    const MachinesPageState t = page->state();
    QCOMPARE(*t.machineFile, *s.machineFile);
    QCOMPARE(*t.machine, *s.machine);
    QCOMPARE(*t.machines, *s.machines);
    QCOMPARE(page->catalogue().size(), builtIns + 2);

    // A broken file is refused with its line and column; the catalogue stays as it was.
    const QString broken = dir.filePath("broken.machines");
    QVERIFY(writeFile(broken, "machine my-wide\n"
                              "instruction fp8_e4m3 products=32 fraction-bits=300\n"));
    const QString problem = applySettings(window, {{"machine-file", broken}});
    QVERIFY2(
        QRegularExpression("^--machine-file: " + QRegularExpression::escape(broken) + ":2:\\d+: .+")
            .match(problem)
            .hasMatch(),
        qPrintable(problem));
    QCOMPARE(page->machineFile(), path);
    QCOMPARE(page->catalogue().size(), builtIns + 2);
    QCOMPARE(page->machineCombo()->count(), int(builtIns + 2));
    QVERIFY(page->machineFileLabel()->text().contains(broken + ":2:"));
    QVERIFY(page->machineFileLabel()->styleSheet().contains("color"));
    // Another file replaces the first's machines; none leaves the built-in ones.
    const QString other = dir.filePath("other.machines");
    QVERIFY(writeFile(other, "machine my-one\n"
                             "instruction fp16 products=16 fraction-bits=30\n"));
    QCOMPARE(applySettings(window, {{"machine-file", other}, {"machine", "my-one"}}), QString());
    QCOMPARE(page->catalogue().size(), builtIns + 1);
    QCOMPARE(page->machineCombo()->itemText(0), QString("my-one"));
    QCOMPARE(*page->state().element, QString("fp16")); // the machine brought its element
    QVERIFY2(page->machineFileLabel()->text().startsWith("1 machine from other.machines"),
             qPrintable(page->machineFileLabel()->text()));
    QCOMPARE(applySettings(window, {{"machine-file", ""}, {"machine", "nvidia-ampere"}}),
             QString());
    QCOMPARE(page->catalogue().size(), builtIns);
    QCOMPARE(*page->state().machineFile, QString());
    QVERIFY(!page->machineFileLabel()->isVisible());
}

void TestMachinesPage::exports() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    MainWindow window;
    window.resize(1280, 900);
    MachinesPage* page = window.machinesPage();
    QCOMPARE(applySettings(window, {{"page", "machines"},
                                    {"machines", "nvidia-hopper"},
                                    {"machine-results", "2x2"},
                                    {"machine-kmax", "256"}}),
             QString());
    window.show();
    QVERIFY(page->exportTo(dir.filePath("instruction.png")));
    QVERIFY(!QImage(dir.filePath("instruction.png")).isNull());
    QVERIFY(page->exportTo(dir.filePath("instruction.svg")));
    QVERIFY(QFileInfo(dir.filePath("instruction.svg")).size() > 0);
    QString error;
    QVERIFY(!page->exportTo(dir.filePath("instruction.csv"), &error));
    QVERIFY(!error.isEmpty());

    page->showView(MachinesPage::View::Error);
    QVERIFY(page->waitUntilIdle(kIdleWait));
    QVERIFY(page->exportTo(dir.filePath("error.csv")));
    QFile csv(dir.filePath("error.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QList<QByteArray> lines = csv.readAll().split('\n');
    QVERIFY(lines.front().startsWith("machine,element,distribution,promote,k,"));
    QCOMPARE(lines.size(), 1 + 2 * 5 + 1); // header, two curves of K = 16 … 256, last newline
    QVERIFY(page->exportTo(dir.filePath("error.png")));
    QVERIFY(page->exportTo(dir.filePath("error.pdf")));

    page->showView(MachinesPage::View::Table);
    QVERIFY(page->waitUntilIdle(kIdleWait));
    QVERIFY(page->exportTo(dir.filePath("table.csv")));
    QFile table(dir.filePath("table.csv"));
    QVERIFY(table.open(QIODevice::ReadOnly));
    const QList<QByteArray> rows = table.readAll().split('\n');
    QCOMPARE(rows.size(), 1 + machinesTakingCount("fp8_e4m3") + 1);
}

void TestMachinesPage::headlessScreenshot() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString file = dir.filePath("machines.png");
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    process.setProcessEnvironment(env);
    process.start(FPX_EXPLORER_PATH, {"--no-settings", "--page", "machines", "--machine-view",
                                      "error", "--machine-results", "2x2", "--machine-kmax", "256",
                                      "--size", "1024x768", "--screenshot", file});
    QVERIFY(process.waitForFinished(120000));
    QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
    const QImage image(file);
    QCOMPARE(image.size(), QSize(1024, 768));
    // A form that does not read fails the screenshot with its message.
    process.start(FPX_EXPLORER_PATH, {"--no-settings", "--machine-a", "1", "--machine-b", "1, 2",
                                      "--screenshot", file});
    QVERIFY(process.waitForFinished(120000));
    QCOMPARE(process.exitCode(), 2);
    QVERIFY(process.readAllStandardError().contains("--machine-b: a has 1 value and b 2"));
}

QTEST_MAIN(TestMachinesPage)
#include "tst_machines_page.moc"
