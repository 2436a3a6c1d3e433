// SPDX-License-Identifier: GPL-3.0-or-later
// The lesson file format (docs/lessons.md): front matter, steps, action blocks, the merged
// state of a step, and every refused file with the line and column of its problem.
#include "fpx/lesson/lesson.h"

#include <QElapsedTimer>
#include <QTest>

#include <string>

using namespace fpx;

namespace {

const std::string kHeader = "---\nname: demo\ntitle: A demo\n---\n";

} // namespace

class TestLessonFile : public QObject {
    Q_OBJECT

  private slots:
    void readsFrontMatterStepsAndActions();
    void quotedFrontMatterValues();
    void headingsInsideFencesAreProse();
    void crlfFilesReadAlike();
    void mergedStateIsTheLastValueOfEachKey();
    void errors_data();
    void errors();
    void errorTextNamesFileLineColumn();
    void hugeAndHostileInputIsRefusedQuickly();
    void builtInLessonsAllParse();
};

void TestLessonFile::readsFrontMatterStepsAndActions() {
    const std::string text = "---\nname: what-is-a-float\ntitle: What a float is\n"
                             "summary: One value in every format.\n---\n\n"
                             "Intro **text**.\n\n"
                             "## First step\n\nProse one.\n\n```fpx\nvalue 0.3952\n"
                             "# a comment\n\n  formats   fp64,fp32 \nbench-run\n```\n\nAfter.\n"
                             "## Second step ##\n```cpp\nint x;\n```\n";
    const LessonParse parse = parseLesson(text, "demo.md");
    QVERIFY2(parse, parse.error.message.c_str());
    const Lesson& lesson = *parse.lesson;
    QCOMPARE(lesson.name, std::string("what-is-a-float"));
    QCOMPARE(lesson.title, std::string("What a float is"));
    QCOMPARE(lesson.summary, std::string("One value in every format."));
    QCOMPARE(lesson.introduction, std::string("Intro **text**."));
    QCOMPARE(lesson.source, std::string("demo.md"));
    QCOMPARE(lesson.steps.size(), std::size_t(2));
    const LessonStep& first = lesson.steps[0];
    QCOMPARE(first.title, std::string("First step"));
    QCOMPARE(first.line, std::size_t(9));
    QCOMPARE(first.prose, std::string("Prose one.\n\n\nAfter."));
    QCOMPARE(first.actions.size(), std::size_t(3));
    QCOMPARE(first.actions[0].key, std::string("value"));
    QCOMPARE(first.actions[0].value, std::string("0.3952"));
    QCOMPARE(first.actions[0].line, std::size_t(14));
    QCOMPARE(first.actions[0].column, std::size_t(1));
    QCOMPARE(first.actions[1].key, std::string("formats"));
    QCOMPARE(first.actions[1].value, std::string("fp64,fp32"));
    QCOMPARE(first.actions[1].line, std::size_t(17));
    QCOMPARE(first.actions[1].column, std::size_t(3));
    QCOMPARE(first.actions[2].key, std::string("bench-run"));
    QVERIFY(first.actions[2].value.empty());
    // Closing #s are not part of the title; other code blocks stay in the prose.
    QCOMPARE(lesson.steps[1].title, std::string("Second step"));
    QCOMPARE(lesson.steps[1].prose, std::string("```cpp\nint x;\n```"));
    QVERIFY(lesson.steps[1].actions.empty());
}

void TestLessonFile::quotedFrontMatterValues() {
    const LessonParse parse = parseLesson("---\nname: 'q'\ntitle: \"Range: FP32, BF16\"\n"
                                          "summary: \"half quoted\n---\n## S\n",
                                          "q.md");
    QVERIFY2(parse, parse.error.message.c_str());
    QCOMPARE(parse.lesson->name, std::string("q"));
    QCOMPARE(parse.lesson->title, std::string("Range: FP32, BF16"));
    QCOMPARE(parse.lesson->summary, std::string("\"half quoted"));
}

void TestLessonFile::headingsInsideFencesAreProse() {
    const std::string text = kHeader + "## Only step\n~~~~markdown\n## not a step\n~~~\n"
                                       "```\n## still not\n~~~~\n```\n## nor this\n```\n"
                                       "### a level-3 heading\n#### and a level-4\n##no space\n";
    const LessonParse parse = parseLesson(text, "f.md");
    QVERIFY2(parse, parse.error.message.c_str());
    QCOMPARE(parse.lesson->steps.size(), std::size_t(1));
    QVERIFY(parse.lesson->steps[0].prose.find("## not a step") != std::string::npos);
    QVERIFY(parse.lesson->steps[0].prose.find("## nor this") != std::string::npos);
    QVERIFY(parse.lesson->steps[0].prose.find("### a level-3") != std::string::npos);
}

void TestLessonFile::crlfFilesReadAlike() {
    const std::string lf = kHeader + "Intro.\n\n## One\n\nText.\n\n```fpx\nvalue 1\n```\n"
                                     "## Two\n```fpx\nround rtz\n```\n";
    std::string crlf;
    for (char c : lf) {
        if (c == '\n')
            crlf += '\r';
        crlf += c;
    }
    const LessonParse a = parseLesson(lf, "a.md");
    const LessonParse b = parseLesson("\xEF\xBB\xBF" + crlf, "b.md");
    QVERIFY(a);
    QVERIFY2(b, b.error.message.c_str());
    QCOMPARE(b.lesson->introduction, a.lesson->introduction);
    QCOMPARE(b.lesson->steps.size(), a.lesson->steps.size());
    for (std::size_t i = 0; i < a.lesson->steps.size(); ++i) {
        QCOMPARE(b.lesson->steps[i].prose, a.lesson->steps[i].prose);
        QCOMPARE(b.lesson->steps[i].actions.size(), a.lesson->steps[i].actions.size());
        QCOMPARE(b.lesson->steps[i].actions[0].value, a.lesson->steps[i].actions[0].value);
        QCOMPARE(b.lesson->steps[i].actions[0].line, a.lesson->steps[i].actions[0].line);
    }
    QVERIFY(b.lesson->steps[0].prose.find('\r') == std::string::npos);
}

void TestLessonFile::mergedStateIsTheLastValueOfEachKey() {
    const std::string text = kHeader + "## 1\n```fpx\nvalue 1\nformats fp32\n```\n"
                                       "## 2\n```fpx\nvalue 2\nround rtz\n```\n"
                                       "## 3\nNo actions.\n"
                                       "## 4\n```fpx\nformats bf16\n```\n";
    const LessonParse parse = parseLesson(text, "m.md");
    QVERIFY(parse);
    auto state = [&](std::size_t step) {
        std::string s;
        for (const LessonAction& a : mergedActions(*parse.lesson, step))
            s += a.key + "=" + a.value + "@" + std::to_string(a.line) + ";";
        return s;
    };
    QCOMPARE(state(0), std::string("value=1@7;formats=fp32@8;"));
    QCOMPARE(state(1), std::string("value=2@12;formats=fp32@8;round=rtz@13;"));
    QCOMPARE(state(2), state(1)); // a step without actions keeps the state
    QCOMPARE(state(3), std::string("value=2@12;formats=bf16@19;round=rtz@13;"));
    QCOMPARE(state(99), state(3)); // past the end: every step
}

void TestLessonFile::errors_data() {
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<int>("line");
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("message"); // a part of the message

    const QByteArray h = QByteArray::fromStdString(kHeader);
    QTest::newRow("empty") << QByteArray() << 1 << 1 << "front matter";
    QTest::newRow("no front matter") << QByteArray("## Step\n") << 1 << 1 << "front matter";
    QTest::newRow("unterminated front matter")
        << QByteArray("---\nname: x\ntitle: y\n\n") << 1 << 1 << "no closing '---'";
    QTest::newRow("heading in front matter")
        << QByteArray("---\nname: x\ntitle: y\n## Step\n") << 4 << 1 << "key: value";
    QTest::newRow("missing name") << QByteArray("---\ntitle: y\n---\n## S\n") << 3 << 1
                                  << "no 'name:'";
    QTest::newRow("missing title")
        << QByteArray("---\nname: x\n---\n## S\n") << 3 << 1 << "no 'title:'";
    QTest::newRow("unknown key") << QByteArray("---\nname: x\n  author: me\ntitle: y\n---\n") << 3
                                 << 3 << "unknown front-matter key 'author'";
    QTest::newRow("twice") << QByteArray("---\nname: x\nname: z\n---\n") << 3 << 1 << "given twice";
    QTest::newRow("no colon") << QByteArray("---\nname x\n---\n") << 2 << 1 << "key: value";
    QTest::newRow("bad name") << QByteArray("---\nname: What_Is\ntitle: y\n---\n## S\n") << 2 << 7
                              << "lower-case";
    QTest::newRow("no steps") << h + "Just an introduction.\n" << 5 << 1 << "no steps";
    QTest::newRow("empty heading") << h + "##\n" << 5 << 1 << "needs a title";
    QTest::newRow("two action blocks")
        << h + "## S\n```fpx\nvalue 1\n```\ntext\n  ```fpx\nvalue 2\n```\n"
        << 10 << 3 << "second action block";
    QTest::newRow("actions before a step") << h + "```fpx\nvalue 1\n```\n## S\n"
                                           << 5 << 1 << "before the first step";
    QTest::newRow("unterminated fence") << h + "## S\n\n~~~fpx\nvalue 1\n```\n"
                                        << 7 << 1 << "not closed";
    QTest::newRow("unterminated prose fence") << h + "## S\n````\ncode\n```\n"
                                              << 6 << 1 << "not closed";
    QTest::newRow("bad key") << h + "## S\n```fpx\nvalue 1\nFormats fp32\n```\n"
                             << 8 << 1 << "action key";
    QTest::newRow("key with dashes") << h + "## S\n```fpx\n  --value 1\n```\n"
                                     << 7 << 3 << "without '--'";
    QTest::newRow("bad key character") << h + "## S\n```fpx\nval_ue 1\n```\n"
                                       << 7 << 4 << "action key";
    QTest::newRow("column counts characters") << h + "## S\n```fpx\n  é\n```\n"
                                              << 7 << 3 << "action key";
    QTest::newRow("NUL byte") << h + QByteArray("## S\nab\0c\n", 10) << 6 << 3 << "NUL";
    QTest::newRow("invalid UTF-8") << h + "## S\nhé\xff\n" << 6 << 3 << "UTF-8";
    QTest::newRow("overlong UTF-8") << h + "## S\n\xc0\xaf\n" << 6 << 1 << "UTF-8";
    QTest::newRow("surrogate") << h + "## S\n\xed\xa0\x80\n" << 6 << 1 << "UTF-8";
    QTest::newRow("truncated UTF-8") << h + "## S\nab\xe2\x82" << 6 << 3 << "UTF-8";
    QTest::newRow("too large") << h + "## S\n" + QByteArray(int(kMaxLessonBytes), 'a') << 1 << 1
                               << "larger than 1 MiB";
}

void TestLessonFile::errors() {
    QFETCH(QByteArray, text);
    QFETCH(int, line);
    QFETCH(int, column);
    QFETCH(QString, message);
    const LessonParse parse = parseLesson(std::string_view(text.data(), text.size()), "bad.md");
    QVERIFY(!parse);
    const QString got = QString::fromStdString(parse.error.message);
    QVERIFY2(got.contains(message), qPrintable(got));
    QCOMPARE(int(parse.error.line), line);
    QCOMPARE(int(parse.error.column), column);
}

void TestLessonFile::errorTextNamesFileLineColumn() {
    const LessonParse parse = parseLesson("---\nname: x\n", "dir/my lesson.md");
    QVERIFY(!parse);
    QCOMPARE(lessonErrorText("dir/my lesson.md", parse.error),
             std::string("dir/my lesson.md:1:1: the front matter that starts here has no "
                         "closing '---'"));
}

void TestLessonFile::hugeAndHostileInputIsRefusedQuickly() {
    // Just under the size limit: many headings, deep nesting of quotes and lists, many fences.
    std::string many = kHeader;
    while (many.size() < kMaxLessonBytes - 64)
        many += "## s\n```fpx\nvalue 1\n```\n> > > > > > > > - - - - [[[[((((\n";
    QElapsedTimer timer;
    timer.start();
    const LessonParse parse = parseLesson(many, "big.md");
    QVERIFY(parse);
    QVERIFY(parse.lesson->steps.size() > 10000);
    const std::size_t last = parse.lesson->steps.size() - 1;
    QCOMPARE(mergedActions(*parse.lesson, last).size(), std::size_t(1));
    // Unclosed fences, one after another: still one pass.
    std::string fences = kHeader + "## s\n";
    while (fences.size() < kMaxLessonBytes - 8)
        fences += "text\n";
    fences += "```\n";
    QVERIFY(!parseLesson(fences, "f.md"));
    QVERIFY2(timer.elapsed() < 5000, qPrintable(QString::number(timer.elapsed())));
}

void TestLessonFile::builtInLessonsAllParse() {
    // Every file of lessons/ is built in, in file-name order, and reads without error.
    std::string previous;
    for (const BuiltInLesson& builtIn : builtInLessons()) {
        QVERIFY(std::string(builtIn.fileName) > previous);
        previous = builtIn.fileName;
        const LessonParse parse = parseLesson(builtIn.text, "built-in");
        QVERIFY2(parse,
                 (std::string(builtIn.fileName) + ": " + lessonErrorText("built-in", parse.error))
                     .c_str());
        const std::optional<LessonParse> found = findBuiltInLesson(parse.lesson->name);
        QVERIFY(found && *found);
        QCOMPARE(found->lesson->name, parse.lesson->name);
    }
    QVERIFY(!findBuiltInLesson("no-such-lesson"));
}

QTEST_APPLESS_MAIN(TestLessonFile)
#include "tst_lesson_file.moc"
