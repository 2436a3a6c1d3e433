// SPDX-License-Identifier: GPL-3.0-or-later
// Bounded work at the command line, run as the real binary: a short but costly input shown
// promptly, a stream of costly lines refused once its budget is spent (and a long stream of
// ordinary values not), and tables whose output would be enormous refused unless limited or
// streamed, written to --output complete or not at all, and stopped by Ctrl+C.
#include "cli_runner.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using Run = fpx::test::CliRun;
using fpx::test::json;
using fpx::test::runFpx;

namespace {

QByteArray repeatedLines(const QByteArray& line, int count) {
    QByteArray text;
    for (int i = 0; i < count; ++i)
        text += line + '\n';
    return text;
}

// Every file in the directory, hidden ones (the temporary file beside the target) included.
QStringList filesIn(const QTemporaryDir& dir) {
    return QDir(dir.path()).entryList(QDir::Files | QDir::Hidden);
}

QList<QByteArray> lines(const QByteArray& text) {
    QList<QByteArray> list = text.split('\n');
    if (!list.isEmpty() && list.back().isEmpty())
        list.pop_back();
    return list;
}

} // namespace

class TestBoundedCli : public QObject {
    Q_OBJECT

  private slots:
    void showHugeRationalIsPrompt();
    void convertStreamBudget();
    void convertLongOrdinaryStream();
    void dotListBudget();
    void everyValueReaderHasABudget();
    void enormousTableIsRefused();
    void limitGivesTheFirstRows_data();
    void limitGivesTheFirstRows();
    void limitErrors();
    void outputFileIsWholeOrAbsent();
    void interruptLeavesNoOutputFile();
    void ignoredInterruptStaysIgnored();
};

// Prompt although each error is a quotient of 100000-bit numbers; the fp128 error is checked.
void TestBoundedCli::showHugeRationalIsPrompt() {
    QElapsedTimer timer;
    timer.start();
    const Run run = runFpx({"show", "3^66500/7^40000", "--formats", "fp64,fp128,fp16", "--json"});
    QCOMPARE(run.exitCode, 0);
    QVERIFY2(timer.elapsed() < 20000, qPrintable(QString::number(timer.elapsed())));
    const QJsonArray results = json(run)["results"].toArray();
    QCOMPARE(results.size(), 3);
    // FP64 and FP16 underflow to +0: the error is −x, the relative error exactly −1.
    QCOMPARE(results[0].toObject()["rel_error"].toString(), QString("-1"));
    QCOMPARE(results[2].toObject()["rel_error"].toString(), QString("-1"));
    // FP128 keeps 113 bits: |relative error| ≤ 2^-113 < 9.7e-35.
    const QString rel = results[1].toObject()["rel_error"].toString();
    QVERIFY2(rel.contains("e-35") || rel.contains("e-36") || rel.contains("e-37"), qPrintable(rel));
}

// Each line is bounded by the parser's budget; a stream of such lines by the stream's.
void TestBoundedCli::convertStreamBudget() {
    const int count = 400;
    const Run run = runFpx({"convert", "--to", "fp16"}, repeatedLines("3^66000*3^66000", count));
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains("work budget"), run.err.constData());
    QVERIFY2(run.err.contains("line "), run.err.constData());
    // The lines before the refusal were converted (to +∞), the rest not.
    const QList<QByteArray> out = lines(run.out);
    QVERIFY(out.size() > 10);
    QVERIFY(out.size() < count);
    for (const QByteArray& line : out)
        QCOMPARE(line, QByteArray("0x7c00"));
    const QByteArray expected = "line " + QByteArray::number(out.size() + 1) + ":";
    QVERIFY2(run.err.contains(expected), run.err.constData());
}

// Ordinary values are free: a long stream of them is never refused.
void TestBoundedCli::convertLongOrdinaryStream() {
    const Run run = runFpx({"convert", "--to", "fp16"}, repeatedLines("0.1", 100000));
    QCOMPARE(run.exitCode, 0);
    const QList<QByteArray> out = lines(run.out);
    QCOMPARE(out.size(), 100000);
    QCOMPARE(out.front(), QByteArray("0x2e66"));
    QCOMPARE(out.back(), QByteArray("0x2e66"));
}

void TestBoundedCli::dotListBudget() {
    QByteArray list;
    for (int i = 0; i < 400; ++i)
        list += (i ? "," : "") + QByteArray("3^66000*3^66000");
    const Run run =
        runFpx({"dot", "--a", QString::fromLatin1(list), "--b", QString::fromLatin1(list)});
    QVERIFY(run.exitCode != 0);
    QVERIFY2(run.err.contains("work budget"), run.err.constData());
}

// Files and lists of values read by accumulate, loss-scale and sgd share one budget each, like
// convert's stream: the refusal names the file and line, or the item.
void TestBoundedCli::everyValueReaderHasABudget() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto writeFile = [&](const QString& name, const QByteArray& text) {
        QFile file(dir.filePath(name));
        return file.open(QIODevice::WriteOnly) && file.write(text) == text.size();
    };
    // Costly to read, small once read: a valid term, amax and gradient (3).
    const QByteArray costly = "3^66000/3^65999";
    QVERIFY(writeFile("terms.txt", repeatedLines(costly, 2000)));
    const Run terms = runFpx({"accumulate", "--values", "file:" + dir.filePath("terms.txt")});
    QVERIFY(terms.exitCode != 0);
    QVERIFY2(terms.err.contains("work budget") && terms.err.contains("terms.txt:"),
             terms.err.constData());

    QVERIFY(writeFile("amax.txt", repeatedLines(costly, 2000)));
    const Run amax = runFpx({"loss-scale", "--amax-trace", dir.filePath("amax.txt")});
    QVERIFY(amax.exitCode != 0);
    QVERIFY2(amax.err.contains("work budget") && amax.err.contains("amax.txt:"),
             amax.err.constData());

    QByteArray list;
    for (int i = 0; i < 2000; ++i)
        list += (i ? "," : "") + costly;
    const Run sgd = runFpx({"sgd", "--weight", "1", "--lr", "0.01", "--formats", "fp16", "--grads",
                            QString::fromLatin1(list)});
    QVERIFY(sgd.exitCode != 0);
    QVERIFY2(sgd.err.contains("work budget") && sgd.err.contains("(item "), sgd.err.constData());
}

// 65536 codes whose decimals run to thousands of digits: about a gigabyte.
void TestBoundedCli::enormousTableIsRefused() {
    for (const char* layout : {"", "--csv", "--json"}) {
        QStringList args{"table", "e15m0b-32768f"};
        if (*layout)
            args << layout;
        QElapsedTimer timer;
        timer.start();
        const Run run = runFpx(args);
        QCOMPARE(run.exitCode, 2);
        QVERIFY(run.out.isEmpty());
        QVERIFY2(run.err.contains("--limit") && run.err.contains("--stream") &&
                     (run.err.contains(" MB") || run.err.contains(" GB")),
                 run.err.constData());
        QVERIFY2(timer.elapsed() < 20000, qPrintable(QString::number(timer.elapsed())));
    }
}

void TestBoundedCli::limitGivesTheFirstRows_data() {
    QTest::addColumn<QString>("layout");
    QTest::newRow("text") << "";
    QTest::newRow("csv") << "--csv";
    QTest::newRow("json") << "--json";
}

// --limit N writes what the whole table's first N rows are.
void TestBoundedCli::limitGivesTheFirstRows() {
    QFETCH(QString, layout);
    QStringList whole{"table", "fp8_e4m3"};
    if (!layout.isEmpty())
        whole << layout;
    const Run all = runFpx(whole);
    QCOMPARE(all.exitCode, 0);
    const Run first = runFpx(whole + QStringList{"--limit", "5"});
    QCOMPARE(first.exitCode, 0);
    // One row: only "zero", narrower than the whole table's classes.
    const Run one = runFpx(whole + QStringList{"--limit", "1"});
    QCOMPARE(one.exitCode, 0);
    if (layout == "--json") {
        const QJsonObject a = json(all);
        const QJsonObject b = json(first);
        QCOMPARE(b["format"], a["format"]);
        QCOMPARE(b["bits"], a["bits"]);
        const QJsonArray codes = b["codes"].toArray();
        QCOMPARE(codes.size(), 5);
        for (int i = 0; i < 5; ++i)
            QCOMPARE(codes[i], a["codes"].toArray()[i]);
        return;
    }
    // Text and CSV: the same lines, columns as wide as the whole table's.
    const QList<QByteArray> a = lines(all.out);
    const QList<QByteArray> b = lines(first.out);
    QCOMPARE(b.size(), 6); // the header and 5 rows
    for (int i = 0; i < 6; ++i)
        QCOMPARE(b[i], a[i]);
    QCOMPARE(lines(one.out), a.mid(0, 2));
    // A wide format's first rows are written at once.
    const Run wide = runFpx({"table", "e15m0b-32768f", "--limit", "3", "--csv"});
    QCOMPARE(wide.exitCode, 0);
    QCOMPARE(lines(wide.out).size(), 4);
    QVERIFY(wide.out.startsWith("bits,binary,class,value,exact\n0x0000,"));
}

void TestBoundedCli::limitErrors() {
    for (const char* bad : {"0", "-1", "x", "3.5"}) {
        const Run run = runFpx({"table", "fp8_e4m3", "--limit", bad});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains("--limit"), run.err.constData());
    }
    const Run both = runFpx({"table", "fp8_e4m3", "--limit", "3", "--stream"});
    QCOMPARE(both.exitCode, 2);
}

void TestBoundedCli::outputFileIsWholeOrAbsent() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("e4m3.csv");
    const Run printed = runFpx({"table", "fp8_e4m3", "--csv"});
    const Run written = runFpx({"table", "fp8_e4m3", "--csv", "--output", path});
    QCOMPARE(written.exitCode, 0);
    QVERIFY(written.out.isEmpty());
    QFile file(path);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), printed.out);
    QCOMPARE(filesIn(dir), QStringList{"e4m3.csv"});
    // A file of the user's beside the target is never touched, whatever its name.
    for (const char* name : {"e4m3.csv.part", ".e4m3.csv.fpx-0.tmp"}) {
        QFile other(dir.filePath(name));
        QVERIFY(other.open(QIODevice::WriteOnly));
        other.write("keep");
    }
    QCOMPARE(runFpx({"table", "fp8_e4m3", "--csv", "--output", path}).exitCode, 0);
    for (const char* name : {"e4m3.csv.part", ".e4m3.csv.fpx-0.tmp"}) {
        QFile other(dir.filePath(name));
        QVERIFY(other.open(QIODevice::ReadOnly));
        QCOMPARE(other.readAll(), QByteArray("keep"));
    }
    QCOMPARE(filesIn(dir).size(), 3);
    // An unwritable place: an error, and nothing left behind.
    const Run bad = runFpx({"table", "fp8_e4m3", "--output", dir.filePath("no/such/dir/t.txt")});
    QCOMPARE(bad.exitCode, 1);
    QVERIFY2(bad.err.contains("--output"), bad.err.constData());
}

// Ctrl+C while streaming a gigabyte into --output: the file is never created and the
// temporary one is removed.
void TestBoundedCli::interruptLeavesNoOutputFile() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath("huge.csv");
    QProcess process;
    process.start(QStringLiteral(FPX_CLI_PATH),
                  {"table", "e15m0b-32768f", "--csv", "--stream", "--output", path});
    QVERIFY(process.waitForStarted());
    // Wait until rows are being written.
    QElapsedTimer timer;
    timer.start();
    const auto temporarySize = [&] {
        const QStringList files = filesIn(dir);
        return files.size() == 1 ? QFileInfo(dir.filePath(files.front())).size() : 0;
    };
    while (temporarySize() < 100000 && timer.elapsed() < 60000)
        QTest::qWait(20);
    QVERIFY(temporarySize() >= 100000);
    ::kill(static_cast<pid_t>(process.processId()), SIGINT);
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 130);
    QVERIFY(process.readAllStandardError().contains("interrupted"));
    QVERIFY(filesIn(dir).isEmpty());
}

// Started with Ctrl+C ignored (as a background job or under nohup is): fpx keeps ignoring it.
void TestBoundedCli::ignoredInterruptStaysIgnored() {
    QProcess process;
    process.setChildProcessModifier([] { std::signal(SIGINT, SIG_IGN); });
    process.start(QStringLiteral(FPX_CLI_PATH), {"table", "e15m0b-32768f", "--csv", "--stream"});
    QVERIFY(process.waitForStarted());
    QByteArray out;
    QElapsedTimer timer;
    timer.start();
    while (out.size() < 100000 && timer.elapsed() < 60000) {
        process.waitForReadyRead(100);
        out += process.readAllStandardOutput();
    }
    QVERIFY(out.size() >= 100000);
    ::kill(static_cast<pid_t>(process.processId()), SIGINT);
    // Still writing rows a while later.
    timer.restart();
    QByteArray later;
    while (later.size() < 100000 && timer.elapsed() < 60000) {
        process.waitForReadyRead(100);
        later += process.readAllStandardOutput();
    }
    QCOMPARE(process.state(), QProcess::Running);
    QVERIFY(later.size() >= 100000);
    process.kill();
    process.waitForFinished(60000);
}

QTEST_GUILESS_MAIN(TestBoundedCli)
#include "tst_bounded_cli.moc"
