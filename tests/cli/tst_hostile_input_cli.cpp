// SPDX-License-Identifier: GPL-3.0-or-later
// Inputs found misbehaving under the sanitizers and by fuzzing, through the real binary
// (docs/sanitizers.md): raw streams that end inside an element, empty .npy arrays, and codes
// made only of digit separators. Each case is the input that was found, with the message, the
// exit status and the output it must give.
// Expected codes are worked by hand from the formats' layouts: FP16 1.0 is 0x3c00, FP16 -2.0 is
// 0xc000, FP32 1.0 is 0x3f800000, FP32 -2.0 is 0xc0000000, FP64 1.0 is 0x3ff0000000000000,
// BF16 keeps FP32's top half.
#include "cli_runner.h"

#include <QByteArray>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using fpx::test::CliRun;
using fpx::test::describe;
using fpx::test::runFpx;

namespace {

QByteArray bytes(std::initializer_list<unsigned char> list) {
    QByteArray result;
    for (unsigned char b : list)
        result.append(static_cast<char>(b));
    return result;
}

// A .npy file (version 1.0) of dtype `descr` and shape `shape` holding `data`: the magic
// string, the version, the header length, and the header padded with blanks to 64 bytes.
QByteArray npyFile(const QByteArray& descr, const QByteArray& shape, const QByteArray& data) {
    QByteArray header =
        "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    while ((10 + header.size() + 1) % 64 != 0)
        header += ' ';
    header += '\n';
    const auto length = static_cast<unsigned>(header.size());
    return QByteArray("\x93NUMPY\x01\x00", 8) +
           bytes({static_cast<unsigned char>(length & 0xff),
                  static_cast<unsigned char>(length >> 8)}) +
           header + data;
}

} // namespace

class TestHostileInputCli : public QObject {
    Q_OBJECT

  private slots:
    // The findings themselves: no whole element at all, on the bulk decoder (fp16 → fp32) and
    // the bulk encoder (fp32 → bf16). UBSan stopped both in memcpy with a null pointer.
    void rawInputShorterThanOneElement_data() {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QString>("message");
        QTest::newRow("fp16 to fp32, 1 byte")
            << "fp16"
            << "fp32" << bytes({0x01})
            << "truncated input: the last 1 byte, at byte offset 0, is not a whole element "
               "(elements of fp16 are 2 bytes); no whole element came before it";
        QTest::newRow("fp32 to bf16, 3 bytes")
            << "fp32"
            << "bf16" << bytes({0x01, 0x02, 0x03})
            << "truncated input: the last 3 bytes, at byte offset 0, are not a whole element "
               "(elements of fp32 are 4 bytes); no whole element came before them";
        QTest::newRow("fp64 to fp16, 7 bytes (no bulk kernel)")
            << "fp64"
            << "fp16" << bytes({1, 2, 3, 4, 5, 6, 7})
            << "truncated input: the last 7 bytes, at byte offset 0, are not a whole element "
               "(elements of fp64 are 8 bytes); no whole element came before them";
    }
    void rawInputShorterThanOneElement() {
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QByteArray, input);
        QFETCH(QString, message);
        const CliRun run = runFpx({"convert", "--raw", "--from", from, "--to", to}, input);
        QVERIFY2(run.exitCode == 1, qPrintable(describe(run)));
        QCOMPARE(run.out, QByteArray());
        QVERIFY2(run.err.contains(message.toUtf8()), qPrintable(describe(run)));
    }

    // Whole elements before the trailing bytes are converted and written; the message names
    // the offset where the partial element starts.
    void rawWholeElementsBeforeATruncatedOne_data() {
        QTest::addColumn<QString>("from");
        QTest::addColumn<QString>("to");
        QTest::addColumn<QByteArray>("input");
        QTest::addColumn<QByteArray>("output");
        QTest::addColumn<QString>("message");
        QTest::newRow("fp16 to fp32 (bulk decoder)")
            << "fp16"
            << "fp32" << bytes({0x00, 0x3c, 0x00, 0xc0, 0x7f})
            << bytes({0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0xc0})
            << "the last 1 byte, at byte offset 4, is not a whole element (elements of fp16 are "
               "2 bytes); the 2 whole elements before it were converted";
        QTest::newRow("fp32 to bf16 (bulk encoder)")
            << "fp32"
            << "bf16" << bytes({0x00, 0x00, 0x80, 0x3f, 0xaa, 0xbb}) << bytes({0x80, 0x3f})
            << "the last 2 bytes, at byte offset 4, are not a whole element (elements of fp32 are "
               "4 bytes); the 1 whole element before them was converted";
        QTest::newRow("fp64 to fp16 (one code at a time)")
            << "fp64"
            << "fp16" << bytes({0, 0, 0, 0, 0, 0, 0xf0, 0x3f, 0x11, 0x22, 0x33})
            << bytes({0x00, 0x3c})
            << "the last 3 bytes, at byte offset 8, are not a whole element (elements of fp64 are "
               "8 bytes); the 1 whole element before them was converted";
    }
    void rawWholeElementsBeforeATruncatedOne() {
        QFETCH(QString, from);
        QFETCH(QString, to);
        QFETCH(QByteArray, input);
        QFETCH(QByteArray, output);
        QFETCH(QString, message);
        const CliRun run = runFpx({"convert", "--raw", "--from", from, "--to", to}, input);
        QVERIFY2(run.exitCode == 1, qPrintable(describe(run)));
        QCOMPARE(run.out, output);
        QVERIFY2(run.err.contains(message.toUtf8()), qPrintable(describe(run)));
    }

    // A stream longer than one read, ending inside an element: the partial element is carried
    // from read to read and reported with its offset; every whole element before it is written.
    void rawTruncationAfterManyReads() {
        const int count = 40000; // 160 000 bytes of FP32: more than one read
        QByteArray input;
        QByteArray expected;
        for (int i = 0; i < count; ++i) {
            input += i % 2 ? bytes({0x00, 0x00, 0x00, 0xc0}) : bytes({0x00, 0x00, 0x80, 0x3f});
            expected += i % 2 ? bytes({0x00, 0xc0}) : bytes({0x80, 0x3f});
        }
        input += bytes({0x12, 0x34});
        const CliRun run = runFpx({"convert", "--raw", "--from", "fp32", "--to", "bf16"}, input);
        QVERIFY2(run.exitCode == 1, qPrintable(describe(run)));
        QCOMPARE(run.out, expected);
        QVERIFY2(run.err.contains("the last 2 bytes, at byte offset 160000, are not a whole "
                                  "element (elements of fp32 are 4 bytes); the 40000 whole "
                                  "elements before them were converted"),
                 qPrintable(describe(run)));
    }

    // Empty .npy arrays: reading one copied zero bytes into an empty vector, whose data() may
    // be null (UBSan: null pointer passed to memcpy), for float64 in the reader and for float32
    // in the widening to float. An empty array holds no values to sum.
    void emptyNpyArrays_data() {
        QTest::addColumn<QByteArray>("descr");
        QTest::addColumn<QByteArray>("shape");
        QTest::newRow("float64, (0,)") << QByteArray("<f8") << QByteArray("(0,)");
        QTest::newRow("float32, (0,)") << QByteArray("<f4") << QByteArray("(0,)");
        QTest::newRow("float16, (0, 3)") << QByteArray("<f2") << QByteArray("(0, 3)");
    }
    void emptyNpyArrays() {
        QFETCH(QByteArray, descr);
        QFETCH(QByteArray, shape);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString path = dir.filePath("empty.npy");
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(npyFile(descr, shape, {}));
        file.close();
        const CliRun run = runFpx({"accumulate", "--values", "file:" + path});
        QVERIFY2(run.exitCode == 1, qPrintable(describe(run)));
        QVERIFY2(run.err.contains("empty.npy holds no values"), qPrintable(describe(run)));
        // The same reader with one value: it is read, so the file itself is well formed.
        QVERIFY(file.open(QIODevice::WriteOnly));
        const QByteArray one = descr == "<f8"   ? bytes({0, 0, 0, 0, 0, 0, 0xf0, 0x3f})
                               : descr == "<f4" ? bytes({0, 0, 0x80, 0x3f})
                                                : bytes({0x00, 0x3c});
        file.write(npyFile(descr, "(1,)", one));
        file.close();
        const CliRun single = runFpx({"accumulate", "--values", "file:" + path, "--json"});
        QVERIFY2(single.exitCode == 0, qPrintable(describe(single)));
    }

    // Codes made only of digit separators were read as code 0. Each is refused, with the
    // column where a digit was expected, by every command that reads codes.
    void separatorOnlyCodes_data() {
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("error");
        QTest::newRow("_") << "_"
                           << "column 1: expected a hex digit";
        QTest::newRow("___") << "___"
                             << "column 1: expected a hex digit";
        QTest::newRow("0x___") << "0x___"
                               << "column 3: expected a hex digit";
        QTest::newRow("0x") << "0x"
                            << "column 3: expected a hex digit";
        QTest::newRow("0b_") << "0b_"
                             << "column 3: expected a binary digit";
        QTest::newRow("0b'' '") << "0b'' '"
                                << "column 3: expected a binary digit";
        QTest::newRow("0x_g") << "0x_g"
                              << "column 4: 'g' is not a hex digit";
    }
    void separatorOnlyCodes() {
        QFETCH(QString, code);
        QFETCH(QString, error);
        const CliRun as = runFpx({"show", "--bits", code, "--as", "fp16"});
        QVERIFY2(as.exitCode == 1, qPrintable(describe(as)));
        QVERIFY2(as.out.isEmpty(), qPrintable(describe(as)));
        QVERIFY2(as.err.contains(("--bits '" + code + "', " + error).toUtf8()),
                 qPrintable(describe(as)));
        QVERIFY2(as.err.contains("fp16"), qPrintable(describe(as)));

        const CliRun width = runFpx({"show", "--bits", code, "--width", "16"});
        QVERIFY2(width.exitCode == 1, qPrintable(describe(width)));
        QVERIFY2(width.out.isEmpty(), qPrintable(describe(width)));
        QVERIFY2(width.err.contains(("--bits '" + code + "', " + error).toUtf8()),
                 qPrintable(describe(width)));

        // In a stream of codes the bad line is reported and marked; the others convert. The
        // code sits after two blanks, so its columns are two further on.
        QString shifted = error;
        const int column = error.section(':', 0, 0).section(' ', 1).toInt();
        shifted.replace(QString("column %1").arg(column), QString("column %1").arg(column + 2));
        const CliRun convert = runFpx({"convert", "--from", "fp16", "--to", "fp32"},
                                      ("0x3c00\n  " + code + "\n0xc000\n").toUtf8());
        QVERIFY2(convert.exitCode == 1, qPrintable(describe(convert)));
        QCOMPARE(convert.out, QByteArray("0x3f800000\nerror\n0xc0000000\n"));
        QVERIFY2(convert.err.contains(("line 2, " + shifted).toUtf8()),
                 qPrintable(describe(convert)));
    }

    // Separators between digits are still digit separators, and "0b" followed by other hex
    // digits is still hex: what was accepted before stays accepted, with the same code.
    void separatorsBetweenDigitsStillRead_data() {
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("hex");
        QTest::newRow("0b0_01111_0000000000") << "0b0_01111_0000000000"
                                              << "0x3c00";
        QTest::newRow("0x3c_00") << "0x3c_00"
                                 << "0x3c00";
        QTest::newRow("3c00") << "3c00"
                              << "0x3c00";
        QTest::newRow("0b3f (hex)") << "0b3f"
                                    << "0x0b3f";
        QTest::newRow("0b (hex)") << "0b"
                                  << "0x000b";
        QTest::newRow("_1 (hex)") << "_1"
                                  << "0x0001";
    }
    void separatorsBetweenDigitsStillRead() {
        QFETCH(QString, code);
        QFETCH(QString, hex);
        const CliRun run = runFpx({"convert", "--from", "fp16", "--to", "fp16"}, code.toUtf8());
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        QCOMPARE(run.out, (hex + "\n").toUtf8());
    }
};

QTEST_GUILESS_MAIN(TestHostileInputCli)
#include "tst_hostile_input_cli.moc"
