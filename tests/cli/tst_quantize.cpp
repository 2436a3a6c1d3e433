// SPDX-License-Identifier: GPL-3.0-or-later
// fpx quantize through the real binary: the worked check, the JSON, CSV and text
// forms, --codes, the output files read back (the .safetensors layout decoded here by hand,
// the .npy through TensorFile), SQNR recomputed from the dequantized file, and bad input with
// its exit status, message and no file left behind.
#include "fpx/data/tensor_file.h"

#include "cli_runner.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

using fpx::test::CliRun;
using fpx::test::describe;
using fpx::test::json;
using fpx::test::runFpx;

namespace {

QString workedValues() {
    QStringList values;
    for (int i = 1; i <= 31; ++i)
        values << QString::number(i);
    values << "127.9999";
    return values.join(',');
}

// Random FP32 values written so that they read back exactly (9 significant digits).
std::vector<float> randomFloats(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0, 1);
    std::vector<float> x(n);
    for (float& v : x)
        v = normal(rng);
    x[3] = 0;
    x[7] = 9.5f; // an outlier
    return x;
}

QString valuesArgument(const std::vector<float>& x) {
    QStringList items;
    for (float v : x)
        items << QString::number(double(v), 'g', 9);
    return items.join(',');
}

QJsonObject resultFor(const QJsonObject& root, const QString& format) {
    for (const auto& value : root["results"].toArray())
        if (value.toObject()["format"].toString() == format)
            return value.toObject();
    return {};
}

// A safetensors file taken apart by hand: the JSON header and the data after it.
struct Safetensors {
    QJsonObject header;
    QByteArray data;
    QByteArray tensor(const QString& name) const {
        const QJsonArray offsets = header[name].toObject()["data_offsets"].toArray();
        return data.mid(offsets[0].toInteger(), offsets[1].toInteger() - offsets[0].toInteger());
    }
};

Safetensors readSafetensors(const QString& path) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return {};
    const QByteArray bytes = file.readAll();
    quint64 headerBytes = 0;
    std::memcpy(&headerBytes, bytes.constData(), 8);
    Safetensors s;
    s.header = QJsonDocument::fromJson(bytes.mid(8, qsizetype(headerBytes))).object();
    s.data = bytes.mid(8 + qsizetype(headerBytes));
    return s;
}

// The OCP E2M1 and E4M3 values, decoded from their fields here.
double e2m1(unsigned code) {
    static const double magnitudes[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
    return (code & 8 ? -1 : 1) * magnitudes[code & 7];
}
double e4m3(unsigned code) {
    const unsigned exponent = (code >> 3) & 15, mantissa = code & 7;
    const double magnitude = exponent == 0 ? std::ldexp(mantissa / 8.0, -6)
                                           : std::ldexp(1 + mantissa / 8.0, int(exponent) - 7);
    return (code & 0x80 ? -1 : 1) * magnitude;
}

float floatAt(const QByteArray& bytes, qsizetype i) {
    float f = 0;
    std::memcpy(&f, bytes.constData() + 4 * i, 4);
    return f;
}

std::vector<double> readNpy(const QString& path) {
    std::string error;
    auto opened = fpx::TensorFile::open(path.toStdString());
    if (!opened.file)
        qFatal("%s", opened.error.c_str());
    auto loaded = opened.file->load(opened.file->tensors().front().name, error);
    if (!loaded)
        qFatal("%s", error.c_str());
    std::vector<double> values;
    for (std::size_t i = 0; i < loaded->view.size(); ++i)
        values.push_back(loaded->view.at(i));
    return values;
}

// A little-endian float32 .npy file of the given shape, C order.
QByteArray npyFloat32(const std::vector<float>& values, const QByteArray& shape) {
    QByteArray header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + shape + "), }";
    while ((10 + header.size() + 1) % 64 != 0)
        header += ' ';
    header += '\n';
    QByteArray bytes("\x93NUMPY\x01\x00", 8);
    bytes += char(header.size() & 0xff);
    bytes += char(header.size() >> 8);
    bytes += header;
    bytes += QByteArray(reinterpret_cast<const char*>(values.data()),
                        qsizetype(values.size() * sizeof(float)));
    return bytes;
}

} // namespace

class TstQuantize : public QObject {
    Q_OBJECT

  private slots:
    void workedCheck();
    void jsonKeysAndBits();
    void sqnrFromTheDequantizedFile();
    void csv();
    void codesOfEachScheme();
    void safetensorsLayout();
    void npyInputByRows();
    void sweepAndHistogram();
    void errors_data();
    void errors();
    void noFileLeftBehind();
    void help();
};

void TstQuantize::workedCheck() {
    const CliRun run = runFpx(
        {"quantize", "--values", workedValues(), "--formats", "mxfp8_e5m2", "--codes", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QJsonObject r = resultFor(json(run), "mxfp8_e5m2");
    QCOMPARE(r["clipped"].toInt(), 1);
    const QJsonObject block = r["blocks"].toArray()[0].toObject();
    QCOMPARE(block["scale_bits"].toString(), QString("0x76"));
    QCOMPARE(block["scale"].toString(), QString("0.001953125")); // 2^−9
    QCOMPARE(block["codes"].toArray()[31].toString(), QString("0x7b"));
    QCOMPARE(block["values"].toArray()[31].toString(), QString("112")); // 57344 · 2^−9
    QCOMPARE(block["values"].toArray()[8].toString(), QString("8"));    // 9 ties to 8 (even)
    QCOMPARE(block["inputs"].toArray()[31].toString(), QString("127.99990081787109375"));

    const CliRun text =
        runFpx({"quantize", "--values", workedValues(), "--formats", "mxfp8_e5m2", "--codes"});
    QVERIFY2(text.exitCode == 0, qPrintable(describe(text)));
    QVERIFY(text.out.contains("0x76"));
    QVERIFY(text.out.contains("112"));
    QVERIFY(text.out.contains("SQNR dB"));
}

void TstQuantize::jsonKeysAndBits() {
    const QStringList formats{"mxfp8_e4m3", "mxfp8_e5m2", "mxfp6_e3m2", "mxfp6_e2m3",
                              "mxfp4",      "mxint8",     "nvfp4",      "nf4",
                              "nf4_dq",     "int8",       "int4",       "bf16"};
    const CliRun run = runFpx({"quantize", "--dist", "normal:0:1", "--count", "16384", "--seed",
                               "5", "--formats", formats.join(','), "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QJsonObject root = json(run);
    QCOMPARE(root["elements"].toInt(), 16384);
    QCOMPARE(root["results"].toArray().size(), formats.size());
    for (const QString& id : formats) {
        const QJsonObject r = resultFor(root, id);
        for (const char* key : {"format", "elements", "block", "bits_per_element", "bytes",
                                "sqnr_db", "mse", "rmse", "max_abs_error", "clipped", "flushed"})
            QVERIFY2(r.contains(key), qPrintable(id + ": " + key));
        QCOMPARE(r["elements"].toInt(), 16384);
        QVERIFY2(r["sqnr_db"].toDouble() > 5, qPrintable(id));
        QCOMPARE(r["rmse"].toDouble(), std::sqrt(r["mse"].toDouble()));
    }
    QCOMPARE(resultFor(root, "mxfp8_e4m3")["bits_per_element"].toDouble(), 8.25);
    QCOMPARE(resultFor(root, "mxfp6_e2m3")["bits_per_element"].toDouble(), 6.25);
    QCOMPARE(resultFor(root, "mxfp4")["bits_per_element"].toDouble(), 4.25);
    QCOMPARE(resultFor(root, "nvfp4")["bits_per_element"].toDouble(), 4.5 + 32.0 / 16384);
    QCOMPARE(resultFor(root, "nf4")["bits_per_element"].toDouble(), 4.5);
    QVERIFY(std::fabs(resultFor(root, "nf4_dq")["bits_per_element"].toDouble() - 4.127) < 0.005);
    QCOMPARE(resultFor(root, "mxfp4")["bytes"].toInt(), 16384 / 2 + 16384 / 32);
    QCOMPARE(resultFor(root, "int8")["block"].toInt(), 16384); // per tensor
    QVERIFY(resultFor(root, "nvfp4").contains("tensor_scale"));
    QVERIFY(!resultFor(root, "mxfp4").contains("tensor_scale"));
    QVERIFY(resultFor(root, "nf4_dq").contains("offset"));
    // More bits, less noise.
    QVERIFY(resultFor(root, "bf16")["sqnr_db"].toDouble() >
            resultFor(root, "mxfp8_e4m3")["sqnr_db"].toDouble());
    QVERIFY(resultFor(root, "mxfp8_e4m3")["sqnr_db"].toDouble() >
            resultFor(root, "mxfp4")["sqnr_db"].toDouble());
}

// SQNR, MSE and max error recomputed here in long double from the inputs and the values
// of --dequantized; also checks the .npy has the tensor's shape.
void TstQuantize::sqnrFromTheDequantizedFile() {
    QTemporaryDir dir;
    const std::vector<float> x = randomFloats(1000, 9);
    for (const char* format : {"mxfp4", "nvfp4", "nf4", "int4"}) {
        const QString npy = dir.filePath(QString(format) + ".npy");
        const CliRun run =
            runFpx({"quantize", "--values", valuesArgument(x), "--formats", format, "--block", "64",
                    "--json", "--dequantized", npy, "--dequantized-dtype", "f64"});
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        const std::vector<double> q = readNpy(npy);
        // The default file holds each value rounded once to FP32.
        const QString npy32 = dir.filePath(QString(format) + "-f32.npy");
        QCOMPARE(runFpx({"quantize", "--values", valuesArgument(x), "--formats", format, "--block",
                         "64", "--dequantized", npy32})
                     .exitCode,
                 0);
        const std::vector<double> q32 = readNpy(npy32);
        for (std::size_t i = 0; i < x.size(); ++i)
            QCOMPARE(q32[i], double(float(q[i])));
        QCOMPARE(q.size(), x.size());
        long double signal = 0, noise = 0, maxError = 0;
        for (std::size_t i = 0; i < x.size(); ++i) {
            const long double e = (long double)x[i] - q[i];
            signal += (long double)x[i] * x[i];
            noise += e * e;
            maxError = std::max(maxError, std::fabs(e));
        }
        // Blocks of 64 make MXFP4 and NVFP4 variants, named so.
        const QString id = QString(format) + (QString(format).endsWith("fp4") ? "@64" : "");
        const QJsonObject r = resultFor(json(run), id);
        const double sqnr = double(10 * std::log10(signal / noise));
        QVERIFY2(
            std::fabs(r["sqnr_db"].toDouble() - sqnr) <= 0.00005 + 1e-9,
            qPrintable(QString("%1: %2 vs %3").arg(format).arg(r["sqnr_db"].toDouble()).arg(sqnr)));
        QVERIFY(std::fabs(r["mse"].toDouble() / double(noise / x.size()) - 1) < 1e-12);
        QCOMPARE(r["max_abs_error"].toDouble(), double(maxError));
    }
}

void TstQuantize::csv() {
    const CliRun run = runFpx(
        {"quantize", "--values", workedValues(), "--formats", "mxfp8_e5m2,nvfp4,int8", "--csv"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QList<QByteArray> lines = run.out.trimmed().split('\n');
    QCOMPARE(lines.size(), 4);
    QVERIFY(lines[0].startsWith(
        "scope,tensor,format,elements,block,bits_per_element,bytes,sqnr_db,mse"));
    const QList<QByteArray> fields = lines[1].split(',');
    QCOMPARE(fields[0], QByteArray("tensor"));
    QCOMPARE(fields[2], QByteArray("mxfp8_e5m2"));
    QCOMPARE(fields[3], QByteArray("32"));
    QCOMPARE(fields[5].toDouble(), 8.25);
    QCOMPARE(fields[11], QByteArray("1"));              // clipped
    QVERIFY(!lines[2].split(',')[13].isEmpty());        // nvfp4's tensor scale
    QCOMPARE(lines[3].split(',')[4], QByteArray("32")); // int8 per tensor: one block of 32
}

void TstQuantize::codesOfEachScheme() {
    const CliRun run = runFpx({"quantize", "--values", "1,-2,0.1,3.5,-0.25,nan,7,8", "--formats",
                               "nf4,nvfp4,int4,fp8_e4m3", "--block", "4", "--codes", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QJsonObject root = json(run);
    // nf4: FP32 absmax bits; block 0's absmax is 3.5 = 0x40600000; 3.5 is level 1.0 (code 15).
    const QJsonObject nf4 = resultFor(root, "nf4");
    QCOMPARE(nf4["blocks_total"].toInt(), 2);
    const QJsonObject b0 = nf4["blocks"].toArray()[0].toObject();
    QCOMPARE(b0["scale_bits"].toString(), QString("0x40600000"));
    QCOMPARE(b0["scale"].toString(), QString("3.5"));
    QCOMPARE(b0["codes"].toArray()[3].toString(), QString("0xf"));
    QCOMPARE(b0["values"].toArray()[3].toString(), QString("3.5"));
    // The NaN block: scale NaN, every value NaN; counted.
    const QJsonObject b1 = nf4["blocks"].toArray()[1].toObject();
    QCOMPARE(b1["scale_bits"].toString(), QString("0x7fc00000"));
    QCOMPARE(b1["values"].toArray()[0].toString(), QString("nan"));
    QCOMPARE(nf4["nan_inputs"].toInt(), 1);
    QCOMPARE(nf4["non_finite_outputs"].toInt(), 3);
    // int4: scale FP32(3.5 / 7) = 0.5; −2 → level −4 (0xc).
    const QJsonObject int4 = resultFor(root, "int4");
    QCOMPARE(int4["blocks"].toArray()[0].toObject()["scale"].toString(), QString("0.5"));
    QCOMPARE(int4["blocks"].toArray()[0].toObject()["codes"].toArray()[1].toString(),
             QString("0xc"));
    // A direct cast is listed by runs of 32 elements with scale 1 and no scale bits.
    const QJsonObject cast = resultFor(root, "fp8_e4m3");
    QVERIFY(cast["blocks"].toArray()[0].toObject()["scale_bits"].isNull());
    QCOMPARE(cast["blocks"].toArray()[0].toObject()["codes"].toArray()[0].toString(),
             QString("0x38"));

    // --max-blocks bounds the listing.
    const CliRun few = runFpx({"quantize", "--dist", "uniform:-1:1", "--count", "100000",
                               "--formats", "mxfp4", "--codes", "--max-blocks", "3", "--json"});
    QVERIFY2(few.exitCode == 0, qPrintable(describe(few)));
    QCOMPARE(resultFor(json(few), "mxfp4")["blocks"].toArray().size(), 3);
    QCOMPARE(resultFor(json(few), "mxfp4")["blocks_total"].toInt(), 3125);
}

// The documented layout: 4-bit codes two to a byte (low nibble first), U8 scales, the FP32
// tensor scale; the values rebuilt from them match the --dequantized file.
void TstQuantize::safetensorsLayout() {
    QTemporaryDir dir;
    const QString st = dir.filePath("q.safetensors");
    const QString npy = dir.filePath("d.npy");
    const std::vector<float> x = randomFloats(37, 4); // a short last block
    const CliRun run = runFpx({"quantize", "--values", valuesArgument(x), "--formats", "nvfp4",
                               "--output", st, "--dequantized", npy, "--dequantized-dtype", "f64"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const Safetensors s = readSafetensors(st);
    const QJsonObject codesInfo = s.header["nvfp4.codes"].toObject();
    QCOMPARE(codesInfo["dtype"].toString(), QString("U8"));
    QCOMPARE(codesInfo["shape"].toArray()[0].toInt(), 19);
    QCOMPARE(s.header["nvfp4.scales"].toObject()["shape"].toArray()[0].toInt(), 3);
    QCOMPARE(s.header["nvfp4.tensor_scale"].toObject()["dtype"].toString(), QString("F32"));
    const QJsonObject metadata = s.header["__metadata__"].toObject();
    QCOMPARE(metadata["format"].toString(), QString("nvfp4"));
    QCOMPARE(metadata["nvfp4.block"].toString(), QString("16"));
    QCOMPARE(metadata["shape"].toString(), QString("[37]"));

    const QByteArray codes = s.tensor("nvfp4.codes");
    const QByteArray scales = s.tensor("nvfp4.scales");
    const double tensorScale = floatAt(s.tensor("nvfp4.tensor_scale"), 0);
    const std::vector<double> dequantized = readNpy(npy);
    QCOMPARE(dequantized.size(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        const unsigned byte = static_cast<unsigned char>(codes[qsizetype(i / 2)]);
        const unsigned code = i % 2 ? byte >> 4 : byte & 15;
        const double scale = e4m3(static_cast<unsigned char>(scales[qsizetype(i / 16)]));
        QCOMPARE(e2m1(code) * scale * tensorScale, dequantized[i]);
    }

    // MXFP6: one code a byte, in the tensor's shape; E8M0 scales.
    const QString st6 = dir.filePath("q6.safetensors");
    const CliRun six = runFpx({"quantize", "--values", valuesArgument(x), "--formats",
                               "mxfp6_e2m3,nf4", "--output", st6});
    QVERIFY2(six.exitCode == 0, qPrintable(describe(six)));
    const Safetensors s6 = readSafetensors(st6);
    QCOMPARE(s6.header["mxfp6_e2m3.codes"].toObject()["shape"].toArray()[0].toInt(), 37);
    QCOMPARE(s6.tensor("mxfp6_e2m3.codes").size(), 37);
    QCOMPARE(s6.header["mxfp6_e2m3.scales"].toObject()["dtype"].toString(), QString("U8"));
    QCOMPARE(s6.header["nf4.scales"].toObject()["dtype"].toString(), QString("F32"));
    QCOMPARE(s6.header["__metadata__"].toObject()["mxfp6_e2m3.scale_rule"].toString(),
             QString("floor"));
}

void TstQuantize::npyInputByRows() {
    QTemporaryDir dir;
    const QString path = dir.filePath("w.npy");
    const std::vector<float> x = randomFloats(4 * 24, 2);
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(npyFloat32(x, "4, 24"));
    file.close();
    const CliRun run = runFpx(
        {"quantize", "--input", path, "--formats", "int4,mxfp4", "--block", "row", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QJsonObject root = json(run);
    QCOMPARE(root["shape"].toArray()[0].toInt(), 4);
    QCOMPARE(resultFor(root, "int4")["block"].toInt(), 24);
    // A row of 24 is not OCP MX's block of 32: a variant, named so.
    QCOMPARE(resultFor(root, "mxfp4@row")["block"].toInt(), 24);
}

void TstQuantize::sweepAndHistogram() {
    const CliRun run =
        runFpx({"quantize", "--dist", "student:4", "--count", "4096", "--formats", "mxfp4,bf16",
                "--sweep", "16,32,64,128", "--histogram", "10", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QJsonObject root = json(run);
    const QJsonArray sweep = resultFor(root, "mxfp4")["sweep"].toArray();
    QCOMPARE(sweep.size(), 4);
    QCOMPARE(sweep[1].toObject()["block"].toInt(), 32);
    QCOMPARE(sweep[1].toObject()["sqnr_db"].toDouble(),
             resultFor(root, "mxfp4")["sqnr_db"].toDouble());
    QCOMPARE(sweep[3].toObject()["bits_per_element"].toDouble(), 4 + 8.0 / 128);
    QVERIFY(!resultFor(root, "bf16").contains("sweep")); // a cast has no blocks
    int binned = 0;
    for (const auto& c : root["histogram"].toObject()["counts"].toArray())
        binned += c.toInt();
    QCOMPARE(binned, 4096);
    QCOMPARE(resultFor(root, "mxfp4")["error_histogram"].toObject()["counts"].toArray().size(), 10);
}

void TstQuantize::errors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    const QStringList values{"--values", "1,2,3"};
    QTest::newRow("unknown format") << (values + QStringList{"--formats", "mxfp5"}) << 2 << "mxfp5";
    QTest::newRow("scale rule on nf4")
        << (values + QStringList{"--formats", "nf4", "--scale-rule", "ceil"}) << 2 << "scale-rule";
    QTest::newRow("bad scale rule")
        << (values + QStringList{"--formats", "mxfp4", "--scale-rule", "up"}) << 2 << "'up'";
    QTest::newRow("bad value") << QStringList{"--values", "1,x,3", "--formats", "nf4"} << 2
                               << "'x'";
    QTest::newRow("empty value") << QStringList{"--values", "1,,3", "--formats", "nf4"} << 2
                                 << "--values";
    QTest::newRow("value beyond fp32")
        << QStringList{"--values", "1e39", "--formats", "nf4"} << 2 << "FP32";
    QTest::newRow("missing input")
        << QStringList{"--input", "/no/such/file.npy", "--formats", "nf4"} << 1
        << "/no/such/file.npy";
    QTest::newRow("no source") << QStringList{"--formats", "nf4"} << 2 << "exactly one";
    QTest::newRow("two sources") << (values +
                                     QStringList{"--dist", "normal:0:1", "--formats", "nf4"})
                                 << 2 << "exactly one";
    QTest::newRow("no formats") << values << 2 << "--formats";
    QTest::newRow("block 0") << (values + QStringList{"--formats", "nf4", "--block", "0"}) << 2
                             << "--block";
    QTest::newRow("dequantized as text")
        << (values + QStringList{"--formats", "nf4,int8", "--dequantized", "x.txt"}) << 2
        << ".npy or .safetensors";
    QTest::newRow("dequantized as f16")
        << (values +
            QStringList{"--formats", "nf4", "--dequantized", "x.npy", "--dequantized-dtype", "f16"})
        << 2 << "f32 or f64";
    QTest::newRow("a block on a cast")
        << (values + QStringList{"--formats", "bf16@32"}) << 2 << "plain cast";
    QTest::newRow("a format twice")
        << (values + QStringList{"--formats", "int4@64,int4@64"}) << 2 << "twice";
    QTest::newRow("bad axis") << (values + QStringList{"--formats", "nf4", "--axis", "x"}) << 2
                              << "--axis";
    QTest::newRow("axis beyond the tensor")
        << (values + QStringList{"--formats", "nf4", "--axis", "1"}) << 2 << "no axis 1";
    QTest::newRow("bad sort") << (values + QStringList{"--formats", "nf4", "--sort", "size"}) << 2
                              << "--sort";
    QTest::newRow("tensors without input")
        << (values + QStringList{"--formats", "nf4", "--tensors", "*"}) << 2 << "--tensors";
    QTest::newRow("csv with codes")
        << (values + QStringList{"--formats", "nf4", "--csv", "--codes"}) << 2 << "--csv";
    QTest::newRow("json and csv") << (values + QStringList{"--formats", "nf4", "--csv", "--json"})
                                  << 2 << "--json";
    QTest::newRow("dist without count")
        << QStringList{"--dist", "normal:0:1", "--formats", "nf4"} << 2 << "--count";
    QTest::newRow("bad dist") << QStringList{"--dist", "gamma:2",   "--count",
                                             "10",     "--formats", "nf4"}
                              << 2 << "--dist";
    QTest::newRow("bad sweep") << (values + QStringList{"--formats", "nf4", "--sweep", "16,x"}) << 2
                               << "--sweep";
    QTest::newRow("stray argument")
        << (values + QStringList{"--formats", "nf4", "extra"}) << 2 << "extra";
}

void TstQuantize::errors() {
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    const CliRun run = runFpx(QStringList{"quantize"} + args);
    QVERIFY2(run.exitCode == exitCode, qPrintable(describe(run)));
    QVERIFY2(QString::fromUtf8(run.err).contains(message), qPrintable(describe(run)));
    QVERIFY(run.out.isEmpty());
}

void TstQuantize::noFileLeftBehind() {
    QTemporaryDir dir;
    const QString st = dir.filePath("q.safetensors");
    const QString npy = dir.filePath("d.npy");
    // A usage error: nothing written.
    CliRun run = runFpx({"quantize", "--values", "1,2", "--formats", "nf4,int8", "--output", st,
                         "--dequantized", npy, "--dequantized-dtype", "f16"});
    QCOMPARE(run.exitCode, 2);
    // A truncated input file: nothing written.
    const QString truncated = dir.filePath("t.npy");
    QFile file(truncated);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(npyFloat32(randomFloats(64, 1), "64,").left(100));
    file.close();
    run = runFpx({"quantize", "--input", truncated, "--formats", "nf4", "--output", st});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("t.npy"), qPrintable(describe(run)));
    // The second file cannot be written: the first is removed again.
    run = runFpx({"quantize", "--values", "1,2", "--formats", "nf4", "--output", st,
                  "--dequantized", dir.filePath("no/such/dir/d.npy")});
    QCOMPARE(run.exitCode, 1);
    QVERIFY(!QFile::exists(st));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::NoDotAndDotDot), QStringList{"t.npy"});
}

void TstQuantize::help() {
    const CliRun run = runFpx({"quantize", "--help"});
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.out.contains("usage: fpx quantize"));
    QVERIFY(run.out.contains("--scale-rule"));
    const CliRun all = runFpx({"--help"});
    QVERIFY(all.out.contains("fpx quantize"));
}

QTEST_GUILESS_MAIN(TstQuantize)
#include "tst_quantize.moc"
