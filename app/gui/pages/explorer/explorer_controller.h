// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/format_selection.h"
#include "pages/explorer/explorer_job.h"

#include "fpx/exact/code_details.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <QObject>
#include <QString>

#include <chrono>
#include <memory>
#include <optional>
#include <vector>

namespace fpx::gui {

class ExplorerJobQueue;

// The explorer's input as a value: the text shown, the exact value it stands for and the row
// whose code was set directly (a NaN payload, say), which a re-parse of the text would lose.
struct ExplorerInput {
    QString text;
    ExactValue value;
    bool exact = true;
    std::optional<std::pair<int, Code>> pinnedCode;

    bool sameAs(const ExplorerInput& other) const;
};

// Everything a user can change in the explorer, enough to put it back exactly (undo, redo).
// The scales of integer and NF4 rows travel inside their FormatSpecs.
struct ExplorerState {
    ExplorerInput input;
    RoundingOptions options;
    std::vector<FormatSpec> formats;

    bool sameAs(const ExplorerState& other) const;
};

// True when two specs describe the same format with the same scale.
bool sameFormat(const FormatSpec& a, const FormatSpec& b);

// The explorer's state without any widget: the input, the rounding options and the formats,
// and for every format the report of rounding the input into it. Widgets and models only
// talk to this object; it is the one GUI piece that calls the core.
//
// The state (input text, options, formats) changes at once; the rows follow. A typed text is
// parsed, and the rows of a large value are computed, on a worker (ExplorerJobQueue), because a
// short text such as 3^66500/7^40000 is slow to work out exactly; every change supersedes the work
// of the ones before it. Each change first waits briefly for its worker, so an ordinary input is
// shown before the setter returns; a slow one arrives later with rowsChanged, computing() true
// meanwhile. Callers that read rows() right after a change (the command line, screenshots,
// tests) call waitForIdle() first.
class ExplorerController : public FormatSelection {
    Q_OBJECT

  public:
    explicit ExplorerController(QObject* parent = nullptr);
    ~ExplorerController() override;

    // Parses `text`; on success every row is recomputed, on failure the rows keep the last
    // good value and inputErrorChanged reports what is wrong and where.
    void setInputText(const QString& text);
    QString inputText() const { return inputText_; }
    QString inputError() const { return inputError_; }
    int inputErrorPosition() const { return inputErrorPosition_; }
    // The input the rows show: while computing(), the previous one.
    const ExactValue& inputValue() const { return shownValue_; }
    bool inputIsExact() const { return shownExact_; }

    // Whether the rows are still being computed for the newest change (they show an older
    // state meanwhile).
    bool computing() const { return computing_; }
    // Whether any job is still running or waiting, a superseded one too (whose result will be
    // dropped); jobsDrained() says when none is.
    bool jobsInFlight() const;
    // Blocks until the rows show the newest change (and a typed text's error, if any, is
    // known). Bounded: each job is bounded by the core's work budget.
    void waitForIdle();
    // The same for at most `timeout` (less than a day); whether the newest change is settled
    // now, its rows shown or its failure said (a test that would otherwise hang on a lost job
    // fails instead).
    bool waitForIdle(std::chrono::milliseconds timeout);
    // How long a change waits for its worker before returning with computing() true: long
    // enough for ordinary inputs, short enough not to be felt between keystrokes. Zero makes
    // every text and large value asynchronous (tests of the worker).
    static constexpr std::chrono::milliseconds kSynchronousWait{50};
    void setSynchronousWait(std::chrono::milliseconds wait) { synchronousWait_ = wait; }
    // What computes the rows from now on: runExplorerJob unless a test stands in for it (one
    // that throws, say).
    void setJobFunction(ExplorerJobFunction run);

    // Makes the value of `code` in row `row` the input; that row then shows `code` itself
    // (even a NaN payload or a non-canonical x87 code) and every other row re-rounds from it.
    // Ignored while row `row` of rows() shows another format than formats() (a new format
    // list still being computed).
    void setInputFromCode(int row, Code code);
    // Steps row `row` to its next (+1) or previous (−1) representable value.
    bool stepRow(int row, int direction);

    // The format selection (FormatSelection): the rows' formats and rounding.
    void setRoundingChoice(const RoundingChoice& choice) override;
    void setOverflowPolicy(OverflowPolicy policy) override;
    const RoundingOptions& roundingOptions() const override { return options_; }

    void setFormats(std::vector<FormatSpec> formats);
    // The rows shown: while computing(), those of the previous state. The reference lasts
    // until the next change, waitForIdle() or turn of the event loop: new rows replace the
    // vector, they are not copied into it.
    const std::vector<ExplorerRow>& rows() const { return *rows_; }
    std::vector<FormatSpec> formats() const override { return formats_; }
    // Sets the scale (integer formats) or absmax (NF4) of one row.
    void setRowScale(int row, const ExactValue& scale);

    // The whole state, and putting one back: rows, options and input (pinned code included)
    // become exactly what they were, with the same signals as the individual setters.
    ExplorerState state() const;
    void restore(const ExplorerState& state);
    ExplorerInput input() const;
    // Puts back an input only; a pinned code whose row no longer holds a format of that width
    // is dropped (the value stays).
    void restoreInput(const ExplorerInput& input);

    // Time the last recomputation of all rows took, in microseconds.
    qint64 lastUpdateMicroseconds() const { return lastUpdateMicroseconds_; }

    // Text for the input field that stands for `value` exactly: the decimal expansion when it
    // is short, a hex float otherwise.
    static QString exactInputText(const ExactValue& value);

  signals:
    // And formatsChanged (rows were added, removed or reordered) and optionsChanged.
    void rowsChanged(); // every row's report may have changed
    void inputTextChanged(const QString& text);
    void inputErrorChanged(const QString& message, int position);
    // Row `row` is about to step to its next (+1) or previous (−1) value; the change follows.
    void stepping(int row, int direction);
    void computingChanged(bool computing);
    void jobsDrained();

  private:
    // Computes the rows of the current state: here when the input is a small value, else on
    // the worker, waiting synchronousWait_ for it.
    void recompute();
    ExplorerJob job() const;
    void apply(const ExplorerJobResult& result);
    void setComputing(bool computing);

    QString inputText_ = QStringLiteral("0.3952");
    QString inputError_;
    int inputErrorPosition_ = -1;
    // The input: the value of the last text that parsed, or of a code set directly.
    ExactValue inputValue_;
    bool inputExact_ = true;
    // The row whose code was set directly, shown as is.
    std::optional<std::pair<int, Code>> pinnedCode_;
    bool textToParse_ = false; // inputText_ is not parsed yet
    RoundingOptions options_;
    std::vector<FormatSpec> formats_;
    // What is shown: the rows and the input they are for.
    std::shared_ptr<const std::vector<ExplorerRow>> rows_ =
        std::make_shared<const std::vector<ExplorerRow>>();
    ExactValue shownValue_;
    bool shownExact_ = true;
    // Something besides the text changed since the rows were computed.
    bool rowsStale_ = true;
    // The format list changed since the rows were computed: formatsChanged comes with them.
    bool formatsChangePending_ = false;
    bool computing_ = false;
    bool failureShown_ = false; // inputError_ says why the last job failed
    std::chrono::milliseconds synchronousWait_ = kSynchronousWait;
    ExplorerJobQueue* queue_;
    qint64 lastUpdateMicroseconds_ = 0;
};

// The default set and order of formats: fp64, fp32, tf32, bf16, fp16, fp8_e4m3, fp8_e5m2,
// fp6_e3m2, fp6_e2m3, fp4_e2m1, int8, int4, nf4.
std::vector<FormatSpec> defaultExplorerFormats();

} // namespace fpx::gui
