// SPDX-License-Identifier: GPL-3.0-or-later
// The real fpx binary, run through QProcess: text and JSON output, raw streams, and bad
// input of every kind (messages, exit statuses, no crash).
#include "cli_runner.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "test_support.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>

using Run = fpx::test::CliRun;
using fpx::test::json;
using fpx::test::runFpx;

class TestCli : public QObject {
    Q_OBJECT

  private slots:
    void everyCommandHasHelp();
    void everyCommandReportsBadOptionsInTwoLines();
    void showJsonTeachingExample();
    void showJsonFields();
    void showNonTerminatingIsMarked();
    void showFromBits();
    void showText();
    void showDetail();
    void formatsJson();
    void tableJsonAndCsv();
    void convertText();
    void convertCodes();
    void convertCodesWithBinaryPrefix();
    void convertRawMatchesCore_data();
    void convertRawMatchesCore();
    void convertRawTruncated();
    void convertRawHighBits();
    void convertStochasticIsReproducible();
    void convertStreamsManyLines();
    void usageErrors_data();
    void usageErrors();
    void hostileStdin();
    void standInInputsAndScaledFormats();
    void overlongLine();
    void plotFiles();
    void benchOutputs();
    void benchArithmeticAndThreads();
    void benchSubnormalBf16();
    void benchMaxIsa();
    void benchList();
    void benchUsageErrors_data();
    void benchUsageErrors();
    void benchUnavailableBackend();
    void benchUnwritableOutput();
};

void TestCli::everyCommandHasHelp() {
    // "fpx COMMAND --help" (or -h): the usage on stdout, success.
    for (const QString command : {"formats", "show", "convert", "table", "plot", "bench"}) {
        for (const QStringList& args :
             {QStringList{command, "--help"}, QStringList{command, "-h"}}) {
            const Run run = runFpx(args);
            QVERIFY2(run.exitCode == 0, qPrintable(args.join(' ') + ": " + run.err));
            QVERIFY2(run.out.contains("fpx " + command.toUtf8()), qPrintable(args.join(' ')));
            QVERIFY2(run.err.isEmpty(), qPrintable(args.join(' ') + ": " + run.err));
        }
    }
    // After "--", or as an option's value, it is an argument like any other.
    const Run literal = runFpx({"show", "--", "-h"});
    QVERIFY(literal.exitCode != 0);
    QVERIFY(!literal.out.contains("usage"));
    const Run value = runFpx({"show", "1", "--formats", "-h"});
    QCOMPARE(value.exitCode, 2);
    QVERIFY2(value.err.contains("-h"), value.err.constData());
}

// Every command fpx knows, as main.cpp dispatches them.
const QStringList kCommands = {"formats", "show",      "convert",    "table",       "plot",
                               "bench",   "calc",      "accumulate", "dot",         "quantize",
                               "inspect", "range-fit", "loss-scale", "fp8-scaling", "sgd",
                               "memory",  "lesson",    "machines",   "gemm"};

void TestCli::everyCommandReportsBadOptionsInTwoLines() {
    // A bad command line: what is wrong and where help is, two lines on stderr and nothing on
    // stdout; the usage itself is --help's answer, on stdout.
    for (const QString& command : kCommands) {
        const Run bad = runFpx({command, "--no-such-option"});
        const QString context = command + ": " + fpx::test::describe(bad);
        QVERIFY2(bad.exitCode == 2, qPrintable(context));
        QVERIFY2(bad.out.isEmpty(), qPrintable(context));
        const QList<QByteArray> lines = bad.err.split('\n');
        QVERIFY2(lines.size() == 3 && lines[2].isEmpty(), qPrintable(context));
        QCOMPARE(lines[0], "fpx " + command.toUtf8() + ": unknown option --no-such-option");
        QCOMPARE(lines[1], "see fpx " + command.toUtf8() + " --help");
        QVERIFY2(!bad.err.contains("usage:"), qPrintable(context));

        const Run help = runFpx({command, "--help"});
        QVERIFY2(help.exitCode == 0, qPrintable(command + ": " + fpx::test::describe(help)));
        QVERIFY2(help.out.startsWith("usage: fpx " + command.toUtf8()),
                 qPrintable(command + ": " + fpx::test::describe(help)));
        QVERIFY2(help.err.isEmpty(), qPrintable(command + ": " + fpx::test::describe(help)));
    }
    // No command, or one fpx does not know: the same two lines, pointing at fpx --help.
    for (const QStringList& args : {QStringList{}, QStringList{"frobnicate"}}) {
        const Run run = runFpx(args);
        QVERIFY2(run.exitCode == 2, qPrintable(fpx::test::describe(run)));
        QVERIFY2(run.out.isEmpty(), qPrintable(fpx::test::describe(run)));
        const QList<QByteArray> lines = run.err.split('\n');
        QVERIFY2(lines.size() == 3 && lines[0].startsWith("fpx: ") && lines[1] == "see fpx --help",
                 qPrintable(fpx::test::describe(run)));
    }
}

void TestCli::showJsonTeachingExample() {
    const Run run =
        runFpx({"show", "0.3952", "--formats", "fp16,bf16,fp8_e4m3,fp8_e5m2,fp4_e2m1", "--json"});
    QCOMPARE(run.exitCode, 0);
    const QJsonObject root = json(run);
    QCOMPARE(root["input"].toString(), QString("0.3952"));
    const QJsonArray results = root["results"].toArray();
    QCOMPARE(results.size(), 5);
    const QStringList bits = {"0x3653", "0x3eca", "0x2d", "0x36", "0x1"};
    const QStringList values = {"0.395263671875", "0.39453125", "0.40625", "0.375", "0.5"};
    for (int i = 0; i < 5; ++i) {
        QCOMPARE(results[i].toObject()["bits"].toString(), bits[i]);
        QCOMPARE(results[i].toObject()["value"].toString(), values[i]);
    }
}

void TestCli::showJsonFields() {
    const Run run = runFpx({"show", "0.3952", "--formats", "fp16", "--json"});
    const QJsonObject r = json(run)["results"].toArray()[0].toObject();
    QCOMPARE(r["format"].toString(), QString("fp16"));
    QCOMPARE(r["binary"].toString(), QString("0 01101 1001010011"));
    QCOMPARE(r["sign"].toInt(), 0);
    QCOMPARE(r["exponent"].toInt(), 13);
    QCOMPARE(r["mantissa"].toInt(), 595);
    QCOMPARE(r["class"].toString(), QString("normal"));
    QCOMPARE(r["error"].toString(), QString("0.000063671875"));
    QCOMPARE(r["exact"].toBool(), true);
    QCOMPARE(r["ulp_error"].toString(), QString("0.2608"));
    QCOMPARE(r["next_up"].toString(), QString("0.3955078125"));
    QCOMPARE(r["next_down"].toString(), QString("0.39501953125"));
    QCOMPARE(r["flags"].toArray(), QJsonArray({"inexact"}));
    QVERIFY(r["rel_error"].toString().startsWith("0.000161113"));
    QCOMPARE(r["shortest"].toString(), QString("0.3953"));
}

void TestCli::showNonTerminatingIsMarked() {
    const QJsonObject third =
        json(runFpx({"show", "1/3", "--formats", "fp32", "--json"}))["results"]
            .toArray()[0]
            .toObject();
    QCOMPARE(third["value"].toString(), QString("0.3333333432674407958984375"));
    QCOMPARE(third["exact"].toBool(), false);
    QCOMPARE(third["error"].toString(), QString("9.934107462565104166666666666666666666667e-9"));
    // 1/3 = 2^-2 × 4/3: fp128's 112-bit mantissa field is round(2^112 / 3), wider than 64 bits,
    // so it comes as its exact digits in text; fp32's is a JSON integer.
    QCOMPARE(third["mantissa"].toInteger(), 0x2aaaab);
    const QJsonObject quad =
        json(runFpx({"show", "1/3", "--formats", "fp128", "--json"}))["results"][0].toObject();
    QCOMPARE(quad["mantissa"].toString(), QString("1730765619511609209510165443073365"));
    QCOMPARE(quad["exponent"].toInteger(), 16383 - 2);
    const QJsonObject int8 = json(runFpx({"show", "0.5", "--formats", "int8", "--json"}))["results"]
                                 .toArray()[0]
                                 .toObject();
    QCOMPARE(int8["bits"].toString(), QString("0x40")); // round(0.5 × 127) = round(63.5) = 64
    QCOMPARE(int8["value_exact"].toBool(), false);
    QCOMPARE(int8["exact"].toBool(), false);
    QCOMPARE(int8["value"].toString(), QString("0.5039370078740157480314960629921259842520"));
}

void TestCli::showFromBits() {
    const Run run = runFpx(
        {"show", "--bits", "0x3653", "--as", "fp16", "--formats", "fp16,fp32,bf16", "--json"});
    QCOMPARE(run.exitCode, 0);
    const QJsonArray results = json(run)["results"].toArray();
    QCOMPARE(results[0].toObject()["error"].toString(), QString("0"));
    QCOMPARE(results[1].toObject()["bits"].toString(), QString("0x3eca6000"));
    QCOMPARE(results[2].toObject()["bits"].toString(), QString("0x3eca"));
    QCOMPARE(json(run)["input_format"].toString(), QString("fp16"));
    const Run bad = runFpx({"show", "--bits", "0x13653", "--as", "fp16"});
    QCOMPARE(bad.exitCode, 1);
    QVERIFY(bad.err.contains("16 bits"));
}

void TestCli::showText() {
    const Run run = runFpx({"show", "0.3952", "--formats", "fp16,bf16"});
    QCOMPARE(run.exitCode, 0);
    QVERIFY(!run.out.contains('\x1b')); // not a terminal: no colour
    const QList<QByteArray> lines = run.out.split('\n');
    QVERIFY(lines.size() >= 4);
    QVERIFY(lines[2].startsWith("format"));
    // Columns line up: "hex" starts at the same column as each row's code.
    const int hexColumn = lines[2].indexOf("hex");
    QCOMPARE(lines[3].indexOf("0x3653"), hexColumn);
    QCOMPARE(lines[4].indexOf("0x3eca"), hexColumn);
    const Run coloured = runFpx({"show", "0.3952", "--formats", "fp16", "--color"});
    QVERIFY(coloured.out.contains("\x1b[34m0\x1b[0m")); // the sign bit in blue
}

void TestCli::showDetail() {
    const Run run = runFpx({"show", "464", "--formats", "e4m3"});
    QCOMPARE(run.exitCode, 0);
    QVERIFY(run.out.contains("0x7e"));
    QVERIFY(run.out.contains("2^(15 - 7) × (1 + 6/2^3) = 448"));
    QVERIFY(run.out.contains("[432, 464]"));
    const Run saturated = runFpx({"show", "1e9", "--formats", "e4m3", "--overflow", "saturate"});
    QVERIFY(saturated.out.contains("0x7e"));
    QVERIFY(saturated.out.contains("overflow"));
}

void TestCli::formatsJson() {
    const Run run = runFpx({"formats", "--json"});
    QCOMPARE(run.exitCode, 0);
    const QJsonArray formats = json(run)["formats"].toArray();
    QCOMPARE(formats.size(), static_cast<qsizetype>(fpx::builtinFormats().size()));
    QHash<QString, QJsonObject> byId;
    for (const auto& f : formats)
        byId[f.toObject()["id"].toString()] = f.toObject();
    QCOMPARE(byId["fp8_e4m3"]["max"].toString(), QString("448"));
    QCOMPARE(byId["fp8_e4m3"]["min_subnormal"].toString(), QString("0.001953125"));
    QCOMPARE(byId["fp8_e4m3"]["has_inf"].toBool(), false);
    QCOMPARE(byId["fp16"]["max"].toString(), QString("65504"));
    QCOMPARE(byId["fp16"]["epsilon"].toString(), QString("0.0009765625"));
    QCOMPARE(byId["fp16"]["mantissa_bits"].toInt(), 10);
    QCOMPARE(byId["fp80"]["mantissa_bits"].toInt(), 64);
    QCOMPARE(byId["fp80"]["explicit_integer_bit"].toBool(), true);
    QCOMPARE(byId["fp8_e8m0"]["min_subnormal"].isNull(), true);
    QCOMPARE(byId["fp8_e8m0"]["min_normal"].toString().startsWith(
                 "5.877471754111437539843682686111228389093"),
             true);
    QCOMPARE(byId["int8"]["min"].toString(), QString("-128"));
    QCOMPARE(byId["int8"]["max"].toString(), QString("127"));
    QCOMPARE(byId["uint4"]["max"].toString(), QString("15"));
    QCOMPARE(byId["fp32"]["max"].toString(), QString("340282346638528859811704183484516925440"));
    QVERIFY(byId["fp16"]["aliases"].toArray().contains(QJsonValue("half")));
    // A big number stays exact in JSON as text.
    const QString fp128Max = byId["fp128"]["max"].toString();
    QVERIFY(
        fp128Max.startsWith("1.18973149535723176508575932662800701619646905264169404552969888421"));
    QVERIFY(fp128Max.endsWith("e4932"));
    QCOMPARE(fp128Max.size(), 4933 + 1 + 5); // all 4933 digits, a point and "e4932"
    // Counts are JSON integers; one wider than 64 bits is its exact digits as text too.
    QVERIFY(byId["fp16"]["codes"].isDouble());
    QCOMPARE(byId["fp16"]["codes"].toInteger(), 65536);
    QCOMPARE(byId["fp16"]["nan_codes"].toInteger(), 2046);
    QCOMPARE(byId["fp128"]["nan_codes"].toString(),
             QString("10384593717069655257060992658440190"));    // 2^113 − 2
    QCOMPARE(byId["fp16"]["decimal_digits"].toDouble(), 3.3113); // 11 · log10(2), 4 decimals
}

void TestCli::tableJsonAndCsv() {
    const Run run = runFpx({"table", "fp8_e4m3", "--json"});
    QCOMPARE(run.exitCode, 0);
    const QJsonArray codes = json(run)["codes"].toArray();
    QCOMPARE(codes.size(), 256);
    QCOMPARE(codes[0x7f].toObject()["class"].toString(), QString("nan"));
    QCOMPARE(codes[0x7e].toObject()["value"].toString(), QString("448"));
    QCOMPARE(codes[0x80].toObject()["value"].toString(), QString("-0"));
    QCOMPARE(codes[0x01].toObject()["class"].toString(), QString("subnormal"));
    const Run csv = runFpx({"table", "fp4_e2m1", "--csv"});
    const QList<QByteArray> lines = csv.out.trimmed().split('\n');
    QCOMPARE(lines.size(), 17);
    QCOMPARE(lines[0], QByteArray("bits,binary,class,value,exact"));
    QCOMPARE(lines[8], QByteArray("0x7,0 11 1,normal,6,true"));
    QCOMPARE(runFpx({"table", "fp32"}).exitCode, 2);
}

void TestCli::convertText() {
    const Run run =
        runFpx({"convert", "--to", "fp8_e4m3"}, "0.3952\n464\n465\n\n-inf\nbogus\n  1/3  \r\n2^-9");
    QCOMPARE(run.exitCode, 1);
    QCOMPARE(run.out, QByteArray("0x2d\n0x7e\n0x7f\n\n0xff\nerror\n0x2b\n0x01\n"));
    QVERIFY(run.err.contains("line 6, column 1"));
    QVERIFY(run.err.contains("bogus"));
    const Run saturating =
        runFpx({"convert", "--to", "e4m3", "--overflow", "saturate", "--round", "rtz"},
               "465\n-1e10\n0.3952\n");
    QCOMPARE(saturating.exitCode, 0);
    QCOMPARE(saturating.out, QByteArray("0x7e\n0xfe\n0x2c\n"));
    const Run scaled =
        runFpx({"convert", "--to", "int8", "--scale", "0.01"}, "0.5\n-2\n0.005\n0.015\n");
    QCOMPARE(scaled.out, QByteArray("0x32\n0x80\n0x00\n0x02\n"));
}

void TestCli::convertCodes() {
    const Run run =
        runFpx({"convert", "--from", "fp16", "--to", "fp32"}, "0x3653\n3c00\n7c00\nzz\n0x10000\n");
    QCOMPARE(run.exitCode, 1);
    QCOMPARE(run.out, QByteArray("0x3eca6000\n0x3f800000\n0x7f800000\nerror\nerror\n"));
    QVERIFY(run.err.contains("line 4"));
    QVERIFY(run.err.contains("line 5"));
}

// "0b" starts a binary code only where binary digits follow: "0b" and "0bff" are the hex
// bytes 0x0b and 0x0bff, "0b1" is binary 1, "0b2z" is neither.
void TestCli::convertCodesWithBinaryPrefix() {
    const Run run =
        runFpx({"convert", "--from", "fp16", "--to", "fp32"}, "0b\n0B11110000000000\n0bff\n0b2z\n");
    QCOMPARE(run.exitCode, 1);
    QCOMPARE(run.out, QByteArray("0x35300000\n0x3f800000\n0x397fe000\nerror\n"));
    QVERIFY(run.err.contains("line 4"));
}

void TestCli::convertRawMatchesCore_data() {
    QTest::addColumn<QString>("from");
    QTest::addColumn<QString>("to");
    QTest::addColumn<QString>("round");
    QTest::newRow("fp32 to e4m3") << "fp32"
                                  << "fp8_e4m3"
                                  << "rne";
    QTest::newRow("fp32 to bf16 rtz") << "fp32"
                                      << "bf16"
                                      << "rtz";
    QTest::newRow("fp32 to fp4") << "fp32"
                                 << "fp4_e2m1"
                                 << "rne";
    QTest::newRow("fp16 to e5m2") << "fp16"
                                  << "fp8_e5m2"
                                  << "rup";
    QTest::newRow("fp64 to fp80") << "fp64"
                                  << "fp80"
                                  << "rne";
    QTest::newRow("fp32 to tf32 rna") << "fp32"
                                      << "tf32"
                                      << "rna";
    QTest::newRow("e4m3 to fp128") << "fp8_e4m3"
                                   << "fp128"
                                   << "rne";
}

void TestCli::convertRawMatchesCore() {
    QFETCH(QString, from);
    QFETCH(QString, to);
    QFETCH(QString, round);
    const fpx::FormatSpec fromSpec = *fpx::findFormat(from.toStdString()).spec;
    const fpx::FormatSpec toSpec = *fpx::findFormat(to.toStdString()).spec;
    auto bytesFor = [](int bits) {
        return bits <= 8    ? 1
               : bits <= 16 ? 2
               : bits <= 32 ? 4
               : bits <= 64 ? 8
               : bits <= 80 ? 10
                            : 16;
    };
    const int inBytes = bytesFor(fromSpec.totalBits());
    const int outBytes = bytesFor(toSpec.totalBits());
    const int count = 20000;
    QByteArray input;
    QRandomGenerator random(42);
    std::vector<fpx::Code> codes;
    for (int i = 0; i < count; ++i) {
        fpx::Code code =
            (fpx::Code(random.generate64()) << 64 | random.generate64()) & fromSpec.codeMask();
        codes.push_back(code);
        for (int b = 0; b < inBytes; ++b)
            input.append(static_cast<char>(static_cast<unsigned char>(code >> (8 * b))));
    }
    const Run run =
        runFpx({"convert", "--raw", "--from", from, "--to", to, "--round", round}, input);
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(run.out.size(), count * outBytes);
    fpx::RoundingOptions options;
    options.mode = *fpx::parseRoundingMode(round.toStdString());
    for (int i = 0; i < count; ++i) {
        fpx::Code got = 0;
        for (int b = outBytes - 1; b >= 0; --b)
            got = (got << 8) | static_cast<unsigned char>(run.out[i * outBytes + b]);
        const fpx::Code expected =
            fpx::roundToFormat(fpx::decodeCode(fromSpec, codes[static_cast<std::size_t>(i)]).value,
                               toSpec, options)
                .code;
        if (got != expected)
            QFAIL(qPrintable(
                QString("element %1: got %2, expected %3")
                    .arg(i)
                    .arg(QString::fromStdString(fpx::codeToHex(got, toSpec.totalBits())))
                    .arg(QString::fromStdString(fpx::codeToHex(expected, toSpec.totalBits())))));
    }
}

void TestCli::convertRawTruncated() {
    const Run run = runFpx({"convert", "--raw", "--from", "fp32", "--to", "fp16"},
                           QByteArray("\x00\x00\x80\x3f\x00\x00", 6));
    QCOMPARE(run.exitCode, 1);
    QCOMPARE(run.out, QByteArray("\x00\x3c", 2));
    QVERIFY(run.err.contains("truncated input: the last 2 bytes, at byte offset 4, are not a whole "
                             "element (elements of fp32 are 4 bytes); the 1 whole element before "
                             "them was converted"));
    QCOMPARE(runFpx({"convert", "--raw", "--to", "fp16"}, "x").exitCode, 2); // --raw needs --from
}

void TestCli::convertRawHighBits() {
    const Run run = runFpx({"convert", "--raw", "--from", "fp4_e2m1", "--to", "fp32"},
                           QByteArray("\x07\xf7", 2));
    QCOMPARE(run.exitCode, 1);
    QCOMPARE(run.out, QByteArray("\x00\x00\xc0\x40\x00\x00\xc0\x40", 8)); // 6.0 twice
    QVERIFY(run.err.contains("element 1"));
}

void TestCli::convertStochasticIsReproducible() {
    QByteArray input;
    for (int i = 0; i < 200; ++i)
        input += "0.3952\n";
    const Run a = runFpx({"convert", "--to", "fp8_e4m3", "--round", "sr", "--seed", "7"}, input);
    const Run b = runFpx({"convert", "--to", "fp8_e4m3", "--round", "sr", "--seed", "7"}, input);
    const Run c = runFpx({"convert", "--to", "fp8_e4m3", "--round", "sr", "--seed", "8"}, input);
    QCOMPARE(a.exitCode, 0);
    QCOMPARE(a.out, b.out);
    QVERIFY(a.out != c.out);
    // 0.3952 lies between 0.375 (0x2c) and 0.40625 (0x2d): up with probability 0.6608.
    const int up = static_cast<int>(a.out.count("0x2d"));
    QCOMPARE(up + static_cast<int>(a.out.count("0x2c")), 200);
    QVERIFY2(up > 105 && up < 160, qPrintable(QString::number(up)));
}

void TestCli::convertStreamsManyLines() {
    QByteArray input;
    for (int i = 0; i < 100000; ++i)
        input += QByteArray::number(i) + ".5\n";
    const Run run = runFpx({"convert", "--to", "fp32"}, input);
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(run.out.count('\n'), 100000);
    QVERIFY(run.out.startsWith("0x3f000000\n0x3fc00000\n"));
}

void TestCli::usageErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    QTest::newRow("no arguments") << QStringList{} << 2 << "see fpx --help";
    QTest::newRow("unknown command")
        << QStringList{"frobnicate"} << 2 << "unknown command 'frobnicate'";
    QTest::newRow("unknown option")
        << QStringList{"show", "1", "--bogus"} << 2 << "unknown option --bogus";
    QTest::newRow("missing value")
        << QStringList{"show", "1", "--formats"} << 2 << "--formats needs a value";
    QTest::newRow("unknown format")
        << QStringList{"show", "1", "--formats", "fp16,fp7"} << 2 << "unknown format 'fp7'";
    QTest::newRow("bad round") << QStringList{"show", "1", "--round", "sideways"} << 2
                               << "unknown rounding mode 'sideways'";
    QTest::newRow("bad overflow") << QStringList{"show", "1", "--overflow", "wrap"} << 2
                                  << "unknown policy 'wrap'";
    QTest::newRow("bad value") << QStringList{"show", "1.2.3"} << 1 << "column 4";
    QTest::newRow("two values") << QStringList{"show", "1", "2"} << 2 << "expected one VALUE";
    QTest::newRow("bad scale") << QStringList{"convert", "--to", "int8", "--scale", "-1"} << 2
                               << "--scale must be a finite positive number";
    QTest::newRow("bad seed") << QStringList{"convert", "--to",   "fp16", "--round",
                                             "sr",      "--seed", "x"}
                              << 2 << "--seed";
    QTest::newRow("convert without --to")
        << QStringList{"convert"} << 2 << "--to FORMAT is required";
    QTest::newRow("bad custom spec")
        << QStringList{"convert", "--to", "e4m200"} << 2 << "mantissa bits";
    QTest::newRow("table too wide") << QStringList{"table", "fp32"} << 2 << "at most 16 bits";
    QTest::newRow("flag with value")
        << QStringList{"formats", "--json=yes"} << 2 << "takes no value";
}

void TestCli::usageErrors() {
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    const Run run = runFpx(args);
    QCOMPARE(run.exitCode, exitCode);
    QVERIFY2(QString::fromUtf8(run.err).contains(message), run.err.constData());
}

void TestCli::hostileStdin() {
    QByteArray garbage;
    QRandomGenerator random(1234);
    for (int i = 0; i < 300000; ++i)
        garbage.append(static_cast<char>(random.bounded(256)));
    const qsizetype lines = garbage.count('\n') + (garbage.endsWith('\n') ? 0 : 1);
    const Run text = runFpx({"convert", "--to", "fp16"}, garbage);
    QCOMPARE(text.exitCode, 1);
    QCOMPARE(text.out.count('\n'), lines);
    QVERIFY(text.err.contains("errors in all"));
    const Run codes = runFpx({"convert", "--from", "bf16", "--to", "fp8_e5m2"}, garbage);
    QCOMPARE(codes.exitCode, 1);
    const Run raw = runFpx({"convert", "--raw", "--from", "fp80", "--to", "fp8_e4m3"}, garbage);
    QCOMPARE(raw.exitCode, garbage.size() % 10 == 0 ? 0 : 1);
    QCOMPARE(raw.out.size(), garbage.size() / 10);
}

void TestCli::standInInputsAndScaledFormats() {
    // 0.1666…67 (40008 sixes) is above 1/6, so with scale 1/3 it rounds to level 1; a truncated
    // stand-in could not tell, so scaled formats refuse it and binary floats take it.
    const QByteArray longValue = "0.1" + QByteArray(40008, '6') + "7\n";
    const Run scaled = runFpx({"convert", "--to", "int8", "--scale", "1/3"}, longValue);
    QCOMPARE(scaled.exitCode, 1);
    QCOMPARE(scaled.out, QByteArray("error\n"));
    QVERIFY(scaled.err.contains("scaled format int8"));
    const Run binary = runFpx({"convert", "--to", "fp32"}, longValue);
    QCOMPARE(binary.exitCode, 0);
    QCOMPARE(binary.out, QByteArray("0x3e2aaaab\n"));
    QCOMPARE(runFpx({"convert", "--to", "int8", "--scale", "1e-30000"}, "1\n").exitCode, 2);
    const Run show = runFpx({"show", QString::fromLatin1(longValue.trimmed()), "--formats",
                             "fp16,int8", "--scale", "1/3", "--json"});
    QCOMPARE(show.exitCode, 1);
    QCOMPARE(json(show)["results"].toArray().size(), 1);
    QCOMPARE(json(show)["input_exact"].toBool(), false);
    // Far beyond the levels (or far below them) a stand-in clamps (or vanishes) like the text.
    const Run far = runFpx({"convert", "--to", "int8"}, "1e99999\n-1e99999\n1e-99999\n");
    QCOMPARE(far.exitCode, 0);
    QCOMPARE(far.out, QByteArray("0x7f\n0x80\n0x00\n"));
}

void TestCli::overlongLine() {
    QByteArray input = "1.5\n" + QByteArray(3 << 20, '1') + "\n2.5\n";
    const Run run = runFpx({"convert", "--to", "fp16"}, input);
    QCOMPARE(run.exitCode, 1);
    QCOMPARE(run.out, QByteArray("0x3e00\nerror\n0x4100\n"));
    QVERIFY(run.err.contains("line 2: longer than"));
}

void TestCli::plotFiles() {
    QTemporaryDir dir;
    for (const char* kind : {"error", "ulp", "range", "values", "memory"}) {
        for (const char* suffix : {"png", "pdf", "svg", "csv"}) {
            const QString path = dir.filePath(QString("%1.%2").arg(kind, suffix));
            const Run run = runFpx({"plot", kind, "-o", path});
            QVERIFY2(run.exitCode == 0, run.err.constData());
            QFile file(path);
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QByteArray head = file.read(8);
            if (QString(suffix) == "png")
                QVERIFY(head.startsWith("\x89PNG"));
            else if (QString(suffix) == "pdf")
                QVERIFY(head.startsWith("%PDF"));
            else if (QString(suffix) == "svg")
                QVERIFY(head.startsWith("<?xml"));
            else
                QVERIFY(head.startsWith("format,"));
        }
    }
    // The CSV of the range plot holds the formats' limits in log2.
    const Run csv =
        runFpx({"plot", "range", "--formats", "fp16,bf16", "-o", dir.filePath("r.csv")});
    QCOMPARE(csv.exitCode, 0);
    QFile range(dir.filePath("r.csv"));
    QVERIFY(range.open(QIODevice::ReadOnly));
    const QByteArray text = range.readAll();
    QVERIFY2(text.contains("fp16,-24,-14,15.99"), text.constData());
    QVERIFY(text.contains("bf16,-133,-126,127.99"));
    const Run log = runFpx({"plot", "error", "--formats", "fp32", "--range", "1:1000", "--log",
                            "-o", dir.filePath("e.png")});
    QCOMPARE(log.exitCode, 0);
    // --range takes values as `fpx show` does: 1/16 is 0.0625, not 1.
    QCOMPARE(runFpx({"plot", "error", "--formats", "fp8_e4m3", "--range", "1/16:2^3", "-o",
                     dir.filePath("q.csv")})
                 .exitCode,
             0);
    QFile fractions(dir.filePath("q.csv"));
    QVERIFY(fractions.open(QIODevice::ReadOnly));
    const QList<QByteArray> rows = fractions.readAll().split('\n');
    QVERIFY(rows.size() > 2);
    QCOMPARE(rows[1], QByteArray("fp8_e4m3,absolute,0.0625,0"));
    QCOMPARE(runFpx({"plot", "histogram", "-o", dir.filePath("x.png")}).exitCode, 2);
    QCOMPARE(runFpx({"plot", "error", "-o", dir.filePath("x.bmp")}).exitCode, 2);
    QCOMPARE(runFpx({"plot", "error", "--range", "5:1", "-o", dir.filePath("x.png")}).exitCode, 2);
    QCOMPARE(
        runFpx({"plot", "error", "--range", "-1:1", "--log", "-o", dir.filePath("x.png")}).exitCode,
        2);
    QCOMPARE(runFpx({"plot", "error"}).exitCode, 2);
}

namespace {

// fpx with extra environment variables (a locale, say), for the bench tests.
Run runFpxWithEnvironment(const QStringList& args, const QMap<QString, QString>& variables) {
    QProcess process;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (auto it = variables.begin(); it != variables.end(); ++it)
        environment.insert(it.key(), it.value());
    process.setProcessEnvironment(environment);
    process.start(QStringLiteral(FPX_CLI_PATH), args);
    if (!process.waitForStarted())
        qFatal("cannot start fpx");
    process.closeWriteChannel();
    process.waitForFinished(300000);
    Run run;
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

// RFC 4180 rows (test_support.h's parser) as Qt strings.
QList<QStringList> parseCsv(const QString& text) {
    QList<QStringList> rows;
    for (const std::vector<std::string>& row : fpx::test::parseCsv(text.toStdString())) {
        QStringList fields;
        for (const std::string& field : row)
            fields << QString::fromStdString(field);
        rows << fields;
    }
    return rows;
}

// A decimal comma between digits ("1,5"), which a number in C-locale output never has.
bool hasDecimalComma(const QByteArray& text) {
    for (qsizetype i = 1; i + 1 < text.size(); ++i)
        if (text[i] == ',' && text[i - 1] >= '0' && text[i - 1] <= '9' && text[i + 1] >= '0' &&
            text[i + 1] <= '9')
            return true;
    return false;
}

const QStringList kTinyBench = {"--sizes",  "1k",    "--threads", "1",
                                "--budget", "0.005", "--samples", "3"};

} // namespace

void TestCli::benchOutputs() {
    QTemporaryDir dir;
    const QString jsonPath = dir.filePath("bench.json");
    const QString csvPath = dir.filePath("bench.csv");
    // A German locale in the environment must not turn decimal points into commas.
    const Run run = runFpxWithEnvironment(
        QStringList{"bench", "--formats", "fp16,e4m3"} + kTinyBench +
            QStringList{"--no-arithmetic", "--json", jsonPath, "--csv", csvPath},
        {{"LC_ALL", "de_DE.UTF-8"}, {"LANG", "de_DE.UTF-8"}, {"LC_NUMERIC", "de_DE.UTF-8"}});
    QVERIFY2(run.exitCode == 0, run.err.constData());

    // The table: device, settings, a memcpy row, every conversion both ways, no arithmetic.
    QVERIFY2(run.out.contains("cpu device 0: "), run.out.constData());
    QVERIFY(run.out.contains("distribution normal, rounding rne/ieee, budget 0.005 s"));
    for (const char* row : {"memcpy", "fp32->fp16", "fp16->fp32", "fp32->fp8_e4m3",
                            "fp8_e4m3->fp32", "scalar reference", "GB/s"})
        QVERIFY2(run.out.contains(row), row);
    QVERIFY(!run.out.contains("GFLOP/s"));
    QVERIFY(!run.out.contains("NO ("));
    for (const QByteArray& line : run.out.split('\n'))
        if (line.contains("GB/s"))
            QVERIFY2(!hasDecimalComma(line), line.constData());

    // JSON: metadata, the device, and one object per row.
    QFile file(jsonPath);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray jsonText = file.readAll();
    QJsonParseError error;
    const QJsonObject root = QJsonDocument::fromJson(jsonText, &error).object();
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    QCOMPARE(root["format"].toString(), QString("fpx-bench"));
    QCOMPARE(root["distribution"].toString(), QString("normal"));
    QCOMPARE(root["budget_seconds"].toDouble(), 0.005);
    QCOMPARE(root["samples"].toInt(), 3);
    const QJsonArray devices = root["devices"].toArray();
    QCOMPARE(devices.size(), 1);
    QCOMPARE(devices[0].toObject()["backend"].toString(), QString("cpu"));
    QVERIFY(devices[0].toObject()["compute_units"].toInt() > 0);
    const QJsonArray results = root["results"].toArray();
    QVERIFY(results.size() >= 9); // memcpy + at least 2 paths for each format and direction
    int copies = 0;
    QSet<QString> conversions;
    for (const auto& value : results) {
        const QJsonObject r = value.toObject();
        const QString what =
            r["format"].toString() + " " + r["direction"].toString() + " " + r["path"].toString();
        QCOMPARE(r["backend"].toString(), QString("cpu"));
        QCOMPARE(r["elements"].toInt(), 1024);
        QCOMPARE(r["threads"].toInt(), 1);
        QCOMPARE(r["samples"].toInt(), 3);
        QVERIFY2(r["bytes_per_second"].isDouble() && r["bytes_per_second"].toDouble() > 0,
                 qPrintable(what));
        QVERIFY2(r["elements_per_second"].toDouble() > 0, qPrintable(what));
        QVERIFY2(r["verified"].toBool() || !r["exact_by_design"].toBool(), qPrintable(what));
        const QString operation = r["operation"].toString();
        QVERIFY2(operation == "copy" || operation == "convert", qPrintable(operation));
        if (operation == "copy") {
            ++copies;
            QCOMPARE(r["path"].toString(), QString("memcpy"));
        } else {
            QVERIFY(r["ceiling"].toDouble() > 0);
            conversions.insert(r["format"].toString() + " " + r["direction"].toString());
        }
    }
    QCOMPARE(copies, 1);
    QCOMPARE(conversions,
             (QSet<QString>{"fp16 encode", "fp16 decode", "fp8_e4m3 encode", "fp8_e4m3 decode"}));
    QVERIFY(!hasDecimalComma(jsonText));

    // CSV: a header and one row per result, every row as wide as the header.
    QFile csv(csvPath);
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QList<QStringList> rows = parseCsv(QString::fromUtf8(csv.readAll()));
    QCOMPARE(rows.size(), results.size() + 1);
    QVERIFY(rows[0].contains("bytes_per_second") && rows[0].contains("note"));
    const qsizetype bytesColumn = rows[0].indexOf("bytes_per_second");
    for (qsizetype i = 1; i < rows.size(); ++i) {
        QCOMPARE(rows[i].size(), rows[0].size());
        bool ok = false;
        QVERIFY(rows[i][bytesColumn].toDouble(&ok) > 0 && ok);
    }
}

void TestCli::benchArithmeticAndThreads() {
    QTemporaryDir dir;
    const QString jsonPath = dir.filePath("arithmetic.json");
    const Run run = runFpx({"bench", "--no-conversions", "--threads", "1,all", "--budget", "0.005",
                            "--samples", "3", "--json", jsonPath});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY(run.out.contains("GFLOP/s"));
    QVERIFY(!run.out.contains("memcpy"));
    QFile file(jsonPath);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject root = QJsonDocument::fromJson(file.readAll()).object();
    const QJsonArray results = root["results"].toArray();
    QVERIFY(!results.isEmpty());
    QSet<int> threads;
    for (const auto& value : results) {
        const QJsonObject r = value.toObject();
        QCOMPARE(r["operation"].toString(), QString("arithmetic"));
        QVERIFY(r["operations_per_second"].toDouble() > 0);
        threads.insert(r["threads"].toInt());
    }
    // "all" is every hardware thread, which the device reports as its compute units.
    const int all = root["devices"].toArray()[0].toObject()["compute_units"].toInt();
    QVERIFY(all >= 1);
    QCOMPARE(threads, (QSet<int>{1, all}));
}

void TestCli::benchMaxIsa() {
    // FPX_MAX_ISA keeps the kernels below an instruction set: the header says so, no path uses
    // what is capped, and every path still agrees with the exact core. A value it does not
    // know is reported and ignored.
    const auto runWith = [](const QString& value) {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert("FPX_MAX_ISA", value);
        return runFpx(QStringList{"bench", "--formats", "fp8_e4m3,fp16,int4", "--directions",
                                  "encode,decode", "--no-arithmetic"} +
                          kTinyBench,
                      {}, environment);
    };
    QProcessEnvironment uncapped = QProcessEnvironment::systemEnvironment();
    uncapped.remove("FPX_MAX_ISA");
    const Run plain = runFpx(
        QStringList{"bench", "--formats", "fp4_e2m1", "--directions", "encode", "--no-arithmetic"} +
            kTinyBench,
        {}, uncapped);
    QVERIFY2(plain.exitCode == 0, plain.err.constData());
    QVERIFY(!plain.out.contains("FPX_MAX_ISA"));
    const bool cpuHasAvx2 = plain.out.contains(" avx2");
    for (const QString& cap : {QString("avx2"), QString("baseline")}) {
        const Run run = runWith(cap.toUpper());
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY2(run.out.contains(("FPX_MAX_ISA=" + cap + ":").toUtf8()), run.out.constData());
        QByteArray rows; // the result rows, without the header's note
        for (const QByteArray& line : run.out.split('\n'))
            if (line.startsWith("cpu "))
                rows += line + '\n';
        QVERIFY2(rows.contains("fp32->int4"), run.out.constData());
        QVERIFY2(!rows.contains("AVX-512") && !rows.contains("AVX512"), rows.constData());
        QVERIFY2(!rows.contains(" NO "), rows.constData()); // every path verified
        if (cap == "baseline")
            QVERIFY2(!rows.contains("AVX2") && !rows.contains("F16C"), rows.constData());
        else if (cpuHasAvx2)
            QVERIFY2(rows.contains("(AVX2)"), rows.constData());
    }
    const Run unknown = runWith("avx3");
    QVERIFY2(unknown.exitCode == 0, unknown.err.constData());
    QVERIFY2(unknown.out.contains("FPX_MAX_ISA=avx3 not understood (avx512, avx2 or baseline): "
                                  "ignored"),
             unknown.out.constData());
}

void TestCli::benchSubnormalBf16() {
    // AVX512-BF16 flushes subnormal inputs: shown as "differs", not a failure (exit 0).
    QTemporaryDir dir;
    const QString jsonPath = dir.filePath("bf16.json");
    const Run run =
        runFpx(QStringList{"bench", "--formats", "bf16", "--directions", "encode", "--distribution",
                           "subnormal", "--no-arithmetic", "--json", jsonPath} +
               kTinyBench);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY(run.out.contains("distribution subnormal"));
    QFile file(jsonPath);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject root = QJsonDocument::fromJson(file.readAll()).object();
    QCOMPARE(root["distribution"].toString(), QString("subnormal"));
    bool hardwarePath = false;
    for (const auto& value : root["results"].toArray()) {
        const QJsonObject r = value.toObject();
        if (r["operation"].toString() != "convert")
            continue;
        QCOMPARE(r["direction"].toString(), QString("encode"));
        if (r["path"].toString().contains("AVX512-BF16")) {
            hardwarePath = true;
            QVERIFY(!r["verified"].toBool());
            QVERIFY(!r["exact_by_design"].toBool());
        } else {
            QVERIFY2(r["verified"].toBool(), qPrintable(r["path"].toString()));
        }
    }
    if (hardwarePath) {
        QVERIFY(run.out.contains("differs ("));
        QVERIFY(run.out.contains("Differences from the exact core:"));
        QVERIFY(run.out.contains("subnormal"));
    }
}

void TestCli::benchList() {
    const Run run = runFpx({"bench", "--list", "--formats", "fp16,fp8_e4m3,nf4,fp80"});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY2(run.out.contains("CPU (cpu): available"), run.out.constData());
    QVERIFY(run.out.contains("device 0: "));
    const QList<QByteArray> lines = run.out.split('\n');
    auto lineOf = [&](const QByteArray& format) {
        for (const QByteArray& line : lines)
            if (line.simplified().startsWith(format + " "))
                return line.simplified();
        return QByteArray();
    };
    QCOMPARE(lineOf("fp8_e4m3"), QByteArray("fp8_e4m3 emulated emulated"));
    QCOMPARE(lineOf("nf4"), QByteArray("nf4 emulated emulated"));
    QCOMPARE(lineOf("fp80"), QByteArray("fp80 unsupported unsupported"));
    QVERIFY(!lineOf("fp16").isEmpty());
    // Backends that are not there are named, with why.
    QVERIFY(run.out.contains("cuda") && run.out.contains("opencl"));
}

void TestCli::benchUsageErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("sizes 0") << QStringList{"--sizes", "0"} << "--sizes";
    QTest::newRow("sizes empty item") << QStringList{"--sizes", "1k,,2k"} << "--sizes";
    QTest::newRow("sizes fraction") << QStringList{"--sizes", "1.5k"} << "--sizes";
    QTest::newRow("sizes negative") << QStringList{"--sizes", "-4"} << "--sizes";
    QTest::newRow("threads 0") << QStringList{"--threads", "0"} << "--threads";
    QTest::newRow("threads x") << QStringList{"--threads", "x"} << "--threads";
    QTest::newRow("threads 1,x") << QStringList{"--threads", "1,x"} << "--threads";
    QTest::newRow("budget -1") << QStringList{"--budget", "-1"} << "--budget";
    QTest::newRow("budget abc") << QStringList{"--budget", "abc"} << "--budget";
    QTest::newRow("budget nan") << QStringList{"--budget", "nan"} << "--budget";
    QTest::newRow("samples 0") << QStringList{"--samples", "0"} << "--samples";
    QTest::newRow("directions sideways")
        << QStringList{"--directions", "sideways"} << "--directions";
    QTest::newRow("round nope") << QStringList{"--round", "nope"} << "--round";
    QTest::newRow("overflow wrap") << QStringList{"--overflow", "wrap"} << "--overflow";
    QTest::newRow("distribution weird")
        << QStringList{"--distribution", "weird"} << "--distribution";
    QTest::newRow("formats nosuch") << QStringList{"--formats", "nosuch"} << "--formats";
    QTest::newRow("backend quantum") << QStringList{"--backend", "quantum"} << "--backend";
    QTest::newRow("unknown option") << QStringList{"--frobnicate"} << "--frobnicate";
    QTest::newRow("missing value") << QStringList{"--json"} << "--json";
    QTest::newRow("positional") << QStringList{"fp16"} << "unexpected argument";
}

void TestCli::benchUsageErrors() {
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const Run run = runFpx(QStringList{"bench"} + args);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(QString::fromUtf8(run.err).contains(message), run.err.constData());
    QVERIFY2(run.out.isEmpty(), run.out.constData()); // nothing was measured
}

void TestCli::benchUnavailableBackend() {
    // Asking for a backend that cannot run is a usage error that says why. The GPU backends are
    // made unavailable whatever this machine has: OpenCL sees an empty vendor directory (the
    // ocl-icd loader then finds no platform) and CUDA sees no device; where a plugin is not
    // built, that is the reason instead.
    QTemporaryDir noVendors;
    QVERIFY(noVendors.isValid());
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("OCL_ICD_VENDORS", noVendors.path());
    environment.insert("CUDA_VISIBLE_DEVICES", "");
    const struct {
        const char* id;
        const char* unavailable; // the start of the message where the plugin is built
    } backends[] = {{"cuda", "fpx bench: CUDA is unavailable: "},
                    {"opencl", "fpx bench: OpenCL is unavailable: no OpenCL platform"}};
    for (const auto& backend : backends) {
        const Run run = runFpx({"bench", "--backend", backend.id, "--formats", "fp16", "--sizes",
                                "1k", "--budget", "0.005", "--samples", "3"},
                               {}, environment);
        QCOMPARE(run.exitCode, 2);
        const QString err = QString::fromUtf8(run.err);
        QVERIFY2(err.startsWith(backend.unavailable) ||
                     err.startsWith(QString("fpx bench: %1: not built").arg(backend.id)),
                 run.err.constData());
        QVERIFY(run.out.isEmpty());
    }
}

void TestCli::benchUnwritableOutput() {
    for (const char* option : {"--json", "--csv"}) {
        const Run run = runFpx(QStringList{"bench", "--formats", "fp8_e4m3", "--no-arithmetic",
                                           option, "/nonexistent-dir/x.out"} +
                               kTinyBench);
        QCOMPARE(run.exitCode, 1);
        QVERIFY2(run.err.contains("cannot write /nonexistent-dir/x.out"), run.err.constData());
    }
}

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
