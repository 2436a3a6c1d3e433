// SPDX-License-Identifier: GPL-3.0-or-later
// fpx show, run as the real binary, on what the explorer's formats work shows too: a NaN
// code keeps its payload in every format that can hold it and is called qNaN or sNaN;
// `--bits CODE --width N` reads one code in every format of a width (custom ones with
// --formats); errors against an input beyond 10^±20000 carry ≈ (and error_approximate).
#include "cli_runner.h"
#include "test_support.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

#include <cstdint>
#include <cstring>

using fpx::test::CliRun;
using fpx::test::describe;
using fpx::test::json;
using fpx::test::runFpx;

namespace {

QHash<QString, QJsonObject> byFormat(const QJsonObject& root) {
    QHash<QString, QJsonObject> rows;
    for (const QJsonValue& v : root["results"].toArray())
        rows[v.toObject()["format"].toString()] = v.toObject();
    return rows;
}

// This CPU's float → double conversion of an FP32 NaN code: the reference for the rule.
QString cpuFloatToDouble(std::uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, 4);
    volatile float in = f;
    volatile double out = in;
    const double d = out;
    std::uint64_t result;
    std::memcpy(&result, &d, 8);
    return QStringLiteral("0x%1").arg(result, 16, 16, QChar('0'));
}

} // namespace

class TestShowFormats : public QObject {
    Q_OBJECT

  private slots:
    void nanPayloadInEveryFormat();
    void signalingNaNText();
    void sameBitsInEveryFormat();
    void sameBitsBadInput();
    void approximateErrors();
};

void TestShowFormats::nanPayloadInEveryFormat() {
    const CliRun run = runFpx({"show", "--bits", "0x7fc00123", "--as", "fp32", "--formats",
                               "fp32,fp64,bf16,fp16,fp8_e4m3,fp6_e3m2", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const auto rows = byFormat(json(run));
    QCOMPARE(rows["fp32"]["bits"].toString(), QString("0x7fc00123")); // its own code, as typed
    QCOMPARE(rows["fp64"]["bits"].toString(), cpuFloatToDouble(0x7fc00123));
    QCOMPARE(rows["bf16"]["bits"].toString(), QString("0x7fc0"));
    QCOMPARE(rows["fp16"]["bits"].toString(), QString("0x7e00"));
    QCOMPARE(rows["fp8_e4m3"]["bits"].toString(), QString("0x7f")); // its single NaN
    QCOMPARE(rows["fp6_e3m2"]["bits"].toString(), QString("0x20")); // no NaN: the −0 code
    QCOMPARE(rows["fp32"]["class"].toString(), QString("nan"));
    QCOMPARE(rows["fp32"]["nan_kind"].toString(), QString("qNaN"));
    QCOMPARE(rows["fp8_e4m3"]["nan_kind"].toString(), QString("nan"));
    QVERIFY(!rows["fp6_e3m2"].contains("nan_kind"));
    // The payload's top bits survive into the narrow formats.
    const auto top = byFormat(json(runFpx({"show", "--bits", "0xffd5a000", "--as", "fp32",
                                           "--formats", "fp64,bf16,fp16,fp8_e5m2", "--json"})));
    QCOMPARE(top["fp64"]["bits"].toString(), cpuFloatToDouble(0xffd5a000));
    QCOMPARE(top["bf16"]["bits"].toString(), QString("0xffd5"));
    QCOMPARE(top["fp16"]["bits"].toString(), QString("0xfead"));
    QCOMPARE(top["fp8_e5m2"]["bits"].toString(), QString("0xfe"));
}

void TestShowFormats::signalingNaNText() {
    const CliRun table =
        runFpx({"show", "--bits", "0x7f800123", "--as", "fp32", "--formats", "fp32,fp64"});
    QVERIFY2(table.exitCode == 0, qPrintable(describe(table)));
    const QStringList lines = QString::fromUtf8(table.out).split('\n');
    auto lineOf = [&](const QString& id) {
        for (const QString& line : lines)
            if (line.startsWith(id + ' '))
                return line;
        return QString();
    };
    QVERIFY2(lineOf("fp32").contains("sNaN") && lineOf("fp32").contains("0x7f800123"),
             qPrintable(lineOf("fp32")));
    QVERIFY(lineOf("fp64").contains("qNaN"));
    QVERIFY(lineOf("fp64").contains(cpuFloatToDouble(0x7f800123)));
    QVERIFY(lineOf("fp64").contains("invalid"));  // quieting a signaling NaN
    QVERIFY(!lineOf("fp32").contains("invalid")); // its own code: nothing converted
    // A signaling NaN raises invalid in formats without a payload too (IEEE 754, 7.2).
    const auto narrow = byFormat(json(runFpx({"show", "--bits", "0x7f800123", "--as", "fp32",
                                              "--formats", "fp8_e4m3,fp6_e3m2", "--json"})));
    QCOMPARE(narrow["fp8_e4m3"]["flags"].toArray().first().toString(), QString("invalid"));
    QCOMPARE(narrow["fp8_e4m3"]["bits"].toString(), QString("0x7f"));
    QCOMPARE(narrow["fp6_e3m2"]["flags"].toArray().first().toString(), QString("invalid"));
    const CliRun detail =
        runFpx({"show", "--bits", "0x7f800123", "--as", "fp32", "--formats", "fp32"});
    QVERIFY(QString::fromUtf8(detail.out).contains(QRegularExpression("class\\s+sNaN")));
}

void TestShowFormats::sameBitsInEveryFormat() {
    const CliRun run = runFpx({"show", "--bits", "0x80", "--width", "8", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const auto rows = byFormat(json(run));
    // Values from the formats' definitions: sign bit alone.
    QCOMPARE(rows["fp8_e4m3"]["value"].toString(), QString("-0"));
    QCOMPARE(rows["fp8_e4m3fnuz"]["class"].toString(), QString("nan"));
    QCOMPARE(rows["fp8_e8m0"]["value"].toString(), QString("2"));
    QCOMPARE(rows["int8"]["value"].toString(), QString("-128"));
    QCOMPARE(rows["uint8"]["value"].toString(), QString("128"));
    QVERIFY(!rows.contains("fp16"));
    QVERIFY(!rows.contains("e2m5b0"));
    // Custom formats of that width join with --formats, once each; others are left out.
    const auto custom = byFormat(json(runFpx({"show", "--bits", "0x80", "--width", "8", "--formats",
                                              "e2m5b0,e4m3b7fn,fp16", "--json"})));
    QCOMPARE(custom["e2m5b0"]["value"].toString(), QString("-0"));
    QVERIFY(!custom.contains("e4m3b7fn")); // fp8_e4m3 itself
    QVERIFY(!custom.contains("fp16"));
    QCOMPARE(custom.size(), rows.size() + 1);
    const CliRun text = runFpx({"show", "--bits", "0x7c01", "--width", "16"});
    QVERIFY(QString::fromUtf8(text.out).contains(
        QRegularExpression("fp16\\s+0 11111 0000000001\\s+sNaN")));
}

void TestShowFormats::sameBitsBadInput() {
    const CliRun width = runFpx({"show", "--bits", "0x80", "--width", "7"});
    QCOMPARE(width.exitCode, 2);
    QVERIFY(QString::fromUtf8(width.err).contains("--width '7'"));
    const CliRun code = runFpx({"show", "--bits", "0x180", "--width", "8"});
    QCOMPARE(code.exitCode, 1);
    QVERIFY(QString::fromUtf8(code.err).contains("0x180"));
    const CliRun both = runFpx({"show", "--bits", "0x80", "--width", "8", "--as", "fp8_e4m3"});
    QCOMPARE(both.exitCode, 2);
}

void TestShowFormats::approximateErrors() {
    const CliRun far = runFpx({"show", "1e-30000", "--formats", "fp16,fp32", "--json"});
    QVERIFY2(far.exitCode == 0, qPrintable(describe(far)));
    for (const QJsonObject& row : byFormat(json(far)))
        QVERIFY(row["error_approximate"].toBool());
    const CliRun table = runFpx({"show", "1e-30000", "--formats", "fp16,fp32"});
    QVERIFY2(QString::fromUtf8(table.out).contains("≈-1e-20001"), qPrintable(describe(table)));
    const CliRun detail = runFpx({"show", "1e-30000", "--formats", "fp16"});
    QVERIFY(QString::fromUtf8(detail.out).contains(QRegularExpression("error\\s+≈-")));
    const CliRun near = runFpx({"show", "0.5", "--formats", "fp16", "--json"});
    QVERIFY(!byFormat(json(near))["fp16"]["error_approximate"].toBool());
    QVERIFY(!runFpx({"show", "0.3952", "--formats", "fp16,bf16"}).out.contains("≈"));
    // ∞ is ∞: overflow of a far input is not approximate.
    const CliRun huge = runFpx({"show", "1e30000", "--formats", "fp16", "--json"});
    QVERIFY(!byFormat(json(huge))["fp16"]["error_approximate"].toBool());
}

QTEST_MAIN(TestShowFormats)
#include "tst_show_formats.moc"
