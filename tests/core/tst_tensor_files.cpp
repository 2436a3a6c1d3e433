// SPDX-License-Identifier: GPL-3.0-or-later
// Tensor files, read and written: every reader on files built byte by byte here (every dtype
// and order, every way a header can lie), the writers' round trips and failures, the
// statistics of `fpx inspect`, the value distributions and the histograms. Expected values are
// written out by hand or computed here from the fields of a code, never by the code under test.
#include "fpx/data/histogram.h"
#include "fpx/data/tensor_file.h"
#include "fpx/data/value_distribution.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <bit>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <limits>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

using namespace fpx;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

template <typename T> std::string le(const std::vector<T>& values) {
    std::string bytes(values.size() * sizeof(T), '\0');
    std::memcpy(bytes.data(), values.data(), bytes.size());
    return bytes;
}

std::string u64le(std::uint64_t v) {
    std::string bytes(8, '\0');
    for (int k = 0; k < 8; ++k)
        bytes[std::size_t(k)] = char((v >> (8 * k)) & 0xff);
    return bytes;
}

// A version 1.0 .npy file, header padded to 64 bytes as numpy writes it.
std::string npy(const std::string& descr, const std::string& shape, const std::string& data,
                bool fortran = false) {
    std::string dict = "{'descr': '" + descr +
                       "', 'fortran_order': " + (fortran ? "True" : "False") +
                       ", 'shape': " + shape + ", }";
    const std::size_t total = 10 + dict.size() + 1;
    dict.append((64 - total % 64) % 64, ' ');
    dict += '\n';
    std::string out = "\x93NUMPY\x01";
    out += '\0';
    out += char(dict.size() & 0xff);
    out += char(dict.size() >> 8);
    return out + dict + data;
}

std::string safetensors(const std::string& json, const std::string& data) {
    return u64le(json.size()) + json + data;
}

// Everything a test asks of a file: write it, open it.
class Files {
  public:
    std::string write(const std::string& name, const std::string& bytes) {
        const std::string path = dir_.filePath(QString::fromStdString(name)).toStdString();
        std::ofstream(path, std::ios::binary) << bytes;
        return path;
    }
    std::string path(const std::string& name) const {
        return dir_.filePath(QString::fromStdString(name)).toStdString();
    }
    QStringList entries() const {
        return QDir(dir_.path()).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
    }

  private:
    QTemporaryDir dir_;
};

std::vector<double> valuesOf(const TensorView& view) {
    std::vector<double> values(view.size());
    for (std::size_t i = 0; i < view.size(); ++i)
        values[i] = view.at(i);
    return values;
}

// Same value, NaN equal to NaN, −0 apart from +0.
bool same(double a, double b) {
    return (std::isnan(a) && std::isnan(b)) ||
           std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

// "" when the values are the same (same(): NaN equal to NaN, −0 apart from +0), else the first
// difference, for QCOMPARE(mismatch(…), QString()) to print.
QString mismatch(const std::vector<double>& actual, const std::vector<double>& expected) {
    if (actual.size() != expected.size())
        return QString("%1 values, expected %2").arg(actual.size()).arg(expected.size());
    for (std::size_t i = 0; i < actual.size(); ++i)
        if (!same(actual[i], expected[i]))
            return QString("element %1: %2, expected %3")
                .arg(i)
                .arg(actual[i], 0, 'g', 17)
                .arg(expected[i], 0, 'g', 17);
    return {};
}

// A binary float code's value from its fields, by the textbook formula (independent of fpx's
// decoder): (−1)^s · 2^(e − bias) · (1 + f/2^m), subnormal 2^(1 − bias) · f/2^m.
double fieldValue(std::uint32_t code, int e, int m, bool ieeeSpecials, bool nanAtAllOnes) {
    const int bias = (1 << (e - 1)) - 1;
    const std::uint32_t f = code & ((1u << m) - 1);
    const std::uint32_t x = (code >> m) & ((1u << e) - 1);
    const bool negative = (code >> (e + m)) & 1;
    double v;
    if (ieeeSpecials && x == (1u << e) - 1)
        v = f == 0 ? kInf : kNaN;
    else if (nanAtAllOnes && x == (1u << e) - 1 && f == (1u << m) - 1)
        v = kNaN;
    else if (x == 0)
        v = std::ldexp(double(f), 1 - bias - m);
    else
        v = std::ldexp(double(f + (1u << m)), int(x) - bias - m);
    return negative ? -v : v;
}

} // namespace

class TestTensorFiles : public QObject {
    Q_OBJECT
  private slots:
    void npyEveryDtypeAndOrder_data();
    void npyEveryDtypeAndOrder();
    void npyZeroDimensional();
    void safetensorsEveryDtype();
    void widenedExactly();
    void rawFiles();
    void textFiles();
    void lyingHeaders_data();
    void lyingHeaders();
    void damagedBytesNeverCrash();
    void largeFileIsMappedNotRead();
    void unreadable();
    void tensorArgument();
    void writersRoundTrip();
    void failedWritesLeaveNothing();
    void statistics();
    void distributionsAreDeterministic();
    void distributionMoments_data();
    void distributionMoments();
    void studentTails();
    void outlierFraction();
    void distributionErrors();
    void histogramLinear();
    void histogramLog2();
};

// A 2 × 3 matrix m[i][j] = values[3i + j] in every .npy dtype, written in C order and in
// Fortran order (element (i, j) at i + 2j); both read back as the same C-order values.
void TestTensorFiles::npyEveryDtypeAndOrder_data() {
    QTest::addColumn<QString>("descr");
    QTest::addColumn<bool>("fortran");
    for (const char* d : {"<f2", "<f4", "<f8"})
        for (bool f : {false, true})
            QTest::newRow(qPrintable(QString("%1 %2").arg(d, f ? "F" : "C"))) << d << f;
}

void TestTensorFiles::npyEveryDtypeAndOrder() {
    QFETCH(QString, descr);
    QFETCH(bool, fortran);
    // Exact in every dtype: 1.5, −2, 2^−14 (FP16's smallest normal), 65504 (its max), 2^−24
    // (its smallest subnormal), −0.
    const std::vector<double> values{1.5, -2, 0x1p-14, 65504, 0x1p-24, -0.0};
    const std::vector<std::uint16_t> halves{0x3e00, 0xc000, 0x0400, 0x7bff, 0x0001, 0x8000};
    std::vector<std::size_t> order{0, 1, 2, 3, 4, 5}; // memory position → C index
    if (fortran)
        order = {0, 3, 1, 4, 2, 5};
    std::string data;
    for (std::size_t c : order) {
        if (descr == "<f2")
            data += le(std::vector<std::uint16_t>{halves[c]});
        else if (descr == "<f4")
            data += le(std::vector<float>{float(values[c])});
        else
            data += le(std::vector<double>{values[c]});
    }
    Files files;
    const std::string path =
        files.write("m.npy", npy(descr.toStdString(), "(2, 3)", data, fortran));
    TensorFileOpen opened = TensorFile::open(path);
    QVERIFY2(opened.file, opened.error.c_str());
    QCOMPARE(opened.file->kind(), TensorFileKind::Npy);
    QCOMPARE(opened.file->tensors().size(), std::size_t(1));
    const TensorInfo& info = opened.file->tensors()[0];
    QCOMPARE(info.name, std::string("m.npy"));
    QCOMPARE(info.dtype, descr.toStdString());
    QCOMPARE(info.shape, (std::vector<std::size_t>{2, 3}));
    QCOMPARE(info.elementCount, std::size_t(6));
    QVERIFY(info.loadable);
    std::string error;
    const auto loaded = opened.file->load("m.npy", error);
    QVERIFY2(loaded, error.c_str());
    QCOMPARE(loaded->view.shape, (std::vector<std::size_t>{2, 3}));
    QCOMPARE(loaded->view.isDouble(), descr == "<f8");
    QCOMPARE(loaded->view.rowLength(), std::size_t(3));
    QCOMPARE(mismatch(valuesOf(loaded->view), values), QString());
    // The loaded values outlive the file object.
    opened.file.reset();
    QCOMPARE(mismatch(valuesOf(loaded->view), values), QString());
}

void TestTensorFiles::npyZeroDimensional() {
    Files files;
    const std::string path = files.write("s.npy", npy("<f4", "()", le(std::vector<float>{-7.25f})));
    std::string error;
    const auto loaded = loadTensorArgument(path, std::nullopt, error);
    QVERIFY2(loaded, error.c_str());
    QVERIFY(loaded->view.shape.empty());
    QCOMPARE(mismatch(valuesOf(loaded->view), std::vector<double>{-7.25}), QString());
    // An empty array is a tensor of no values.
    const std::string empty = files.write("e.npy", npy("<f8", "(0, 4)", ""));
    const auto none = loadTensorArgument(empty, std::nullopt, error);
    QVERIFY2(none, error.c_str());
    QCOMPARE(none->view.size(), std::size_t(0));
    QCOMPARE(none->view.shape, (std::vector<std::size_t>{0, 4}));
}

// One file with a tensor of every loadable dtype (codes written by hand, values from their
// fields), one that is listed but not loadable, and metadata.
void TestTensorFiles::safetensorsEveryDtype() {
    struct Case {
        std::string name, dtype, shape, bytes;
        std::vector<double> values;
    };
    const std::vector<Case> cases{
        {"f64", "F64", "[3]", le(std::vector<double>{0.1, -1e300, 5e-324}), {0.1, -1e300, 5e-324}},
        {"f32",
         "F32",
         "[2,2]",
         le(std::vector<float>{1.5f, -0.0f, 0x1p-149f, 3e38f}),
         {1.5, -0.0, 0x1p-149, double(3e38f)}},
        {"f16",
         "F16",
         "[4]",
         le(std::vector<std::uint16_t>{0x3c00, 0xfbff, 0x0001, 0x7c00}),
         {1, -65504, 0x1p-24, kInf}},
        // BF16 1.5, −2, the smallest subnormal 2^−133, NaN.
        {"bf16",
         "BF16",
         "[4]",
         le(std::vector<std::uint16_t>{0x3fc0, 0xc000, 0x0001, 0x7fc0}),
         {1.5, -2, 0x1p-133, kNaN}},
        // E4M3 (e4m3fn): 1, 448 (max), 2^−9 (smallest subnormal), −1, NaN (0x7f).
        {"e4m3",
         "F8_E4M3",
         "[5]",
         std::string("\x38\x7e\x01\xb8\x7f", 5),
         {1, 448, 0x1p-9, -1, kNaN}},
        // E5M2: 1, 57344 (max), 2^−16 (smallest subnormal), +∞.
        {"e5m2", "F8_E5M2", "[2,2]", std::string("\x3c\x7b\x01\x7c", 4), {1, 57344, 0x1p-16, kInf}},
    };
    std::string json = "{\"__metadata__\":{\"format\":\"pt\",\"note\":\"x\"}";
    std::string data;
    for (const Case& c : cases) {
        json += ",\"" + c.name + "\":{\"dtype\":\"" + c.dtype + "\",\"shape\":" + c.shape +
                ",\"data_offsets\":[" + std::to_string(data.size()) + "," +
                std::to_string(data.size() + c.bytes.size()) + "]}";
        data += c.bytes;
    }
    json += ",\"ints\":{\"dtype\":\"I32\",\"shape\":[2],\"data_offsets\":[" +
            std::to_string(data.size()) + "," + std::to_string(data.size() + 8) + "]}}";
    data += le(std::vector<std::int32_t>{1, 2});
    Files files;
    const std::string path = files.write("model.safetensors", safetensors(json, data));
    TensorFileOpen opened = TensorFile::open(path);
    QVERIFY2(opened.file, opened.error.c_str());
    const TensorFile& file = *opened.file;
    QCOMPARE(file.kind(), TensorFileKind::Safetensors);
    QCOMPARE(file.tensors().size(), cases.size() + 1);
    QCOMPARE(file.metadata().size(), std::size_t(2));
    QCOMPARE(file.metadata()[0], (std::pair<std::string, std::string>{"format", "pt"}));
    for (std::size_t k = 0; k < cases.size(); ++k) {
        const TensorInfo& info = file.tensors()[k];
        QCOMPARE(info.name, cases[k].name);
        QCOMPARE(info.dtype, cases[k].dtype);
        QVERIFY(info.loadable);
        std::string error;
        const auto loaded = file.load(cases[k].name, error);
        QVERIFY2(loaded, error.c_str());
        QCOMPARE(loaded->view.isDouble(), cases[k].dtype == "F64");
        QCOMPARE(mismatch(valuesOf(loaded->view), cases[k].values), QString());
    }
    QCOMPARE(file.tensors()[1].shape, (std::vector<std::size_t>{2, 2}));
    const TensorInfo& ints = file.tensors().back();
    QCOMPARE(ints.name, std::string("ints"));
    QVERIFY(!ints.loadable);
    std::string error;
    QVERIFY(!file.load("ints", error));
    QVERIFY2(error.find("I32") != std::string::npos && error.find(path) == 0, error.c_str());
    QVERIFY(!file.load("missing", error));
    QVERIFY2(error.find("no tensor named 'missing'") != std::string::npos, error.c_str());
}

// Every code of FP16 and FP8 E4M3/E5M2 and a spread of BF16 codes, through raw files, against
// the value computed from the code's fields.
void TestTensorFiles::widenedExactly() {
    struct Kind {
        const char* dtype;
        int bytes, e, m;
        bool ieee, nanAtAllOnes;
    };
    Files files;
    for (const Kind& k : {Kind{"f16", 2, 5, 10, true, false}, Kind{"bf16", 2, 8, 7, true, false},
                          Kind{"e4m3", 1, 4, 3, false, true}, Kind{"e5m2", 1, 5, 2, true, false}}) {
        const std::uint32_t codes = 1u << (8 * k.bytes);
        std::string data;
        for (std::uint32_t c = 0; c < codes; ++c)
            for (int b = 0; b < k.bytes; ++b)
                data += char((c >> (8 * b)) & 0xff);
        const std::string path = files.write(std::string("all.") + k.dtype, data);
        std::string error;
        const auto loaded = loadTensorArgument(path, RawLayout{k.dtype}, error);
        QVERIFY2(loaded, error.c_str());
        QCOMPARE(loaded->view.size(), std::size_t(codes));
        QVERIFY(!loaded->view.isDouble());
        for (std::uint32_t c = 0; c < codes; ++c) {
            const double expected = fieldValue(c, k.e, k.m, k.ieee, k.nanAtAllOnes);
            const double actual = loaded->view.at(c);
            QVERIFY2(same(actual, expected) || (std::isnan(expected) && std::isnan(actual)),
                     qPrintable(QString("%1 code %2: %3, expected %4")
                                    .arg(k.dtype)
                                    .arg(c, 0, 16)
                                    .arg(actual, 0, 'g', 17)
                                    .arg(expected, 0, 'g', 17)));
        }
    }
}

void TestTensorFiles::rawFiles() {
    Files files;
    const std::string path = files.write("w.bin", le(std::vector<double>{1, -2.5, 1e-300}));
    TensorFileOpen opened = TensorFile::open(path, RawLayout{"f64"});
    QVERIFY2(opened.file, opened.error.c_str());
    QCOMPARE(opened.file->kind(), TensorFileKind::Raw);
    QCOMPARE(opened.file->tensors()[0].shape, std::vector<std::size_t>{3});
    std::string error;
    const auto loaded = opened.file->load("w.bin", error);
    QVERIFY2(loaded, error.c_str());
    QCOMPARE(mismatch(valuesOf(loaded->view), (std::vector<double>{1, -2.5, 1e-300})), QString());
    // 24 bytes as f32: six values; as e4m3: 24.
    QCOMPARE(TensorFile::open(path, RawLayout{"f32"}).file->tensors()[0].elementCount,
             std::size_t(6));
    QCOMPARE(TensorFile::open(path, RawLayout{"e4m3"}).file->tensors()[0].elementCount,
             std::size_t(24));
    const std::string odd = files.write("odd.bin", std::string(7, '\0'));
    opened = TensorFile::open(odd, RawLayout{"f32"});
    QVERIFY(!opened.file);
    QVERIFY2(opened.error.find(odd + ": 7 bytes is not a whole number of 4-byte f32") == 0,
             opened.error.c_str());
    opened = TensorFile::open(path, RawLayout{"int8"});
    QVERIFY(!opened.file);
    QVERIFY2(opened.error.find("unknown raw dtype 'int8'") != std::string::npos,
             opened.error.c_str());
    // Without --dtype a binary file is refused, with the hint.
    const std::string binary = files.write("b.dat", std::string("\x01\x02\x00\x05", 4));
    opened = TensorFile::open(binary);
    QVERIFY(!opened.file);
    QVERIFY2(opened.error.find("--dtype") != std::string::npos, opened.error.c_str());
}

// One value per line, parsed exactly and rounded once to the nearest double; blank lines and
// # comments skipped.
void TestTensorFiles::textFiles() {
    Files files;
    const std::string path =
        files.write("v.txt", "# weights\n1.5\n\n  -0.1  \r\n0x1p-3\n2^-1074\ninf\n-0\n");
    TensorFileOpen opened = TensorFile::open(path);
    QVERIFY2(opened.file, opened.error.c_str());
    QCOMPARE(opened.file->kind(), TensorFileKind::Text);
    QCOMPARE(opened.file->tensors()[0].shape, std::vector<std::size_t>{6});
    std::string error;
    const auto loaded = opened.file->load("v.txt", error);
    QVERIFY2(loaded, error.c_str());
    QVERIFY(loaded->view.isDouble());
    QCOMPARE(mismatch(valuesOf(loaded->view),
                      (std::vector<double>{1.5, -0.1, 0.125, 0x1p-1074, kInf, -0.0})),
             QString());
    // A value beyond the doubles is an error naming line and column, not a silent infinity.
    const std::string far = files.write("far.txt", "1\n2\n 1e400000\n");
    opened = TensorFile::open(far);
    QVERIFY(!opened.file);
    QCOMPARE(opened.error, far + ":3:2: '1e400000' is beyond the range of a double");
    // A byte order mark is skipped.
    opened = TensorFile::open(files.write("bom.txt", "\xEF\xBB\xBF-2\n"));
    QVERIFY2(opened.file, opened.error.c_str());
    QCOMPARE(mismatch(valuesOf(opened.file->load("bom.txt", error)->view), {-2}), QString());
    // Any extension, when the contents are text.
    const std::string dat = files.write("v.dat", "3\n");
    opened = TensorFile::open(dat);
    QVERIFY2(opened.file && opened.file->kind() == TensorFileKind::Text, opened.error.c_str());
}

void TestTensorFiles::lyingHeaders_data() {
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("message");
    auto add = [](const char* row, const std::string& bytes, const char* name,
                  const char* message) {
        QTest::newRow(row) << QByteArray(bytes.data(), qsizetype(bytes.size())) << name << message;
    };
    const std::string data = le(std::vector<float>{1, 2, 3, 4});
    auto tensor = [](const std::string& name, const std::string& dtype, const std::string& shape,
                     const std::string& offsets) {
        return "\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape +
               ",\"data_offsets\":" + offsets + "}";
    };
    const std::string good = "{" + tensor("a", "F32", "[4]", "[0,16]") + "}";
    add("safetensors short", std::string("\x05\x00\x00", 3), "t.safetensors",
        "too short for the 8-byte safetensors header length");
    add("header length past EOF", u64le(1000) + good + data, "t.safetensors",
        "the header length (bytes 0-7) is 1000 bytes, but only");
    add("header length huge", u64le(~0ull) + good + data, "t.safetensors",
        "the header length (bytes 0-7) is 18446744073709551615");
    add("bad JSON", safetensors("{\"a\":{\"dtype\":\"F32\",", data), "t.safetensors",
        "the JSON header is malformed near file offset");
    add("not an object", safetensors("[1,2]", data), "t.safetensors", "is not an object");
    // Well-formed JSON whose number no double holds: refused with its place, not thrown past
    // the reader (a fuzzing finding).
    add("number beyond doubles",
        safetensors("{" + tensor("a", "F32", "[4]", "[0,16]") + ",\"b\":1e999}", data),
        "t.safetensors",
        "the JSON header cannot be read near file offset 67: [json.exception.out_of_range.406] "
        "number overflow parsing '1e999'");
    add("tensor not object", safetensors("{\"a\":5}", data), "t.safetensors",
        "tensor 'a': expected an object");
    add("missing shape", safetensors("{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,16]}}", data),
        "t.safetensors", "tensor 'a': field 'shape' is missing");
    add("bad dtype", safetensors("{" + tensor("a", "F33", "[4]", "[0,16]") + "}", data),
        "t.safetensors", "tensor 'a': unknown dtype 'F33'");
    add("dtype not string",
        safetensors("{\"a\":{\"dtype\":4,\"shape\":[4],\"data_offsets\":[0,16]}}", data),
        "t.safetensors", "field 'dtype' is not a string");
    add("negative dimension", safetensors("{" + tensor("a", "F32", "[-4]", "[0,16]") + "}", data),
        "t.safetensors", "shape [-4] has a negative dimension");
    add("fractional dimension",
        safetensors("{" + tensor("a", "F32", "[1.5]", "[0,16]") + "}", data), "t.safetensors",
        "is not a list of non-negative integers");
    add("huge product",
        safetensors("{" + tensor("a", "F32", "[4294967296,4294967296,4]", "[0,16]") + "}", data),
        "t.safetensors", "has too many elements");
    add("offsets out of bounds", safetensors("{" + tensor("a", "F32", "[5]", "[0,20]") + "}", data),
        "t.safetensors",
        "data_offsets [0,20] reach past the end of the data (16 bytes from file offset");
    add("offsets reversed", safetensors("{" + tensor("a", "F32", "[0]", "[16,0]") + "}", data),
        "t.safetensors", "end before they begin");
    add("offsets wrong size", safetensors("{" + tensor("a", "F32", "[3]", "[0,16]") + "}", data),
        "t.safetensors", "span 16 bytes, but F32 × shape [3] needs 12");
    add("offsets negative", safetensors("{" + tensor("a", "F32", "[4]", "[-16,0]") + "}", data),
        "t.safetensors", "field 'data_offsets' is not two non-negative integers");
    add("overlapping",
        safetensors("{" + tensor("a", "F32", "[3]", "[0,12]") + "," +
                        tensor("b", "F32", "[2]", "[8,16]") + "}",
                    data),
        "t.safetensors", "tensors 'a' (data bytes 0-12) and 'b' (data bytes 8-16) overlap");
    add("metadata not strings",
        safetensors("{\"__metadata__\":{\"k\":1}," + tensor("a", "F32", "[4]", "[0,16]") + "}",
                    data),
        "t.safetensors", "'__metadata__': the value of 'k' is not a string");
    const std::string npyData = le(std::vector<double>{1, 2, 3});
    const std::string npyGood = npy("<f8", "(3,)", npyData);
    add("npy truncated data", npyGood.substr(0, npyGood.size() - 1), "t.npy",
        "needs 24 data bytes, the file has 23");
    add("npy truncated header", npyGood.substr(0, 30), "t.npy", "truncated: the header says");
    add("npy huge shape", npy("<f8", "(4294967296, 4294967296, 8)", npyData), "t.npy",
        "too many elements");
    add("npy no magic", "NUMPY" + npyGood, "t.npy", "not a .npy file");
    add("npy big-endian", npy(">f2", "(3,)", npyData), "t.npy", "big-endian");
    add("npy int", npy("<i8", "(3,)", npyData), "t.npy", "unsupported dtype '<i8'");
    add("text bad value", "1\n2.5\n  1.2.3\n", "t.txt", "t.txt:3:");
}

void TestTensorFiles::lyingHeaders() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, name);
    QFETCH(QString, message);
    Files files;
    const std::string path = files.write(name.toStdString(), bytes.toStdString());
    const TensorFileOpen opened = TensorFile::open(path);
    QVERIFY2(!opened.file, "a damaged file was accepted");
    QVERIFY2(opened.error.rfind(path + ": ", 0) == 0 || opened.error.rfind(path + ":", 0) == 0,
             opened.error.c_str());
    QVERIFY2(opened.error.find(message.toStdString()) != std::string::npos, opened.error.c_str());
    std::string error;
    QVERIFY(!loadTensorArgument(path, std::nullopt, error));
    QCOMPARE(error, opened.error);
}

// Thousands of damaged copies of good files (bytes overwritten, mostly in the header where
// they mislead most, or the file cut short): each either opens, with every loadable tensor
// loading exactly its element count, or is refused with a message naming the file.
void TestTensorFiles::damagedBytesNeverCrash() {
    std::string json = "{\"__metadata__\":{\"k\":\"v\"},"
                       "\"a\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,16]},"
                       "\"b\":{\"dtype\":\"BF16\",\"shape\":[3],\"data_offsets\":[16,22]},"
                       "\"c\":{\"dtype\":\"F8_E4M3\",\"shape\":[2],\"data_offsets\":[22,24]}}";
    const std::string data(24, '\x3c');
    const std::vector<std::pair<std::string, std::string>> originals{
        {"f.safetensors", safetensors(json, data)},
        {"f.npy", npy("<f2", "(2, 3)", std::string(12, '\x3c'), true)},
        {"g.npy", npy("<f8", "(3,)", le(std::vector<double>{1, 2, 3}))},
    };
    Files files;
    std::mt19937_64 random(20);
    for (const auto& [name, original] : originals) {
        std::size_t accepted = 0, refused = 0;
        for (int trial = 0; trial < 600; ++trial) {
            std::string bytes = original;
            if (trial % 5 == 4) {
                bytes.resize(random() % bytes.size());
            } else {
                const int edits = 1 + int(random() % 3);
                for (int e = 0; e < edits; ++e) {
                    // Three in four edits fall in the first 80 bytes: the length and header.
                    const std::size_t limit =
                        random() % 4 ? std::min<std::size_t>(80, bytes.size()) : bytes.size();
                    const char pick[] = "0123456789[]{},:\"-e.\xff\x00";
                    bytes[random() % limit] =
                        random() % 2 ? char(random()) : pick[random() % (sizeof pick - 1)];
                }
            }
            const std::string path = files.write(name, bytes);
            const TensorFileOpen opened = TensorFile::open(path);
            if (!opened.file) {
                QVERIFY2(opened.error.rfind(path + ":", 0) == 0, opened.error.c_str());
                ++refused;
                continue;
            }
            ++accepted;
            for (const TensorInfo& info : opened.file->tensors()) {
                QVERIFY(info.dataOffset + info.dataBytes <= bytes.size());
                if (!info.loadable)
                    continue;
                std::string error;
                const auto loaded = opened.file->load(info.name, error);
                QVERIFY2(loaded, error.c_str());
                QCOMPARE(loaded->view.size(), info.elementCount);
                (void)tensorStatistics(loaded->view);
            }
        }
        // Both outcomes happen, or the damage missed what it was meant to hit.
        QVERIFY2(accepted > 0 && refused > 100, qPrintable(QString("%1: %2 accepted, %3 refused")
                                                               .arg(QString::fromStdString(name))
                                                               .arg(accepted)
                                                               .arg(refused)));
    }
}

// A 5 GiB safetensors file, sparse (its holes read as zeros and take no disk): opening lists its
// tensors and loading borrows the F32 one from the mapping, without reading 5 GiB; a tensor
// beyond 4 GiB into the file (64-bit offsets throughout) reads back what was written there.
void TestTensorFiles::largeFileIsMappedNotRead() {
    const std::uint64_t big = (std::uint64_t(5) << 30) / 4; // F32 elements
    std::string json = "{\"big\":{\"dtype\":\"F32\",\"shape\":[" + std::to_string(big) +
                       "],\"data_offsets\":[0," + std::to_string(4 * big) +
                       "]},\"tail\":{\"dtype\":\"F64\",\"shape\":[2],\"data_offsets\":[" +
                       std::to_string(4 * big) + "," + std::to_string(4 * big + 16) + "]}}";
    json.append((8 - json.size() % 8) % 8, ' ');
    Files files;
    const std::string path = files.write("big.safetensors", u64le(json.size()) + json);
    const std::string tail = le(std::vector<double>{-1.25, 3e300});
    const off_t tailOffset = off_t(8 + json.size() + 4 * big);
    const int fd = ::open(path.c_str(), O_WRONLY);
    QVERIFY(fd >= 0);
    const bool written =
        ::ftruncate(fd, tailOffset + 16) == 0 && ::pwrite(fd, tail.data(), 16, tailOffset) == 16;
    ::close(fd);
    if (!written)
        QSKIP("this file system cannot hold a sparse 5 GiB file");
    const TensorFileOpen opened = TensorFile::open(path);
    QVERIFY2(opened.file, opened.error.c_str());
    QCOMPARE(opened.file->tensors()[0].elementCount, std::size_t(big));
    QCOMPARE(opened.file->tensors()[1].dataOffset, std::uint64_t(tailOffset));
    std::string error;
    const auto loaded = opened.file->load("big", error);
    QVERIFY2(loaded, error.c_str());
    QCOMPARE(loaded->view.size(), std::size_t(big));
    QCOMPARE(loaded->view.at(big - 1), 0.0);
    const auto end = opened.file->load("tail", error);
    QVERIFY2(end, error.c_str());
    QCOMPARE(mismatch(valuesOf(end->view), (std::vector<double>{-1.25, 3e300})), QString());
}

void TestTensorFiles::unreadable() {
    Files files;
    TensorFileOpen opened = TensorFile::open(files.path("absent.npy"));
    QVERIFY(!opened.file);
    QVERIFY2(opened.error.find("absent.npy: cannot open the file") != std::string::npos,
             opened.error.c_str());
    opened = TensorFile::open(files.path(""));
    QVERIFY(!opened.file);
    QVERIFY2(opened.error.find("not a regular file") != std::string::npos, opened.error.c_str());
    // An empty text file holds one tensor of no values.
    opened = TensorFile::open(files.write("empty.txt", ""));
    QVERIFY2(opened.file, opened.error.c_str());
    QCOMPARE(opened.file->tensors()[0].elementCount, std::size_t(0));
}

void TestTensorFiles::tensorArgument() {
    Files files;
    std::string json = "{\"ints\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[0,2]},"
                       "\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]},"
                       "\"v\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[8,12]}}";
    json.append((8 - json.size() % 8) % 8, ' ');
    const std::string data = std::string("\x01\x02\x00\x00", 4) + le(std::vector<float>{3, 4});
    const std::string path = files.write("m.safetensors", safetensors(json, data));
    std::string error;
    // No name: the first loadable tensor.
    auto loaded = loadTensorArgument(path, std::nullopt, error);
    QVERIFY2(loaded, error.c_str());
    QCOMPARE(loaded->view.name, std::string("w"));
    loaded = loadTensorArgument(path + ":v", std::nullopt, error);
    QVERIFY2(loaded, error.c_str());
    QCOMPARE(mismatch(valuesOf(loaded->view), std::vector<double>{4}), QString());
    QVERIFY(!loadTensorArgument(path + ":x", std::nullopt, error));
    QVERIFY2(error == path + ": no tensor named 'x'; the file holds 'ints', 'w', 'v'",
             error.c_str());
    QVERIFY(!loadTensorArgument(path + ":ints", std::nullopt, error));
    QVERIFY2(error.find("dtype U8, which fpx does not read") != std::string::npos, error.c_str());
    // A file whose name holds a colon is taken whole.
    const std::string colon = files.write("a:b.txt", "2\n");
    loaded = loadTensorArgument(colon, std::nullopt, error);
    QVERIFY2(loaded, error.c_str());
    QCOMPARE(mismatch(valuesOf(loaded->view), std::vector<double>{2}), QString());
    // Only unloadable tensors.
    const std::string ints = files.write(
        "i.safetensors",
        safetensors("{\"i\":{\"dtype\":\"I8\",\"shape\":[1],\"data_offsets\":[0,1]}}", "\x05"));
    QVERIFY(!loadTensorArgument(ints, std::nullopt, error));
    QVERIFY2(error.find("holds no tensor of a dtype fpx reads") != std::string::npos,
             error.c_str());
}

void TestTensorFiles::writersRoundTrip() {
    Files files;
    // .npy of doubles in every rank, read back by the reader.
    const std::vector<double> values{1, -0.0, 0.1, 1e-310, -kInf, 6};
    for (const std::vector<std::size_t>& shape :
         {std::vector<std::size_t>{6}, std::vector<std::size_t>{2, 3},
          std::vector<std::size_t>{1, 2, 3, 1}}) {
        std::string error;
        const std::string path = files.path("out.npy");
        QVERIFY2(writeNpy(path, values, shape, error), error.c_str());
        const auto loaded = loadTensorArgument(path, std::nullopt, error);
        QVERIFY2(loaded, error.c_str());
        QCOMPARE(loaded->view.shape, shape);
        QVERIFY(loaded->view.isDouble());
        QCOMPARE(mismatch(valuesOf(loaded->view), values), QString());
        std::ifstream in(path, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)), {});
        QCOMPARE((bytes.size() - 48) % 64, std::size_t(0)); // data 64-byte aligned
    }
    std::string error;
    QVERIFY2(writeNpy(files.path("scalar.npy"), std::vector<double>{2.5}, {}, error),
             error.c_str());
    auto scalar = loadTensorArgument(files.path("scalar.npy"), std::nullopt, error);
    QVERIFY2(scalar && scalar->view.shape.empty(), error.c_str());
    QCOMPARE(mismatch(valuesOf(scalar->view), std::vector<double>{2.5}), QString());

    // .safetensors: codes, a float tensor and metadata, read back field by field.
    std::vector<std::uint8_t> floatBytes(12);
    const std::vector<float> floats{1.5f, -2, 0x1p-149f};
    std::memcpy(floatBytes.data(), floats.data(), 12);
    const std::vector<OutputTensor> tensors{
        {"codes", "U8", {5}, {1, 2, 3, 4, 5}},
        {"scales", "F32", {3, 1}, floatBytes},
        {"nibbles", "F4", {3}, {0x21, 0x03}},
    };
    const std::string path = files.path("q.safetensors");
    QVERIFY2(writeSafetensors(path, tensors, {{"fpx.format", "mxfp4"}, {"fpx.block", "32"}}, error),
             error.c_str());
    TensorFileOpen opened = TensorFile::open(path);
    QVERIFY2(opened.file, opened.error.c_str());
    QCOMPARE(opened.file->tensors().size(), std::size_t(3));
    QCOMPARE(opened.file->tensors()[0].name, std::string("codes"));
    QCOMPARE(opened.file->tensors()[0].dataBytes, std::uint64_t(5));
    QVERIFY(!opened.file->tensors()[0].loadable);
    QCOMPARE(opened.file->tensors()[1].shape, (std::vector<std::size_t>{3, 1}));
    QCOMPARE(opened.file->metadata()[1], (std::pair<std::string, std::string>{"fpx.block", "32"}));
    const auto scales = opened.file->load("scales", error);
    QVERIFY2(scales, error.c_str());
    QCOMPARE(mismatch(valuesOf(scales->view), (std::vector<double>{1.5, -2, 0x1p-149})), QString());
    std::ifstream in(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    QCOMPARE(bytes.substr(bytes.size() - 19, 5), std::string("\x01\x02\x03\x04\x05"));
    QCOMPARE(bytes.substr(bytes.size() - 2), std::string("\x21\x03"));
    QCOMPARE(std::uint8_t(bytes[0]) % 8, 0); // header padded to 8 bytes
    // Overwriting replaces the file.
    QVERIFY2(writeSafetensors(path, {tensors[0]}, {}, error), error.c_str());
    QCOMPARE(TensorFile::open(path).file->tensors().size(), std::size_t(1));
    QCOMPARE(files.entries(), (QStringList{"out.npy", "q.safetensors", "scalar.npy"}));
}

void TestTensorFiles::failedWritesLeaveNothing() {
    Files files;
    std::string error;
    // The target is a directory.
    QVERIFY(QDir().mkpath(QString::fromStdString(files.path("dir.npy"))));
    QVERIFY(!writeNpy(files.path("dir.npy"), std::vector<double>{1}, {1}, error));
    QVERIFY2(error.find("dir.npy: is a directory") != std::string::npos, error.c_str());
    QVERIFY(!writeSafetensors(files.path("dir.npy"), {}, {}, error));
    // The directory does not exist.
    QVERIFY(!writeNpy(files.path("no/such/x.npy"), std::vector<double>{1}, {1}, error));
    QVERIFY2(error.find("cannot create a file beside it") != std::string::npos, error.c_str());
    // Inconsistent tensors are refused before anything is written.
    QVERIFY(!writeNpy(files.path("x.npy"), std::vector<double>{1, 2, 3}, {2, 2}, error));
    QVERIFY2(error.find("shape [2, 2] does not hold 3 values") != std::string::npos, error.c_str());
    QVERIFY(
        !writeSafetensors(files.path("x.safetensors"), {{"a", "F32", {2}, {0, 0, 0}}}, {}, error));
    QVERIFY2(error.find("tensor 'a': 3 bytes of data, but F32 × shape [2] needs 8") !=
                 std::string::npos,
             error.c_str());
    QVERIFY(!writeSafetensors(files.path("x.safetensors"), {{"a", "Q7", {1}, {0}}}, {}, error));
    QVERIFY(!writeSafetensors(files.path("x.safetensors"),
                              {{"a", "U8", {1}, {0}}, {"a", "U8", {1}, {0}}}, {}, error));
    // A file where a directory should be (also what root meets, who may write anywhere else).
    const std::string plain = files.write("plain", "x");
    QVERIFY(!writeNpy(plain + "/x.npy", std::vector<double>{1}, {1}, error));
    QVERIFY2(error.find("cannot create a file beside it") != std::string::npos, error.c_str());
    QCOMPARE(files.entries(), (QStringList{"dir.npy", "plain"}));
    // A directory that cannot be written (meaningless for root, who may write anywhere).
    if (::geteuid() != 0) {
        const std::string locked = files.path("locked");
        QVERIFY(QDir().mkpath(QString::fromStdString(locked)));
        ::chmod(locked.c_str(), 0500);
        QVERIFY(!writeNpy(locked + "/x.npy", std::vector<double>{1}, {1}, error));
        QVERIFY2(error.find("cannot create a file beside it") != std::string::npos, error.c_str());
        ::chmod(locked.c_str(), 0700);
        QVERIFY(QDir(QString::fromStdString(locked))
                    .isEmpty(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot));
    }
}

// min, max, absmax, mean, std (population) and the counts, against a hand computation.
void TestTensorFiles::statistics() {
    const std::vector<double> values{1, -3, 0, 2, kNaN, kInf, -0.0, 0};
    TensorView view;
    view.doubles = values;
    const TensorStatistics s = tensorStatistics(view);
    QCOMPARE(s.elements, std::size_t(8));
    QCOMPARE(s.min, -3.0);
    QCOMPARE(s.max, 2.0);
    QCOMPARE(s.absmax, 3.0);
    QCOMPARE(s.mean, 0.0);                // (1 − 3 + 0 + 2 + 0 + 0) / 6
    QCOMPARE(s.std, std::sqrt(14.0 / 6)); // (1 + 9 + 4) / 6
    QCOMPARE(s.zeros, std::size_t(3));
    QCOMPARE(s.nans, std::size_t(1));
    QCOMPARE(s.infs, std::size_t(1));
    // A large mean with a small spread, where a one-pass formula loses every digit: 1e9 + k for
    // k = 0..99 has mean 1e9 + 49.5 and population variance (100² − 1)/12.
    std::vector<float> floats;
    std::vector<double> shifted;
    for (int k = 0; k < 100; ++k)
        shifted.push_back(1e9 + k);
    TensorView big;
    big.doubles = shifted;
    const TensorStatistics b = tensorStatistics(big);
    QCOMPARE(b.mean, 1e9 + 49.5);
    QVERIFY2(std::fabs(b.std - std::sqrt(9999.0 / 12)) < 1e-9, qPrintable(QString::number(b.std)));
    // Near the top of double's range the sum and the squared deviations would overflow: the
    // mean of {max, max} is max, of {max, −max} 0, and their population std max and 0.
    constexpr double kMax = std::numeric_limits<double>::max();
    const std::vector<double> huge{kMax, -kMax}, same{kMax, kMax};
    TensorView h;
    h.doubles = huge;
    const TensorStatistics hs = tensorStatistics(h);
    QCOMPARE(hs.mean, 0.0);
    QCOMPARE(hs.std, kMax);
    h.doubles = same;
    const TensorStatistics ss = tensorStatistics(h);
    QCOMPARE(ss.mean, kMax);
    QCOMPARE(ss.std, 0.0);
    // Floats are read as they are; no finite value leaves zeros.
    floats = {-std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()};
    TensorView f;
    f.floats = floats;
    const TensorStatistics n = tensorStatistics(f);
    QCOMPARE(n.infs, std::size_t(1));
    QCOMPARE(n.nans, std::size_t(1));
    QCOMPARE(n.mean, 0.0);
    QCOMPARE(n.absmax, 0.0);
}

void TestTensorFiles::distributionsAreDeterministic() {
    std::string error;
    for (const char* text : {"uniform:-1:3", "normal:0.5:2", "laplace:0.7", "student:3"}) {
        auto d = parseValueDistribution(text, error);
        QVERIFY2(d, error.c_str());
        QVERIFY(parseOutliers("0.01:100", *d, error));
        const std::vector<double> a = drawValues(*d, 1000, 42);
        QCOMPARE(drawValues(*d, 1000, 42), a);
        // Value i depends on the seed and i only: a range drawn on its own is the same.
        for (std::size_t i : {0, 17, 999})
            QCOMPARE(drawValue(*d, 42, i), a[i]);
        const std::vector<double> other = drawValues(*d, 1000, 43);
        std::size_t equal = 0;
        for (std::size_t i = 0; i < a.size(); ++i)
            equal += a[i] == other[i];
        QVERIFY2(equal < 10, text);
        QCOMPARE(d->text, std::string(text));
    }
}

// Sample mean and variance within five standard errors of the distribution's: the standard
// error of the variance from the fourth central moment, sqrt((μ4 − σ⁴)/n).
void TestTensorFiles::distributionMoments_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<double>("mean");
    QTest::addColumn<double>("variance");
    QTest::addColumn<double>("fourth"); // the fourth central moment
    QTest::newRow("uniform") << "uniform:-1:3" << 1.0 << 16.0 / 12 << 256.0 / 80;
    QTest::newRow("normal") << "normal:10:2" << 10.0 << 4.0 << 3 * 16.0;
    QTest::newRow("laplace") << "laplace:0.5" << 0.0 << 2 * 0.25 << 24 * 0.0625;
    // Student's t, ν = 10: variance ν/(ν − 2), fourth moment 3ν²/((ν − 2)(ν − 4)).
    QTest::newRow("student") << "student:10" << 0.0 << 10.0 / 8 << 300.0 / 48;
}

void TestTensorFiles::distributionMoments() {
    QFETCH(QString, text);
    QFETCH(double, mean);
    QFETCH(double, variance);
    QFETCH(double, fourth);
    std::string error;
    const auto d = parseValueDistribution(text.toStdString(), error);
    QVERIFY2(d, error.c_str());
    const std::size_t n = 400000;
    const std::vector<double> values = drawValues(*d, n, 7);
    double sum = 0;
    for (double v : values)
        sum += v;
    const double m = sum / double(n);
    double squares = 0;
    for (double v : values)
        squares += (v - m) * (v - m);
    const double var = squares / double(n);
    const double meanError = std::sqrt(variance / double(n));
    const double varError = std::sqrt((fourth - variance * variance) / double(n));
    QVERIFY2(std::fabs(m - mean) < 5 * meanError,
             qPrintable(QString("mean %1, expected %2").arg(m).arg(mean)));
    QVERIFY2(std::fabs(var - variance) < 5 * varError,
             qPrintable(QString("variance %1, expected %2").arg(var).arg(variance)));
    if (text.startsWith("uniform"))
        for (double v : values)
            QVERIFY(v >= -1 && v < 3);
}

// Student's t with ν = 1 is the Cauchy distribution: P(|T| < 1) = 1/2 exactly, and half the
// values are negative.
void TestTensorFiles::studentTails() {
    std::string error;
    const auto d = parseValueDistribution("student:1", error);
    QVERIFY2(d, error.c_str());
    const std::size_t n = 200000;
    std::size_t inside = 0, negative = 0;
    for (double v : drawValues(*d, n, 3)) {
        QVERIFY(std::isfinite(v));
        inside += std::fabs(v) < 1;
        negative += v < 0;
    }
    const double bound = 5 * std::sqrt(0.25 / double(n)) * double(n);
    QVERIFY2(std::fabs(double(inside) - double(n) / 2) < bound,
             qPrintable(QString::number(inside)));
    QVERIFY2(std::fabs(double(negative) - double(n) / 2) < bound,
             qPrintable(QString::number(negative)));
}

// The outliers are the given fraction (binomially), each exactly SCALE times the value it
// replaces; the others are untouched.
void TestTensorFiles::outlierFraction() {
    std::string error;
    auto plain = parseValueDistribution("normal:0:1", error);
    QVERIFY2(plain, error.c_str());
    ValueDistribution spiky = *plain;
    QVERIFY2(parseOutliers("0.01:64", spiky, error), error.c_str());
    QCOMPARE(spiky.outlierFraction, 0.01);
    QCOMPARE(spiky.outlierScale, 64.0);
    const std::size_t n = 200000;
    const std::vector<double> a = drawValues(*plain, n, 9), b = drawValues(spiky, n, 9);
    std::size_t outliers = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (a[i] == b[i])
            continue;
        QCOMPARE(b[i], a[i] * 64);
        ++outliers;
    }
    const double expected = 0.01 * double(n);
    QVERIFY2(std::fabs(double(outliers) - expected) < 5 * std::sqrt(expected * 0.99),
             qPrintable(QString::number(outliers)));
    // Fraction 1: every value scaled; fraction 0: none.
    QVERIFY(parseOutliers("1:2", spiky, error));
    QCOMPARE(drawValue(spiky, 9, 5), 2 * a[5]);
    QVERIFY(parseOutliers("0:2", spiky, error));
    QCOMPARE(drawValue(spiky, 9, 5), a[5]);
}

void TestTensorFiles::distributionErrors() {
    const std::vector<std::pair<const char*, const char*>> bad{
        {"uniform:2:1", "B must exceed A"},
        {"uniform:1", "expected uniform:A:B"},
        {"normal:0:-1", "SIGMA must not be negative"},
        {"normal:x:1", "normal:MU:SIGMA, MU: 'x'"},
        {"laplace:0", "laplace:B: B must be positive"},
        {"student:-2", "student:NU: NU must be positive"},
        {"student:inf", "is not a finite number"},
        {"normal:0:1e400", "beyond the range of a double"},
        {"cauchy:1",
         "use uniform:A:B, normal:MU:SIGMA, lognormal:MU:SIGMA, laplace:B or student:NU"},
        {"", "use uniform"},
    };
    for (const auto& [text, message] : bad) {
        std::string error;
        QVERIFY2(!parseValueDistribution(text, error), text);
        QVERIFY2(error.find(message) != std::string::npos,
                 qPrintable(QString::fromStdString(error)));
    }
    ValueDistribution d;
    for (const auto& [text, message] :
         std::vector<std::pair<const char*, const char*>>{{"0.1", "expected FRACTION:SCALE"},
                                                          {"1.5:10", "FRACTION must lie in [0, 1]"},
                                                          {"-0.1:10", "FRACTION must lie"},
                                                          {"0.1:y", "SCALE: 'y'"}}) {
        std::string error;
        QVERIFY2(!parseOutliers(text, d, error), text);
        QVERIFY2(error.find(message) != std::string::npos, error.c_str());
    }
}

void TestTensorFiles::histogramLinear() {
    const std::vector<double> values{0, 0.25, 0.5, 0.75, 1, 1, kNaN, kInf, -kInf, -0.5, 7};
    HistogramOptions options;
    options.bins = 4;
    options.low = 0;
    options.high = 1;
    const Histogram h = makeHistogram(std::span<const double>(values), options);
    QCOMPARE(h.counts, (std::vector<std::size_t>{1, 1, 1, 3})); // 1 falls in the last bin
    QCOMPARE(h.below, std::size_t(1));
    QCOMPARE(h.above, std::size_t(1));
    QCOMPARE(h.nans, std::size_t(1));
    QCOMPARE(h.infs, std::size_t(2));
    QCOMPARE(h.binned(), std::size_t(6));
    QCOMPARE(h.binLow(2), 0.5);
    QCOMPARE(h.binLow(4), 1.0);
    QCOMPARE(h.binCentre(0), 0.125);
    // Range from the data: the finite extremes.
    options.low.reset();
    options.high.reset();
    const Histogram r = makeHistogram(std::span<const double>(values), options);
    QCOMPARE(r.low, -0.5);
    QCOMPARE(r.high, 7.0);
    QCOMPARE(r.binned(), std::size_t(8));
    // Every value on a bin edge lands in the bin that starts there, for awkward ranges too.
    options.bins = 7;
    options.low = 0.1;
    options.high = 0.8;
    Histogram e = makeHistogram(std::span<const double>(), options);
    for (std::size_t i = 0; i < e.binCount(); ++i)
        QCOMPARE(e.binOf(e.binLow(i)), std::optional<std::size_t>(i));
    // One value: a range of zero width is widened.
    const std::vector<float> one{3.0f};
    const Histogram s = makeHistogram(std::span<const float>(one), HistogramOptions{});
    QCOMPARE(s.low, 2.5);
    QCOMPARE(s.high, 3.5);
    QCOMPARE(s.binned(), std::size_t(1));
    // A range spanning the whole double line.
    const std::vector<double> extremes{-1.7e308, 1.7e308, 0};
    HistogramOptions two;
    two.bins = 2;
    const Histogram x = makeHistogram(std::span<const double>(extremes), two);
    QCOMPARE(x.counts, (std::vector<std::size_t>{1, 2}));
    // In chunks: the histogram of the first chunk, the rest added or merged, is the histogram
    // of the whole.
    Histogram chunked = makeHistogram(std::span<const double>(values).subspan(0, 4), options);
    const Histogram rest = makeHistogram(std::span<const double>(values).subspan(4), options);
    Histogram whole = makeHistogram(std::span<const double>(values), options);
    Histogram added = chunked;
    QVERIFY(chunked.merge(rest));
    for (double v : std::span<const double>(values).subspan(4))
        added.add(v);
    for (const Histogram* h : {&chunked, &added}) {
        QCOMPARE(h->counts, whole.counts);
        QCOMPARE(h->below, whole.below);
        QCOMPARE(h->above, whole.above);
        QCOMPARE(h->nans, whole.nans);
        QCOMPARE(h->infs, whole.infs);
    }
    QVERIFY(!chunked.merge(x)); // another range
    // A range so narrow that half its width is zero: every value still lands in a bin.
    const std::vector<double> tiny{-0x1p-1074, 0x1p-1074, 0};
    const Histogram t = makeHistogram(std::span<const double>(tiny), two);
    QCOMPARE(t.binned(), std::size_t(3));
}

void TestTensorFiles::histogramLog2() {
    const std::vector<float> values{1, -2, 0.5f, 3, 0, -0.0f, 1024};
    TensorView view;
    view.floats = values;
    HistogramOptions options;
    options.axis = HistogramAxis::Log2Magnitude;
    options.bins = 11;
    const Histogram h = makeHistogram(view, options);
    QCOMPARE(h.zeros, std::size_t(2));
    QCOMPARE(h.low, -1.0);
    QCOMPARE(h.high, 10.0);
    // Bins of one binade each: [−1, 0) holds 0.5, [0, 1) holds 1, [1, 2) holds 2 and 3, the
    // last holds 1024.
    QCOMPARE(h.counts, (std::vector<std::size_t>{1, 1, 2, 0, 0, 0, 0, 0, 0, 0, 1}));
    QCOMPARE(h.axisPosition(-8), std::optional<double>(3));
    QVERIFY(!h.binOf(0));
}

QTEST_APPLESS_MAIN(TestTensorFiles)
#include "tst_tensor_files.moc"
