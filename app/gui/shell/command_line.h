// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QString>

namespace fpx::gui {

class MainWindow;

// The explorer's command-line options. They set the window up as a user would (value, formats,
// rounding, page, plot, benchmark settings), so that documentation screenshots and tests start
// from any state without touching the remembered settings.
struct ExplorerCommandLine {
    QCommandLineOption value{"value", "Start with VALUE in the value field.", "VALUE"};
    QCommandLineOption formats{
        "formats", "Show these formats, comma-separated (ids, aliases or specs like e4m3b11fnuz).",
        "LIST"};
    QCommandLineOption round{"round", "Rounding mode: rne, rna, rtz, rup, rdn, sr or rto.", "MODE"};
    QCommandLineOption overflow{"overflow", "Overflow policy: ieee or saturate.", "POLICY"};
    QCommandLineOption select{"select", "Select the row of FORMAT (its detail panel shows).",
                              "FORMAT"};
    QCommandLineOption plot{
        "plot", "Show the Plots tab with KIND: error, ulp, range, values or memory.", "KIND"};
    QCommandLineOption params{"params",
                              "Plots tab, memory plot: the model's parameter count (1B, 7B, "
                              "70B, 405B, 13B, 350M, 7e9).",
                              "N"};
    QCommandLineOption memoryTraining{
        "memory-training",
        "Plots tab, memory plot: mixed-precision training (weights, gradients, FP32 master "
        "weights, Adam's moments) instead of inference."};
    QCommandLineOption gib{"gib", "Plots tab, memory plot: bars in GiB instead of GB."};
    QCommandLineOption plotRange{
        "plot-range", "Plots tab: the x range A:B of the plot (any value: 1/16:8).", "A:B"};
    QCommandLineOption screenshot{
        "screenshot", "Render the window to FILE (PNG) and exit; works offscreen.", "FILE"};
    QCommandLineOption size{"size", "Window size for --screenshot, WIDTHxHEIGHT.", "SIZE",
                            "1600x900"};
    QCommandLineOption noSettings{"no-settings", "Neither read nor write the remembered state."};
    QCommandLineOption page{
        "page", "Open on PAGE: explorer, benchmarks, arithmetic, quantize or training.", "PAGE"};
    QCommandLineOption expr{"expr",
                            "Arithmetic page: evaluate EXPR in every format (0.1+0.2, "
                            "fma(a,b,c), sqrt(2), …).",
                            "EXPR"};
    QCommandLineOption lab{"lab",
                           "Arithmetic page: show LAB: expression, accumulation, stochastic or "
                           "weights.",
                           "LAB"};
    QCommandLineOption input{"input",
                             "Quantization page: quantize the tensor in FILE (.npy, .safetensors, "
                             "raw with --dtype, text); FILE:TENSOR picks one.",
                             "FILE[:TENSOR]"};
    QCommandLineOption dtype{"dtype",
                             "Quantization page: the dtype of a raw --input file: f32, "
                             "f64, f16, bf16, e4m3 or e5m2.",
                             "DTYPE"};
    QCommandLineOption dist{"dist",
                            "Quantization page: quantize values drawn from SPEC: "
                            "normal:MU:SIGMA, lognormal:MU:SIGMA, laplace:B, student:NU or "
                            "uniform:A:B.",
                            "SPEC"};
    QCommandLineOption count{"count", "Quantization page: how many values --dist draws.", "N"};
    QCommandLineOption seed{"seed", "Quantization page: the seed of --dist.", "S"};
    QCommandLineOption outliers{"outliers",
                                "Quantization page: that FRACTION of --dist's values times SCALE.",
                                "FRACTION:SCALE"};
    QCommandLineOption block{"block",
                             "Quantization page: elements per scale (N, row or tensor) for every "
                             "scaled format.",
                             "N"};
    QCommandLineOption scaleRule{"scale-rule",
                                 "Quantization page: MX scale rule: floor, ceil or even.", "RULE"};
    QCommandLineOption inspectBlock{"inspect-block",
                                    "Quantization page: inspect block N of the selected format "
                                    "(default: the block with the largest scale).",
                                    "N"};
    QCommandLineOption trainingView{"training-view",
                                    "Training page: show VIEW: range, loss-scale, fp8 or master "
                                    "(--formats, --dist, --count, --seed and --input set the "
                                    "range view there).",
                                    "VIEW"};
    QCommandLineOption lossScale{"loss-scale",
                                 "Training page: the range view's loss scale, a power of two "
                                 "2^-24 … 2^24 (2^10, 1024, 2^-3).",
                                 "S"};
    QCommandLineOption benchRun{"bench-run",
                                "Start a benchmark with the Benchmarks page's settings (with "
                                "--screenshot: wait for it to finish)."};
    QCommandLineOption benchFormats{"bench-formats", "Formats to benchmark, comma-separated ids.",
                                    "LIST"};
    QCommandLineOption benchBudget{"bench-budget", "Seconds per benchmark measurement.", "SECONDS"};
    QCommandLineOption benchSizes{"bench-sizes",
                                  "Array sizes to benchmark, in elements: 4k,1M,… (instead of in "
                                  "cache and beyond the last-level cache).",
                                  "LIST"};
    QCommandLineOption benchCompare{"bench-compare",
                                    "Compare the benchmarks with a run saved as JSON.", "FILE"};
    QCommandLineOption zoom{"zoom",
                            "Zoom fonts, bit cells and plots to PERCENT (50 … 300; 100 is "
                            "actual size).",
                            "PERCENT"};
    QCommandLineOption presentation{
        "presentation", "Start in presentation mode: full screen, large type, no menu bar."};
    QCommandLineOption tab{"tab", "Explorer page: the lower tab, details or plots.", "TAB"};
    // The accumulation lab, with `fpx accumulate`'s names; any of them runs it.
    QCommandLineOption terms{"terms", "Accumulation lab: sum N terms.", "N"};
    QCommandLineOption values{"values",
                              "Accumulation lab: the terms: ones, const:V, uniform:A:B or "
                              "normal:MU:SIGMA.",
                              "DIST"};
    QCommandLineOption element{"element",
                               "Accumulation lab: round each term to FORMAT first (default: each "
                               "accumulator's own).",
                               "FORMAT"};
    QCommandLineOption accumulator{"accumulator",
                                   "Accumulation lab: the accumulator formats, comma-separated "
                                   "(formats the explorer shows).",
                                   "LIST"};
    QCommandLineOption method{"method",
                              "Accumulation lab: sequential, pairwise, kahan or blocked:K, "
                              "comma-separated.",
                              "LIST"};
    QCommandLineOption srValue{"sr-value", "Stochastic lab: the value rounded stochastically.",
                               "VALUE"};
    QCommandLineOption srFormat{"sr-format", "Stochastic lab: the format it is rounded to.",
                                "FORMAT"};
    QCommandLineOption srTerm{
        "sr-term", "Stochastic lab: the small term summed with RNE and with SR.", "VALUE"};
    QCommandLineOption srCount{"sr-count", "Stochastic lab: how many small terms.", "N"};
    QCommandLineOption weight{"weight", "Master-weights lab: the weight w.", "VALUE"};
    QCommandLineOption delta{"delta", "Master-weights lab: the update added to w.", "VALUE"};
    QCommandLineOption example{"example",
                               "Quantization page: quantize a bundled example tensor: weights "
                               "(256x512 Student-t weights with outliers).",
                               "NAME"};
    QCommandLineOption lesson{"lesson",
                              "Open the Lessons panel with a lesson: a built-in one's NAME or a "
                              "lesson FILE (.md).",
                              "NAME|FILE"};
    QCommandLineOption step{"step", "With --lesson: show step K (from 1).", "K"};

    void addTo(QCommandLineParser& parser) const;
    // Whether a lesson may use the option as an action key: not the ones about the program
    // rather than the explorer's state (screenshot, size, settings, lessons, benchmark runs).
    bool usableInLessons(const QString& name) const;
    // Whether the window may read and write the remembered state: not for screenshots, which
    // must look the same on every machine.
    bool persistent(const QCommandLineParser& parser) const;
};

// Each returns the first problem as "--option: what is wrong", or an empty string.
// The explorer page: formats, rounding, overflow, value, selected row, plot kind.
QString applyExplorerOptions(const QCommandLineParser& parser, const ExplorerCommandLine& options,
                             MainWindow& window);
// The Arithmetic page: the expression and the lab shown (either opens the page).
QString applyArithmeticOptions(const QCommandLineParser& parser, const ExplorerCommandLine& options,
                               MainWindow& window);
// The Quantization page: the source, the formats (--formats with --page quantize), block size,
// scale rule, the selected format (--select) and the inspected block.
QString applyQuantizationOptions(const QCommandLineParser& parser,
                                 const ExplorerCommandLine& options, MainWindow& window);
// Whether --page asks for the Quantization page (its --formats are quantizers).
bool quantizationPageRequested(const QCommandLineParser& parser,
                               const ExplorerCommandLine& options);
// Whether --page asks for the Training page (--formats, --dist, --input are its range view's).
bool trainingPageRequested(const QCommandLineParser& parser, const ExplorerCommandLine& options);
// The Training page: the view shown, the range view's source, formats and loss scale.
QString applyTrainingOptions(const QCommandLineParser& parser, const ExplorerCommandLine& options,
                             MainWindow& window);
// The zoom (--zoom) and presentation mode (--presentation), applied last, over every page.
QString applyPresentationOptions(const QCommandLineParser& parser,
                                 const ExplorerCommandLine& options, MainWindow& window);
// The page to open, the Benchmarks page's settings, a saved run to compare with, and a run.
QString applyBenchmarkOptions(const QCommandLineParser& parser, const ExplorerCommandLine& options,
                              MainWindow& window);
// The accumulation, stochastic and master-weights labs of the Arithmetic page.
QString applyLabOptions(const QCommandLineParser& parser, const ExplorerCommandLine& options,
                        MainWindow& window);
// A bundled example tensor (--example) on the Quantization page.
QString applyExampleOption(const QCommandLineParser& parser, const ExplorerCommandLine& options,
                           MainWindow& window);
// Every applier above, in the order the command line uses; lessons apply a step's state through
// this too, so an option and an action key can never mean different things.
QString applyCommandLine(const QCommandLineParser& parser, const ExplorerCommandLine& options,
                         MainWindow& window);

} // namespace fpx::gui
