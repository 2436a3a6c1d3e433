// SPDX-License-Identifier: GPL-3.0-or-later
// fpx show VALUE --conventions, run as the real binary: the codes each convention gives,
// checked against facts worked by hand from the specifications (E4M3 max 448, 464 the tie that
// stays 448, 480 beyond; E5M2 max 57344, 61440 the tie that overflows), the E8M0 scales of the
// MX scale rules, the values every input form must take, and the errors.
#include "cli_runner.h"
#include "test_support.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using fpx::test::CliRun;
using fpx::test::describe;
using fpx::test::json;
using fpx::test::runFpx;

namespace {

// conventions[format].results[id].hex
QHash<QString, QHash<QString, QString>> hexByFormat(const QJsonObject& root) {
    QHash<QString, QHash<QString, QString>> table;
    for (const QJsonValue& f : root["conventions"].toArray()) {
        QHash<QString, QString>& row = table[f["format"].toString()];
        row["default"] = f["default"].toObject()["hex"].toString();
        for (const QJsonValue& r : f["results"].toArray())
            row[r["id"].toString()] = r["hex"].toString();
    }
    return table;
}

QJsonObject scaleRule(const QJsonObject& root, const QString& format, const QString& rule) {
    for (const QJsonValue& s : root["scales"].toArray())
        if (s["format"].toString() == format)
            for (const QJsonValue& r : s["rules"].toArray())
                if (r["rule"].toString() == rule)
                    return r.toObject();
    return {};
}

CliRun conventions(const QStringList& extra) {
    return runFpx(QStringList{"show"} + extra + QStringList{"--conventions"});
}

} // namespace

class TestShowConventions : public QObject {
    Q_OBJECT

  private slots:
    void e4m3Tie();
    void e4m3Overflow();
    void e5m2Tie();
    void nanBits();
    void scales();
    void everyInputWorks();
    void textTable();
    void formatsNarrow();
    void help();
    void badInput();
};

void TestShowConventions::e4m3Tie() {
    const CliRun run = conventions({"464", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const auto table = hexByFormat(json(run));
    // 464 lies halfway between 448 (0x7e, even) and 480: every convention keeps 448.
    for (const QString& id : table["fp8_e4m3"].keys())
        QCOMPARE(table["fp8_e4m3"][id], QString("0x7e"));
    QCOMPARE(table["fp8_e4m3"].size(), 7); // fpx and six conventions
    QCOMPARE(table["fp4_e2m1"].size(), 5); // PyTorch and Transformer Engine cast only FP8
    const QJsonObject root = json(run);
    const QJsonObject e4m3 = root["conventions"].toArray().first().toObject();
    QCOMPARE(e4m3["format"].toString(), QString("fp8_e4m3"));
    QCOMPARE(e4m3["max"].toString(), QString("448"));
    QVERIFY(e4m3["all_agree"].toBool());
    const QJsonObject first = e4m3["results"].toArray().first().toObject();
    for (const char* key :
         {"id", "name", "source", "bits", "hex", "value", "overflow", "agrees_with_default"})
        QVERIFY2(first.contains(key), key);
    QCOMPARE(first["value"].toString(), QString("448"));
    QCOMPARE(first["bits"].toString(), QString("0 1111 110"));
}

void TestShowConventions::e4m3Overflow() {
    for (const QString& value : {QString("480"), QString("465")}) {
        const CliRun run = conventions({value, "--json"});
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        const auto e4m3 = hexByFormat(json(run))["fp8_e4m3"];
        QCOMPARE(e4m3["ocp-sat"], QString("0x7e"));
        QCOMPARE(e4m3["nvidia-cvt-satfinite"], QString("0x7e"));
        QCOMPARE(e4m3["transformer-engine"], QString("0x7e"));
        QCOMPARE(e4m3["ocp-nonsat"], QString("0x7f"));
        QCOMPARE(e4m3["pytorch"], QString("0x7f"));
        QCOMPARE(e4m3["ml-dtypes"], QString("0x7f"));
        QCOMPARE(e4m3["default"], QString("0x7f")); // fpx: rne, overflow ieee
    }
    const QJsonObject root = json(conventions({"-500", "--json"}));
    const QJsonObject e4m3 = root["conventions"].toArray().first().toObject();
    QVERIFY(!e4m3["all_agree"].toBool());
    for (const QJsonValue& r : e4m3["results"].toArray()) {
        const QJsonObject o = r.toObject();
        const bool saturating = o["overflow"].toString() == "max";
        QCOMPARE(o["hex"].toString(), QString(saturating ? "0xfe" : "0xff"));
        QCOMPARE(o["agrees_with_default"].toBool(), !saturating);
        QCOMPARE(o["value"].toString(), QString(saturating ? "-448" : "nan"));
    }
    // With --overflow saturate fpx's own cast is the saturating one.
    const auto saturated =
        hexByFormat(json(conventions({"-500", "--overflow", "saturate", "--json"})));
    QCOMPARE(saturated["fp8_e4m3"]["default"], QString("0xfe"));
}

void TestShowConventions::e5m2Tie() {
    const auto max = hexByFormat(json(conventions({"57344", "--json"})))["fp8_e5m2"];
    for (const QString& id : max.keys())
        QCOMPARE(max[id], QString("0x7b"));
    // 61440: halfway between 57344 (0x7b, odd) and 65536 (0x7c, ∞): ties to even overflow.
    const auto tie = hexByFormat(json(conventions({"61440", "--json"})))["fp8_e5m2"];
    QCOMPARE(tie["ocp-sat"], QString("0x7b"));
    QCOMPARE(tie["nvidia-cvt-satfinite"], QString("0x7b"));
    QCOMPARE(tie["ocp-nonsat"], QString("0x7c"));
    QCOMPARE(tie["pytorch"], QString("0x7c"));
    QCOMPARE(tie["ml-dtypes"], QString("0x7c"));
}

void TestShowConventions::nanBits() {
    const auto table = hexByFormat(json(conventions({"nan", "--json"})));
    QCOMPARE(table["fp8_e4m3"]["pytorch"], QString("0x7f"));
    QCOMPARE(table["fp8_e5m2"]["ml-dtypes"], QString("0x7e"));
    QCOMPARE(table["fp8_e5m2"]["pytorch"], QString("0x7f"));
    QCOMPARE(table["fp8_e5m2"]["nvidia-cvt-satfinite"], QString("0x7f"));
    QCOMPARE(table["fp4_e2m1"]["ml-dtypes"], QString("0x8"));
    QCOMPARE(table["fp4_e2m1"]["nvidia-cvt-satfinite"], QString("0x7"));
    const auto inf = hexByFormat(json(conventions({"-inf", "--json"})));
    QCOMPARE(inf["fp8_e4m3"]["ocp-sat"], QString("0xfe"));
    QCOMPARE(inf["fp8_e4m3"]["pytorch"], QString("0xff"));
    QCOMPARE(inf["fp8_e5m2"]["pytorch"], QString("0xfc"));
}

void TestShowConventions::scales() {
    const QJsonObject root = json(conventions({"500", "--json"}));
    // amax 500 with E4M3 elements: floor gives 2^0 (0x7f) and 500 clips to 448, 52 lost; ceil
    // gives 2^1 (0x80) and 250 rounds to 256.
    const QJsonObject floor = scaleRule(root, "fp8_e4m3", "floor");
    QCOMPARE(floor["exponent"].toInt(), 0);
    QCOMPARE(floor["code"].toString(), QString("0x7f"));
    QVERIFY(floor["clipped"].toBool());
    QCOMPARE(floor["clipped_by"].toString(), QString("52"));
    QCOMPARE(floor["element_value"].toString(), QString("448"));
    const QJsonObject ceil = scaleRule(root, "fp8_e4m3", "ceil");
    QCOMPARE(ceil["exponent"].toInt(), 1);
    QCOMPARE(ceil["code"].toString(), QString("0x80"));
    QCOMPARE(ceil["quotient"].toString(), QString("250"));
    QCOMPARE(ceil["element_value"].toString(), QString("256"));
    QVERIFY(!ceil["clipped"].toBool());
    QVERIFY(ceil["clipped_by"].isNull());
    QCOMPARE(scaleRule(root, "fp8_e4m3", "even")["exponent"].toInt(), 1);
    // 448 fits every rule's 2^0.
    const QJsonObject max = json(conventions({"448", "--json"}));
    for (const char* rule : {"floor", "ceil", "even"}) {
        QCOMPARE(scaleRule(max, "fp8_e4m3", rule)["exponent"].toInt(), 0);
        QVERIFY(!scaleRule(max, "fp8_e4m3", rule)["clipped"].toBool());
    }
    QCOMPARE(root["scales"].toArray().size(), 5);
    QCOMPARE(root["scales"].toArray().first()["block_format"].toString(), QString("mxfp8_e4m3"));
    // A NaN amax: the NaN scale.
    const QJsonObject nan = scaleRule(json(conventions({"nan", "--json"})), "fp4_e2m1", "floor");
    QCOMPARE(nan["code"].toString(), QString("0xff"));
    QVERIFY(nan["exponent"].isNull());
}

void TestShowConventions::everyInputWorks() {
    for (const char* value : {"nan", "inf", "-inf", "-500", "448", "464", "480", "1e-9", "57344",
                              "61440", "0", "-0", "1/3", "1e300", "0x1p-140"}) {
        const CliRun text = conventions({value});
        QVERIFY2(text.exitCode == 0, qPrintable(describe(text)));
        QVERIFY2(text.out.contains("fp8_e4m3") && text.out.contains("E8M0 block scales"),
                 qPrintable(describe(text)));
        const CliRun run = conventions({value, "--json"});
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        QCOMPARE(json(run)["conventions"].toArray().size(), 5);
    }
    // 1/3 is no FP32 value: the implementations see FP32(1/3) first, and the output says so.
    QVERIFY(!json(conventions({"1/3", "--json"}))["input_is_fp32"].toBool());
    QVERIFY(json(conventions({"464", "--json"}))["input_is_fp32"].toBool());
}

void TestShowConventions::textTable() {
    const CliRun run = conventions({"480"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QString out = QString::fromUtf8(run.out);
    for (const char* id : {"ocp-sat", "ocp-nonsat", "nvidia-cvt-satfinite", "pytorch", "ml-dtypes",
                           "transformer-engine"})
        QVERIFY2(out.contains(id), id);
    QVERIFY(out.contains("saturated"));
    QVERIFY(out.contains("overflow → NaN"));
    QVERIFY(out.contains("= fpx"));
    QVERIFY(out.contains("≠ fpx"));
    QVERIFY(out.contains("the conventions differ: 0x7e ocp-sat, nvidia-cvt-satfinite, "
                         "transformer-engine; 0x7f ocp-nonsat, pytorch, ml-dtypes"));
    QVERIFY(out.contains("mxfp8_e4m3"));
    QVERIFY(out.contains("yes: 448 × 2^0, 32 lost"));
}

void TestShowConventions::formatsNarrow() {
    const QJsonObject root = json(conventions({"464", "--formats", "e5m2", "--json"}));
    QCOMPARE(root["conventions"].toArray().size(), 1);
    QCOMPARE(root["conventions"].toArray().first()["format"].toString(), QString("fp8_e5m2"));
    QCOMPARE(root["scales"].toArray().size(), 1);
    QCOMPARE(root["scales"].toArray().first()["block_format"].toString(), QString("mxfp8_e5m2"));
}

void TestShowConventions::help() {
    const CliRun run = runFpx({"show", "--help"});
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.out.contains("--conventions"));
}

void TestShowConventions::badInput() {
    const CliRun unknown = conventions({"1", "--formats", "fp8_e4m3,nosuch"});
    QCOMPARE(unknown.exitCode, 2);
    QVERIFY2(unknown.err.contains("fpx show: --formats:") && unknown.err.contains("nosuch"),
             qPrintable(describe(unknown)));
    const CliRun uncovered = conventions({"1", "--formats", "fp16"});
    QCOMPARE(uncovered.exitCode, 2);
    QVERIFY2(uncovered.err.contains("no conversion convention casts into fp16"),
             qPrintable(describe(uncovered)));
    QVERIFY(uncovered.err.contains("see fpx show --help"));
    const CliRun width = runFpx({"show", "--bits", "0x7e", "--width", "8", "--conventions"});
    QCOMPARE(width.exitCode, 2);
    const CliRun badValue = conventions({"12abc"});
    QCOMPARE(badValue.exitCode, 1);
    QVERIFY(badValue.err.contains("cannot read VALUE"));
}

QTEST_APPLESS_MAIN(TestShowConventions)
#include "tst_show_conventions.moc"
