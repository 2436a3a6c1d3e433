// SPDX-License-Identifier: GPL-3.0-or-later
// fpx quantize on whole files and sharded models: every loadable tensor reported (unloadable
// ones listed as skipped), each figure equal to the exact reference (quantizeTensor measured by
// measureQuantizationExactly, in this process), totals per format as the elements-weighted mean,
// --tensors, a sharded model read through its index like the one file, the same JSON on one
// and two threads, --axis against a transposed copy, --sort, --dequantized per format.
#include "cli_runner.h"

#include "fpx/data/tensor_file.h"
#include "fpx/quantization/block_quantization.h"
#include "fpx/quantization/tensor_quantizer.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <csignal>
#include <cstring>
#include <random>

using namespace fpx;
using namespace fpx::test;

namespace {

std::vector<float> randomFloats(std::size_t n, std::uint64_t seed, double scale = 1) {
    std::mt19937_64 random(seed);
    std::student_t_distribution<double> t(4);
    std::vector<float> v(n);
    for (float& x : v)
        x = static_cast<float>(t(random) * scale);
    return v;
}

OutputTensor f32Tensor(const std::string& name, const std::vector<std::size_t>& shape,
                       const std::vector<float>& values) {
    OutputTensor t{name, "F32", shape, {}};
    t.bytes.resize(values.size() * 4);
    std::memcpy(t.bytes.data(), values.data(), t.bytes.size());
    return t;
}

// BF16: the top half of each FP32 value, which the tests' values are made to be.
OutputTensor bf16Tensor(const std::string& name, const std::vector<float>& values) {
    OutputTensor t{name, "BF16", {values.size()}, {}};
    for (const float x : values) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &x, 4);
        t.bytes.push_back(static_cast<std::uint8_t>(bits >> 16));
        t.bytes.push_back(static_cast<std::uint8_t>(bits >> 24));
    }
    return t;
}

std::vector<float> bf16Values(std::vector<float> values) {
    for (float& x : values) {
        std::uint32_t bits = 0;
        std::memcpy(&bits, &x, 4);
        bits &= 0xffff0000u;
        std::memcpy(&x, &bits, 4);
    }
    return values;
}

// A small model: three loadable tensors of different sizes, dtypes and shapes, and an I32
// tensor fpx cannot read.
struct Model {
    std::vector<float> attention = randomFloats(8 * 96, 1, 0.02);
    std::vector<float> norm = bf16Values(randomFloats(200, 2, 1));
    std::vector<float> head = randomFloats(37 * 5, 3, 0.5);

    std::vector<OutputTensor> tensors() const {
        OutputTensor ints{"step", "I32", {2}, std::vector<std::uint8_t>(8, 1)};
        return {f32Tensor("attn.weight", {8, 96}, attention), bf16Tensor("norm.weight", norm),
                f32Tensor("head.weight", {37, 5}, head), ints};
    }
    const std::vector<float>& values(const QString& name) const {
        return name == "attn.weight" ? attention : name == "norm.weight" ? norm : head;
    }
};

QString writeModel(const QTemporaryDir& dir, const std::vector<OutputTensor>& tensors,
                   const QString& name) {
    std::string error;
    const QString path = dir.filePath(name);
    if (!writeSafetensors(path.toStdString(), tensors, {}, error))
        qFatal("%s", error.c_str());
    return path;
}

BlockFormat format(const QString& id) {
    std::string error;
    const auto f = findBlockFormat(id.toStdString(), {}, error);
    if (!f)
        qFatal("%s", error.c_str());
    return *f;
}

// The exact reference for one tensor and format.
QuantizationReport reference(const std::vector<float>& values, std::vector<std::size_t> shape,
                             const QString& id) {
    TensorView view;
    view.name = "t";
    view.shape = std::move(shape);
    view.floats = values;
    std::string error;
    const auto q = quantizeTensor(format(id), view, error);
    if (!q)
        qFatal("%s", error.c_str());
    return measureQuantizationExactly(view, *q);
}

QJsonObject resultFor(const QJsonObject& tensor, const QString& format) {
    for (const auto& value : tensor["results"].toArray())
        if (value.toObject()["format"].toString() == format)
            return value.toObject();
    return {};
}

std::vector<std::size_t> shapeOf(const QJsonObject& tensor) {
    std::vector<std::size_t> shape;
    for (const auto& d : tensor["shape"].toArray())
        shape.push_back(static_cast<std::size_t>(d.toInteger()));
    return shape;
}

} // namespace

class TestQuantizeModel : public QObject {
    Q_OBJECT

  private slots:
    void everyTensorAgainstTheReference();
    void pickedTensors();
    void shardedLikeOneFile();
    void threadsAgree();
    void axisMovesTheBlocks();
    void sortedFormats();
    void dequantizedPerFormat();
    void interruptWritesNothing();
};

void TestQuantizeModel::everyTensorAgainstTheReference() {
    QTemporaryDir dir;
    const Model model;
    const QString path = writeModel(dir, model.tensors(), "model.safetensors");
    const QStringList formats{"mxfp4", "nvfp4", "nf4", "int4@64", "int8", "fp8_e4m3", "nf4_dq"};
    const CliRun run =
        runFpx({"quantize", "--input", path, "--formats", formats.join(','), "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QJsonObject root = json(run);
    const QJsonArray tensors = root["tensors"].toArray();
    QCOMPARE(tensors.size(), 3);
    QCOMPARE(root["skipped"].toArray().size(), 1);
    QCOMPARE(root["skipped"][0].toObject()["name"].toString(), QString("step"));
    for (const QString& id : formats) {
        double weighted = 0;
        std::size_t elements = 0;
        for (const auto& value : tensors) {
            const QJsonObject tensor = value.toObject();
            const QString name = tensor["name"].toString();
            const QJsonObject r = resultFor(tensor, id);
            const QuantizationReport expected = reference(model.values(name), shapeOf(tensor), id);
            const QString what = name + " × " + id;
            QCOMPARE(r["mse"].toDouble(), expected.mse);
            QCOMPARE(r["max_abs_error"].toDouble(), expected.maxAbsError);
            QCOMPARE(r["max_error_index"].toInteger(), qint64(expected.maxErrorIndex));
            QVERIFY2(std::fabs(r["sqnr_db"].toDouble() - expected.sqnrDb) <= 0.00005 + 1e-12,
                     qPrintable(what));
            QCOMPARE(r["clipped"].toInteger(), qint64(expected.clipped));
            weighted += double(expected.elements) * expected.sqnrDb;
            elements += expected.elements;
        }
        QJsonObject total;
        for (const auto& t : root["total"].toArray())
            if (t.toObject()["format"].toString() == id)
                total = t.toObject();
        QCOMPARE(total["elements"].toInteger(), qint64(elements));
        QCOMPARE(total["tensors"].toInt(), 3);
        QVERIFY2(std::fabs(total["sqnr_db"].toDouble() - weighted / double(elements)) <= 0.00005,
                 qPrintable(id));
    }
    // A cast has no blocks: its block is null.
    QVERIFY(resultFor(tensors[0].toObject(), "fp8_e4m3")["block"].isNull());
    // The text form: a row per tensor and format, and the totals.
    const CliRun text = runFpx({"quantize", "--input", path, "--formats", "mxfp4,int8"});
    QVERIFY2(text.exitCode == 0, qPrintable(describe(text)));
    QVERIFY(text.out.contains("3 tensors, 1153 elements"));
    QVERIFY(text.out.contains("norm.weight"));
    QVERIFY(text.out.contains("total (SQNR"));
    QVERIFY(text.out.contains("skipped step (I32)"));
}

void TestQuantizeModel::pickedTensors() {
    QTemporaryDir dir;
    const QString path = writeModel(dir, Model().tensors(), "model.safetensors");
    CliRun run = runFpx(
        {"quantize", "--input", path, "--tensors", "*.weight", "--formats", "nf4", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QCOMPARE(json(run)["tensors"].toArray().size(), 3);
    QCOMPARE(json(run)["skipped"].toArray().size(), 0); // step is not picked at all
    run = runFpx({"quantize", "--input", path, "--tensors", "h*", "--formats", "nf4", "--json"});
    QCOMPARE(json(run)["tensors"].toArray().size(), 1);
    run = runFpx({"quantize", "--input", path + ":norm.weight", "--formats", "nf4", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QCOMPARE(json(run)["results"].toArray().size(), 1); // one tensor: its results at the top
    run = runFpx({"quantize", "--input", path, "--tensors", "nothing*", "--formats", "nf4"});
    QCOMPARE(run.exitCode, 1);
    QVERIFY(run.err.contains("no loadable tensor matches"));
}

// Two shards and their index give the one file's report.
void TestQuantizeModel::shardedLikeOneFile() {
    QTemporaryDir dir;
    const Model model;
    const std::vector<OutputTensor> all = model.tensors();
    writeModel(dir, {all[0], all[1]}, "model-00001-of-00002.safetensors");
    writeModel(dir, {all[2]}, "model-00002-of-00002.safetensors");
    QFile index(dir.filePath("model.safetensors.index.json"));
    QVERIFY(index.open(QIODevice::WriteOnly));
    index.write(R"({"metadata": {"total_size": 4828},
        "weight_map": {"attn.weight": "model-00001-of-00002.safetensors",
                       "norm.weight": "model-00001-of-00002.safetensors",
                       "head.weight": "model-00002-of-00002.safetensors"}})");
    index.close();
    const QString one = writeModel(dir, {all[0], all[1], all[2]}, "one.safetensors");
    const QStringList args{"--formats", "mxfp4,nvfp4", "--json"};
    const CliRun sharded = runFpx(QStringList{"quantize", "--input", index.fileName()} + args);
    const CliRun whole = runFpx(QStringList{"quantize", "--input", one} + args);
    QVERIFY2(sharded.exitCode == 0, qPrintable(describe(sharded)));
    QCOMPARE(json(sharded)["tensors"], json(whole)["tensors"]);
    QCOMPARE(json(sharded)["total"], json(whole)["total"]);
    // An index that is not JSON is named with its line and column.
    QFile broken(dir.filePath("broken.safetensors.index.json"));
    QVERIFY(broken.open(QIODevice::WriteOnly));
    broken.write("{\n  \"weight_map\": {\n    \"a\": x\n}}");
    broken.close();
    const CliRun notJson = runFpx(QStringList{"quantize", "--input", broken.fileName()} + args);
    QCOMPARE(notJson.exitCode, 1);
    QVERIFY2(notJson.err.contains("broken.safetensors.index.json:3:10: not JSON"),
             qPrintable(describe(notJson)));
    // A shard that is missing is named.
    QFile::remove(dir.filePath("model-00002-of-00002.safetensors"));
    const CliRun missing = runFpx(QStringList{"quantize", "--input", index.fileName()} + args);
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.err.contains("model-00002-of-00002.safetensors"),
             qPrintable(describe(missing)));
}

void TestQuantizeModel::threadsAgree() {
    QTemporaryDir dir;
    const std::vector<float> big = randomFloats(300000, 9, 0.1);
    const QString path =
        writeModel(dir, {f32Tensor("a", {big.size()}, big), f32Tensor("b", {1000, 300}, big)},
                   "m.safetensors");
    QStringList args{"quantize", "--input", path, "--formats", "mxfp4,nvfp4,int8,bf16,nf4@100",
                     "--json"};
    const CliRun one = runFpx(args + QStringList{"--threads", "1"});
    const CliRun two = runFpx(args + QStringList{"--threads", "2"});
    QVERIFY2(one.exitCode == 0, qPrintable(describe(one)));
    QCOMPARE(one.out, two.out);
}

// Blocks along axis 0 of [8, 96] are blocks along the rows of its transpose [96, 8]; the
// largest error is reported at its index in the tensor as stored.
void TestQuantizeModel::axisMovesTheBlocks() {
    QTemporaryDir dir;
    const Model model;
    std::vector<float> transposed(model.attention.size());
    for (std::size_t r = 0; r < 8; ++r)
        for (std::size_t c = 0; c < 96; ++c)
            transposed[c * 8 + r] = model.attention[r * 96 + c];
    const QString path =
        writeModel(dir, {f32Tensor("w", {8, 96}, model.attention)}, "w.safetensors");
    const QString t = writeModel(dir, {f32Tensor("w", {96, 8}, transposed)}, "t.safetensors");
    const CliRun along = runFpx(
        {"quantize", "--input", path, "--axis", "0", "--formats", "int8@row,nf4@4", "--json"});
    const CliRun plain =
        runFpx({"quantize", "--input", t, "--formats", "int8@row,nf4@4", "--json"});
    QVERIFY2(along.exitCode == 0, qPrintable(describe(along)));
    QCOMPARE(json(along)["axis"].toInt(), 0);
    for (const QString id : {"int8@row", "nf4@4"}) {
        const QJsonObject a = json(along)["results"].toArray()[id == "nf4@4"].toObject();
        const QJsonObject p = json(plain)["results"].toArray()[id == "nf4@4"].toObject();
        QCOMPARE(a["sqnr_db"], p["sqnr_db"]);
        QCOMPARE(a["mse"], p["mse"]);
        const std::size_t index = static_cast<std::size_t>(p["max_error_index"].toInteger());
        QCOMPARE(a["max_error_index"].toInteger(), qint64((index % 8) * 96 + index / 8));
    }
}

void TestQuantizeModel::sortedFormats() {
    const QStringList args{"quantize", "--dist",    "normal:0:1",          "--count",
                           "4096",     "--formats", "int8,mxfp4,bf16,nf4", "--json",
                           "--sort"};
    QStringList bySqnr, byBits;
    for (const auto& r : json(runFpx(args + QStringList{"sqnr"}))["results"].toArray())
        bySqnr << r.toObject()["format"].toString();
    for (const auto& r : json(runFpx(args + QStringList{"bits"}))["results"].toArray())
        byBits << r.toObject()["format"].toString();
    QCOMPARE(bySqnr, (QStringList{"bf16", "int8", "nf4", "mxfp4"}));
    QCOMPARE(byBits.front(), QString("mxfp4"));
    QCOMPARE(byBits.back(), QString("bf16"));
}

void TestQuantizeModel::dequantizedPerFormat() {
    QTemporaryDir dir;
    const QString path = writeModel(dir, Model().tensors(), "model.safetensors");
    const QString out = dir.filePath("d.safetensors");
    const CliRun run =
        runFpx({"quantize", "--input", path, "--formats", "mxfp4,nf4", "--dequantized", out});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    for (const char* id : {"mxfp4", "nf4"}) {
        const QString file = dir.filePath(QString("d.%1.safetensors").arg(id));
        const TensorFileOpen opened = TensorFile::open(file.toStdString());
        QVERIFY2(opened.file, opened.error.c_str());
        QCOMPARE(opened.file->tensors().size(), std::size_t(3));
        QCOMPARE(QString::fromStdString(opened.file->tensors()[0].dtype), QString("F32"));
    }
    // A .npy holds one tensor only.
    const CliRun npy = runFpx(
        {"quantize", "--input", path, "--formats", "nf4", "--dequantized", dir.filePath("d.npy")});
    QCOMPARE(npy.exitCode, 1);
    QVERIFY(!QFile::exists(dir.filePath("d.npy")));
}

// Ctrl+C during a long run: the command stops between two chunks, exits with 130 and leaves
// no output file.
void TestQuantizeModel::interruptWritesNothing() {
    QTemporaryDir dir;
    std::vector<float> big(std::size_t(1) << 25); // a cheap spread of values: only the time counts
    for (std::size_t i = 0; i < big.size(); ++i)
        big[i] = static_cast<float>((i * 2654435761u) % 2001) / 1000.0f - 1.0f;
    const QString path = writeModel(dir, {f32Tensor("w", {big.size()}, big)}, "big.safetensors");
    const QString output = dir.filePath("codes.safetensors");
    QProcess process;
    process.start(QStringLiteral(FPX_CLI_PATH),
                  {"quantize", "--input", path, "--threads", "1", "--output", output, "--formats",
                   "mxfp4,nvfp4,nf4,nf4_dq,int8,int4@64,fp8_e4m3,bf16,mxfp8_e4m3,mxfp6_e2m3"});
    QVERIFY(process.waitForStarted());
    QTest::qWait(400);
    QCOMPARE(process.state(), QProcess::Running); // still at work: the interrupt comes mid-run
    ::kill(static_cast<pid_t>(process.processId()), SIGINT);
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 130);
    QVERIFY(process.readAllStandardError().contains("cancelled"));
    QVERIFY(process.readAllStandardOutput().isEmpty());
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::NoDotAndDotDot),
             QStringList{"big.safetensors"});
}

QTEST_GUILESS_MAIN(TestQuantizeModel)
#include "tst_quantize_model.moc"
