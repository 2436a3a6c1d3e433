// SPDX-License-Identifier: GPL-3.0-or-later
// The explorer's format table in a lecture hall, offscreen at 1024 × 768: numbers cut to fit
// keep their exponent, one notation per column, every digit on hover and copy; columns that
// stay put while the value changes; bits that grow with the zoom and stay under the mouse after
// a flip; 0 bits visible on the selected row; a first window that shows the error.
#include "common/decimal_layout.h"
#include "common/zoom.h"
#include "explorer_table.h"
#include "pages/explorer/bit_cells_delegate.h"
#include "pages/explorer/format_table_model.h"
#include "pages/explorer/table_fit.h"
#include "shell/main_window.h"
#include "shell/window_size.h"

#include "fpx/exact/decimal_text.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QHeaderView>
#include <QLineEdit>
#include <QScrollBar>
#include <QStyle>
#include <QTableView>
#include <QTest>

#include <QRegularExpression>

#include <optional>

using namespace fpx;
using namespace fpx::gui;
using fpx::test::rowOf;
using fpx::test::specs;

namespace {

// Exact decimals worked out apart from fpx (Python's decimal.Decimal of the binary values):
// FP32's nearest to 1e-8, 3.4e38 and 1e-6, and 2^-149, the smallest FP32 subnormal.
const QString kFp32Of1em8 = "9.99999993922529029077850282192230224609375e-9";
const QString kFp32Of34e38 = "339999995214436424907732413799364296704";
const QString kTwoToMinus149 =
    "1.40129846432481707092372958328991613128026194187651577175706828388979108268586060148663"
    "818836212158203125e-45";

const QChar kEllipsis(0x2026);

void prepare(MainWindow& window, const char* formats = nullptr) {
    if (formats)
        window.controller()->setFormats(specs(formats));
    window.resize(1024, 768);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    QApplication::processEvents();
}

void typeValue(MainWindow& window, const QString& text) {
    QLineEdit* edit = window.valueEdit();
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Backspace);
    QTest::keyClicks(edit, text);
    window.controller()->waitForIdle();
    QApplication::processEvents();
}

QString shown(const MainWindow& window, int row, int column) {
    return window.model()->index(row, column).data().toString();
}

// The significant digits and the power of ten of the first one, from a decimal written either
// way ("0.0001234", "1.234e-4"), and whether a "…" says digits were cut. Read apart from the
// code under test.
struct Reading {
    QString digits;
    int exponent = 0;
    bool cut = false;
};

Reading read(QString text) {
    Reading r;
    r.cut = text.contains(kEllipsis);
    text.remove(kEllipsis);
    if (text.startsWith('-') || text.startsWith('+'))
        text.remove(0, 1);
    int exponent = 0;
    if (const qsizetype e = text.indexOf('e'); e >= 0) {
        exponent = text.mid(e + 1).toInt();
        text.truncate(e);
    }
    const qsizetype point = text.indexOf('.');
    const qsizetype before = point < 0 ? text.size() : point;
    text.remove('.');
    const qsizetype first = text.indexOf(QRegularExpression("[1-9]"));
    r.digits = text.mid(first);
    while (r.digits.endsWith('0'))
        r.digits.chop(1);
    r.exponent = exponent + static_cast<int>(before - first - 1);
    return r;
}

// The exact value of row `row`, in full, as the core writes it.
QString exactValue(const MainWindow& window, int row) {
    return window.model()->fullText(row, FormatTableModel::Value);
}

bool isPlainNumber(const QString& text) {
    return !text.contains('e') && text != "inf" && text != "-inf" && text != "nan";
}

bool isSpecial(const QString& text) {
    return text == "0" || text == "-0" || text == "inf" || text == "-inf" || text == "nan";
}

// Where each column is: hidden or its left edge and width.
QList<QPair<int, int>> columnPlaces(const QTableView* table) {
    QList<QPair<int, int>> places;
    for (int c = 0; c < table->model()->columnCount(); ++c)
        places << (table->isColumnHidden(c)
                       ? QPair<int, int>{-1, -1}
                       : QPair<int, int>{table->columnViewportPosition(c), table->columnWidth(c)});
    return places;
}

// The stored bit under `pos` of the table's viewport, as the delegate would hit it.
std::optional<int> bitUnder(const MainWindow& window, int row, const QPoint& pos) {
    const QRect rect =
        window.table()->visualRect(window.model()->index(row, FormatTableModel::Bits));
    const ExplorerRow& r = window.model()->row(row);
    return bitAt(pos, rect, window.bitsDelegate()->layout(), r.spec, r.report.details.decoded);
}

QPoint centreOfBit(const MainWindow& window, int row, int bit) {
    const QRect rect =
        window.table()->visualRect(window.model()->index(row, FormatTableModel::Bits));
    const BitCellLayout& layout = window.bitsDelegate()->layout();
    const ExplorerRow& r = window.model()->row(row);
    for (const BitCell& cell : bitCells(r.spec, r.report.details.decoded, layout))
        if (cell.bit == bit)
            return {rect.left() + bitCellX(layout, cell.column) + layout.cellWidth / 2,
                    rect.bottom() - 4};
    return {};
}

} // namespace

class TestFormatTable : public QObject {
    Q_OBJECT

  private slots:
    void decimalLayout();
    void cutValuesKeepTheirExponent_data();
    void cutValuesKeepTheirExponent();
    void errorsFitTheirColumn();
    void hoverAndCopyGiveEveryDigit();
    void columnsStayWhileTyping();
    void zoomOnlyEnlargesTheBits();
    void flipKeepsTheBitsInPlace();
    void zerosShowOnTheSelectedRow();
    void firstWindowShowsTheError();
};

void TestFormatTable::decimalLayout() {
    auto parts = [](const char* text) { return *decimalParts(text); };
    const DecimalParts small = parts("9.99999993922529029077850282192230224609375e-9");
    QCOMPARE(small.exponent, -9);
    QCOMPARE(small.digits, std::string("999999993922529029077850282192230224609375"));
    QCOMPARE(parts("0.00123").exponent, -3);
    QCOMPARE(parts("0.00123").digits, std::string("123"));
    QCOMPARE(parts("65504").exponent, 4);
    QCOMPARE(parts("65504").digits, std::string("65504"));
    QCOMPARE(parts("1e40").exponent, 40);
    QCOMPARE(parts("-0").kind, DecimalParts::Kind::Zero);
    QVERIFY(parts("-0").negative);
    QCOMPARE(parts("-inf").kind, DecimalParts::Kind::Infinity);
    QVERIFY(!decimalParts("0x12"));
    QVERIFY(!decimalParts("1e"));

    // Cut digits, never rounded; the "…" before the exponent, which stays.
    QCOMPARE(fittedDecimal(small, Notation::Scientific, 20),
             QString("9.99999993922529") + kEllipsis + "e-9");
    QCOMPARE(fittedDecimal(small, Notation::Scientific, 100),
             QString(small.digits.front()) + "." + QString::fromStdString(small.digits.substr(1)) +
                 "e-9");
    QCOMPARE(fittedDecimal(parts("-3.5e38"), Notation::Scientific, 20), QString("-3.5e38"));
    QCOMPARE(fittedDecimal(parts("-3.5e38"), Notation::Scientific, 6),
             QString("-3") + kEllipsis + "e38");
    QCOMPARE(fittedDecimal(parts("65504"), Notation::Scientific, 20), QString("6.5504e4"));
    QCOMPARE(fittedDecimal(parts("65504"), Notation::Plain, 20), QString("65504"));
    QCOMPARE(fittedDecimal(parts("0.395263671875"), Notation::Plain, 8),
             QString("0.39526") + kEllipsis);
    QCOMPARE(fittedDecimal(parts("0.00123"), Notation::Plain, 20), QString("0.00123"));
    QCOMPARE(fittedDecimal(parts("0.3333"), Notation::Plain, 20, true),
             QString("0.3333") + kEllipsis);
    QCOMPARE(fittedDecimal(parts("100"), Notation::Plain, 20), QString("100"));
    QCOMPARE(fittedDecimal(parts("-0"), Notation::Scientific, 20), QString("-0"));

    // Plain only while it says the magnitude: no more than three zeros after the point, the
    // integer part whole.
    QVERIFY(readsPlain(parts("0.000123"), 20));
    QVERIFY(!readsPlain(parts("0.0000123"), 20));
    QVERIFY(readsPlain(parts("123456.7890123"), 8));
    QVERIFY(!readsPlain(parts("123456789.5"), 8));
    QVERIFY(readsPlain(parts("nan"), 1));
}

void TestFormatTable::cutValuesKeepTheirExponent_data() {
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("exact"); // the row's exact value, worked out apart
    QTest::newRow("1e-8") << "1e-8"
                          << "fp32" << kFp32Of1em8;
    QTest::newRow("2^-149") << "2^-149"
                            << "fp32" << kTwoToMinus149;
    QTest::newRow("3.4e38") << "3.4e38"
                            << "fp32" << kFp32Of34e38;
    QTest::newRow("-3.4e38") << "-3.4e38"
                             << "fp32"
                             << "-" + kFp32Of34e38;
    QTest::newRow("0.3952") << "0.3952"
                            << "fp16"
                            << "0.395263671875";
    QTest::newRow("65504") << "65504"
                           << "fp16"
                           << "65504";
    QTest::newRow("65520") << "65520"
                           << "fp32"
                           << "65520";
    QTest::newRow("1e-6") << "1e-6"
                          << "fp32"
                          << "9.999999974752427078783512115478515625e-7";
}

void TestFormatTable::cutValuesKeepTheirExponent() {
    QFETCH(QString, value);
    QFETCH(QString, format);
    QFETCH(QString, exact);
    MainWindow window;
    prepare(window);
    typeValue(window, value);
    const FormatTableModel* model = window.model();
    QTableView* table = window.table();
    const int row = rowOf(model, format);
    QVERIFY(row >= 0);
    // The core's exact digits are those worked out apart.
    const Reading reference = read(exact);
    const Reading full = read(exactValue(window, row));
    QCOMPARE(full.digits, reference.digits);
    QCOMPARE(full.exponent, reference.exponent);

    const QString text = shown(window, row, FormatTableModel::Value);
    const Reading cell = read(text);
    // The right exponent, and digits that begin the exact ones; a "…" exactly where some
    // are missing.
    QCOMPARE(cell.exponent, reference.exponent);
    QVERIFY2(reference.digits.startsWith(cell.digits), qPrintable(text));
    QCOMPARE(cell.cut, cell.digits != reference.digits);
    QVERIFY2(cell.digits.size() >= 8 || !cell.cut, qPrintable(text));
    // A scientific cell keeps its exponent at the end.
    if (text.contains('e'))
        QVERIFY2(QRegularExpression("e-?[0-9]+$").match(text).hasMatch(), qPrintable(text));

    // One notation for every row: all finite non-zero values plain, or all scientific.
    const bool plain = isPlainNumber(text);
    QCOMPARE(model->notation(FormatTableModel::Value) == Notation::Plain, plain);
    for (int r = 0; r < model->rowCount(); ++r) {
        const QString other = shown(window, r, FormatTableModel::Value);
        if (isSpecial(other))
            continue;
        QVERIFY2(isPlainNumber(other) == plain,
                 qPrintable(QString("%1: '%2' beside '%3'")
                                .arg(model->fullText(r, FormatTableModel::Name), other, text)));
        // Every row's digits begin its exact ones.
        const Reading otherCell = read(other);
        const Reading otherExact = read(exactValue(window, r));
        QVERIFY2(otherExact.digits.startsWith(otherCell.digits) &&
                     otherCell.exponent == otherExact.exponent,
                 qPrintable(other));
        // And the text fits the column.
        const QFont font = fixedPitchFont().resolve(table->font());
        QVERIFY2(QFontMetrics(font).horizontalAdvance(other) <
                     table->columnWidth(FormatTableModel::Value),
                 qPrintable(other));
    }
    // TF32 and BF16 beside FP32 are written the same way.
    const QString tf32 = shown(window, rowOf(model, "tf32"), FormatTableModel::Value);
    const QString bf16 = shown(window, rowOf(model, "bf16"), FormatTableModel::Value);
    if (!isSpecial(tf32) && !isSpecial(bf16))
        QCOMPARE(isPlainNumber(tf32), isPlainNumber(bf16));
}

void TestFormatTable::errorsFitTheirColumn() {
    // Errors are rounded to a few digits; one notation per column as for the value, and each
    // text inside its column whatever the input's size.
    MainWindow window;
    prepare(window);
    const FormatTableModel* model = window.model();
    QTableView* table = window.table();
    const QFont font = fixedPitchFont().resolve(table->font());
    for (const char* value : {"0.3952", "1e-8", "3.4e38", "1e300", "1e-30000", "65520", "0.5"}) {
        typeValue(window, QString::fromLatin1(value));
        for (int c : {FormatTableModel::Error, FormatTableModel::UlpError,
                      FormatTableModel::RelativeError}) {
            std::optional<bool> plain;
            for (int r = 0; r < model->rowCount(); ++r) {
                const QString text = shown(window, r, c);
                const QString what = QString("%1, column %2: '%3'").arg(value).arg(c).arg(text);
                QVERIFY2(text.size() <=
                             model->columnChars(static_cast<FormatTableModel::Column>(c)),
                         qPrintable(what));
                if (!table->isColumnHidden(c))
                    QVERIFY2(QFontMetrics(font).horizontalAdvance(text) < table->columnWidth(c),
                             qPrintable(what));
                if (isSpecial(text) || text == QStringLiteral("—"))
                    continue;
                if (!plain)
                    plain = isPlainNumber(text);
                QVERIFY2(*plain == isPlainNumber(text), qPrintable(what));
            }
        }
    }
}

void TestFormatTable::hoverAndCopyGiveEveryDigit() {
    MainWindow window;
    prepare(window);
    typeValue(window, "1e-8");
    const FormatTableModel* model = window.model();
    const int fp32 = rowOf(model, "fp32");
    const QModelIndex value = model->index(fp32, FormatTableModel::Value);
    QVERIFY(value.data().toString().contains(kEllipsis));
    QCOMPARE(value.data(Qt::ToolTipRole).toString(), kFp32Of1em8);

    // Ctrl+C on the table copies the selected row's exact value, every digit.
    window.selectRow(fp32);
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    window.table()->setFocus();
    QApplication::clipboard()->clear();
    QTest::keyClick(window.table(), Qt::Key_C, Qt::ControlModifier);
    QCOMPARE(QApplication::clipboard()->text(), kFp32Of1em8);

    // So does the table's context menu.
    QCOMPARE(window.table()->contextMenuPolicy(), Qt::ActionsContextMenu);
    QAction* copyValue = nullptr;
    for (QAction* action : window.table()->actions())
        if (action->text().remove('&') == "Copy value")
            copyValue = action;
    QVERIFY(copyValue);
    window.selectRow(rowOf(model, "fp64"));
    QApplication::clipboard()->clear();
    copyValue->trigger();
    QCOMPARE(
        QApplication::clipboard()->text(),
        QString("1.0000000000000000209225608301284726753266340892878361046314239501953125e-8"));
}

void TestFormatTable::columnsStayWhileTyping() {
    MainWindow window;
    prepare(window);
    typeValue(window, "65504");
    QTableView* table = window.table();
    const QList<QPair<int, int>> places = columnPlaces(table);
    const BitCellLayout layout = window.bitsDelegate()->layout();
    // The default formats at 1024 × 768 show the error beside the value.
    QVERIFY(!table->isColumnHidden(FormatTableModel::Error));
    for (const char* value : {"65520", "1e-8", "3.4e38", "-0", "nan", "1e300", "65504"}) {
        typeValue(window, QString::fromLatin1(value));
        QCOMPARE(columnPlaces(table), places);
        QCOMPARE(window.bitsDelegate()->layout().cellWidth, layout.cellWidth);
    }
    // Key by key too: each intermediate value ("6", "65", …) keeps the columns.
    QLineEdit* edit = window.valueEdit();
    edit->selectAll();
    QTest::keyClick(edit, Qt::Key_Backspace);
    for (const QChar key : QString("3.4e38")) {
        QTest::keyClicks(edit, QString(key));
        window.controller()->waitForIdle();
        QApplication::processEvents();
        QCOMPARE(columnPlaces(table), places);
    }
}

void TestFormatTable::zoomOnlyEnlargesTheBits() {
    for (const char* formats : {"fp64,fp32,tf32,bf16,fp16,fp8_e4m3,fp8_e5m2,fp6_e3m2,fp6_e2m3,"
                                "fp4_e2m1,int8,int4,nf4",
                                "fp32,fp16,bf16,fp8_e4m3,fp4_e2m1", "fp8_e4m3,fp8_e5m2,fp4_e2m1"}) {
        MainWindow window;
        prepare(window, formats);
        typeValue(window, "0.3952");
        QTableView* table = window.table();
        int cell = 0;
        int label = 0;
        int bitsWidth = 0;
        std::size_t hidden = 0;
        for (int percent : {100, 150, 200}) {
            window.zoom()->setPercent(percent);
            QApplication::processEvents();
            const BitCellLayout& layout = window.bitsDelegate()->layout();
            const QString what =
                QString("%1 at %2 %: cell %3 px").arg(formats).arg(percent).arg(layout.cellWidth);
            // The natural size at this zoom, never less: the other columns step out instead.
            const BitCellLayout shape =
                BitCellLayout::forFormats(window.controller()->formats(), 1);
            QCOMPARE(layout.cellWidth, TableFitter::naturalCellWidth(
                                           table->font(), shape.leftCells + shape.rightCells));
            const int labelPixels = fieldLabelFont(table->font(), layout.cellWidth).pixelSize();
            QVERIFY2(layout.cellWidth > cell, qPrintable(what));
            QVERIFY2(labelPixels > label, qPrintable(what));
            QVERIFY2(table->columnWidth(FormatTableModel::Bits) > bitsWidth, qPrintable(what));
            // Columns only step out as the zoom grows, the format and its bits never.
            QVERIFY2(window.tableFitter()->hiddenColumns().size() >= hidden, qPrintable(what));
            for (int c : {FormatTableModel::Name, FormatTableModel::Bits})
                QVERIFY(!table->isColumnHidden(c));
            cell = layout.cellWidth;
            label = labelPixels;
            bitsWidth = table->columnWidth(FormatTableModel::Bits);
            hidden = window.tableFitter()->hiddenColumns().size();
        }
        // At 200 % a field's name is at least as tall as the table's own text at 100 %.
        QVERIFY2(label >= 11, qPrintable(QString::number(label)));
    }
}

void TestFormatTable::flipKeepsTheBitsInPlace() {
    // A flip changes the value, and so the texts of every row: the bits must not move, or the
    // next click lands on another bit.
    MainWindow window;
    prepare(window);
    typeValue(window, "65504");
    const FormatTableModel* model = window.model();
    QTableView* table = window.table();
    const int fp16 = rowOf(model, "fp16");
    const int fp32 = rowOf(model, "fp32");
    struct Click {
        int row;
        int bit;
    };
    // FP16's lowest exponent bit (65504 → 32752), its top mantissa bit, FP32's sign and its
    // top exponent bit (to a huge value), each clicked twice.
    for (const Click click : {Click{fp16, 10}, Click{fp16, 9}, Click{fp32, 31}, Click{fp32, 30}}) {
        const QPoint at = centreOfBit(window, click.row, click.bit);
        QCOMPARE(bitUnder(window, click.row, at), std::optional<int>(click.bit));
        const QList<QPair<int, int>> places = columnPlaces(table);
        const QString before = model->fullText(click.row, FormatTableModel::Hex);
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, at);
        window.controller()->waitForIdle();
        QApplication::processEvents();
        QVERIFY(model->fullText(click.row, FormatTableModel::Hex) != before);
        QCOMPARE(columnPlaces(table), places);
        // The same point hits the same bit, and a second click there flips it back.
        QCOMPARE(bitUnder(window, click.row, at), std::optional<int>(click.bit));
        QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, at);
        window.controller()->waitForIdle();
        QApplication::processEvents();
        QCOMPARE(model->fullText(click.row, FormatTableModel::Hex), before);
    }
}

void TestFormatTable::zerosShowOnTheSelectedRow() {
    MainWindow window;
    prepare(window, "fp16,bf16");
    typeValue(window, "1"); // FP16 0x3c00: ten 0 bits in its mantissa
    QTableView* table = window.table();
    window.selectRow(0);
    table->setFocus();
    QApplication::processEvents();
    const QImage image = table->viewport()->grab().toImage();
    const QRect rect = table->visualRect(window.model()->index(0, FormatTableModel::Bits));
    const BitCellLayout& layout = window.bitsDelegate()->layout();
    const QColor highlight = table->palette().color(QPalette::Highlight);
    const qreal ratio = image.devicePixelRatio();
    auto distance = [](QColor a, QColor b) {
        return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) +
               std::abs(a.blue() - b.blue());
    };
    const ExplorerRow& row = window.model()->row(0);
    int zeros = 0;
    for (const BitCell& cell : bitCells(row.spec, row.report.details.decoded, layout)) {
        if (!cell.bit || cell.value)
            continue;
        ++zeros;
        // A point of the cell's fill left of its digit, half-way down the drawn cells.
        const QPoint inside(rect.left() + bitCellX(layout, cell.column) + 2,
                            centreOfBit(window, 0, *cell.bit).y());
        const QColor fill = image.pixelColor((QPointF(inside) * ratio).toPoint());
        QVERIFY2(
            distance(fill, highlight) > 150,
            qPrintable(
                QString("bit %1: %2 on %3").arg(*cell.bit).arg(fill.name(), highlight.name())));
    }
    QCOMPARE(zeros, 12); // 0 01111 0000000000: the sign, one exponent bit, the mantissa
}

void TestFormatTable::firstWindowShowsTheError() {
    // No larger than the free area, and at 1024 × 768 wide enough for the format, bits, value
    // and error of the default formats.
    for (const QRect screen :
         {QRect(0, 0, 1024, 768), QRect(0, 0, 1024, 740), QRect(0, 0, 800, 600),
          QRect(0, 0, 1920, 1080), QRect(0, 0, 3840, 2160)}) {
        const QSize size = firstWindowSize(screen);
        QVERIFY(size.width() <= screen.width() && size.height() <= screen.height());
        QVERIFY(size.width() <= 1600 && size.height() <= 900);
    }
    QVERIFY(firstWindowSize(QRect(0, 0, 1024, 768)).width() >= 1000);
    MainWindow window;
    window.resize(firstWindowSize(QRect(0, 0, 1024, 768)));
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    typeValue(window, "0.3952");
    QTableView* table = window.table();
    for (int c : {FormatTableModel::Name, FormatTableModel::Bits, FormatTableModel::Value,
                  FormatTableModel::Error}) {
        QVERIFY(!table->isColumnHidden(c));
        QVERIFY2(table->columnViewportPosition(c) + table->columnWidth(c) <=
                     table->viewport()->width(),
                 qPrintable(QString::number(c)));
    }
    QVERIFY(!table->horizontalScrollBar()->isVisible());
}

QTEST_MAIN(TestFormatTable)
#include "tst_format_table.moc"
