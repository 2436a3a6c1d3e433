// SPDX-License-Identifier: GPL-3.0-or-later
// The explorer's Quantization page with real widgets, offscreen: tensor files written here by
// hand (.npy bytes, text) quantized through the page's worker, the table checked against the
// exact core's quantizeExactly and measureQuantization, the block inspector against the issue's
// worked MXFP8 E5M2 block, bad files, a large file's progress and cancel (the previous results
// kept) and its completed run against the core, the headless screenshot, a state applied again
// drawn pixel for pixel as before, and the results' layout in a small window at a large type.
#include "common/plot_legibility.h"
#include "pages/quantization/block_inspector.h"
#include "pages/quantization/quantization_page.h"
#include "shell/main_window.h"

#include <qcustomplot.h>

#include "fpx/exact/code.h"
#include "fpx/quantization/block_quantization.h"
#include "fpx/quantization/tensor_quantizer.h"

#include <QApplication>
#include <QComboBox>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QListWidget>
#include <QMimeData>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

#include <QUrl>
#include <chrono>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <vector>

using namespace fpx;
using namespace fpx::gui;

namespace {

// A version 1.0 .npy file of little-endian float32, C order, 1-d: written byte by byte here
// so that the reader is checked against the format's definition, not against fpx's writer.
bool writeNpyFloats(const QString& path, const std::vector<float>& values) {
    QByteArray header = QByteArray("{'descr': '<f4', 'fortran_order': False, 'shape': (") +
                        QByteArray::number(qulonglong(values.size())) + ",), }";
    // magic (6) + version (2) + length (2) + header, padded with spaces to 64, then '\n'.
    while ((10 + header.size() + 1) % 64 != 0)
        header += ' ';
    header += '\n';
    QByteArray bytes("\x93NUMPY\x01\x00", 8);
    bytes += char(header.size() & 0xff);
    bytes += char(header.size() >> 8);
    bytes += header;
    for (float v : values) {
        std::uint32_t bits;
        std::memcpy(&bits, &v, 4);
        for (int i = 0; i < 4; ++i)
            bytes += char((bits >> (8 * i)) & 0xff);
    }
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

// A large 1-d .npy of `descr` ('<f4', '<f8') with the values' bytes as they lie in memory
// (little-endian here: the header says so): written at once rather than byte by byte, for the
// tens of megabytes of a run long enough to watch.
template <typename T>
bool writeLargeNpy(const QString& path, const char* descr, const std::vector<T>& values) {
    static_assert(std::endian::native == std::endian::little);
    QByteArray header = QByteArray("{'descr': '") + descr +
                        "', 'fortran_order': False, 'shape': (" +
                        QByteArray::number(qulonglong(values.size())) + ",), }";
    while ((10 + header.size() + 1) % 64 != 0)
        header += ' ';
    header += '\n';
    QByteArray head("\x93NUMPY\x01\x00", 8);
    head += char(header.size() & 0xff);
    head += char(header.size() >> 8);
    head += header;
    QFile file(path);
    const auto bytes = qint64(values.size() * sizeof(T));
    return file.open(QIODevice::WriteOnly) && file.write(head) == head.size() &&
           file.write(reinterpret_cast<const char*>(values.data()), bytes) == bytes;
}

QByteArray floatBytes(const std::vector<float>& values) {
    QByteArray bytes;
    for (float v : values) {
        std::uint32_t bits;
        std::memcpy(&bits, &v, 4);
        for (int i = 0; i < 4; ++i)
            bytes += char((bits >> (8 * i)) & 0xff);
    }
    return bytes;
}

// A .safetensors file with two F32 tensors, by the format's definition: an 8-byte little-endian
// header length, the JSON header, the data.
bool writeTwoTensors(const QString& path, const std::vector<float>& bias,
                     const std::vector<float>& weight) {
    const QByteArray data = floatBytes(bias) + floatBytes(weight);
    const qsizetype split = qsizetype(bias.size() * 4);
    QByteArray header = QByteArray("{\"bias\":{\"dtype\":\"F32\",\"shape\":[") +
                        QByteArray::number(qulonglong(bias.size())) + "],\"data_offsets\":[0," +
                        QByteArray::number(split) +
                        "]},\"weight\":{\"dtype\":\"F32\",\"shape\":[4," +
                        QByteArray::number(qulonglong(weight.size() / 4)) + "],\"data_offsets\":[" +
                        QByteArray::number(split) + "," + QByteArray::number(data.size()) + "]}}";
    while (header.size() % 8 != 0)
        header += ' ';
    QByteArray bytes;
    for (int i = 0; i < 8; ++i)
        bytes += char((qulonglong(header.size()) >> (8 * i)) & 0xff);
    bytes += header + data;
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

// Values spread over several binades with both signs, a zero and a few large ones: blocks whose
// scales differ, so that the block size and the scale rule matter.
std::vector<float> testValues(std::size_t n) {
    std::vector<float> values(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double magnitude = std::ldexp(1.0 + double(i % 7) / 7.0, int(i % 11) - 6);
        values[i] = float((i % 3 == 0 ? -1 : 1) * magnitude * std::sin(double(i) + 0.5));
    }
    if (n > 5)
        values[5] = 0;
    if (n > 200)
        values[200] = 300.25f;
    return values;
}

// Waits for the page's run to end and its result to be shown.
bool waitForRun(QuantizationPage* page, int ms = 120000) {
    return page->waitUntilIdle(std::chrono::milliseconds(ms));
}

// `shown` counts what the core's makeHistogram counts of `values` over the same range and bins.
void expectSameHistogram(const Histogram& shown, const std::vector<double>& values) {
    HistogramOptions options;
    options.bins = shown.binCount();
    options.axis = shown.axis;
    options.low = shown.low;
    options.high = shown.high;
    const Histogram core = makeHistogram(std::span<const double>(values), options);
    QCOMPARE(shown.counts, core.counts);
    QCOMPARE(shown.below, core.below);
    QCOMPARE(shown.above, core.above);
    QCOMPARE(shown.zeros, core.zeros);
    QCOMPARE(shown.nans, core.nans);
    QCOMPARE(shown.infs, core.infs);
}

int rowOf(const QTableWidget* table, const QString& id) {
    for (int r = 0; r < table->rowCount(); ++r)
        if (table->item(r, QuantizationPage::Format)->text() == id)
            return r;
    return -1;
}

// Where `page` as drawn now differs from `before`: the box and the widget there.
QString difference(QWidget& page, const QImage& before) {
    const QImage now = page.grab().toImage();
    if (now.size() != before.size())
        return "the page's size changed";
    QRect box;
    for (int y = 0; y < now.height(); ++y)
        for (int x = 0; x < now.width(); ++x)
            if (now.pixel(x, y) != before.pixel(x, y))
                box |= QRect(x, y, 1, 1);
    const QWidget* at = page.childAt(box.center());
    return QString("pixels differ in %1 × %2 at (%3, %4), in %5")
        .arg(box.width())
        .arg(box.height())
        .arg(box.x())
        .arg(box.y())
        .arg(at ? at->objectName() + " (" + at->metaObject()->className() + ")" : QString());
}

// The page on its own tab, the form set by `setUp`, shown (which runs it) and finished.
template <typename SetUp> void openAndRun(MainWindow& window, SetUp setUp) {
    QuantizationPage* page = window.quantizationPage();
    setUp(page);
    window.showPage(MainWindow::Page::Quantization);
    window.show();
    QVERIFY(waitForRun(page));
}

} // namespace

class TestQuantizationPage : public QObject {
    Q_OBJECT

  private slots:
    void init();
    void pageAndShortcut();
    void tableMatchesTheExactCore();
    void inspectorShowsTheWorkedBlock();
    void blocksAndGrid();
    void sweepAgreesWithTheTable();
    void safetensorsRawAndDrop();
    void clickPicksTheNearestValuesBlock();
    void badFilesShowAnError();
    void cancelKeepsThePreviousResults();
    void largeFileMatchesTheCore();
    void badFormWhileRunningShowsItsError();
    void screenshotFlag();
    void applyingAStateAgainShowsTheSame();
    void plotsScrollAtALegibleHeight();

  private:
    QTemporaryDir dir_;
};

void TestQuantizationPage::init() {
    QVERIFY(dir_.isValid());
}

void TestQuantizationPage::pageAndShortcut() {
    MainWindow window;
    window.show();
    window.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QTest::keyClick(&window, Qt::Key_4, Qt::ControlModifier);
    QCOMPARE(window.currentPage(), MainWindow::Page::Quantization);
    // The first showing runs the default form (a normal distribution) to the end.
    QVERIFY(waitForRun(window.quantizationPage()));
    QVERIFY(window.quantizationPage()->errorText().isEmpty());
    QVERIFY(window.quantizationPage()->table()->rowCount() > 0);
}

void TestQuantizationPage::tableMatchesTheExactCore() {
    const std::vector<float> values = testValues(1000);
    const QString path = dir_.filePath("weights.npy");
    QVERIFY(writeNpyFloats(path, values));
    const QStringList ids = {"mxfp4", "nvfp4", "nf4", "int8", "fp8_e4m3"};
    MainWindow window;
    openAndRun(window, [&](QuantizationPage* page) {
        QCOMPARE(page->setInputFile(path), QString());
        QCOMPARE(page->setFormats({ids.join(',')}), QString());
    });
    QuantizationPage* page = window.quantizationPage();
    QVERIFY2(page->errorText().isEmpty(), qPrintable(page->errorText()));
    QTableWidget* table = page->table();
    QCOMPARE(table->rowCount(), int(ids.size()));

    TensorView view;
    view.name = "weights";
    view.shape = {values.size()};
    view.floats = values;
    for (const QString& id : ids) {
        const int row = rowOf(table, id);
        QVERIFY2(row >= 0, qPrintable(id));
        std::string error;
        const std::optional<BlockFormat> format = findBlockFormat(id.toStdString(), {}, error);
        QVERIFY2(format, error.c_str());
        const std::optional<QuantizedTensor> q = quantizeExactly(*format, view, error);
        QVERIFY2(q, error.c_str());
        const QuantizationReport report = measureQuantization(view, *q);
        QTableWidgetItem* sqnr = table->item(row, QuantizationPage::Sqnr);
        QVERIFY(sqnr);
        QCOMPARE(sqnr->data(Qt::UserRole).toDouble(), report.sqnrDb);
        QCOMPARE(sqnr->text(), QString::number(report.sqnrDb, 'f', 4));
        QCOMPARE(table->item(row, QuantizationPage::Clipped)->text(),
                 QLocale().toString(qulonglong(report.clipped)));
        QCOMPARE(table->item(row, QuantizationPage::Flushed)->text(),
                 QLocale().toString(qulonglong(report.flushed)));
        QCOMPARE(table->item(row, QuantizationPage::BitsPerElement)->text(),
                 QString::number(report.bitsPerElement, 'g', 6));
        QCOMPARE(table->item(row, QuantizationPage::Bytes)->text(),
                 QLocale().toString(qulonglong(report.bytes)));
    }
    // SQNR by hand for the direct cast: FP8 E4M3 keeps 3 fraction bits, and no value here is
    // beyond its 448, so the signal-to-noise ratio is well above 6 dB per bit of 4 and finite.
    const double fp8 = table->item(rowOf(table, "fp8_e4m3"), QuantizationPage::Sqnr)
                           ->data(Qt::UserRole)
                           .toDouble();
    QVERIFY(fp8 > 24 && std::isfinite(fp8));
}

void TestQuantizationPage::inspectorShowsTheWorkedBlock() {
    // The worked check: 1, 2, …, 31, 127.9999 in MXFP8 E5M2 has the scale 2^(6 − 15) =
    // 2^−9 (E8M0 code 127 − 9 = 0x76), and 127.9999 · 2^9 = 65535.9 saturates at E5M2's 57344,
    // so the last element comes back as 57344 · 2^−9 = 112 (code 0x7b).
    QString text;
    for (int i = 1; i <= 31; ++i)
        text += QString::number(i) + '\n';
    text += "127.9999\n";
    const QString path = dir_.filePath("worked.txt");
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(text.toUtf8());
    file.close();
    MainWindow window;
    openAndRun(window, [&](QuantizationPage* page) {
        QCOMPARE(page->setInputFile(path), QString());
        QCOMPARE(page->setFormats({"mxfp8_e5m2"}), QString());
    });
    QuantizationPage* page = window.quantizationPage();
    QVERIFY2(page->errorText().isEmpty(), qPrintable(page->errorText()));
    QCOMPARE(page->table()->item(0, QuantizationPage::Clipped)->text(), QString("1"));
    // The picker lists a text file's one tensor without parsing it (that is the run's work), so
    // without its count.
    auto* picker = page->findChild<QComboBox*>("quantTensor");
    QVERIFY(picker);
    QCOMPARE(picker->count(), 1);
    QCOMPARE(picker->itemText(0), QString("worked.txt  text"));
    BlockInspector* inspector = page->inspector();
    QCOMPARE(inspector->blockCount(), std::size_t(1));
    QCOMPARE(inspector->block(), std::size_t(0));
    QVERIFY(inspector->scaleFormat());
    QCOMPARE(QString::fromStdString(inspector->scaleFormat()->id), QString("fp8_e8m0"));
    QCOMPARE(std::uint64_t(inspector->scaleCode()), std::uint64_t(0x76));
    QVERIFY2(inspector->scaleText().contains("2^-9"), qPrintable(inspector->scaleText()));
    QTableWidget* rows = inspector->table();
    QCOMPARE(rows->rowCount(), 32);
    QCOMPARE(rows->item(31, BlockInspector::Element)->text(), QString("31"));
    QCOMPARE(rows->item(31, BlockInspector::Value)->data(Qt::UserRole).toDouble(), 112.0);
    QCOMPARE(rows->item(31, BlockInspector::Value)->text(), QString("112"));
    QCOMPARE(rows->item(31, BlockInspector::Hex)->text(), QString("0x7b"));
    // 1 = 2^9 · 2^−9: code 0 11000 00 (exponent field 24 = 9 + 15), i.e. 0x60, exact.
    QCOMPARE(rows->item(0, BlockInspector::Hex)->text(), QString("0x60"));
    QCOMPARE(rows->item(0, BlockInspector::Value)->data(Qt::UserRole).toDouble(), 1.0);
    QCOMPARE(rows->item(0, BlockInspector::Error)->text(), QString("0"));
}

void TestQuantizationPage::blocksAndGrid() {
    const std::vector<float> values = testValues(1000);
    const QString path = dir_.filePath("blocks.npy");
    QVERIFY(writeNpyFloats(path, values));
    MainWindow window;
    openAndRun(window, [&](QuantizationPage* page) {
        QCOMPARE(page->setInputFile(path), QString());
        QCOMPARE(page->setFormats({"mxfp4,fp8_e4m3"}), QString());
    });
    QuantizationPage* page = window.quantizationPage();
    BlockInspector* inspector = page->inspector();
    // 1000 elements in blocks of 32: 32 blocks, the last one 8 long.
    QCOMPARE(inspector->blockCount(), std::size_t(32));
    // The block shown first is the one with the largest scale: the one holding 300.25.
    QCOMPARE(inspector->block(), std::size_t(200 / 32));
    QVERIFY2(page->gridLabel().contains("largest"), qPrintable(page->gridLabel()));
    inspector->blockSpin()->setValue(3);
    QCOMPARE(inspector->table()->rowCount(), 32);
    for (int r = 0; r < 32; ++r) {
        QCOMPARE(inspector->table()->item(r, BlockInspector::Element)->text(),
                 QString::number(96 + r));
        QCOMPARE(inspector->table()->item(r, BlockInspector::Input)->data(Qt::UserRole).toDouble(),
                 double(values[std::size_t(96 + r)]));
    }
    QVERIFY2(page->gridLabel().contains("block 3"), qPrintable(page->gridLabel()));
    // The values plot draws the histogram and the grid of MXFP4's 15 values under block 3's
    // scale (those inside the values' range).
    QVERIFY(page->valuesPlot()->plottableCount() >= 2);
    inspector->blockSpin()->setValue(31);
    QCOMPARE(inspector->table()->rowCount(), 8);
    // A direct cast has no scale: runs of 32 elements, no scale bits.
    page->selectFormat(rowOf(page->table(), "fp8_e4m3"));
    QVERIFY(!inspector->scaleFormat());
    QVERIFY2(inspector->scaleText().contains("no shared scale"),
             qPrintable(inspector->scaleText()));
    // The bundled weights' largest MXFP4 block holds 4.49: its scale is 1, and of its grid
    // only 0 lies among the other values (the axis ends near ±0.25). The label says where the
    // rest lies rather than leave a lone line at 0 unexplained.
    QuantizationPageState weights;
    weights.example = "weights";
    weights.formats = QStringList{"mxfp4"};
    QCOMPARE(page->apply(weights), QString());
    page->run();
    QVERIFY(waitForRun(page));
    QVERIFY(page->result().values.high < 0.5);
    QVERIFY2(page->gridLabel().startsWith("mxfp4 grid × 1\n") &&
                 page->gridLabel().contains("the largest") &&
                 page->gridLabel().endsWith("\nothers from ±0.5, off the axis"),
             qPrintable(page->gridLabel()));
}

void TestQuantizationPage::sweepAgreesWithTheTable() {
    MainWindow window;
    openAndRun(window, [&](QuantizationPage* page) {
        QCOMPARE(page->setDistribution("laplace:1", 4096, 7), QString());
        QCOMPARE(page->setFormats({"mxfp4,fp8_e5m2"}), QString());
    });
    QuantizationPage* page = window.quantizationPage();
    const QuantizationResult& result = page->result();
    // One curve, for the scaled format only, at 16 … 256; at MXFP4's own 32 it is the table's.
    QCOMPARE(result.sweep.size(), std::size_t(1));
    const SweepCurve& curve = result.sweep.front();
    QCOMPARE(curve.format, std::string("mxfp4"));
    QCOMPARE(curve.blockSizes, (std::vector<std::size_t>{16, 32, 64, 128, 256}));
    const double table = page->table()
                             ->item(rowOf(page->table(), "mxfp4"), QuantizationPage::Sqnr)
                             ->data(Qt::UserRole)
                             .toDouble();
    QCOMPARE(curve.sqnrDb[1], table);
    QCOMPARE(page->sweepPlot()->graphCount(), 1);
    QCOMPARE(page->errorsPlot()->graphCount(), 2);
}

void TestQuantizationPage::safetensorsRawAndDrop() {
    const std::vector<float> bias = testValues(8);
    const std::vector<float> weight = testValues(256);
    const QString path = dir_.filePath("model.safetensors");
    QVERIFY(writeTwoTensors(path, bias, weight));
    MainWindow window;
    openAndRun(window, [&](QuantizationPage* page) {
        QCOMPARE(page->setInputFile(path + ":weight"), QString());
        QCOMPARE(page->setFormats({"mxfp4"}), QString());
    });
    QuantizationPage* page = window.quantizationPage();
    QVERIFY2(page->errorText().isEmpty(), qPrintable(page->errorText()));
    auto* picker = page->findChild<QComboBox*>("quantTensor");
    QVERIFY(picker);
    QCOMPARE(picker->count(), 2);
    QCOMPARE(picker->currentData().toString(), QString("weight"));
    QCOMPARE(page->result().input->view.size(), weight.size());
    QCOMPARE(page->result().input->view.shape, (std::vector<std::size_t>{4, 64}));
    // Picking the other tensor and running quantizes it.
    picker->setCurrentIndex(picker->findData("bias"));
    page->run();
    QVERIFY(waitForRun(page));
    QCOMPARE(page->result().input->view.size(), bias.size());
    QCOMPARE(page->result().input->view.at(3), double(bias[3]));
    QVERIFY(page->setInputFile(path + ":nothing").contains("nothing"));
    // A tensor fpx cannot read (I32) is listed but not picked: the first readable one is.
    const QByteArray ints(16, '\0');
    const QByteArray floats = floatBytes(bias);
    QByteArray header = "{\"counts\":{\"dtype\":\"I32\",\"shape\":[4],\"data_offsets\":[0,16]},"
                        "\"scale\":{\"dtype\":\"F32\",\"shape\":[8],\"data_offsets\":[16,48]}}";
    while (header.size() % 8 != 0)
        header += ' ';
    QByteArray bytes;
    for (int i = 0; i < 8; ++i)
        bytes += char((qulonglong(header.size()) >> (8 * i)) & 0xff);
    bytes += header + ints + floats;
    const QString mixed = dir_.filePath("mixed.safetensors");
    QFile mixedFile(mixed);
    QVERIFY(mixedFile.open(QIODevice::WriteOnly));
    mixedFile.write(bytes);
    mixedFile.close();
    QCOMPARE(page->setInputFile(mixed), QString());
    QCOMPARE(picker->count(), 2);
    QCOMPARE(picker->currentData().toString(), QString("scale"));
    page->run();
    QVERIFY(waitForRun(page));
    QVERIFY2(page->errorText().isEmpty(), qPrintable(page->errorText()));
    QCOMPARE(page->result().input->view.size(), bias.size());
    // A raw file needs its dtype: the same weight bytes read as f32.
    const QString raw = dir_.filePath("weight.f32");
    QFile file(raw);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(floatBytes(weight));
    file.close();
    QCOMPARE(page->setInputFile(raw, "f32"), QString());
    page->run();
    QVERIFY(waitForRun(page));
    QVERIFY2(page->errorText().isEmpty(), qPrintable(page->errorText()));
    QCOMPARE(page->result().input->view.size(), weight.size());
    QVERIFY(!page->setInputFile(raw, "f33").isEmpty());
    // Dropping a file on the page opens and runs it.
    const QString npy = dir_.filePath("dropped.npy");
    QVERIFY(writeNpyFloats(npy, testValues(96)));
    auto* mime = new QMimeData;
    mime->setUrls({QUrl::fromLocalFile(npy)});
    QDragEnterEvent enter(QPoint(100, 100), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(page, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(100, 100), Qt::CopyAction, mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(page, &drop);
    QVERIFY(drop.isAccepted());
    QVERIFY(waitForRun(page));
    QCOMPARE(page->result().input->view.size(), std::size_t(96));
    delete mime;
}

void TestQuantizationPage::clickPicksTheNearestValuesBlock() {
    const std::vector<float> values = testValues(1000);
    const QString path = dir_.filePath("click.npy");
    QVERIFY(writeNpyFloats(path, values));
    MainWindow window;
    openAndRun(window, [&](QuantizationPage* page) {
        QCOMPARE(page->setInputFile(path), QString());
        QCOMPARE(page->setFormats({"nvfp4"}), QString());
    });
    QuantizationPage* page = window.quantizationPage();
    QCustomPlot* plot = page->valuesPlot();
    for (const double fraction : {0.3, 0.55, 0.8}) {
        // Each choice redraws the plot in a new axis rect: read the axis afresh every time.
        const QRect rect = plot->axisRect()->rect();
        const QPoint at(rect.left() + int(fraction * rect.width()), rect.center().y());
        const double clicked = plot->axisRect()->axis(QCPAxis::atBottom)->pixelToCoord(at.x());
        QTest::mouseClick(plot, Qt::LeftButton, Qt::NoModifier, at);
        // The element nearest the clicked value, searched here by brute force; NVFP4 blocks
        // hold 16 elements.
        std::size_t nearest = 0;
        for (std::size_t i = 1; i < values.size(); ++i)
            if (std::abs(double(values[i]) - clicked) < std::abs(double(values[nearest]) - clicked))
                nearest = i;
        QCOMPARE(page->inspector()->block(), nearest / 16);
    }
}

void TestQuantizationPage::badFilesShowAnError() {
    // A .npy whose header promises more data than the file has.
    const QString truncated = dir_.filePath("truncated.npy");
    QVERIFY(writeNpyFloats(truncated, testValues(100)));
    QFile file(truncated);
    QVERIFY(file.resize(file.size() - 40));
    MainWindow window;
    openAndRun(window, [&](QuantizationPage* page) {
        QCOMPARE(page->setInputFile(truncated), QString());
        QCOMPARE(page->setFormats({"mxfp4"}), QString());
    });
    QuantizationPage* page = window.quantizationPage();
    QVERIFY2(page->errorText().contains("truncated.npy"), qPrintable(page->errorText()));
    QCOMPARE(page->table()->rowCount(), 0);
    // A file that is not there; then a good one clears the message.
    page->setInputFile(dir_.filePath("missing.npy"));
    page->run();
    QVERIFY(waitForRun(page));
    QVERIFY2(page->errorText().contains("missing.npy"), qPrintable(page->errorText()));
    const QString good = dir_.filePath("good.npy");
    QVERIFY(writeNpyFloats(good, testValues(64)));
    page->setInputFile(good);
    page->run();
    QVERIFY(waitForRun(page));
    QVERIFY(page->errorText().isEmpty());
    QCOMPARE(page->table()->rowCount(), 1);
    // A bad distribution and a bad block size say so without running.
    QVERIFY(!page->setDistribution("normal:0", 100).isEmpty());
    QVERIFY(!page->setBlock("0").isEmpty());
    QVERIFY(!page->setFormats({"mxfp5"}).isEmpty());
}

void TestQuantizationPage::cancelKeepsThePreviousResults() {
    // Results to keep: a small file.
    const QString small = dir_.filePath("small.npy");
    QVERIFY(writeNpyFloats(small, testValues(1000)));
    MainWindow window;
    openAndRun(window, [&](QuantizationPage* page) {
        QCOMPARE(page->setInputFile(small), QString());
        QCOMPARE(page->setFormats({"mxfp4"}), QString());
    });
    QuantizationPage* page = window.quantizationPage();
    QVERIFY(!page->progressPanel()->isVisible());
    const std::shared_ptr<const TensorInput> shown = page->result().input;
    const QString sqnr = page->table()->item(0, QuantizationPage::Sqnr)->text();
    auto* source = page->findChild<QLabel*>("quantSource");
    QVERIFY(source);
    const QString sourceText = source->text();
    QVERIFY2(sourceText.contains("1,000") || sourceText.contains("1000"), qPrintable(sourceText));

    // Two million FP64 values: only the exact core quantizes FP64, a run of seconds on any
    // machine, long enough to watch and cancel.
    std::vector<double> values(2'000'000);
    for (std::size_t i = 0; i < values.size(); ++i)
        values[i] = std::ldexp(1.0 + double(i % 97) / 97.0, int(i % 13) - 6) * (i % 2 ? 1 : -1);
    const QString large = dir_.filePath("large64.npy");
    QVERIFY(writeLargeNpy(large, "<f8", values));
    QCOMPARE(page->setInputFile(large), QString());
    QCOMPARE(page->setFormats({"mxfp4,nf4"}), QString());

    // Cancelled by its button, then by Esc from a widget of the page that has no use for it.
    for (const bool escape : {false, true}) {
        QSignalSpy finished(page, &QuantizationPage::finished);
        page->run();
        QVERIFY(page->isRunning());
        QVERIFY(!page->runButton()->isEnabled());
        // The progress shows once the run has lasted a moment: the bar, the elements read of
        // all, the rate and the time left.
        QTRY_VERIFY_WITH_TIMEOUT(page->progressText().contains("elements/s"), 20000);
        QVERIFY2(page->isRunning(), "done before it could be cancelled: too fast to test");
        QVERIFY(page->progressPanel()->isVisible());
        QVERIFY(page->progressBar()->isVisible());
        QVERIFY(page->progressBar()->maximum() > 0);
        QVERIFY2(page->progressText().contains(" of ") && page->progressText().contains("left"),
                 qPrintable(page->progressText()));
        QVERIFY(page->cancelButton()->isVisible() && page->cancelButton()->isEnabled());
        if (const QByteArray shots = qgetenv("FPX_TEST_SCREENSHOTS"); !shots.isEmpty() && !escape)
            for (const QSize size : {QSize(1024, 768), QSize(1920, 1080)}) {
                window.resize(size);
                QTest::qWait(250); // a few progress ticks at this size
                window.grab().save(QStringLiteral("%1/quantization-running-%2x%3.png")
                                       .arg(QString::fromLocal8Bit(shots))
                                       .arg(size.width())
                                       .arg(size.height()));
            }
        // The GUI thread is free meanwhile: another page, a new size, and back.
        window.showPage(MainWindow::Page::Explorer);
        window.resize(window.width() - 40, window.height() - 30);
        QTest::qWait(20);
        window.showPage(MainWindow::Page::Quantization);
        QVERIFY(page->isRunning());
        QElapsedTimer clock;
        clock.start();
        if (escape)
            QTest::keyClick(page->table(), Qt::Key_Escape);
        else
            QTest::mouseClick(page->cancelButton(), Qt::LeftButton);
        QVERIFY(waitForRun(page, 30000));
        // The core's progress callbacks come often: the run ends in a fraction of a second.
        QVERIFY2(clock.elapsed() < 5000, qPrintable(QString::number(clock.elapsed())));
        QCOMPARE(finished.count(), 1);
        QCOMPARE(page->statusText(), QString("Cancelled"));
        QVERIFY(!page->progressPanel()->isVisible());
        QVERIFY(page->runButton()->isEnabled());
        QVERIFY(!page->cancelButton()->isEnabled());
        // What the page showed before, unchanged.
        QCOMPARE(page->result().input, shown);
        QCOMPARE(page->table()->rowCount(), 1);
        QCOMPARE(page->table()->item(0, QuantizationPage::Sqnr)->text(), sqnr);
        QCOMPARE(source->text(), sourceText);
        QVERIFY(page->errorText().isEmpty());
    }
    if (const QByteArray shots = qgetenv("FPX_TEST_SCREENSHOTS"); !shots.isEmpty()) {
        window.resize(1024, 768);
        QTest::qWait(50);
        window.grab().save(QString::fromLocal8Bit(shots) + "/quantization-cancelled-1024x768.png");
    }
}

void TestQuantizationPage::largeFileMatchesTheCore() {
    // Eight million FP32 values through the fast kernels, run to the end; a NaN, an ∞ and
    // zeros among them, which the histograms count apart.
    std::vector<float> values(8'000'000);
    for (std::size_t i = 0; i < values.size(); ++i)
        values[i] =
            float(std::ldexp(1.0 + double(i % 89) / 89.0, int(i % 17) - 8) * (i % 3 ? 1 : -1));
    values[10] = std::numeric_limits<float>::quiet_NaN();
    values[100'000] = std::numeric_limits<float>::infinity();
    values[30] = 0;
    values[41] = -0.0f;
    const QString path = dir_.filePath("large32.npy");
    QVERIFY(writeLargeNpy(path, "<f4", values));
    const QStringList ids = {"mxfp4", "nvfp4"};
    MainWindow window;
    openAndRun(window, [&](QuantizationPage* page) {
        QCOMPARE(page->setInputFile(path), QString());
        QCOMPARE(page->setFormats({ids.join(',')}), QString());
    });
    QuantizationPage* page = window.quantizationPage();
    QVERIFY2(page->errorText().isEmpty(), qPrintable(page->errorText()));
    QVERIFY(!page->progressPanel()->isVisible());
    QVERIFY2(page->statusText().startsWith("2 format(s) quantized"),
             qPrintable(page->statusText()));
    QCOMPARE(page->result().input->view.size(), values.size());
    TensorView view;
    view.name = "large32";
    view.shape = {values.size()};
    view.floats = values;
    for (const QString& id : ids) {
        std::string error;
        const std::optional<BlockFormat> format = findBlockFormat(id.toStdString(), {}, error);
        QVERIFY2(format, error.c_str());
        const std::optional<QuantizedTensor> q = quantizeTensor(*format, view, error);
        QVERIFY2(q, error.c_str());
        const QuantizationReport report = measureQuantization(view, *q);
        QTableWidgetItem* sqnr =
            page->table()->item(rowOf(page->table(), id), QuantizationPage::Sqnr);
        QVERIFY(sqnr);
        QCOMPARE(sqnr->data(Qt::UserRole).toDouble(), report.sqnrDb);
        QCOMPARE(sqnr->text(), QString::number(report.sqnrDb, 'f', 4));
        if (id != ids.front())
            continue;
        // The |error| histogram the page counted on its threads is the core's histogram of the
        // same errors over the same range (for one format: each check reads 8 M elements).
        const std::vector<double> dequantized = dequantizeAll(*q);
        std::vector<double> errors(values.size());
        for (std::size_t i = 0; i < values.size(); ++i)
            errors[i] = std::isfinite(values[i]) && std::isfinite(dequantized[i])
                            ? std::abs(double(values[i]) - dequantized[i])
                            : std::numeric_limits<double>::quiet_NaN();
        const FormatOutcome& outcome =
            page->result().outcomes[std::size_t(rowOf(page->table(), id))];
        expectSameHistogram(outcome.errors, errors);
        if (QTest::currentTestFailed())
            return;
    }
    // So is the values' histogram.
    const Histogram& shown = page->result().values;
    HistogramOptions options;
    options.bins = shown.binCount();
    options.low = shown.low;
    options.high = shown.high;
    const Histogram core = makeHistogram(std::span<const float>(values), options);
    QCOMPARE(shown.counts, core.counts);
    QCOMPARE(shown.below, core.below);
    QCOMPARE(shown.above, core.above);
    QCOMPARE(shown.nans, std::size_t(1));
    QCOMPARE(shown.infs, core.infs);
}

void TestQuantizationPage::badFormWhileRunningShowsItsError() {
    // A run in flight, then Quantize with a form that does not read: the run stops and is not
    // shown, the message says what the form lacks, and the page is idle after.
    MainWindow window;
    QuantizationPage* page = window.quantizationPage();
    QCOMPARE(page->setDistribution("normal:0:1", 8'000'000, 3), QString());
    QCOMPARE(page->setFormats({"nf4,mxfp4,nvfp4"}), QString());
    window.showPage(MainWindow::Page::Quantization);
    window.show(); // starts the run
    QVERIFY(page->isRunning());
    QCOMPARE(page->setFormats({}), QString());
    page->run();
    QVERIFY(page->waitUntilIdle(std::chrono::minutes(1)));
    QCOMPARE(page->errorText(), QString("Check at least one format."));
    QVERIFY2(!page->statusText().startsWith("Cancelled"), qPrintable(page->statusText()));
    QVERIFY(page->result().outcomes.empty()); // the stopped run's partial result never came
    QVERIFY(page->runButton()->isEnabled());
}

void TestQuantizationPage::screenshotFlag() {
    const QString path = dir_.filePath("shot.npy");
    QVERIFY(writeNpyFloats(path, testValues(2048)));
    const QString out = dir_.filePath("quantization.png");
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    QProcess process;
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(FPX_EXPLORER_PATH),
                  {"--page", "quantize", "--input", path, "--formats", "mxfp4,nf4,int4", "--block",
                   "64", "--inspect-block", "2", "--screenshot", out, "--size", "1200x800"});
    QVERIFY(process.waitForFinished(120000));
    QCOMPARE(process.exitCode(), 0);
    QCOMPARE(QImage(out).size(), QSize(1200, 800));
    // A bad file: the page shows it, and the command says so and fails.
    QProcess bad;
    bad.setProcessEnvironment(env);
    bad.start(QStringLiteral(FPX_EXPLORER_PATH),
              {"--input", dir_.filePath("nothing.npy"), "--formats", "mxfp4", "--page", "quantize",
               "--screenshot", dir_.filePath("bad.png")});
    QVERIFY(bad.waitForFinished(120000));
    QCOMPARE(bad.exitCode(), 1);
    QVERIFY(QString::fromUtf8(bad.readAllStandardError()).contains("nothing.npy"));
    // A distribution; an unknown quantizer stops before anything runs.
    QProcess dist;
    dist.setProcessEnvironment(env);
    dist.start(QStringLiteral(FPX_EXPLORER_PATH),
               {"--page", "quantize", "--dist", "student:3", "--count", "5000", "--formats",
                "mxfp5", "--screenshot", dir_.filePath("dist.png")});
    QVERIFY(dist.waitForFinished(120000));
    QCOMPARE(dist.exitCode(), 2);
    QVERIFY(QString::fromUtf8(dist.readAllStandardError()).contains("--formats"));
}

void TestQuantizationPage::applyingAStateAgainShowsTheSame() {
    // What a lesson does at each step: the page's state as the window opened, then the step's.
    // The same state shows the same pixels, whatever was selected, checked or scrolled before.
    MainWindow window;
    window.resize(1024, 768);
    QuantizationPage* page = window.quantizationPage();
    const QuantizationPageState opened = page->state();
    QCOMPARE(opened.select.value_or("unset"), QString()); // nothing selected: the first format
    QuantizationPageState step;
    step.dist = "normal:0:1";
    step.count = 4096;
    step.formats = QStringList{"mxfp4", "nvfp4", "nf4"};
    auto show = [&](const QuantizationPageState& state) {
        QCOMPARE(page->apply(opened), QString());
        QCOMPARE(page->apply(state), QString());
        page->run();
        QVERIFY(waitForRun(page));
        // Laid out anew: the layout requests of what the run changed are handled in turns.
        for (int i = 0; i < 3; ++i) {
            QApplication::processEvents();
            QTest::qWait(20);
        }
    };
    window.showPage(MainWindow::Page::Quantization);
    window.show();
    show(step);
    QCOMPARE(page->selectedFormat(), 0);
    QVERIFY2(page->statusText() == "3 format(s) quantized.", qPrintable(page->statusText()));
    const QImage first = page->grab().toImage();

    // Another format selected and inspected, the formats checked in another order, the
    // results scrolled: what a user does between two steps.
    page->selectFormat(2);
    QCOMPARE(*page->state().select, QString("nf4"));
    page->inspector()->setBlock(3);
    QCOMPARE(page->setFormats({"int4,nf4,fp8_e4m3"}), QString());
    page->run();
    QVERIFY(waitForRun(page));
    page->resultsArea()->verticalScrollBar()->setValue(
        page->resultsArea()->verticalScrollBar()->maximum());

    show(step);
    QCOMPARE(page->selectedFormat(), 0);
    QCOMPARE(page->resultsArea()->verticalScrollBar()->value(), 0);
    auto* formats = page->findChild<QListWidget*>("quantFormats");
    QVERIFY(formats);
    QCOMPARE(formats->verticalScrollBar()->value(), 0);
    QVERIFY2(page->grab().toImage() == first, qPrintable(difference(*page, first)));

    // A state that names a format shows it, and the state read back names it again.
    QuantizationPageState nf4 = step;
    nf4.select = "nf4";
    show(nf4);
    QCOMPARE(page->selectedFormat(), 2);
    QCOMPARE(*page->state().select, QString("nf4"));
    show(step);
    QVERIFY2(page->grab().toImage() == first, qPrintable(difference(*page, first)));
}

void TestQuantizationPage::plotsScrollAtALegibleHeight() {
    MainWindow window;
    QuantizationPage* page = window.quantizationPage();
    window.resize(1400, 1000);
    openAndRun(window, [&](QuantizationPage* p) {
        QCOMPARE(p->setDistribution("normal:0:1", 4096), QString());
        QCOMPARE(p->setFormats({"mxfp8_e4m3,mxfp4,nvfp4,nf4,int4"}), QString());
    });
    QApplication::processEvents();
    // Wide, the plots stand in pairs: the values beside the inspector, the errors beside the
    // sweep.
    QVERIFY(page->resultsSideBySide());
    QCOMPARE(page->valuesPlot()->y(), page->inspector()->y());
    QCOMPARE(page->errorsPlot()->y(), page->sweepPlot()->y());
    // Narrow and short (a 1024 × 768 screen with the Lessons panel open, at a large type), one
    // above the other: the table's rows and the values plot at its legible height in view
    // without scrolling, the rest below it.
    QFont large = window.font();
    large.setPointSizeF(large.pointSizeF() * 1.5);
    window.setFont(large);
    window.resize(620, 740);
    for (int i = 0; i < 3; ++i) {
        QApplication::processEvents();
        QTest::qWait(20);
    }
    QVERIFY(!page->resultsSideBySide());
    QVERIFY(page->valuesPlot()->y() > page->table()->y());
    QVERIFY(page->inspector()->y() > page->valuesPlot()->y());
    QVERIFY(page->errorsPlot()->y() > page->inspector()->y());
    QVERIFY(page->sweepPlot()->y() > page->errorsPlot()->y());
    QScrollArea* results = page->resultsArea();
    const QRect view = results->viewport()->rect();
    for (QWidget* shown :
         {static_cast<QWidget*>(page->table()), static_cast<QWidget*>(page->valuesPlot())}) {
        const QRect at(shown->mapTo(results->viewport(), QPoint(0, 0)), shown->size());
        QVERIFY2(view.contains(at), qPrintable(QString("%1 at %2,%3 %4×%5 in a view of %6×%7")
                                                   .arg(shown->objectName())
                                                   .arg(at.x())
                                                   .arg(at.y())
                                                   .arg(at.width())
                                                   .arg(at.height())
                                                   .arg(view.width())
                                                   .arg(view.height())));
    }
    QCustomPlot* values = page->valuesPlot();
    QVERIFY2(values->height() >= plotMinimumHeight(values->font(), 1),
             qPrintable(QString::number(values->height())));
    // Every format's row in the table, none cut.
    QCOMPARE(page->table()->rowAt(page->table()->viewport()->height() - 1), 4);
    // The rest is reached by scrolling, each plot at its legible height.
    QVERIFY(results->verticalScrollBar()->maximum() > 0);
    for (QCustomPlot* plot : {page->errorsPlot(), page->sweepPlot()})
        QVERIFY2(plot->height() >= plotMinimumHeight(plot->font(), 1),
                 qPrintable(plot->objectName() + ": " + QString::number(plot->height())));
}

QTEST_MAIN(TestQuantizationPage)
#include "tst_quantization_page.moc"
