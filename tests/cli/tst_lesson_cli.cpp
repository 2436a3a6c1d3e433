// SPDX-License-Identifier: GPL-3.0-or-later
// fpx lesson through the real binary: the list of built-in lessons, a lesson file's steps with
// the fpx-explorer command line of each step's merged state, --step, --json, and bad files,
// names and steps with their exit status and FILE:LINE:COLUMN message.
#include "cli_runner.h"

#include "fpx/lesson/lesson.h"

#include <QDir>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

using fpx::test::CliRun;
using fpx::test::describe;
using fpx::test::json;
using fpx::test::runFpx;

namespace {

const QString kData = QStringLiteral(FPX_LESSON_TEST_DATA);

} // namespace

class TestLessonCli : public QObject {
    Q_OBJECT

  private slots:
    void listsTheBuiltInLessons();
    void printsEveryStepWithItsCommandLine();
    void oneStepAsJson();
    void builtInLessonByName();
    void badInput();
};

void TestLessonCli::listsTheBuiltInLessons() {
    const CliRun run = runFpx({"lesson", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QJsonArray list = QJsonDocument::fromJson(run.out).array();
    QCOMPARE(list.size(), qsizetype(fpx::builtInLessons().size()));
    for (qsizetype i = 0; i < list.size(); ++i) {
        const fpx::BuiltInLesson& builtIn = fpx::builtInLessons()[std::size_t(i)];
        QCOMPARE(list[i]["file"].toString().toStdString(), std::string(builtIn.fileName));
        QVERIFY(!list[i]["name"].toString().isEmpty());
        QVERIFY(list[i]["steps"].toInt() >= 1);
    }
    const CliRun text = runFpx({"lesson"});
    QCOMPARE(text.exitCode, 0);
    for (const QJsonValue& lesson : list)
        QVERIFY2(text.out.contains(lesson["name"].toString().toUtf8()), qPrintable(describe(text)));
}

void TestLessonCli::printsEveryStepWithItsCommandLine() {
    const QString file = kData + "/rounding-basics.md";
    const CliRun run = runFpx({"lesson", file});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QString out = QString::fromUtf8(run.out);
    QVERIFY(out.startsWith("Rounding one value (rounding-basics, " + file + ")\n"));
    QVERIFY(out.contains("three steps")); // the introduction
    QVERIFY(out.contains("Step 1 of 3: 0.1 is not a float"));
    QVERIFY(out.contains("No binary format holds **0.1** exactly"));
    QVERIFY(out.contains("Step 3 of 3: A different value"));
    // Each step's state, merged: the later value replaces the earlier one, the rest stays.
    QVERIFY(out.contains("$ fpx-explorer --no-settings --value 0.1 --formats fp32,bf16,fp16 "
                         "--select bf16\n"));
    QVERIFY(out.contains("$ fpx-explorer --no-settings --value 0.1 --formats fp32,bf16,fp16 "
                         "--select bf16 --round rtz --tab plots --plot ulp\n"));
    QVERIFY2(out.contains("$ fpx-explorer --no-settings --value 1/3 --formats fp32,bf16,fp16 "
                          "--select bf16 --round rtz --tab details --plot ulp\n"),
             qPrintable(out));
    QVERIFY(!out.contains("# the value and the rows")); // action blocks are not prose
}

void TestLessonCli::oneStepAsJson() {
    const CliRun run = runFpx({"lesson", kData + "/rounding-basics.md", "--step", "2", "--json"});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    const QJsonObject lesson = json(run);
    QCOMPARE(lesson["name"].toString(), QString("rounding-basics"));
    QCOMPARE(lesson["stepCount"].toInt(), 3);
    const QJsonArray steps = lesson["steps"].toArray();
    QCOMPARE(steps.size(), 1);
    const QJsonObject step = steps[0].toObject();
    QCOMPARE(step["number"].toInt(), 2);
    QCOMPARE(step["title"].toString(), QString("Rounding toward zero"));
    QCOMPARE(step["line"].toInt(), 21);
    const QJsonArray actions = step["actions"].toArray();
    QCOMPARE(actions.size(), 3);
    QCOMPARE(actions[0]["key"].toString(), QString("round"));
    QCOMPARE(actions[0]["value"].toString(), QString("rtz"));
    QCOMPARE(actions[0]["line"].toInt(), 24);
    QCOMPARE(actions[0]["column"].toInt(), 1);
    const QJsonObject state = step["state"].toObject();
    QCOMPARE(state["value"].toString(), QString("0.1"));
    QCOMPARE(state["round"].toString(), QString("rtz"));
    QCOMPARE(state.size(), 6);
    QVERIFY(step["prose"].toString().contains("spacing of each format"));
}

void TestLessonCli::builtInLessonByName() {
    QVERIFY2(!fpx::builtInLessons().empty(), "lessons/*.md were not built in");
    const fpx::LessonParse first = fpx::parseLesson(fpx::builtInLessons()[0].text, "built-in");
    QVERIFY(first);
    const CliRun run = runFpx({"lesson", QString::fromStdString(first.lesson->name)});
    QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
    QVERIFY(run.out.contains(QByteArray::fromStdString(first.lesson->title)));
    QVERIFY(run.out.contains("Step 1 of"));
}

void TestLessonCli::badInput() {
    const QString syntax = kData + "/bad-syntax.md";
    CliRun run = runFpx({"lesson", syntax});
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains((syntax + ":12:1: a second action block").toUtf8()),
             qPrintable(describe(run)));
    run = runFpx({"lesson", "no-such-lesson"});
    QCOMPARE(run.exitCode, 2);
    QVERIFY(run.err.contains("neither a lesson file nor a built-in lesson"));
    // A folder is not a lesson file, even one whose name ends in .md.
    QTemporaryDir folder;
    QVERIFY(QDir(folder.path()).mkdir("notes.md"));
    run = runFpx({"lesson", folder.path() + "/notes.md"});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains("neither a lesson file nor a built-in lesson"),
             qPrintable(describe(run)));
    run = runFpx({"lesson", kData + "/rounding-basics.md", "--step", "4"});
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.err.contains("--step: '4' is not a step of rounding-basics (1 to 3)"),
             qPrintable(describe(run)));
    run = runFpx({"lesson", kData + "/rounding-basics.md", "--step", "two"});
    QCOMPARE(run.exitCode, 2);
    run = runFpx({"lesson", "--step", "1"});
    QCOMPARE(run.exitCode, 2);
    run = runFpx({"lesson", "a", "b"});
    QCOMPARE(run.exitCode, 2);
    run = runFpx({"lesson", "--colour"});
    QCOMPARE(run.exitCode, 2);
}

QTEST_APPLESS_MAIN(TestLessonCli)
#include "tst_lesson_cli.moc"
