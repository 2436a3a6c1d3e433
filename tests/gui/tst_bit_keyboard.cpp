// SPDX-License-Identifier: GPL-3.0-or-later
// The explorer's bit cells, offscreen: field names above the bits for every format, each
// bit's weight on hover, a visible keyboard focus, arrows between bits and Space to flip one.
#include "pages/explorer/bit_cells_delegate.h"
#include "pages/explorer/explorer_history.h"
#include "pages/explorer/format_table_model.h"
#include "shell/main_window.h"

#include "fpx/exact/bit_layout.h"
#include "fpx/exact/format_catalogue.h"

#include <QAction>
#include <QFontMetrics>
#include <QHelpEvent>
#include <QImage>
#include <QLineEdit>
#include <QPainter>
#include <QTableView>
#include <QTest>
#include <QToolTip>
#include <QUndoStack>

using namespace fpx;
using namespace fpx::gui;

namespace {

std::vector<FormatSpec> specs(const char* list) {
    return findFormats(list).specs;
}

FormatSpec spec(const char* id) {
    return *findFormat(id).spec;
}

QString hexOf(const MainWindow& window, int row) {
    return window.model()->fullText(row, FormatTableModel::Hex);
}

QString weight(const char* format, Code code, int bit) {
    const FormatSpec s = spec(format);
    return bitWeightText(s, decodeCode(s, code), bit);
}

void prepare(MainWindow& window, const char* formats, const QString& value) {
    window.controller()->setFormats(specs(formats));
    window.controller()->setInputText(value);
    window.controller()->waitForIdle();
    window.history()->clear();
    window.resize(1024, 768);
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    window.table()->setFocus();
    window.table()->setCurrentIndex(window.model()->index(0, FormatTableModel::Name));
}

void press(MainWindow& window, Qt::Key key, Qt::KeyboardModifiers modifiers = {}) {
    QTest::keyClick(window.table(), key, modifiers);
}

} // namespace

class TestBitKeyboard : public QObject {
    Q_OBJECT

  private slots:
    void fieldsOfEveryFormat();
    void fieldNamesFitAndAlign();
    void weightsOfBits();
    void hoverShowsTheWeight();
    void arrowsAndSpace();
    void focusIsVisible();
};

// The labels follow the format's own fields: widths from the spec, in order, and every stored
// bit under exactly one label.
void TestBitKeyboard::fieldsOfEveryFormat() {
    for (const FormatSpec& s : builtinFormats()) {
        const BitCellLayout layout = BitCellLayout::forFormats({s}, 12);
        const std::vector<FieldLabel> labels = fieldLabels(s, decodeCode(s, 0), layout);
        std::vector<std::pair<BitFieldKind, int>> expected;
        if (s.kind != FormatKind::BinaryFloat) {
            expected.push_back({BitFieldKind::Level, s.totalBits()});
        } else {
            if (s.isSigned)
                expected.push_back({BitFieldKind::Sign, 1});
            expected.push_back({BitFieldKind::Exponent, s.exponentBits});
            if (s.explicitIntegerBit)
                expected.push_back({BitFieldKind::IntegerBit, 1});
            if (s.fractionBits > 0)
                expected.push_back({BitFieldKind::Fraction, s.fractionBits});
        }
        QCOMPARE(labels.size(), expected.size());
        int stored = 0;
        for (std::size_t i = 0; i < labels.size(); ++i) {
            QVERIFY2(labels[i].kind == expected[i].first, s.id.c_str());
            QCOMPARE(labels[i].lastColumn - labels[i].firstColumn + 1, expected[i].second);
            QVERIFY2(!labels[i].names.isEmpty(), s.id.c_str());
            stored += expected[i].second;
        }
        QCOMPARE(stored, s.totalBits());
    }
    auto firstNames = [](const char* id) {
        QStringList names;
        const FormatSpec s = spec(id);
        for (const FieldLabel& label :
             fieldLabels(s, decodeCode(s, 0), BitCellLayout::forFormats({s}, 12)))
            names << label.names.first();
        return names;
    };
    // A posit's fields follow the code: 0x65 in posit8 is 0 110 01 01, a run of two ones.
    const FormatSpec posit = spec("posit8");
    const std::vector<FieldLabel> positLabels =
        fieldLabels(posit, decodeCode(posit, 0x65), BitCellLayout::forFormats({posit}, 12));
    QCOMPARE(positLabels.size(), std::size_t(4));
    QVERIFY(positLabels[1].kind == BitFieldKind::Regime);
    QCOMPARE(positLabels[1].lastColumn - positLabels[1].firstColumn + 1, 3);
    QCOMPARE(positLabels[1].names.first(), QString("regime: run 2, r = 1"));
    QCOMPARE(positLabels[2].lastColumn - positLabels[2].firstColumn + 1, 2);
    QCOMPARE(
        fieldLabels(posit, decodeCode(posit, 0x01), BitCellLayout::forFormats({posit}, 12)).size(),
        std::size_t(2)); // minpos: the regime fills every bit after the sign
    QCOMPARE(firstNames("fp16"), QStringList({"sign", "exponent (5)", "mantissa (10)"}));
    QCOMPARE(firstNames("fp64"), QStringList({"sign", "exponent (11)", "mantissa (52)"}));
    QCOMPARE(firstNames("fp4_e2m1"), QStringList({"sign", "exponent (2)", "mantissa (1)"}));
    QCOMPARE(firstNames("e8m0"), QStringList({"exponent (8)"}));
    QCOMPARE(firstNames("int8"), QStringList({"two's complement integer (8)"}));
    QCOMPARE(firstNames("nf4"), QStringList({"level index (4)"}));
}

// At every cell width the explorer uses, each field shows a name that fits over its cells,
// and the bracket under it is drawn over exactly those cells, in the field's colour.
void TestBitKeyboard::fieldNamesFitAndAlign() {
    const std::vector<FormatSpec> all = specs("fp64,fp32,tf32,bf16,fp16,fp8_e4m3,fp8_e5m2,"
                                              "fp6_e3m2,fp6_e2m3,fp4_e2m1,int8,int4,nf4,e8m0");
    QFont base;
    for (int cellWidth : {10, 12, 14, 17, 20, 28}) {
        const BitCellLayout layout = BitCellLayout::forFormats(all, cellWidth);
        const QFontMetrics metrics(fieldLabelFont(base, cellWidth));
        for (const FormatSpec& s : all) {
            for (const FieldLabel& label : fieldLabels(s, decodeCode(s, 0), layout)) {
                const int span = bitCellX(layout, label.lastColumn) + layout.cellWidth -
                                 bitCellX(layout, label.firstColumn);
                QVERIFY2(metrics.horizontalAdvance(label.names.last()) <= span + layout.cellGap,
                         qPrintable(QString("%1 at %2 px").arg(s.id.c_str()).arg(cellWidth)));
            }
            QImage image(layout.totalWidth(), 20, QImage::Format_RGB32);
            image.fill(Qt::white);
            QPalette palette;
            palette.setColor(QPalette::Base, Qt::white);
            {
                QPainter painter(&image);
                painter.setFont(base);
                paintFieldLabels(painter, QRect(0, 0, image.width(), 20), layout, s,
                                 decodeCode(s, 0), palette);
            }
            for (const FieldLabel& label : fieldLabels(s, decodeCode(s, 0), layout)) {
                const QColor colour = fieldColour(label.kind).darker(130);
                const int first = bitCellX(layout, label.firstColumn);
                const int last = bitCellX(layout, label.lastColumn) + layout.cellWidth - 1;
                const QRgb rgb = colour.rgb();
                QCOMPARE(image.pixel(first + 1, 19), rgb);
                QCOMPARE(image.pixel(last - 1, 19), rgb);
                QCOMPARE(image.pixel((first + last) / 2, 19), rgb);
                // Nothing of this field's colour left of its first cell.
                QVERIFY(first < 1 || image.pixel(first - 1, 19) != rgb);
            }
        }
    }
}

// Weights against values worked out by hand: FP16 1.0 is 0x3c00, 0.3952 rounds to 0x3653
// (exponent field 01101 = 13, binade 2^-2), 0x0001 is 2^-24.
void TestBitKeyboard::weightsOfBits() {
    QString text = weight("fp16", 0x3c00, 3);
    QVERIFY2(text.contains("mantissa bit 3: 2^-7 = 0.0078125 of this value's binade 2^0, worth "
                           "2^-7 = 0.0078125"),
             qPrintable(text));
    text = weight("fp16", 0x3653, 3);
    QVERIFY2(text.contains("2^-7 = 0.0078125 of this value's binade 2^-2, worth 2^-9 = "
                           "0.001953125"),
             qPrintable(text));
    text = weight("fp16", 0x0001, 0);
    QVERIFY2(text.contains("binade 2^-14, worth 2^-24 = 5.9604644775390625e-8"), qPrintable(text));
    text = weight("fp16", 0x3653, 10);
    QVERIFY2(text.contains("exponent bit 0: adds 2^0 = 1 to the biased exponent"),
             qPrintable(text));
    QVERIFY2(text.contains("field now 01101 = 13, bias 15"), qPrintable(text));
    text = weight("fp16", 0x3653, 14);
    QVERIFY2(text.contains("adds 2^4 = 16 to the biased exponent") &&
                 text.contains("a factor of 2^16"),
             qPrintable(text));
    text = weight("fp16", 0xb653, 15);
    QVERIFY2(text.startsWith("sign bit") && text.contains("negative"), qPrintable(text));
    text = weight("fp16", 0x7e01, 0);
    QVERIFY2(text.contains("payload"), qPrintable(text));
    text = weight("e8m0", 0x7f, 7);
    QVERIFY2(text.contains("adds 2^7 = 128 to the biased exponent"), qPrintable(text));
    // INT8 at scale 1/2: bit 2 is worth 4 × 1/2, the top bit −128 × 1/2.
    FormatSpec int8 = spec("int8");
    int8.scale = ExactValue::dyadic(false, 1, -1);
    text = bitWeightText(int8, decodeCode(int8, 0x05), 2);
    QVERIFY2(text.contains("bit 2: worth 2^2 × 0.5 = 2"), qPrintable(text));
    text = bitWeightText(int8, decodeCode(int8, 0x05), 7);
    QVERIFY2(text.contains("worth −2^7 × 0.5 = 64"), qPrintable(text));
    text = weight("nf4", 0x9, 3);
    QVERIFY2(text.contains("adds 2^3 = 8 to the index into the 16 levels (index now 9)"),
             qPrintable(text));
    const FormatSpec fp16 = spec("fp16");
    QVERIFY(implicitBitText(fp16, decodeCode(fp16, 0x3c00)).contains("1, worth 2^0 = 1"));
    QVERIFY(implicitBitText(fp16, decodeCode(fp16, 0x0001)).contains("0 here"));
}

// A real tooltip event over a cell shows the weight of the bit under the pointer.
void TestBitKeyboard::hoverShowsTheWeight() {
    MainWindow window;
    prepare(window, "fp16,bf16", "0.3952");
    QTableView* table = window.table();
    const QModelIndex index = window.model()->index(0, FormatTableModel::Bits);
    const QRect rect = table->visualRect(index);
    const BitCellLayout& layout = window.bitsDelegate()->layout();
    // FP16's mantissa bit 3: the 4th stored cell from the right.
    const FormatSpec fp16 = spec("fp16");
    int column = -1;
    for (const BitCell& cell : bitCells(fp16, decodeCode(fp16, 0x3653), layout))
        if (cell.bit == 3)
            column = cell.column;
    QVERIFY(column >= 0);
    const QPoint pos(rect.left() + bitCellX(layout, column) + layout.cellWidth / 2,
                     rect.center().y());
    QHelpEvent help(QEvent::ToolTip, pos, table->viewport()->mapToGlobal(pos));
    QApplication::sendEvent(table->viewport(), &help);
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY2(QToolTip::text().startsWith("fp16 — mantissa bit 3: 2^-7 = 0.0078125"),
             qPrintable(QToolTip::text()));
    QCOMPARE(window.bitsDelegate()->toolTipAt(pos, rect, index), QToolTip::text());
    QToolTip::hideText();
}

void TestBitKeyboard::arrowsAndSpace() {
    MainWindow window;
    prepare(window, "fp16,bf16,fp4_e2m1", "0.3952");
    BitCellsDelegate* bits = window.bitsDelegate();
    QTableView* table = window.table();
    press(window, Qt::Key_Right); // from the name into the bits: the first (sign) bit
    QCOMPARE(table->currentIndex().column(), int(FormatTableModel::Bits));
    QCOMPARE(bits->focusedBit(0), std::optional<int>(15));
    for (int i = 0; i < 6; ++i) // five exponent bits, then over the implicit bit
        press(window, Qt::Key_Right);
    QCOMPARE(bits->focusedBit(0), std::optional<int>(9));
    QCOMPARE(hexOf(window, 0), QString("0x3653"));
    press(window, Qt::Key_Space);
    QCOMPARE(hexOf(window, 0), QString("0x3453")); // 0x3653 ^ 0x0200
    // The same undoable step as a click.
    QCOMPARE(window.history()->undoAction()->text(), QString("&Undo flip bit 9 of fp16"));
    press(window, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(hexOf(window, 0), QString("0x3653"));
    // Down keeps the place in the aligned layout: BF16's first mantissa bit is bit 6.
    press(window, Qt::Key_Down);
    QCOMPARE(table->currentIndex().row(), 1);
    QCOMPARE(bits->focusedBit(1), std::optional<int>(6));
    QCOMPARE(hexOf(window, 1), QString("0x3eca"));
    press(window, Qt::Key_Return);
    QCOMPARE(hexOf(window, 1), QString("0x3e8a")); // 0x3eca ^ 0x0040
    // FP4 E2M1 (s e e . m): its one mantissa bit, then left through the exponent to the sign.
    press(window, Qt::Key_Down);
    QCOMPARE(bits->focusedBit(2), std::optional<int>(0));
    press(window, Qt::Key_Left);
    QCOMPARE(bits->focusedBit(2), std::optional<int>(1));
    press(window, Qt::Key_Left);
    press(window, Qt::Key_Left);
    QCOMPARE(bits->focusedBit(2), std::optional<int>(3));
    press(window, Qt::Key_Left); // past the first bit: the view moves to the Name column
    QCOMPARE(table->currentIndex().column(), int(FormatTableModel::Name));
    press(window, Qt::Key_Right);
    QCOMPARE(bits->focusedBit(2), std::optional<int>(3));
    for (int i = 0; i < 4; ++i) // to bit 0, then past it into the Hex column
        press(window, Qt::Key_Right);
    QCOMPARE(table->currentIndex().column(), int(FormatTableModel::Hex));
    press(window, Qt::Key_Left); // back in from the right: the last bit
    QCOMPARE(bits->focusedBit(2), std::optional<int>(0));
    // Ctrl+arrows stay the window's: Ctrl+Up steps the row instead of moving the focus.
    const QString before = hexOf(window, 2);
    press(window, Qt::Key_Up, Qt::ControlModifier);
    QVERIFY(hexOf(window, 2) != before);
    QCOMPARE(bits->focusedBit(2), std::optional<int>(0));
}

// The focused cell and the focused bit are drawn by the delegates themselves, so they show
// whatever the style: a focused table looks different exactly around them.
void TestBitKeyboard::focusIsVisible() {
    MainWindow window;
    prepare(window, "fp16,bf16,fp8_e4m3", "0.3952");
    QTableView* table = window.table();
    press(window, Qt::Key_Right);
    press(window, Qt::Key_Right); // bit 14
    QCOMPARE(window.bitsDelegate()->focusedBit(0), std::optional<int>(14));
    const QImage focused = table->viewport()->grab().toImage();
    if (const QByteArray dir = qgetenv("FPX_SCREENSHOT_DIR"); !dir.isEmpty())
        window.grab().save(QString::fromLocal8Bit(dir) + "/bit-focus.png");
    window.valueEdit()->setFocus();
    QTRY_VERIFY(!table->hasFocus());
    const QImage unfocused = table->viewport()->grab().toImage();
    QCOMPARE(focused.size(), unfocused.size());

    const BitCellLayout& layout = window.bitsDelegate()->layout();
    const QRect bitsCell = table->visualRect(window.model()->index(0, FormatTableModel::Bits));
    const FormatSpec fp16 = spec("fp16");
    int column = -1;
    for (const BitCell& cell : bitCells(fp16, decodeCode(fp16, 0x3653), layout))
        if (cell.bit == 14)
            column = cell.column;
    const int x = bitsCell.left() + bitCellX(layout, column);
    const QRect around(x - 4, bitsCell.top(), layout.cellWidth + 8, bitsCell.height());
    auto differences = [&](const QRect& area) {
        int count = 0;
        for (int py = area.top(); py <= area.bottom(); ++py)
            for (int px = area.left(); px <= area.right(); ++px)
                count += focused.pixel(px, py) != unfocused.pixel(px, py);
        return count;
    };
    // The ring around the focused bit, and the frame of the cell.
    QVERIFY2(differences(around) > layout.cellWidth,
             qPrintable(QString::number(differences(around))));
    // Another row's bits are drawn alike either way.
    const QRect otherRow = table->visualRect(window.model()->index(2, FormatTableModel::Bits));
    QCOMPARE(differences(otherRow), 0);

    // The other columns get a frame too.
    table->setFocus();
    QTRY_VERIFY(table->hasFocus());
    table->setCurrentIndex(window.model()->index(1, FormatTableModel::Hex));
    const QImage hexFocused = table->viewport()->grab().toImage();
    window.valueEdit()->setFocus();
    QTRY_VERIFY(!table->hasFocus());
    const QImage hexUnfocused = table->viewport()->grab().toImage();
    const QRect hexCell = table->visualRect(window.model()->index(1, FormatTableModel::Hex));
    int frame = 0;
    for (int px = hexCell.left(); px <= hexCell.right(); ++px)
        frame +=
            hexFocused.pixel(px, hexCell.top() + 1) != hexUnfocused.pixel(px, hexCell.top() + 1);
    QVERIFY2(frame > hexCell.width() / 3, qPrintable(QString::number(frame)));
}

QTEST_MAIN(TestBitKeyboard)
#include "tst_bit_keyboard.moc"
