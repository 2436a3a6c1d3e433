// SPDX-License-Identifier: GPL-3.0-or-later
// fpx inspect through the real binary: files written byte by byte here, their statistics worked
// by hand or taken from the core on the loaded tensors, the text and JSON forms, and bad files
// with their exit status and message.
#include "cli_runner.h"

#include "fpx/data/tensor_file.h"

#include <QFile>
#include <QJsonArray>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using fpx::test::CliRun;
using fpx::test::describe;
using fpx::test::json;
using fpx::test::runFpx;

namespace {

template <typename T> QByteArray le(const std::vector<T>& values) {
    QByteArray bytes(qsizetype(values.size() * sizeof(T)), '\0');
    std::memcpy(bytes.data(), values.data(), std::size_t(bytes.size()));
    return bytes;
}

QByteArray safetensors(const QByteArray& header, const QByteArray& data) {
    QByteArray length(8, '\0');
    for (int k = 0; k < 8; ++k)
        length[k] = char((quint64(header.size()) >> (8 * k)) & 0xff);
    return length + header + data;
}

QString write(const QTemporaryDir& dir, const QString& name, const QByteArray& bytes) {
    const QString path = dir.filePath(name);
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

} // namespace

class TestInspect : public QObject {
    Q_OBJECT
  private slots:
    void safetensorsJson();
    void safetensorsText();
    void npyAndRaw();
    void badInput();
    void largeTensorsAsTheCoreGivesThem();
    void fortranOrderAsCOrder();
};

// Three tensors: F32 w = [1.5, −2, 0, 3, NaN, −0] (shape 2 × 3), BF16 b = [1, +∞], I32 i.
// Finite values of w: 1.5, −2, 0, 3, −0: min −2, max 3, absmax 3, mean 2.5/5 = 0.5, zeros 2,
// std sqrt((1 + 6.25 + 0.25 + 6.25 + 0.25)/5) = sqrt(2.8).
void TestInspect::safetensorsJson() {
    QTemporaryDir dir;
    const QByteArray header = R"({"__metadata__":{"format":"pt"},)"
                              R"("w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},)"
                              R"("b":{"dtype":"BF16","shape":[2],"data_offsets":[24,28]},)"
                              R"("i":{"dtype":"I32","shape":[1],"data_offsets":[28,32]}})";
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const QByteArray data = le(std::vector<float>{1.5f, -2, 0, 3, nan, -0.0f}) +
                            le(std::vector<quint16>{0x3f80, 0x7f80}) + le(std::vector<qint32>{7});
    const QString path = write(dir, "m.safetensors", safetensors(header, data));
    const CliRun run = runFpx({"inspect", path, "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QJsonObject root = json(run);
    QCOMPARE(root["kind"].toString(), QString("safetensors"));
    QCOMPARE(root["metadata"].toObject()["format"].toString(), QString("pt"));
    const QJsonArray tensors = root["tensors"].toArray();
    QCOMPARE(tensors.size(), 3);
    const QJsonObject w = tensors[0].toObject();
    QCOMPARE(w["name"].toString(), QString("w"));
    QCOMPARE(w["dtype"].toString(), QString("F32"));
    QCOMPARE(w["shape"].toArray(), (QJsonArray{2, 3}));
    QCOMPARE(w["elements"].toInt(), 6);
    QCOMPARE(w["min"].toDouble(), -2.0);
    QCOMPARE(w["max"].toDouble(), 3.0);
    QCOMPARE(w["absmax"].toDouble(), 3.0);
    QCOMPARE(w["mean"].toDouble(), 0.5);
    QCOMPARE(w["std"].toDouble(), std::sqrt(2.8));
    QCOMPARE(w["zeros"].toInt(), 2);
    QCOMPARE(w["nans"].toInt(), 1);
    QCOMPARE(w["infs"].toInt(), 0);
    const QJsonObject b = tensors[1].toObject();
    QCOMPARE(b["min"].toDouble(), 1.0);
    QCOMPARE(b["infs"].toInt(), 1);
    const QJsonObject i = tensors[2].toObject();
    QCOMPARE(i["dtype"].toString(), QString("I32"));
    QCOMPARE(i["loadable"].toBool(), false);
    QVERIFY(i["note"].toString().contains("not loadable"));
    QVERIFY(!i.contains("min"));
}

void TestInspect::safetensorsText() {
    QTemporaryDir dir;
    const QByteArray header = R"({"w":{"dtype":"F8_E4M3","shape":[4],"data_offsets":[0,4]},)"
                              R"("u":{"dtype":"U8","shape":[1],"data_offsets":[4,5]}})";
    // E4M3 1, 448, −0.5 (0xb0), NaN (0x7f).
    const QString path =
        write(dir, "q.safetensors", safetensors(header, QByteArray("\x38\x7e\xb0\x7f\x01", 5)));
    const CliRun run = runFpx({"inspect", path});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QString out = QString::fromUtf8(run.out);
    QVERIFY2(out.startsWith(path + ": safetensors, 2 tensors\n"), qPrintable(out));
    QVERIFY2(out.contains(QRegularExpression(
                 R"(\nw\s+F8_E4M3\s+\[4\]\s+-0\.5\s+448\s+448\s+149\.5\s+\S+\s+0\s+1\s+0\n)")),
             qPrintable(out));
    QVERIFY2(out.contains("u (U8): not loadable"), qPrintable(out));
}

void TestInspect::npyAndRaw() {
    QTemporaryDir dir;
    // A 2 × 2 float16 .npy: 1, 2, −4, 0.5 → mean −0.125.
    QByteArray dict = "{'descr': '<f2', 'fortran_order': True, 'shape': (2, 2), }";
    dict += QByteArray(64 - (10 + dict.size() + 1) % 64, ' ') + "\n";
    QByteArray npy = QByteArray("\x93NUMPY\x01\x00", 8);
    npy += char(dict.size() & 0xff);
    npy += char(dict.size() >> 8);
    npy += dict + le(std::vector<quint16>{0x3c00, 0xc400, 0x4000, 0x3800});
    const QString npyPath = write(dir, "h.npy", npy);
    CliRun run = runFpx({"inspect", npyPath, "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QJsonObject t = json(run)["tensors"].toArray()[0].toObject();
    QCOMPARE(t["name"].toString(), QString("h.npy"));
    QCOMPARE(t["dtype"].toString(), QString("<f2"));
    QCOMPARE(t["mean"].toDouble(), -0.125);
    QCOMPARE(t["min"].toDouble(), -4.0);
    // Raw needs its dtype: the same 8 bytes are two floats or four bfloat16s.
    const QString rawPath = write(dir, "x.bin", le(std::vector<float>{-1, 6}));
    run = runFpx({"inspect", rawPath, "--dtype", "f32", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    t = json(run)["tensors"].toArray()[0].toObject();
    QCOMPARE(t["elements"].toInt(), 2);
    QCOMPARE(t["absmax"].toDouble(), 6.0);
    run = runFpx({"inspect", rawPath, "--dtype", "bf16", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    t = json(run)["tensors"].toArray()[0].toObject();
    QCOMPARE(t["elements"].toInt(), 4);
    QCOMPARE(t["zeros"].toInt(), 2); // the low halves of −1 and 6 are zero
    // Text, one value per line.
    const QString textPath = write(dir, "v.txt", "1\n# c\n-3.5\n");
    run = runFpx({"inspect", textPath, "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    t = json(run)["tensors"].toArray()[0].toObject();
    QCOMPARE(t["dtype"].toString(), QString("text"));
    QCOMPARE(t["min"].toDouble(), -3.5);
}

void TestInspect::badInput() {
    QTemporaryDir dir;
    // Offsets past the data: exit 1, the file and the field named.
    const QString lying = write(
        dir, "l.safetensors",
        safetensors(R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", "12345678"));
    CliRun run = runFpx({"inspect", lying});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(lying.toUtf8() + ": tensor 'w': data_offsets [0,16] reach past"),
             qPrintable(describe(run)));
    QVERIFY(run.out.isEmpty());
    run = runFpx({"inspect", dir.filePath("absent.npy")});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("cannot open the file"), qPrintable(describe(run)));
    const QString text = write(dir, "bad.txt", "1\n2x\n");
    run = runFpx({"inspect", text});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains(text.toUtf8() + ":2:"), qPrintable(describe(run)));
    const QString raw = write(dir, "r.bin", QByteArray(5, '\0'));
    run = runFpx({"inspect", raw, "--dtype", "f32"});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("not a whole number of 4-byte f32 elements"),
             qPrintable(describe(run)));
    // Usage errors: exit 2.
    run = runFpx({"inspect", raw, "--dtype", "i8"});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains("unknown raw dtype 'i8'"), qPrintable(describe(run)));
    run = runFpx({"inspect"});
    QCOMPARE(run.exitCode, 2);
    run = runFpx({"inspect", raw, raw});
    QCOMPARE(run.exitCode, 2);
    run = runFpx({"inspect", raw, "--bogus"});
    QCOMPARE(run.exitCode, 2);
    run = runFpx({"inspect", "--help"});
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.out.contains("usage: fpx inspect FILE"));
}

// Tensors of several chunks in F16, BF16, E4M3 and F32 (NaN, ±∞ and subnormals among their
// random codes), each at an odd offset: what fpx inspect prints, read piece by piece from the
// mapping on every thread, is what the core gives for the loaded tensor, to the bit, and the
// same under the baseline loops (docs/design.md, "Tensor statistics").
void TestInspect::largeTensorsAsTheCoreGivesThem() {
    QTemporaryDir dir;
    std::mt19937_64 random(3);
    constexpr int kCount = 70007;
    QByteArray header = R"({"u":{"dtype":"U8","shape":[1],"data_offsets":[0,1]})";
    QByteArray data(1, '\x05');
    const std::vector<std::pair<QByteArray, int>> dtypes{
        {"F16", 2}, {"BF16", 2}, {"F8_E4M3", 1}, {"F32", 4}};
    for (const auto& [dtype, width] : dtypes) {
        QByteArray bytes(kCount * width, '\0');
        for (char& b : bytes)
            b = char(random() & 0xff);
        header += ",\"" + dtype + "\":{\"dtype\":\"" + dtype + "\",\"shape\":[" +
                  QByteArray::number(kCount) + "],\"data_offsets\":[" +
                  QByteArray::number(data.size()) + "," +
                  QByteArray::number(data.size() + bytes.size()) + "]}";
        data += bytes;
    }
    header += "}";
    const QString path = write(dir, "m.safetensors", safetensors(header, data));
    const CliRun run = runFpx({"inspect", path, "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QJsonArray tensors = json(run)["tensors"].toArray();
    QCOMPARE(tensors.size(), 5);
    fpx::TensorFileOpen opened = fpx::TensorFile::open(path.toStdString());
    QVERIFY2(opened.file, opened.error.c_str());
    for (qsizetype k = 1; k < tensors.size(); ++k) {
        const QJsonObject t = tensors[k].toObject();
        std::string error;
        const auto loaded = opened.file->load(t["name"].toString().toStdString(), error);
        QVERIFY2(loaded, error.c_str());
        const fpx::TensorStatistics s = fpx::tensorStatistics(loaded->view);
        const QString name = t["name"].toString();
        QVERIFY2(t["min"].toDouble() == s.min, qPrintable(name));
        QVERIFY2(t["max"].toDouble() == s.max, qPrintable(name));
        QVERIFY2(t["absmax"].toDouble() == s.absmax, qPrintable(name));
        QVERIFY2(t["mean"].toDouble() == s.mean, qPrintable(name));
        QVERIFY2(t["std"].toDouble() == s.std, qPrintable(name));
        QCOMPARE(t["zeros"].toInteger(), qint64(s.zeros));
        QCOMPARE(t["nans"].toInteger(), qint64(s.nans));
        QCOMPARE(t["infs"].toInteger(), qint64(s.infs));
    }
    QVERIFY(tensors[1].toObject()["nans"].toInt() > 0); // F16's NaN codes are among them
    QProcessEnvironment baseline = QProcessEnvironment::systemEnvironment();
    baseline.insert("FPX_MAX_ISA", "baseline");
    const CliRun plain = runFpx({"inspect", path, "--json"}, {}, baseline);
    QVERIFY2(plain.exitCode == 0, qPrintable(describe(plain)));
    QCOMPARE(plain.out, run.out);
}

// One matrix stored in C order and in Fortran order: the same statistics, to the bit (both are
// read in C order).
void TestInspect::fortranOrderAsCOrder() {
    QTemporaryDir dir;
    constexpr std::size_t kRows = 301, kColumns = 257;
    std::mt19937_64 random(4);
    std::normal_distribution<float> normal(3, 1);
    std::vector<float> c(kRows * kColumns), fortran(kRows * kColumns);
    for (std::size_t i = 0; i < kRows; ++i)
        for (std::size_t j = 0; j < kColumns; ++j)
            fortran[j * kRows + i] = c[i * kColumns + j] = normal(random);
    const auto npy = [](const QByteArray& order, const QByteArray& data) {
        QByteArray dict = "{'descr': '<f4', 'fortran_order': " + order + ", 'shape': (301, 257), }";
        dict += QByteArray(64 - (10 + dict.size() + 1) % 64, ' ') + "\n";
        QByteArray file = QByteArray("\x93NUMPY\x01\x00", 8);
        file += char(dict.size() & 0xff);
        file += char(dict.size() >> 8);
        return file + dict + data;
    };
    const CliRun inC = runFpx({"inspect", write(dir, "c.npy", npy("False", le(c))), "--json"});
    const CliRun inF = runFpx({"inspect", write(dir, "f.npy", npy("True", le(fortran))), "--json"});
    QVERIFY2(inC.exitCode == 0 && inF.exitCode == 0, qPrintable(describe(inF)));
    QJsonObject a = json(inC)["tensors"].toArray()[0].toObject();
    QJsonObject b = json(inF)["tensors"].toArray()[0].toObject();
    a.remove("name");
    b.remove("name");
    QCOMPARE(a, b);
}

QTEST_APPLESS_MAIN(TestInspect)
#include "tst_inspect.moc"
