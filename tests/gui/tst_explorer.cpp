// SPDX-License-Identifier: GPL-3.0-or-later
// The explorer window with real widgets, offscreen: typing, clicking bits, stepping, bad
// input, custom formats, settings, copying and exporting.
#include "explorer_table.h"
#include "pages/explorer/bit_cells_delegate.h"
#include "pages/explorer/detail_panel.h"
#include "pages/explorer/format_manager_dialog.h"
#include "pages/explorer/format_table_model.h"
#include "pages/explorer/plots_panel.h"
#include "pages/explorer/same_bits_dialog.h"
#include "shell/explorer_settings.h"
#include "shell/main_window.h"

#include <qcustomplot.h>

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/value_parser.h"

#include <QComboBox>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QWheelEvent>

using namespace fpx;
using namespace fpx::gui;
using fpx::test::rowOf;
using fpx::test::specs;

namespace {

QString hexOf(const FormatTableModel* model, const QString& id) {
    return model->fullText(rowOf(model, id), FormatTableModel::Hex);
}

void typeValue(MainWindow& window, const QString& text) {
    QLineEdit* edit = window.valueEdit();
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Backspace);
    QTest::keyClicks(edit, text);
    window.controller()->waitForIdle(); // a slow machine may not make the controller's short wait
}

// Types `text` one key at a time, each key's value computed before the next key: what the
// rows keep then does not depend on how fast this machine parses.
void typeKeysOneByOne(MainWindow& window, const QString& text) {
    QLineEdit* edit = window.valueEdit();
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Backspace);
    window.controller()->waitForIdle();
    for (const QChar key : text) {
        QTest::keyClicks(edit, QString(key));
        window.controller()->waitForIdle();
    }
}

// The centre of the cell of stored bit `bit` (0 = least significant) in the Bits column.
QPoint bitPosition(MainWindow& window, int row, int bit) {
    const FormatTableModel* model = window.model();
    const QRect cellRect = window.table()->visualRect(model->index(row, FormatTableModel::Bits));
    const BitCellLayout& layout = window.bitsDelegate()->layout();
    const ExplorerRow& r = model->row(row);
    for (const BitCell& cell : bitCells(r.spec, r.report.details.decoded, layout)) {
        if (cell.bit != bit)
            continue;
        const int x = cellRect.left() + layout.margin +
                      cell.column * (layout.cellWidth + layout.cellGap) +
                      (cell.column >= layout.leftCells ? 3 : 0) + layout.cellWidth / 2;
        return {x, cellRect.center().y()};
    }
    return {};
}

} // namespace

class TestExplorer : public QObject {
    Q_OBJECT

  private slots:
    void init();
    void typingUpdatesEveryRow();
    void clickingABitFlipsItAndRerounds();
    void hiddenBitIsNotClickable();
    void typingACodeSetsTheRow();
    void steppingToNeighbours();
    void badInputKeepsTheText();
    void roundingAndOverflowSelectors();
    void addingACustomFormat();
    void invalidSpecIsExplained();
    void scaleOfIntegerRows();
    void settingsRoundTrip();
    void exportsAreWritten();
    void copyFormats();
    void sameBitsEveryFormat();
    void everyKeystrokeRecomputesEveryRow();
    void screenshotFlag();
    void plotsOfEveryKind();
    void plotInteractions();

  private:
    QTemporaryDir dir_;
};

void TestExplorer::init() {
    QVERIFY(dir_.isValid());
}

void TestExplorer::typingUpdatesEveryRow() {
    MainWindow window;
    window.controller()->setFormats(specs("fp16,bf16,fp8_e4m3,fp8_e5m2,fp4_e2m1"));
    window.show();
    QSignalSpy rowsChanged(window.controller(), &ExplorerController::rowsChanged);
    typeValue(window, "0.3952");
    QVERIFY(rowsChanged.count() >= 1);
    const FormatTableModel* model = window.model();
    QCOMPARE(hexOf(model, "fp16"), QString("0x3653"));
    QCOMPARE(hexOf(model, "bf16"), QString("0x3eca"));
    QCOMPARE(hexOf(model, "fp8_e4m3"), QString("0x2d"));
    QCOMPARE(hexOf(model, "fp8_e5m2"), QString("0x36"));
    QCOMPARE(hexOf(model, "fp4_e2m1"), QString("0x1"));
    QCOMPARE(model->fullText(rowOf(model, "fp16"), FormatTableModel::Value),
             QString("0.395263671875"));
    QCOMPARE(model->fullText(rowOf(model, "fp16"), FormatTableModel::Error),
             QString("0.000063671875"));
    QCOMPARE(model->fullText(rowOf(model, "fp4_e2m1"), FormatTableModel::Class),
             QString("subnormal"));
    typeValue(window, "1e6");
    QCOMPARE(model->fullText(rowOf(model, "fp16"), FormatTableModel::Class),
             QString("inf (overflow)"));
    QCOMPARE(model->fullText(rowOf(model, "fp8_e4m3"), FormatTableModel::Class),
             QString("nan (overflow)"));
    QCOMPARE(model->fullText(rowOf(model, "fp4_e2m1"), FormatTableModel::Class),
             QString("normal (saturated)"));
}

void TestExplorer::clickingABitFlipsItAndRerounds() {
    MainWindow window;
    window.controller()->setFormats(specs("fp16,bf16,fp8_e4m3"));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    typeValue(window, "0.3952");
    const FormatTableModel* model = window.model();
    // Flip the sign bit of FP16: −0.395263671875 becomes the input, BF16 re-rounds it.
    QTest::mouseClick(window.table()->viewport(), Qt::LeftButton, {}, bitPosition(window, 0, 15));
    QCOMPARE(hexOf(model, "fp16"), QString("0xb653"));
    QCOMPARE(window.valueEdit()->text(), QString("-0.395263671875"));
    QCOMPARE(hexOf(model, "bf16"), QString("0xbeca"));
    // Flip FP8 E4M3's lowest mantissa bit: 0x2d → 0x2c (−0.375 after the sign flip above).
    QTest::mouseClick(window.table()->viewport(), Qt::LeftButton, {}, bitPosition(window, 2, 0));
    QCOMPARE(hexOf(model, "fp8_e4m3"), QString("0xac"));
    QCOMPARE(window.valueEdit()->text(), QString("-0.375"));
    QCOMPARE(hexOf(model, "fp16"), QString("0xb600"));
    // A NaN code stays as clicked in its row: set all exponent bits of FP16.
    window.model()->setData(model->index(0, FormatTableModel::Hex), "0x7e01");
    QCOMPARE(hexOf(model, "fp16"), QString("0x7e01"));
    QCOMPARE(window.valueEdit()->text(), QString("nan"));
}

void TestExplorer::hiddenBitIsNotClickable() {
    MainWindow window;
    window.controller()->setFormats(specs("fp16"));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    typeValue(window, "1");
    const FormatTableModel* model = window.model();
    // The implicit bit sits between exponent bit 10 and mantissa bit 9.
    const QPoint exponentLsb = bitPosition(window, 0, 10);
    const QPoint mantissaMsb = bitPosition(window, 0, 9);
    QTest::mouseClick(window.table()->viewport(), Qt::LeftButton, {},
                      (exponentLsb + mantissaMsb) / 2);
    QCOMPARE(hexOf(model, "fp16"), QString("0x3c00"));
}

void TestExplorer::typingACodeSetsTheRow() {
    MainWindow window;
    window.controller()->setFormats(specs("fp16,fp32,e4m3"));
    FormatTableModel* model = window.model();
    QVERIFY(model->setData(model->index(0, FormatTableModel::Hex), "0x3c01"));
    QCOMPARE(window.valueEdit()->text(), QString("1.0009765625"));
    QCOMPARE(hexOf(model, "fp32"), QString("0x3f802000"));
    QVERIFY(model->setData(model->index(2, FormatTableModel::Hex), "0b0_1111_110"));
    QCOMPARE(window.valueEdit()->text(), QString("448"));
    QVERIFY(!model->setData(model->index(2, FormatTableModel::Hex), "0x1ff")); // 9 bits
    QVERIFY(!model->setData(model->index(2, FormatTableModel::Hex), "zz"));
    QCOMPARE(window.valueEdit()->text(), QString("448"));
}

void TestExplorer::steppingToNeighbours() {
    MainWindow window;
    window.controller()->setFormats(specs("fp16,fp8_e4m3"));
    window.show();
    typeValue(window, "0.3952");
    window.selectRow(1);
    auto* next = window.detailPanel()->findChild<QPushButton*>("nextValue");
    auto* previous = window.detailPanel()->findChild<QPushButton*>("previousValue");
    QVERIFY(next && previous);
    QTest::mouseClick(next, Qt::LeftButton);
    QCOMPARE(hexOf(window.model(), "fp8_e4m3"), QString("0x2e"));
    QCOMPARE(window.valueEdit()->text(), QString("0.4375"));
    QTest::mouseClick(previous, Qt::LeftButton);
    QTest::mouseClick(previous, Qt::LeftButton);
    QCOMPARE(hexOf(window.model(), "fp8_e4m3"), QString("0x2c"));
    // Keyboard: Ctrl+Up steps up.
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    window.table()->setFocus();
    QTest::keyClick(window.table(), Qt::Key_Up, Qt::ControlModifier);
    QCOMPARE(hexOf(window.model(), "fp8_e4m3"), QString("0x2d"));
    // At the largest finite value there is no next.
    window.model()->setData(window.model()->index(1, FormatTableModel::Hex), "0x7e");
    QVERIFY(!next->isEnabled());
}

void TestExplorer::badInputKeepsTheText() {
    MainWindow window;
    window.controller()->setFormats(specs("fp16"));
    window.show();
    typeValue(window, "0.5");
    typeKeysOneByOne(window, "1.2.3");
    auto* error = window.findChild<QLabel*>("inputError");
    QVERIFY(error && error->isVisible());
    QVERIFY2(error->text().contains("Column 4"), qPrintable(error->text()));
    QCOMPARE(window.valueEdit()->text(), QString("1.2.3"));
    // Typed one key at a time: "1.2" was the last good value, and the rows keep it.
    QCOMPARE(hexOf(window.model(), "fp16"), QString("0x3ccd"));
    typeValue(window, "2^-24");
    QVERIFY(!error->isVisible());
    QCOMPARE(hexOf(window.model(), "fp16"), QString("0x0001"));
}

void TestExplorer::roundingAndOverflowSelectors() {
    MainWindow window;
    window.controller()->setFormats(specs("fp8_e4m3"));
    typeValue(window, "465");
    QCOMPARE(hexOf(window.model(), "fp8_e4m3"), QString("0x7f"));
    auto* overflow = window.findChild<QComboBox*>("overflowPolicy");
    overflow->setCurrentIndex(overflow->findData(static_cast<int>(OverflowPolicy::Saturate)));
    QCOMPARE(hexOf(window.model(), "fp8_e4m3"), QString("0x7e"));
    auto* round = window.findChild<QComboBox*>("roundingMode");
    round->setCurrentIndex(round->findData(QString("rtz")));
    typeValue(window, "0.3952");
    QCOMPARE(hexOf(window.model(), "fp8_e4m3"), QString("0x2c"));
}

void TestExplorer::addingACustomFormat() {
    MainWindow window;
    window.controller()->setFormats(specs("fp16"));
    typeValue(window, "0.3952");
    FormatManagerDialog dialog(window.controller()->formats());
    dialog.specEdit()->clear();
    QTest::keyClicks(dialog.specEdit(), "e3m3");
    QVERIFY(dialog.addButton()->isEnabled());
    QTest::mouseClick(dialog.addButton(), Qt::LeftButton);
    const std::vector<FormatSpec> chosen = dialog.formats();
    QCOMPARE(chosen.size(), std::size_t{2});
    QCOMPARE(QString::fromStdString(chosen.back().id), QString("e3m3"));
    window.controller()->setFormats(chosen);
    // 0.3952 in E3M3 (bias 3) = 1.5808 × 2^-2: the mantissa 0.5808 × 8 = 4.65 rounds to 5,
    // so 0 001 101 (0x0d) = 1.625 × 2^-2 = 0.40625.
    QCOMPARE(hexOf(window.model(), "e3m3"), QString("0x0d"));
}

void TestExplorer::invalidSpecIsExplained() {
    FormatManagerDialog dialog(specs("fp16"));
    dialog.specEdit()->setText("e4m200");
    QVERIFY(!dialog.addButton()->isEnabled());
    auto* status = dialog.findChild<QLabel*>("specStatus");
    QVERIFY2(status->text().contains("mantissa bits"), qPrintable(status->text()));
    QCOMPARE(dialog.specEdit()->text(), QString("e4m200")); // kept as typed
}

void TestExplorer::scaleOfIntegerRows() {
    FormatManagerDialog dialog(specs("int8,fp16"));
    dialog.list()->setCurrentRow(0);
    QVERIFY(dialog.scaleEdit()->isEnabled());
    QCOMPARE(dialog.scaleEdit()->text(), QString("1/127"));
    dialog.scaleEdit()->clear();
    QTest::keyClicks(dialog.scaleEdit(), "0.01");
    MainWindow window;
    window.controller()->setFormats(dialog.formats());
    typeValue(window, "0.5");
    QCOMPARE(hexOf(window.model(), "int8"), QString("0x32")); // 0.5 / 0.01 = 50
    QVERIFY(window.model()
                ->data(window.model()->index(0, FormatTableModel::Name))
                .toString()
                .contains("scale 0.01"));
}

void TestExplorer::settingsRoundTrip() {
    const QString path = dir_.filePath("settings.ini");
    {
        QSettings settings(path, QSettings::IniFormat);
        MainWindow window(&settings);
        std::vector<FormatSpec> formats = specs("bf16,e6m9b40,int8");
        formats[2].scale = ExactValue::fraction(false, 1, 3);
        window.controller()->setFormats(formats);
        window.findChild<QComboBox*>("roundingMode")->setCurrentIndex(2);
        typeValue(window, "1/3");
        window.close();
    }
    QSettings settings(path, QSettings::IniFormat);
    MainWindow restored(&settings);
    QCOMPARE(restored.valueEdit()->text(), QString("1/3"));
    QCOMPARE(restored.controller()->rows().size(), std::size_t{3});
    QCOMPARE(QString::fromStdString(restored.controller()->rows()[1].spec.id), QString("e6m9b40"));
    QVERIFY(restored.controller()->rows()[2].spec.scale.isIdenticalTo(
        ExactValue::fraction(false, 1, 3)));
    QCOMPARE(restored.controller()->roundingMode(), RoundingMode::TowardZero);
}

void TestExplorer::exportsAreWritten() {
    MainWindow window;
    window.controller()->setFormats(specs("fp16,bf16,fp8_e4m3,fp8_e5m2"));
    typeValue(window, "0.3952");
    const QString png = dir_.filePath("bits.png");
    const QString svg = dir_.filePath("bits.svg");
    QVERIFY(window.exportBitDiagram(png));
    QVERIFY(window.exportBitDiagram(svg));
    const QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() > 400 && image.height() > 100);
    QFile file(svg);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray text = file.readAll();
    QVERIFY(text.contains("<svg"));
    QVERIFY(text.size() > 2000);
    if (const QByteArray shots = qgetenv("FPX_TEST_SCREENSHOTS"); !shots.isEmpty()) {
        QFile::copy(png, QString::fromLocal8Bit(shots) + "/bit-diagram.png");
        QFile::copy(svg, QString::fromLocal8Bit(shots) + "/bit-diagram.svg");
    }
}

void TestExplorer::copyFormats() {
    MainWindow window;
    window.controller()->setFormats(specs("fp16,int8"));
    typeValue(window, "1/3");
    const QString csv = window.model()->tableAsCsv();
    QVERIFY(csv.startsWith("format,bits,hex,value,error"));
    QVERIFY(csv.contains("fp16,0 01101 0101010101,0x3555,0.333251953125,"));
    // Each cell sits under its own key. 1/3 in FP16 is 0x3555 = 1365/4096, an ULP of 2^-12
    // there: error -1/12288, so the ULP error is -1/3 and the relative error -2^-12.
    const QStringList lines = csv.split('\n');
    const QStringList keys = lines[0].split(',');
    const QStringList fp16 = lines[1].split(',');
    QCOMPARE(fp16.size(), keys.size());
    QVERIFY2(fp16[keys.indexOf("ulp_error")].startsWith("-0.33333"),
             qPrintable(fp16[keys.indexOf("ulp_error")]));
    QCOMPARE(fp16[keys.indexOf("rel_error")], QString("-0.000244140625"));
    const QJsonObject json =
        QJsonDocument::fromJson(window.model()->tableAsJson().toUtf8()).object();
    QCOMPARE(json["input"].toString(), QString("1/3"));
    QCOMPARE(json["results"].toArray()[1].toObject()["bits"].toString(), QString("0x2a"));
    QCOMPARE(window.model()->tableAsText().count('\n'), 3);
}

void TestExplorer::sameBitsEveryFormat() {
    SameBitsDialog dialog;
    dialog.codeEdit()->setText("0x80");
    QTableWidget* table = dialog.table();
    QHash<QString, QString> values;
    for (int r = 0; r < table->rowCount(); ++r)
        values[table->item(r, 0)->text()] = table->item(r, 3)->text();
    QCOMPARE(values["fp8_e4m3"], QString("-0"));
    QCOMPARE(values["fp8_e4m3fnuz"], QString("nan"));
    QCOMPARE(values["fp8_e8m0"], QString("2"));
    QCOMPARE(values["int8"], QString("-128"));
    QCOMPARE(values["uint8"], QString("128"));
    dialog.codeEdit()->setText("0x1ff");
    QCOMPARE(table->rowCount(), 0);
    if (const QByteArray shots = qgetenv("FPX_TEST_SCREENSHOTS"); !shots.isEmpty()) {
        dialog.codeEdit()->setText("0x80");
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        dialog.grab().save(QString::fromLocal8Bit(shots) + "/same-bits.png");
        FormatManagerDialog manager(specs("fp16,bf16,fp8_e4m3,fp8_e5m2,int8,nf4"));
        manager.specEdit()->setText("e4m3b11fnuz");
        manager.show();
        QVERIFY(QTest::qWaitForWindowExposed(&manager));
        manager.grab().save(QString::fromLocal8Bit(shots) + "/format-manager.png");
    }
}

void TestExplorer::everyKeystrokeRecomputesEveryRow() {
    // Keystrokes that alternate between a short and a 300-digit input, with the widest
    // formats: after each, every row holds the code the exact core rounds that text to, so no
    // row is left from the keystroke before. (How long this takes is `fpx bench`'s business.)
    MainWindow window;
    window.controller()->setFormats(
        specs("fp64,fp32,tf32,bf16,fp16,fp8_e4m3,fp8_e5m2,fp8_e4m3fnuz,fp8_e5m2fnuz,"
              "fp8_e3m4,fp8_e8m0,fp6_e3m2,fp6_e2m3,fp4_e2m1,fp80,fp128,int8,int4,uint8,nf4"));
    QString longInput = "0.";
    for (int i = 0; i < 300; ++i)
        longInput += QString::number(i % 10);
    const int rounds = 6;
    for (int i = 0; i < rounds; ++i) {
        const QString text = i % 2 ? longInput : QString("0.3952");
        window.controller()->setInputText(text);
        window.controller()->waitForIdle();
        const ParsedValue parsed = parseValue(text.toStdString());
        QVERIFY(parsed);
        const auto& rows = window.controller()->rows();
        QCOMPARE(rows.size(), std::size_t(20));
        for (const ExplorerRow& row : rows) {
            const Conversion expected = roundToFormat(*parsed.value, row.spec);
            QVERIFY2(row.report.conversion.code == expected.code,
                     qPrintable(QString("%1 after \"%2…\": code %3, the core rounds to %4")
                                    .arg(QString::fromStdString(row.spec.id), text.left(8),
                                         QString::fromStdString(codeToHex(
                                             row.report.conversion.code, row.spec.totalBits())),
                                         QString::fromStdString(
                                             codeToHex(expected.code, row.spec.totalBits())))));
        }
    }
}

void TestExplorer::screenshotFlag() {
    const QString out = dir_.filePath("shot.png");
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(FPX_EXPLORER_PATH),
                  {"--value", "0.3952", "--formats", "fp16,bf16,fp8_e4m3,fp8_e5m2", "--screenshot",
                   out, "--size", "1200x700"});
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitCode(), 0);
    const QImage image(out);
    QCOMPARE(image.size(), QSize(1200, 700));
    QProcess bad;
    bad.setProcessEnvironment(env);
    bad.start(QStringLiteral(FPX_EXPLORER_PATH), {"--formats", "fp7", "--screenshot", out});
    QVERIFY(bad.waitForFinished(60000));
    QCOMPARE(bad.exitCode(), 2);
    QVERIFY(bad.readAllStandardError().contains("unknown format 'fp7'"));
}

void TestExplorer::plotsOfEveryKind() {
    MainWindow window;
    window.controller()->setFormats(specs("fp16,bf16,fp8_e4m3,fp4_e2m1,nf4,int4"));
    window.show();
    window.showLowerTab(1);
    PlotsPanel* panel = window.plotsPanel();
    QSignalSpy ready(panel, &PlotsPanel::plotReady);
    for (plots::PlotKind kind :
         {plots::PlotKind::Error, plots::PlotKind::Ulp, plots::PlotKind::Precision,
          plots::PlotKind::Range, plots::PlotKind::Values, plots::PlotKind::Codes,
          plots::PlotKind::Memory}) {
        ready.clear();
        panel->setKind(kind);
        QVERIFY(ready.wait(30000) || !panel->isComputing());
        QCOMPARE(panel->data().request.kind, kind);
        QCustomPlot* plot = panel->plot();
        switch (kind) {
        case plots::PlotKind::Error:
            // Each format: an absolute and a relative curve.
            QCOMPARE(plot->graphCount(), 2 * 6);
            break;
        case plots::PlotKind::Ulp:
        case plots::PlotKind::Precision:
            QCOMPARE(plot->graphCount(), 6);
            break;
        case plots::PlotKind::Range:
            QVERIFY(plot->itemCount() >= 6);
            break;
        case plots::PlotKind::Values:
            // Only formats of at most 8 bits: fp8_e4m3, fp4, nf4, int4.
            QCOMPARE(plot->graphCount(), 4);
            QCOMPARE(plot->graph(1)->dataCount(), 15); // FP4: ±0 are one point
            break;
        case plots::PlotKind::Codes: {
            // One map per format of at most 8 bits (fp8_e4m3, fp4, nf4, int4), a cell a code.
            QCOMPARE(plot->axisRectCount(), 4);
            const auto* e4m3 = qobject_cast<QCPColorMap*>(plot->plottable(0));
            QVERIFY(e4m3);
            QCOMPARE(e4m3->data()->keySize(), 16);
            QCOMPARE(e4m3->data()->valueSize(), 16);
            // 0x7f is E4M3's NaN (class 4), 0x7e its largest normal (class 2), 0x01 subnormal.
            QCOMPARE(e4m3->data()->cell(15, 7), 4.0);
            QCOMPARE(e4m3->data()->cell(14, 7), 2.0);
            QCOMPARE(e4m3->data()->cell(1, 0), 1.0);
            const auto* fp4 = qobject_cast<QCPColorMap*>(plot->plottable(1));
            QVERIFY(fp4);
            QCOMPARE(fp4->data()->keySize(), 16);
            QCOMPARE(fp4->data()->valueSize(), 1);
            break;
        }
        case plots::PlotKind::Memory:
            // One bar per stored form: the six formats, MXFP8 E4M3, MXFP4 and NVFP4.
            QCOMPARE(panel->data().memory.size(), std::size_t{9});
            QVERIFY(plot->plottableCount() >= 1);
            break;
        }
        for (const char* suffix : {"png", "pdf", "svg", "csv"}) {
            const QString path = dir_.filePath(plots::plotKindId(kind) + "." + suffix);
            QString error;
            QVERIFY2(panel->exportTo(path, &error), qPrintable(error));
            QVERIFY(QFileInfo(path).size() > 100);
        }
    }
    QString error;
    QVERIFY(!panel->exportTo(dir_.filePath("plot.bmp"), &error));
    QVERIFY(error.contains("unknown file type"));
}

void TestExplorer::plotInteractions() {
    MainWindow window;
    window.controller()->setFormats(specs("fp16,fp8_e4m3"));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    window.showLowerTab(1);
    PlotsPanel* panel = window.plotsPanel();
    QSignalSpy ready(panel, &PlotsPanel::plotReady);
    panel->setKind(plots::PlotKind::Error);
    QVERIFY(ready.wait(30000) || !panel->isComputing());
    QCustomPlot* plot = panel->plot();
    // The marker follows the explorer's value.
    typeValue(window, "3.5");
    QCPAbstractItem* marker = nullptr;
    for (int i = 0; i < plot->itemCount(); ++i)
        if (plot->item(i)->objectName() == "valueMarker")
            marker = plot->item(i);
    QVERIFY(marker);
    QCOMPARE(static_cast<QCPItemStraightLine*>(marker)->point1->coords().x(), 3.5);
    // A click on a legend entry hides its series, a second shows it again.
    plot->replot();
    auto* entry = qobject_cast<QCPPlottableLegendItem*>(plot->legend->item(1));
    QVERIFY(entry);
    QVERIFY(entry->plottable()->visible());
    QTest::mouseClick(plot, Qt::LeftButton, {}, entry->outerRect().center());
    QVERIFY(!entry->plottable()->visible());
    QTest::mouseClick(plot, Qt::LeftButton, {}, entry->outerRect().center());
    QVERIFY(entry->plottable()->visible());
    // Wheel zoom changes the x range; Reset view restores it.
    const QCPRange before = plot->xAxis->range();
    QWheelEvent wheel(QPointF(plot->axisRect()->center()),
                      plot->mapToGlobal(plot->axisRect()->center()).toPointF(), QPoint(),
                      QPoint(0, 240), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(plot, &wheel);
    QVERIFY(plot->xAxis->range().size() < before.size());
    auto* reset = panel->findChild<QPushButton*>();
    QVERIFY(reset);
    for (QPushButton* button : panel->findChildren<QPushButton*>())
        if (button->text().contains("Reset"))
            QTest::mouseClick(button, Qt::LeftButton);
    QCOMPARE(plot->xAxis->range().size(), before.size());
    // The hover read-out names the exact stored value in each format.
    const QString readout = panel->readoutAt(0.3952);
    QVERIFY2(readout.contains("fp16: 0.395263671875"), qPrintable(readout));
    QVERIFY(readout.contains("fp8_e4m3: 0.40625"));
}

QTEST_MAIN(TestExplorer)
#include "tst_explorer.moc"
