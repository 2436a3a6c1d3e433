// SPDX-License-Identifier: GPL-3.0-or-later
// The pages' option tables and typed states, offscreen with real widgets: each page's state
// read back after it was applied, a page's own state applied over it changing nothing, keys
// several pages hold going to the page --page names, and the problems a lesson action and an
// option share.
#include "pages/arithmetic/arithmetic_page.h"
#include "pages/benchmarks/benchmarks_panel.h"
#include "pages/explorer/explorer_page.h"
#include "pages/machines/machines_page.h"
#include "pages/quantization/quantization_page.h"
#include "pages/training/training_page.h"
#include "shell/command_line.h"
#include "shell/main_window.h"

#include <QComboBox>
#include <QSet>
#include <QTest>

#include <set>

using namespace fpx;
using namespace fpx::gui;

namespace {

QStringList ids(const std::vector<FormatSpec>& specs) {
    QStringList list;
    for (const FormatSpec& spec : specs)
        list << QString::fromStdString(spec.id);
    return list;
}

// Sets `settings` as the command line would and applies them; the first problem, or empty.
QString applySettings(MainWindow& window, const std::vector<OptionSetting>& settings,
                      PageStates::Source source = PageStates::Source::CommandLine) {
    PageStates states(source);
    for (const QString& problem : states.set(settings))
        if (!problem.isEmpty())
            return problem;
    return states.apply(window);
}

template <typename State> QStringList keysOf(std::span<const PageOption<State>> table) {
    QStringList keys;
    for (const PageOption<State>& option : table)
        keys << QLatin1String(option.key);
    return keys;
}

} // namespace

class TestPageOptions : public QObject {
    Q_OBJECT

  private slots:
    void eachTableHoldsAKeyOnceWithHelp();
    void explorerStateIsWhatWasApplied();
    void aPagesOwnStateChangesNothing();
    void sharedKeysGoToThePageNamed();
    void optionsOpenTheirPage();
    void lessonsRefuseCommandLineOnlyKeys();
    void flagsAndValuesAreChecked();
};

void TestPageOptions::eachTableHoldsAKeyOnceWithHelp() {
    const std::vector<QStringList> tables = {
        keysOf(ExplorerPage::options()),     keysOf(ArithmeticPage::options()),
        keysOf(QuantizationPage::options()), keysOf(TrainingPage::options()),
        keysOf(BenchmarksPanel::options()),  keysOf(MachinesPage::options())};
    for (const QStringList& keys : tables) {
        QVERIFY(!keys.isEmpty());
        const std::set<QString> unique(keys.begin(), keys.end());
        QCOMPARE(unique.size(), std::size_t(keys.size()));
    }
    // --help shows every key once, whatever number of pages hold it.
    QCommandLineParser parser;
    ProgramOptions().addTo(parser);
    QVERIFY(parser.parse({"fpx-explorer", "--formats", "fp16", "--dist", "normal:0:1", "--page",
                          "training", "--terms", "10", "--bench-run"}));
    const QString help = parser.helpText();
    QCOMPARE(help.count("--formats <LIST>"), 1);
    QVERIFY(help.contains("Quantization page (with --page quantize)"));
    QVERIFY(help.contains("Training page (with --page training)"));
}

void TestPageOptions::explorerStateIsWhatWasApplied() {
    MainWindow window;
    QCOMPARE(applySettings(window, {{"value", "1/3"},
                                    {"formats", "fp16,bf16,fp8_e4m3"},
                                    {"round", "rtz"},
                                    {"overflow", "saturate"},
                                    {"select", "bf16"},
                                    {"plot", "ulp"},
                                    {"params", "7B"},
                                    {"gib", "", false}}),
             QString());
    const ExplorerPageState state = window.explorerPage()->state();
    QCOMPARE(*state.value, QString("1/3"));
    QCOMPARE(ids(*state.formats), QStringList({"fp16", "bf16", "fp8_e4m3"}));
    QVERIFY(state.round->mode == RoundingMode::TowardZero);
    QVERIFY(*state.overflow == OverflowPolicy::Saturate);
    QCOMPARE(*state.select, std::string("bf16"));
    QVERIFY(*state.plot == plots::PlotKind::Ulp);
    QVERIFY(*state.tab == ExplorerPageState::Tab::Plots);
    QCOMPARE(*state.params, QString::number(7'000'000'000ULL));
    QVERIFY(*state.gib);
    QVERIFY(state.memoryRecipes->empty()); // inference
    QCOMPARE(*state.adapterParams, QString("0.5%"));

    // Stochastic rounding with N random bits: what the rounding box shows (an N it does not
    // offer is added), the page's state and the rounding the rows are computed with.
    QCOMPARE(applySettings(window, {{"round", "sr:13"}, {"value", "0.1"}, {"select", "fp16"}}),
             QString());
    const ExplorerPageState stochastic = window.explorerPage()->state();
    QVERIFY(stochastic.round->mode == RoundingMode::Stochastic);
    QCOMPARE(stochastic.round->stochastic.count, 13);
    auto* box = window.findChild<QComboBox*>("roundingMode");
    QCOMPARE(box->currentData().toString(), QString("sr:13"));
    QVERIFY(box->currentText().contains("13 random bits"));
    QCOMPARE(window.controller()->roundingOptions().stochastic.count, 13);
    QVERIFY(applySettings(window, {{"round", "sr:33"}}).contains("1 to 32"));
}

void TestPageOptions::aPagesOwnStateChangesNothing() {
    MainWindow window;
    QCOMPARE(applySettings(window, {{"value", "0.1"},
                                    {"formats", "fp32,fp8_e5m2"},
                                    {"round", "rup"},
                                    {"terms", "1000"},
                                    {"values", "uniform:0:1"},
                                    {"method", "kahan,pairwise"},
                                    {"sr-term", "2^-12"},
                                    {"sr-round", "srb:4"},
                                    {"weight", "3"},
                                    {"page", "explorer"}}),
             QString());
    QVERIFY(window.arithmeticPage()->waitUntilIdle(std::chrono::seconds(60)));

    ExplorerPage& explorer = *window.explorerPage();
    const ExplorerPageState before = explorer.state();
    QCOMPARE(explorer.apply(before), QString());
    const ExplorerPageState after = explorer.state();
    QCOMPARE(*after.value, *before.value);
    QCOMPARE(ids(*after.formats), ids(*before.formats));
    QVERIFY(*after.round == *before.round && *after.overflow == *before.overflow);
    QVERIFY(*after.plot == *before.plot && *after.tab == *before.tab);
    QCOMPARE(*after.params, *before.params);
    QCOMPARE(*after.plotRange, *before.plotRange);

    ArithmeticPage& arithmetic = *window.arithmeticPage();
    const ArithmeticPageState a = arithmetic.state();
    QCOMPARE(*a.terms, 1000);
    QCOMPARE(*a.values, QString("uniform:0:1"));
    // The lab lists its methods in its own order.
    QCOMPARE(QSet<QString>(a.methods->begin(), a.methods->end()),
             QSet<QString>({"kahan", "pairwise"}));
    QCOMPARE(*a.srTerm, QString("2^-12"));
    QVERIFY((*a.srRound == RandomBitRule{4, StochasticVariant::B}));
    QCOMPARE(*a.weight, QString("3"));
    QVERIFY(*a.lab == ArithmeticPage::Lab::MasterWeights); // the last lab named
    QCOMPARE(arithmetic.apply(a), QString());
    QVERIFY(arithmetic.waitUntilIdle(std::chrono::seconds(60)));
    const ArithmeticPageState b = arithmetic.state();
    QCOMPARE(*b.terms, *a.terms);
    QCOMPARE(*b.values, *a.values);
    QCOMPARE(*b.accumulators, *a.accumulators);
    QCOMPARE(*b.methods, *a.methods);
    QCOMPARE(*b.srValue, *a.srValue);
    QCOMPARE(*b.srFormat, *a.srFormat);
    QCOMPARE(*b.srCount, *a.srCount);
    QVERIFY(*b.srRound == *a.srRound);
    QCOMPARE(*b.delta, *a.delta);
    QVERIFY(*b.lab == *a.lab);

    MachinesPage& machines = *window.machinesPage();
    QCOMPARE(applySettings(window, {{"machine", "nvidia-ampere"},
                                    {"machine-a", "1, 2^-30"},
                                    {"machine-b", "1, 1"},
                                    {"promote", "64"},
                                    {"page", "explorer"}}),
             QString());
    const MachinesPageState m = machines.state();
    QCOMPARE(*m.machine, QString("nvidia-ampere"));
    QCOMPARE(*m.element, QString("fp16")); // the machine brought its first element
    QCOMPARE(machines.apply(m), QString());
    const MachinesPageState n = machines.state();
    QCOMPARE(*n.machine, *m.machine);
    QCOMPARE(*n.element, *m.element);
    QCOMPARE(*n.a, *m.a);
    QCOMPARE(*n.b, *m.b);
    QCOMPARE(*n.c, *m.c);
    QCOMPARE(*n.machines, *m.machines);
    QCOMPARE(*n.promote, *m.promote);
    QCOMPARE(*n.dist, *m.dist);
    QCOMPARE(*n.resultRows, *m.resultRows);
    QCOMPARE(*n.resultColumns, *m.resultColumns);
    QCOMPARE(*n.seed, *m.seed);
    QCOMPARE(*n.kMax, *m.kMax);
    QCOMPARE(*n.tableK, *m.tableK);
    QVERIFY(*n.statistic == *m.statistic && *n.view == *m.view);
}

void TestPageOptions::sharedKeysGoToThePageNamed() {
    {
        MainWindow window;
        QCOMPARE(applySettings(window, {{"formats", "mxfp4,nvfp4"},
                                        {"page", "quantize"},
                                        {"dist", "normal:0:2"},
                                        {"count", "1000"},
                                        {"seed", "7"}}),
                 QString());
        const QuantizationPageState q = window.quantizationPage()->state();
        QCOMPARE(*q.formats, QStringList({"mxfp4", "nvfp4"}));
        QCOMPARE(*q.dist, QString("normal:0:2"));
        QCOMPARE(*q.count, 1000ULL);
        QCOMPARE(*q.seed, 7ULL);
        // The explorer kept its own formats.
        QVERIFY(!ids(*window.explorerPage()->state().formats).contains("mxfp4"));
        QVERIFY(window.currentPage() == MainWindow::Page::Quantization);
    }
    {
        MainWindow window;
        QCOMPARE(applySettings(
                     window,
                     {{"page", "training"}, {"formats", "fp8_e4m3,bf16"}, {"loss-scale", "2^10"}}),
                 QString());
        const TrainingPageState t = window.trainingPage()->state();
        QCOMPARE(*t.formats, QString("fp8_e4m3,bf16"));
        QCOMPARE(*t.lossScaleExponent, 10);
        QVERIFY(window.currentPage() == MainWindow::Page::Training);
    }
    {
        // Without --page a key several pages hold goes to the first of them in page order.
        MainWindow window;
        QCOMPARE(applySettings(window, {{"formats", "fp16,bf16"}}), QString());
        QCOMPARE(ids(*window.explorerPage()->state().formats), QStringList({"fp16", "bf16"}));
        QVERIFY(window.currentPage() == MainWindow::Page::Explorer);
    }
}

void TestPageOptions::optionsOpenTheirPage() {
    MainWindow window;
    QCOMPARE(applySettings(window, {{"expr", "0.1+0.2"}}), QString());
    QVERIFY(window.currentPage() == MainWindow::Page::Arithmetic);
    // Of several pages opened, the last in page order; --page overrides them all.
    MainWindow second;
    QCOMPARE(applySettings(second, {{"training-view", "fp8"}, {"expr", "1/3"}}), QString());
    QVERIFY(second.currentPage() == MainWindow::Page::Training);
    MainWindow third;
    QCOMPARE(applySettings(third, {{"expr", "1/3"}, {"page", "benchmarks"}}), QString());
    QVERIFY(third.currentPage() == MainWindow::Page::Benchmarks);
    // What only reads on its page opens none.
    MainWindow fourth;
    QCOMPARE(applySettings(fourth, {{"block", "64"}, {"round", "rtz"}}), QString());
    QVERIFY(fourth.currentPage() == MainWindow::Page::Explorer);
}

void TestPageOptions::lessonsRefuseCommandLineOnlyKeys() {
    PageStates lesson(PageStates::Source::Lesson);
    const std::vector<QString> problems = lesson.set({{"bench-run", "", false},
                                                      {"presentation", "", false},
                                                      {"screenshot", "x.png"},
                                                      {"value", "0.5"}});
    QCOMPARE(problems[0], QString("'bench-run' cannot be used in a lesson"));
    QCOMPARE(problems[1], QString("'presentation' cannot be used in a lesson"));
    QCOMPARE(problems[2], QString("'screenshot' cannot be used in a lesson"));
    QCOMPARE(problems[3], QString());
    PageStates commandLine(PageStates::Source::CommandLine);
    QCOMPARE(commandLine.set({{"bench-run", "", false}}).front(), QString());
}

void TestPageOptions::flagsAndValuesAreChecked() {
    PageStates states(PageStates::Source::Lesson);
    const std::vector<QString> problems = states.set({{"gib", "yes"},
                                                      {"round", "", false},
                                                      {"colour", "red"},
                                                      {"terms", "0"},
                                                      {"count", "many"},
                                                      {"page", "nowhere"}});
    QCOMPARE(problems[0], QString("'gib' takes no value"));
    QVERIFY2(problems[1].startsWith("'round' needs a value"), qPrintable(problems[1]));
    QVERIFY(problems[2].startsWith("'colour' is not an explorer option"));
    QCOMPARE(problems[3], QString("--terms: expected a whole number, 1 to 100000000"));
    QCOMPARE(problems[4], QString("--count: expected a whole number"));
    QVERIFY(problems[5].startsWith("--page: use explorer, benchmarks"));
}

QTEST_MAIN(TestPageOptions)
#include "tst_page_options.moc"
