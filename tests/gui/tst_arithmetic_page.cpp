// SPDX-License-Identifier: GPL-3.0-or-later
// The explorer's Arithmetic page with real widgets, offscreen: an expression typed into the
// field, the accumulation lab run and cancelled, the stochastic-rounding lab and the master
// weights, checked against hardware arithmetic and hand-derived values.
#include "gui_waits.h"
#include "pages/arithmetic/accumulation_panel.h"
#include "pages/arithmetic/arithmetic_page.h"
#include "pages/arithmetic/expression_model.h"
#include "pages/arithmetic/expression_panel.h"
#include "pages/arithmetic/master_weights_panel.h"
#include "pages/arithmetic/stochastic_panel.h"
#include "shell/main_window.h"

#include <qcustomplot.h>

#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/value_parser.h"

#include <QComboBox>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <optional>

#include <bit>
#include <cstdint>
#include <cstdio>

using namespace fpx;
using namespace fpx::gui;

namespace {

std::vector<FormatSpec> specs(const char* list) {
    return findFormats(list).specs;
}

// The window with `formats` shown, on the Arithmetic page (and one of its labs), shown.
void openArithmetic(MainWindow& window, const char* formats,
                    std::optional<ArithmeticPage::Lab> lab = std::nullopt) {
    window.controller()->setFormats(specs(formats));
    window.showPage(MainWindow::Page::Arithmetic);
    if (lab)
        window.arithmeticPage()->showLab(*lab);
    window.show();
}

QString hex64(std::uint64_t bits) {
    char text[32];
    std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(bits));
    return QString::fromLatin1(text);
}

QString hex32(std::uint32_t bits) {
    char text[32];
    std::snprintf(text, sizeof text, "0x%08x", bits);
    return QString::fromLatin1(text);
}

ExactValue exact(const char* text) {
    return *parseValue(text).value;
}

void typeInto(QLineEdit* edit, const QString& text) {
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Backspace);
    QTest::keyClicks(edit, text);
}

int rowOf(const ExpressionModel* model, const QString& id) {
    for (int r = 0; r < model->rowCount(); ++r)
        if (model->fullText(r, ExpressionModel::Format) == id)
            return r;
    return -1;
}

int rowOf(const QTableWidget* table, int idColumn, const QString& id, int secondColumn = -1,
          const QString& second = {}) {
    for (int r = 0; r < table->rowCount(); ++r)
        if (table->item(r, idColumn) && table->item(r, idColumn)->text() == id &&
            (secondColumn < 0 || table->item(r, secondColumn)->text() == second))
            return r;
    return -1;
}

// Waits for the accumulation lab's current run (if any) to end.
bool waitForLab(AccumulationPanel* lab, int ms = 60000) {
    return fpx::test::waitWhileBusy(
        lab, &AccumulationPanel::finished, [lab] { return lab->isRunning(); }, ms);
}

// The Stochastic rounding lab shown, rounding into FP16.
StochasticPanel* stochasticLabInFp16(MainWindow& window) {
    window.showPage(MainWindow::Page::Arithmetic);
    window.arithmeticPage()->showLab(ArithmeticPage::Lab::Stochastic);
    window.show();
    StochasticPanel* panel = window.arithmeticPage()->stochasticPanel();
    panel->setFormat("fp16");
    return panel;
}

} // namespace

class TestArithmeticPage : public QObject {
    Q_OBJECT

  private slots:
    void init();
    void pageAndShortcut();
    void expressionInEveryFormat();
    void badExpressionNamesTheColumn();
    void stepsOfTheSelectedRow();
    void noArithmeticRows();
    void accumulationOfOnes();
    void accumulationCancels();
    void accumulationExports();
    void accumulationBadInput();
    void accumulationOfSignedTerms();
    void stochasticNeighbours();
    void stochasticSmallTerms();
    void stochasticWithFewRandomBits();
    void masterWeights();
    void screenshotFlag();

  private:
    QTemporaryDir dir_;
};

void TestArithmeticPage::init() {
    QVERIFY(dir_.isValid());
}

void TestArithmeticPage::pageAndShortcut() {
    MainWindow window;
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QCOMPARE(window.currentPage(), MainWindow::Page::Explorer);
    QTest::keyClick(&window, Qt::Key_3, Qt::ControlModifier);
    QCOMPARE(window.currentPage(), MainWindow::Page::Arithmetic);
    QVERIFY(window.arithmeticPage()->isVisible());
    QTest::keyClick(&window, Qt::Key_1, Qt::ControlModifier);
    QCOMPARE(window.currentPage(), MainWindow::Page::Explorer);
    // The page shares the explorer's rounding: a choice on one shows on the other.
    auto* pageRound = window.arithmeticPage()->findChild<QComboBox*>("arithmeticRounding");
    auto* explorerRound = window.findChild<QComboBox*>("roundingMode");
    QVERIFY(pageRound && explorerRound);
    pageRound->setCurrentIndex(pageRound->findData(QString("rtz")));
    QCOMPARE(window.controller()->roundingMode(), RoundingMode::TowardZero);
    QCOMPARE(explorerRound->currentData().toString(), QString("rtz"));
}

void TestArithmeticPage::expressionInEveryFormat() {
    MainWindow window;
    openArithmetic(window, "fp64,fp32,fp16,bf16", ArithmeticPage::Lab::Expression);
    ExpressionPanel* panel = window.arithmeticPage()->expressionPanel();
    typeInto(panel->expressionEdit(), "0.1+0.2");
    QVERIFY(panel->inputError().isEmpty());
    const ExpressionModel* model = panel->model();

    // The hardware: an FP64 program adds the two doubles and gets 0x3fd3333333333334; the
    // double nearest 0.3 is 0x3fd3333333333333.
    volatile double a = 0.1;
    volatile double b = 0.2;
    const double sum = a + b;
    const QString machine = hex64(std::bit_cast<std::uint64_t>(sum));
    const QString nearest = hex64(std::bit_cast<std::uint64_t>(0.3));
    QCOMPARE(machine, QString("0x3fd3333333333334"));
    const int fp64 = rowOf(model, "fp64");
    QVERIFY(fp64 >= 0);
    QCOMPARE(model->fullText(fp64, ExpressionModel::Hex), machine);
    QVERIFY(machine != nearest);
    QVERIFY(model->row(fp64).differsFromRoundedOnce());
    QVERIFY2(model->fullText(fp64, ExpressionModel::RoundedOnce).contains(nearest),
             qPrintable(model->fullText(fp64, ExpressionModel::RoundedOnce)));
    QCOMPARE(model->fullText(fp64, ExpressionModel::Result),
             QString("0.3000000000000000444089209850062616169452667236328125"));

    // FP32: float arithmetic of the hardware, and there 0.1f + 0.2f is the float nearest 0.3.
    volatile float fa = 0.1f;
    volatile float fb = 0.2f;
    const float fsum = fa + fb;
    const int fp32 = rowOf(model, "fp32");
    QCOMPARE(model->fullText(fp32, ExpressionModel::Hex),
             hex32(std::bit_cast<std::uint32_t>(fsum)));
    QCOMPARE(model->row(fp32).differsFromRoundedOnce(),
             std::bit_cast<std::uint32_t>(fsum) != std::bit_cast<std::uint32_t>(0.3f));

    // fma rounds once: fma(0.1, 10, -1) in FP64 is std::fma's result, not 0.1*10-1's.
    typeInto(panel->expressionEdit(), "fma(0.1,10,-1)");
    volatile double ten = 10;
    volatile double minusOne = -1;
    QCOMPARE(model->fullText(fp64, ExpressionModel::Hex),
             hex64(std::bit_cast<std::uint64_t>(std::fma(a, ten, minusOne))));
    typeInto(panel->expressionEdit(), "sqrt(2)");
    volatile double two = 2;
    QCOMPARE(model->fullText(fp64, ExpressionModel::Hex),
             hex64(std::bit_cast<std::uint64_t>(std::sqrt(two))));
    QCOMPARE(model->fullText(fp32, ExpressionModel::Hex),
             hex32(std::bit_cast<std::uint32_t>(std::sqrt(static_cast<float>(two)))));
}

void TestArithmeticPage::badExpressionNamesTheColumn() {
    MainWindow window;
    openArithmetic(window, "fp64,fp16", ArithmeticPage::Lab::Expression);
    ExpressionPanel* panel = window.arithmeticPage()->expressionPanel();
    typeInto(panel->expressionEdit(), "0.5+1");
    const int fp16 = rowOf(panel->model(), "fp16");
    QCOMPARE(panel->model()->fullText(fp16, ExpressionModel::Hex), QString("0x3e00"));
    typeInto(panel->expressionEdit(), "0.5+*1");
    auto* error = panel->findChild<QLabel*>("expressionError");
    QVERIFY(error && error->isVisible());
    QVERIFY2(error->text().contains("Column 5"), qPrintable(error->text()));
    QCOMPARE(panel->expressionEdit()->text(), QString("0.5+*1"));
    // Typed one key at a time: "0.5+" did not parse either, "0.5" did, and the rows keep it.
    QCOMPARE(panel->model()->fullText(fp16, ExpressionModel::Hex), QString("0x3800"));
    typeInto(panel->expressionEdit(), "(1+2");
    QVERIFY(error->isVisible());
    QVERIFY2(error->text().contains("Column"), qPrintable(error->text()));
    typeInto(panel->expressionEdit(), "(1+2)");
    QVERIFY(!error->isVisible());
    QCOMPARE(panel->model()->fullText(fp16, ExpressionModel::Hex), QString("0x4200"));
}

void TestArithmeticPage::stepsOfTheSelectedRow() {
    MainWindow window;
    openArithmetic(window, "fp64,fp16");
    ExpressionPanel* panel = window.arithmeticPage()->expressionPanel();
    typeInto(panel->expressionEdit(), "0.1+0.2");
    panel->selectRow(rowOf(panel->model(), "fp16"));
    const QString steps = panel->stepsView()->toPlainText();
    QVERIFY2(steps.contains("0.1+0.2 in fp16"), qPrintable(steps));
    // 0.1 in FP16 is 0x2e66, 0.2 is 0x3266 (fpx show; IEEE binary16 by hand: 0.1 = 1.6 × 2^-4,
    // 0.6 × 1024 = 614.4 → 614 = 0x266 under exponent field 11 = 0b01011).
    QVERIFY2(steps.contains("0x2e66"), qPrintable(steps));
    QVERIFY2(steps.contains("0x3266"), qPrintable(steps));
    QVERIFY2(steps.contains("Step 1"), qPrintable(steps));
    panel->selectRow(rowOf(panel->model(), "fp64"));
    QVERIFY(panel->stepsView()->toPlainText().contains("0x3fd3333333333334"));
}

void TestArithmeticPage::noArithmeticRows() {
    MainWindow window;
    openArithmetic(window, "fp16,nf4,e8m0");
    ExpressionPanel* panel = window.arithmeticPage()->expressionPanel();
    typeInto(panel->expressionEdit(), "1+1");
    for (const char* id : {"nf4", "fp8_e8m0"}) {
        const int row = rowOf(panel->model(), id);
        QVERIFY2(row >= 0, id);
        QCOMPARE(panel->model()
                     ->data(panel->model()->index(row, ExpressionModel::Bits), Qt::DisplayRole)
                     .toString(),
                 QString("no arithmetic"));
        QCOMPARE(panel->model()->fullText(row, ExpressionModel::Hex), QString());
    }
    auto* weights = window.arithmeticPage()->masterWeightsPanel();
    const int nf4 = rowOf(weights->table(), MasterWeightsPanel::Format, "nf4");
    QCOMPARE(weights->table()->item(nf4, MasterWeightsPanel::Weight)->text(),
             QString("no arithmetic"));
}

void TestArithmeticPage::accumulationOfOnes() {
    MainWindow window;
    window.showPage(MainWindow::Page::Arithmetic);
    window.arithmeticPage()->showLab(ArithmeticPage::Lab::Accumulation);
    window.show();
    AccumulationPanel* lab = window.arithmeticPage()->accumulationPanel();
    QVERIFY(waitForLab(lab)); // the first showing runs the defaults
    lab->setTerms(4096);
    lab->setDistribution("ones");
    lab->setElement(QString());
    lab->setAccumulators({"fp16", "bf16"});
    lab->setMethods({"sequential", "pairwise", "kahan"});
    QSignalSpy finished(lab, &AccumulationPanel::finished);
    QTest::mouseClick(lab->runButton(), Qt::LeftButton);
    QVERIFY(finished.wait(60000));
    QVERIFY(!lab->isRunning());

    // FP16 has 11 significant bits: from 2048 on its ULP is 2, so 2048 + 1 is a tie that goes
    // to the even 2048; BF16 (8 bits) stops at 256 the same way. Pairwise and Kahan reach 4096.
    const QTableWidget* table = lab->table();
    auto sumOf = [&](const char* accumulator, const char* method) {
        const int row = rowOf(table, AccumulationPanel::Accumulator, accumulator,
                              AccumulationPanel::Method, method);
        return row < 0 ? QString("missing") : table->item(row, AccumulationPanel::Sum)->text();
    };
    QCOMPARE(sumOf("fp16", "sequential"), QString("2048"));
    QCOMPARE(sumOf("bf16", "sequential"), QString("256"));
    QCOMPARE(sumOf("fp16", "pairwise"), QString("4096"));
    QCOMPARE(sumOf("fp16", "kahan"), QString("4096"));
    const int fp16 = rowOf(table, AccumulationPanel::Accumulator, "fp16", AccumulationPanel::Method,
                           "sequential");
    QCOMPARE(table->item(fp16, AccumulationPanel::ExactSum)->text(), QString("4096"));
    QCOMPARE(table->item(fp16, AccumulationPanel::Bits)->text(), QString("0x6800"));
    QCOMPARE(table->item(fp16, AccumulationPanel::Stagnation)->text(), QString("2,048"));

    // The plot: the FP16 sequential curve ends at 2048, with a stagnation marker there.
    QCustomPlot* plot = lab->plot();
    QCPGraph* curve = nullptr;
    for (int i = 0; i < plot->graphCount(); ++i)
        if (plot->graph(i)->name() == "fp16 sequential")
            curve = plot->graph(i);
    QVERIFY(curve);
    QVERIFY(!curve->data()->isEmpty());
    QCOMPARE((curve->data()->constEnd() - 1)->key, 4096.0);
    QCOMPARE((curve->data()->constEnd() - 1)->value, 2048.0);
    bool marker = false;
    for (int i = 0; i < plot->graphCount(); ++i) {
        QCPGraph* g = plot->graph(i);
        if (g->lineStyle() == QCPGraph::lsNone && g->data()->size() == 1 &&
            g->data()->constBegin()->key == 2049.0 && g->data()->constBegin()->value == 2048.0)
            marker = true;
    }
    QVERIFY(marker);
}

void TestArithmeticPage::accumulationCancels() {
    MainWindow window;
    window.showPage(MainWindow::Page::Arithmetic);
    window.arithmeticPage()->showLab(ArithmeticPage::Lab::Accumulation);
    window.show();
    AccumulationPanel* lab = window.arithmeticPage()->accumulationPanel();
    QVERIFY(waitForLab(lab));
    // Toward zero has no hardware path: every addition goes through the exact core, far too
    // many for the test to wait for.
    window.controller()->setRoundingMode(RoundingMode::TowardZero);
    lab->setTerms(20'000'000);
    lab->setDistribution("uniform:0:1");
    lab->setAccumulators({"fp16"});
    lab->setMethods({"kahan"});
    QSignalSpy finished(lab, &AccumulationPanel::finished);
    QTest::mouseClick(lab->runButton(), Qt::LeftButton);
    QVERIFY(lab->isRunning());
    QVERIFY(lab->cancelButton()->isEnabled());
    QVERIFY(!lab->runButton()->isEnabled());
    // The GUI thread stays free: the event loop runs and the progress bar moves.
    QTRY_VERIFY_WITH_TIMEOUT(lab->progressBar()->value() > 0, 30000);
    QTest::mouseClick(lab->cancelButton(), Qt::LeftButton);
    QVERIFY(finished.wait(10000));
    QVERIFY(!lab->isRunning());
    QVERIFY(lab->result().cancelled); // stopped part-way, not run to its end
    QVERIFY2(lab->statusText().contains("Cancelled"), qPrintable(lab->statusText()));
    QVERIFY(lab->runButton()->isEnabled());
}

void TestArithmeticPage::accumulationExports() {
    MainWindow window;
    window.showPage(MainWindow::Page::Arithmetic);
    window.arithmeticPage()->showLab(ArithmeticPage::Lab::Accumulation);
    window.show();
    AccumulationPanel* lab = window.arithmeticPage()->accumulationPanel();
    QVERIFY(waitForLab(lab));
    for (const char* suffix : {"png", "pdf", "svg", "csv"}) {
        const QString path = dir_.filePath(QStringLiteral("acc.") + suffix);
        QString error;
        QVERIFY2(lab->exportTo(path, &error), qPrintable(error));
        QVERIFY2(QFile(path).size() > 100, suffix);
    }
    QFile csv(dir_.filePath("acc.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(csv.readAll());
    QVERIFY(text.startsWith("accumulator,element,method,point,terms,sum,exact_sum,rel_error,"));
    QVERIFY2(text.contains("fp16,fp16,sequential,final,4096,2048,4096,-0.5,2048"),
             qPrintable(text.right(600)));
    QVERIFY(QImage(dir_.filePath("acc.png")).width() > 500);
    QString error;
    QVERIFY(!lab->exportTo(dir_.filePath("acc.bmp"), &error));
    QVERIFY2(error.contains("unknown file type"), qPrintable(error));
}

void TestArithmeticPage::accumulationBadInput() {
    MainWindow window;
    window.showPage(MainWindow::Page::Arithmetic);
    window.arithmeticPage()->showLab(ArithmeticPage::Lab::Accumulation);
    window.show();
    AccumulationPanel* lab = window.arithmeticPage()->accumulationPanel();
    QVERIFY(waitForLab(lab));
    QSignalSpy finished(lab, &AccumulationPanel::finished);
    lab->setDistribution("uniform:1:0");
    QTest::mouseClick(lab->runButton(), Qt::LeftButton);
    QVERIFY(finished.wait(60000));
    QVERIFY2(lab->statusText().contains("uniform"), qPrintable(lab->statusText()));
    lab->setDistribution("file:" + dir_.filePath("missing.txt"));
    QTest::mouseClick(lab->runButton(), Qt::LeftButton);
    QVERIFY(finished.wait(60000));
    QVERIFY2(lab->statusText().contains("missing.txt"), qPrintable(lab->statusText()));
    lab->setDistribution("ones");
    lab->setAccumulators({});
    QTest::mouseClick(lab->runButton(), Qt::LeftButton);
    QVERIFY2(lab->statusText().contains("at least one accumulator"), qPrintable(lab->statusText()));
    QVERIFY(lab->runButton()->isEnabled());
}

void TestArithmeticPage::accumulationOfSignedTerms() {
    MainWindow window;
    window.showPage(MainWindow::Page::Arithmetic);
    window.arithmeticPage()->showLab(ArithmeticPage::Lab::Accumulation);
    window.resize(1300, 760);
    window.show();
    AccumulationPanel* lab = window.arithmeticPage()->accumulationPanel();
    QVERIFY(waitForLab(lab));
    lab->setTerms(100000);
    lab->setDistribution("normal:0:1");
    lab->setElement("fp16");
    lab->setAccumulators({"fp16", "bf16", "fp32"});
    lab->setMethods({"sequential", "blocked:64"});
    QSignalSpy finished(lab, &AccumulationPanel::finished);
    QTest::mouseClick(lab->runButton(), Qt::LeftButton);
    QVERIFY(finished.wait(60000));
    // Sums of signed terms cross zero: the sum axis is linear, the error axis stays logarithmic.
    QCustomPlot* plot = lab->plot();
    QCOMPARE(plot->axisRects().size(), 2);
    QCOMPARE(plot->axisRects()[0]->axis(QCPAxis::atLeft)->scaleType(), QCPAxis::stLinear);
    QCOMPARE(plot->axisRects()[1]->axis(QCPAxis::atLeft)->scaleType(), QCPAxis::stLogarithmic);
    // One exact curve: every run sums the same FP16 terms.
    int exactCurves = 0;
    for (int i = 0; i < plot->graphCount(); ++i)
        exactCurves += plot->graph(i)->name().startsWith("exact sum") ? 1 : 0;
    QCOMPARE(exactCurves, 1);
    // blocked:64 promotes each block's sum into FP32: its result is an FP32 code.
    const QTableWidget* table = lab->table();
    const int blocked = rowOf(table, AccumulationPanel::Accumulator, "bf16 (terms fp16)",
                              AccumulationPanel::Method, "blocked:64");
    QVERIFY(blocked >= 0);
    QCOMPARE(table->item(blocked, AccumulationPanel::Bits)->text().size(), 10); // 0x + 8 digits
}

void TestArithmeticPage::stochasticNeighbours() {
    MainWindow window;
    StochasticPanel* panel = stochasticLabInFp16(window);
    typeInto(panel->findChild<QLineEdit*>("srValueEdit"), "0.1");
    QVERIFY(panel->summary() && panel->summary()->outcomes);
    // FP16 around 0.1 (exponent −4, ULP 2^-14): down 1638 × 2^-14 = 0.0999755859375 (0x2e66),
    // up 1639 × 2^-14. 0.1 × 2^14 = 1638.4, so p_up = 0.4 exactly.
    const StochasticOutcomes& o = *panel->summary()->outcomes;
    QCOMPARE(o.down.code, Code(0x2e66));
    QCOMPARE(o.up.code, Code(0x2e67));
    QVERIFY(o.down.value == exact("1638*2^-14"));
    QVERIFY(o.up.value == exact("1639*2^-14"));
    QVERIFY(o.probabilityUp == exact("2/5"));
    const QString text = panel->neighboursLabel()->text();
    QVERIFY2(text.contains("p = <b>0.4</b>"), qPrintable(text));
    QVERIFY2(text.contains("p = <b>0.6</b>"), qPrintable(text));
    // Draws: the histogram's bars hold the observed counts, which add up to the draws, and
    // the expected counts draws × p.
    const StochasticDrawSummary& s = *panel->summary();
    QCOMPARE(s.draws, std::uint64_t(100000));
    QVERIFY(s.expectedUp == exact("40000"));
    // 100 000 Bernoulli(0.4) draws: the standard deviation of the count is about 155.
    QVERIFY2(s.drawsUp > 39000 && s.drawsUp < 41000, qPrintable(QString::number(s.drawsUp)));
    QCustomPlot* histogram = panel->histogram();
    QCOMPARE(histogram->plottableCount(), 2);
    auto* observed = qobject_cast<QCPBars*>(histogram->plottable(0));
    QVERIFY(observed);
    QCOMPARE(observed->data()->at(0)->value + observed->data()->at(1)->value, 100000.0);
    QCOMPARE(observed->data()->at(1)->value, static_cast<double>(s.drawsUp));
}

void TestArithmeticPage::stochasticSmallTerms() {
    MainWindow window;
    StochasticPanel* panel = stochasticLabInFp16(window);
    // 4096 ones: to nearest 2048 (the tie rule), stochastically 2048 + 1 is a tie between
    // 2048 and 2050 taken up half the time, so the sum keeps growing on average.
    panel->setSmallTerms("1", 4096);
    QVERIFY(panel->smallTermSums() && !panel->smallTermSums()->problem);
    const SmallTermSums& sums = *panel->smallTermSums();
    QVERIFY(sums.nearest.sum == exact("2048"));
    QVERIFY(sums.nearest.exactSum == exact("4096"));
    QVERIFY(compare(sums.stochastic.sum, exact("3500")) > 0);
    QVERIFY(compare(sums.stochastic.sum, exact("4700")) < 0);
    QVERIFY(panel->sumsLabel()->text().contains("stopped growing at term 2,048"));
}

void TestArithmeticPage::stochasticWithFewRandomBits() {
    MainWindow window;
    StochasticPanel* panel = stochasticLabInFp16(window);
    // 0.1 lies 0.4 of an FP16 ulp above 0x2e66: 0.4 · 16 = 6.4, which P3109's B rounds to 6.
    panel->setValue("0.1");
    panel->setRandomBits({4, StochasticVariant::B});
    QVERIFY(panel->findChild<QComboBox*>("srVariant")->isEnabled());
    const StochasticDrawSummary& s = *panel->summary();
    QVERIFY(s.outcomes->probabilityUp == exact("0.375"));
    QVERIFY(s.outcomes->idealProbabilityUp == exact("0.4"));
    QVERIFY(s.seedAudit.independent());
    QCOMPARE(s.seedAudit.comparedBits, quint64(s.draws) * 4);
    QVERIFY(panel->neighboursLabel()->text().contains("(all bits: 0.4)"));
    QVERIFY(panel->drawsLabel()->text().contains("Seed audit"));
    // Terms of 1/8 in FP16: from 1024 on the ULP is 1 and the term 1/8 of it, below 2^−2, so
    // two random bits that truncate never move the sum again; four and all 64 keep it going.
    panel->setRandomBits({0, StochasticVariant::A});
    QVERIFY(!panel->findChild<QComboBox*>("srVariant")->isEnabled());
    panel->setSmallTerms("0.125", 16384);
    const SmallTermSums& sums = *panel->smallTermSums();
    QCOMPARE(sums.fewBits.size(), std::size(kSmallTermRandomBits));
    QCOMPARE(sums.fewBits[2].rule.count, 2);
    QVERIFY(sums.fewBits[2].result.sum == exact("1024"));
    for (const AccumulationResult* r : {&sums.stochastic, &sums.fewBits[1].result}) {
        QVERIFY(compare(r->sum, exact("1900")) > 0);
        QVERIFY(compare(r->sum, exact("2200")) < 0);
    }
    const QCustomPlot* plot = panel->findChild<QCustomPlot*>("srSumsPlot");
    QCOMPARE(plot->graphCount(), 6); // exact, nearest, all bits, 8, 4, 2
}

void TestArithmeticPage::masterWeights() {
    MainWindow window;
    openArithmetic(window, "fp32,bf16,fp16,nf4", ArithmeticPage::Lab::MasterWeights);
    MasterWeightsPanel* panel = window.arithmeticPage()->masterWeightsPanel();
    typeInto(panel->findChild<QLineEdit*>("weightEdit"), "1");
    typeInto(panel->findChild<QLineEdit*>("deltaEdit"), "1e-3");
    QVERIFY(panel->inputError().isEmpty());
    const QTableWidget* table = panel->table();
    const int bf16 = rowOf(table, MasterWeightsPanel::Format, "bf16");
    const int fp32 = rowOf(table, MasterWeightsPanel::Format, "fp32");
    QVERIFY(bf16 >= 0 && fp32 >= 0);
    QCOMPARE(table->item(bf16, MasterWeightsPanel::Outcome)->text(),
             QString("update lost: w unchanged"));
    QCOMPARE(table->item(fp32, MasterWeightsPanel::Outcome)->text(), QString("w changed"));
    // The hardware: 1.0f + 0.001f in float.
    volatile float w = 1.0f;
    volatile float delta = 0.001f;
    const float updated = w + delta;
    QVERIFY(updated != 1.0f);
    QCOMPARE(panel->rows()[static_cast<std::size_t>(fp32)].sum->rounded.code,
             Code(std::bit_cast<std::uint32_t>(updated)));
    // BF16 keeps 8 significant bits: at 1 the ULP is 2^-7 and a tie rounds to the even 1, so
    // only a Δ beyond 2^-8 moves w. FP16 (11 bits): beyond 2^-11.
    QVERIFY2(table->item(bf16, MasterWeightsPanel::Threshold)->text().startsWith("> 0.00390625"),
             qPrintable(table->item(bf16, MasterWeightsPanel::Threshold)->text()));
    QVERIFY(table->item(bf16, MasterWeightsPanel::Threshold)->text().contains("2^-8"));
    const int fp16 = rowOf(table, MasterWeightsPanel::Format, "fp16");
    QVERIFY(table->item(fp16, MasterWeightsPanel::Threshold)->text().contains("2^-11"));
    // Exactly 2^-8 is that tie: BF16 keeps w. Toward +∞ any positive Δ moves w; toward zero
    // only a whole ULP does.
    typeInto(panel->findChild<QLineEdit*>("deltaEdit"), "2^-8");
    QCOMPARE(table->item(bf16, MasterWeightsPanel::Outcome)->text(),
             QString("update lost: w unchanged"));
    // Δ is stored in BF16 first: 2^-8 + 2^-16 would round back to 2^-8, 2^-8 + 2^-14 does not.
    typeInto(panel->findChild<QLineEdit*>("deltaEdit"), "2^-8+2^-16");
    QCOMPARE(table->item(bf16, MasterWeightsPanel::Outcome)->text(),
             QString("update lost: w unchanged"));
    typeInto(panel->findChild<QLineEdit*>("deltaEdit"), "2^-8+2^-14");
    QCOMPARE(table->item(bf16, MasterWeightsPanel::Outcome)->text(), QString("w changed"));
    window.controller()->setRoundingMode(RoundingMode::TowardPositive);
    QCOMPARE(table->item(bf16, MasterWeightsPanel::Threshold)->text(), QString("> 0"));
    window.controller()->setRoundingMode(RoundingMode::TowardZero);
    QCOMPARE(table->item(bf16, MasterWeightsPanel::Threshold)->text(),
             QString("≥ 0.0078125  (2^-7)"));
    // Bad input names the field and the column; the table keeps the last good rows.
    typeInto(panel->findChild<QLineEdit*>("deltaEdit"), "1e-");
    QVERIFY2(panel->inputError().contains("Δ"), qPrintable(panel->inputError()));
    QVERIFY2(panel->inputError().contains("Column"), qPrintable(panel->inputError()));
    QCOMPARE(table->item(bf16, MasterWeightsPanel::Outcome)->text(), QString("w changed"));
}

void TestArithmeticPage::screenshotFlag() {
    const QString out = dir_.filePath("arithmetic.png");
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(FPX_EXPLORER_PATH),
                  {"--page", "arithmetic", "--expr", "0.1+0.2", "--formats", "fp64,fp32,fp16",
                   "--round", "rne", "--screenshot", out, "--size", "1200x700"});
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitCode(), 0);
    QCOMPARE(QImage(out).size(), QSize(1200, 700));
    // --lab alone opens the Arithmetic page; the screenshot waits for the lab's run.
    const QString accumulation = dir_.filePath("accumulation.png");
    QProcess lab;
    lab.setProcessEnvironment(env);
    lab.start(QStringLiteral(FPX_EXPLORER_PATH),
              {"--lab", "accumulation", "--screenshot", accumulation});
    QVERIFY(lab.waitForFinished(60000));
    QCOMPARE(lab.exitCode(), 0);
    QVERIFY(!QImage(accumulation).isNull());
    // A bad expression stops a screenshot with the column, as --value does.
    QProcess bad;
    bad.setProcessEnvironment(env);
    bad.start(QStringLiteral(FPX_EXPLORER_PATH),
              {"--page", "arithmetic", "--expr", "0.1+*0.2", "--screenshot", out});
    QVERIFY(bad.waitForFinished(60000));
    QCOMPARE(bad.exitCode(), 2);
    QVERIFY(bad.readAllStandardError().contains("--expr: Column 5"));
    QProcess badLab;
    badLab.setProcessEnvironment(env);
    badLab.start(QStringLiteral(FPX_EXPLORER_PATH),
                 {"--page", "arithmetic", "--lab", "sums", "--screenshot", out});
    QVERIFY(badLab.waitForFinished(60000));
    QCOMPARE(badLab.exitCode(), 2);
    QVERIFY(badLab.readAllStandardError().contains("--lab"));
}

QTEST_MAIN(TestArithmeticPage)
#include "tst_arithmetic_page.moc"
