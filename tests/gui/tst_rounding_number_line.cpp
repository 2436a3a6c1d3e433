// SPDX-License-Identifier: GPL-3.0-or-later
// The Explorer's number line of rounding in the Details tab, with real widgets, offscreen:
// typing, stepping and the rounding mode update its labels; the zoom enlarges it; it fits the
// Details tab at 1024 × 768; and the Details' shortest decimal reads back under the mode in
// force (the reference values are worked out by hand, or are the core's shortestRoundTrip,
// which tst_rounding_neighbourhood checks against every short decimal).
#include "explorer_table.h"
#include "pages/explorer/detail_panel.h"
#include "pages/explorer/rounding_number_line.h"
#include "shell/main_window.h"

#include "common/zoom.h"

#include "fpx/exact/decimal_text.h"

#include <QApplication>
#include <QImage>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QTest>
#include <QTextDocument>

using namespace fpx;
using namespace fpx::gui;
using fpx::test::rowOf;
using fpx::test::specs;

namespace {

void typeValue(MainWindow& window, const QString& text) {
    QLineEdit* edit = window.valueEdit();
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Backspace);
    QTest::keyClicks(edit, text);
    window.controller()->waitForIdle();
}

RoundingNumberLine* lineOf(MainWindow& window) {
    return window.detailPanel()->numberLine();
}

// The Details' "Shortest" row: the decimal and the mode it is said to read back under.
std::pair<QString, QString> shortestShown(MainWindow& window) {
    QTextDocument doc;
    doc.setHtml(window.detailPanel()->currentHtml());
    const QRegularExpression row(
        "Shortest\\s+(\\S+) \\(the shortest decimal that reads back as this code under (\\w+)");
    const QRegularExpressionMatch m = row.match(doc.toPlainText());
    return m.hasMatch() ? std::pair{m.captured(1), m.captured(2)} : std::pair<QString, QString>{};
}

} // namespace

class TestRoundingNumberLine : public QObject {
    Q_OBJECT

  private slots:
    void typingUpdatesTheLabels();
    void steppingAndModesUpdateTheLine();
    void zoomEnlargesIt();
    void fitsTheDetailsTabAt1024By768();
    void shortestReadsBackUnderTheModeInForce();
    void fittedDecimalsKeepTheirMagnitude();
};

void TestRoundingNumberLine::typingUpdatesTheLabels() {
    MainWindow window;
    window.controller()->setFormats(specs("fp16,fp8_e4m3"));
    window.show();
    typeValue(window, "0.37");
    window.selectRow(rowOf(window.model(), "fp8_e4m3"));
    RoundingNumberLine* line = lineOf(window);
    QVERIFY(line->isVisible());
    // 0.37 lies between 0.34375 = 1.011b × 2^-2 (0x2b) and 0.375 = 1.100b × 2^-2 (0x2c);
    // the half-way point 0.359375 is below it, so nearest-even takes 0x2c, whose interval
    // runs from that point to the next one up, 0.390625, both ties going to its even code.
    QCOMPARE(line->inputText(), QString("input 0.37"));
    QCOMPARE(line->lowText(), QString("0x2b 0.34375"));
    QCOMPARE(line->highText(), QString("0x2c 0.375"));
    QCOMPARE(line->midpointText(), QString("half-way 0.359375"));
    QVERIFY2(line->caption().contains("0x2c = 0.375; under rne it takes [0.359375, 0.390625]"),
             qPrintable(line->caption()));
    // 0.357 lies below the half-way point and rounds down; both ends of 0x2b's interval are
    // ties that go to the even neighbours, so neither belongs to it.
    typeValue(window, "0.357");
    QCOMPARE(line->inputText(), QString("input 0.357"));
    QVERIFY2(line->caption().contains("0x2b = 0.34375; under rne it takes (0.328125, 0.359375)"),
             qPrintable(line->caption()));
    // fp16 holds 0.357 between 0x35b6 = 0.35693359375 and 0x35b7 = 0.357177734375.
    window.selectRow(rowOf(window.model(), "fp16"));
    QCOMPARE(line->lowText(), QString("0x35b6 0.35693359375"));
    QCOMPARE(line->highText(), QString("0x35b7 0.357177734375"));
}

void TestRoundingNumberLine::steppingAndModesUpdateTheLine() {
    MainWindow window;
    window.controller()->setFormats(specs("fp8_e4m3"));
    window.show();
    typeValue(window, "0.37");
    window.selectRow(0);
    RoundingNumberLine* line = lineOf(window);
    // Toward zero 0.37 truncates to 0x2b, which takes everything up to 0.375, not 0.375.
    window.controller()->setRoundingMode(RoundingMode::TowardZero);
    QApplication::processEvents();
    QVERIFY2(line->caption().contains("0x2b = 0.34375; under rtz it takes [0.34375, 0.375)"),
             qPrintable(line->caption()));
    QVERIFY(!line->caption().contains("a tie goes"));
    // Stepping to the next value: the input is 0.375 itself, between its own neighbours.
    auto* next = window.detailPanel()->findChild<QPushButton*>("nextValue");
    QVERIFY(next);
    QTest::mouseClick(next, Qt::LeftButton);
    window.controller()->waitForIdle();
    QApplication::processEvents();
    QCOMPARE(line->inputText(), QString("input 0.375"));
    QCOMPARE(line->lowText(), QString("0x2b 0.34375"));
    QCOMPARE(line->highText(), QString("0x2d 0.40625"));
    // Past the range 1e6 overflows E4M3 to nearest (no ∞: NaN), nothing to place.
    window.controller()->setRoundingMode(RoundingMode::NearestEven);
    typeValue(window, "1e6");
    QVERIFY2(line->caption().startsWith("NaN has no place"), qPrintable(line->caption()));
    // Saturated, it rounds to 448 and the far end is the step past the range, without a code.
    window.controller()->setOverflowPolicy(OverflowPolicy::Saturate);
    typeValue(window, "460");
    QCOMPARE(line->lowText(), QString("0x7e 448"));
    QCOMPARE(line->highText(), QString("no code 480"));
}

void TestRoundingNumberLine::zoomEnlargesIt() {
    MainWindow window;
    window.controller()->setFormats(specs("fp8_e4m3"));
    window.show();
    typeValue(window, "0.37");
    window.selectRow(0);
    RoundingNumberLine* line = lineOf(window);
    const QFont before = line->font();
    const int heightBefore = line->sizeHint().height();
    window.zoom()->setPercent(150);
    QApplication::processEvents();
    const QFont after = line->font();
    const double ratio = after.pointSizeF() > 0 ? after.pointSizeF() / before.pointSizeF()
                                                : double(after.pixelSize()) / before.pixelSize();
    QVERIFY2(ratio > 1.4, qPrintable(QString::number(ratio)));
    QVERIFY(line->sizeHint().height() > heightBefore * 1.3);
    QVERIFY(QFontMetrics(after).height() > QFontMetrics(before).height());
}

void TestRoundingNumberLine::fitsTheDetailsTabAt1024By768() {
    for (int percent : {100, 150}) {
        MainWindow window;
        window.controller()->setFormats(specs("fp32,fp16,fp8_e4m3"));
        window.resize(1024, 768);
        window.show();
        window.zoom()->setPercent(percent);
        typeValue(window, "0.37");
        window.selectRow(0);
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QApplication::processEvents();
        RoundingNumberLine* line = lineOf(window);
        QVERIFY(line->isVisible());
        // Its whole height, and all of it inside the panel.
        QCOMPARE(line->height(), line->sizeHint().height());
        const QRect inPanel(line->mapTo(window.detailPanel(), QPoint(0, 0)), line->size());
        QVERIFY(window.detailPanel()->rect().contains(inPanel));
        // Drawn: the input's orange needle is on it.
        const QImage image = line->grab().toImage();
        bool orange = false;
        for (int y = 0; y < image.height() && !orange; ++y)
            for (int x = 0; x < image.width() && !orange; ++x) {
                const QColor c = image.pixelColor(x, y);
                orange = c.red() > 180 && c.green() > 50 && c.green() < 110 && c.blue() < 60;
            }
        QVERIFY(orange);
    }
}

void TestRoundingNumberLine::shortestReadsBackUnderTheModeInForce() {
    MainWindow window;
    window.controller()->setFormats(specs("fp8_e4m3,fp4_e2m1"));
    window.show();
    // The reported case: 0.375's shortest is 0.37 to nearest, 0.4 toward zero.
    window.controller()->setInputFromCode(0, 0x2c);
    window.controller()->waitForIdle();
    window.selectRow(0);
    QCOMPARE(shortestShown(window), (std::pair<QString, QString>{"0.37", "rne"}));
    window.controller()->setRoundingMode(RoundingMode::TowardZero);
    window.controller()->setInputFromCode(0, 0x2c);
    window.controller()->waitForIdle();
    QCOMPARE(shortestShown(window), (std::pair<QString, QString>{"0.4", "rtz"}));
    // Every code of FP4 under every mode: what the CLI prints too.
    const FormatSpec fp4 = specs("fp4_e2m1").front();
    for (RoundingMode mode :
         {RoundingMode::NearestEven, RoundingMode::NearestAway, RoundingMode::TowardZero,
          RoundingMode::TowardPositive, RoundingMode::TowardNegative, RoundingMode::ToOdd,
          RoundingMode::Stochastic}) {
        window.controller()->setRoundingMode(mode);
        for (Code code = 0; code < 16; ++code) {
            window.controller()->setInputFromCode(1, code);
            window.controller()->waitForIdle();
            window.selectRow(1);
            RoundingOptions options;
            options.mode = mode;
            const auto [text, readBack] = shortestShown(window);
            QCOMPARE(text, QString::fromStdString(shortestRoundTrip(fp4, code, options)));
            QCOMPARE(readBack, QString::fromStdString(
                                   std::string(roundingModeId(shortestReadBackMode(mode)))));
        }
    }
}

void TestRoundingNumberLine::fittedDecimalsKeepTheirMagnitude() {
    auto within = [](int chars) { return [chars](const QString& s) { return s.size() <= chars; }; };
    QCOMPARE(numberLineDecimal("0.375", within(10)), QString("0.375"));
    QCOMPARE(numberLineDecimal("0.3699999749660491943359375", within(10)), QString("0.3699999…"));
    QCOMPARE(numberLineDecimal("33999999521443642490773248", within(12)), QString("3.399999…e25"));
    QCOMPARE(numberLineDecimal("-1.401298464324817e-45", within(10)), QString("-1.40…e-45"));
    QCOMPARE(numberLineDecimal("0.00000001", within(6)), QString("1e-8"));
    QCOMPARE(numberLineDecimal("0.1666666666666666666666666666666666666667…", within(8)),
             QString("0.16666…"));
}

QTEST_MAIN(TestRoundingNumberLine)
#include "tst_rounding_number_line.moc"
