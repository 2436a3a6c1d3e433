// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/explorer/explorer_controller.h"

#include "pages/explorer/explorer_job_queue.h"

#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"

#include <utility>

namespace fpx::gui {

std::vector<FormatSpec> defaultExplorerFormats() {
    std::vector<FormatSpec> formats;
    for (const char* id : {"fp64", "fp32", "tf32", "bf16", "fp16", "fp8_e4m3", "fp8_e5m2",
                           "fp6_e3m2", "fp6_e2m3", "fp4_e2m1", "int8", "int4", "nf4"})
        formats.push_back(*findFormat(id).spec);
    return formats;
}

ExplorerController::ExplorerController(QObject* parent)
    : FormatSelection(parent), formats_(defaultExplorerFormats()),
      queue_(new ExplorerJobQueue(this)) {
    connect(queue_, &ExplorerJobQueue::resultReady, this, &ExplorerController::apply);
    connect(queue_, &ExplorerJobQueue::jobsDrained, this, &ExplorerController::jobsDrained);
    setInputText(inputText_);
    waitForIdle();
}

ExplorerController::~ExplorerController() = default;

void ExplorerController::setInputText(const QString& text) {
    const bool textChanged = text != inputText_;
    inputText_ = text;
    textToParse_ = true;
    if (textChanged)
        emit inputTextChanged(inputText_);
    recompute();
}

QString ExplorerController::exactInputText(const ExactValue& value) {
    const DecimalText decimal = toDecimal(value);
    if (decimal.text.size() <= 48)
        return QString::fromStdString(decimal.text);
    // A dyadic value as a hex float: 0x1.94af4f0d844dp-2 — exact and short.
    const ExactValue magnitude = value.abs();
    const std::int64_t exponent = magnitude.floorLog2();
    BigInt significand = magnitude.numerator(); // odd: value = significand × 2^exponent2
    const std::int64_t fractionBits = exponent - magnitude.exponent2();
    const std::int64_t hexDigits = (fractionBits + 3) / 4;
    significand <<= static_cast<unsigned>(hexDigits * 4 - fractionBits);
    std::string hex = significand.str(0, std::ios_base::hex);
    QString text = value.isNegative() ? "-0x" : "0x";
    text += QString::fromStdString(hex.substr(0, 1));
    if (hex.size() > 1)
        text += "." + QString::fromStdString(hex.substr(1));
    text += "p" + QString::number(exponent);
    return text;
}

void ExplorerController::setInputFromCode(int row, Code code) {
    if (row < 0 || row >= static_cast<int>(formats_.size()))
        return;
    // Callers read the code from rows(); while a new format list is computed those are the
    // old list's rows, and the code would be read in another format.
    if (row >= static_cast<int>(rows().size()) ||
        !sameFormat(rows()[static_cast<std::size_t>(row)].spec,
                    formats_[static_cast<std::size_t>(row)]))
        return;
    const FormatSpec& spec = formats_[static_cast<std::size_t>(row)];
    code &= spec.codeMask();
    const DecodedCode decoded = decodeCode(spec, code);
    inputValue_ = decoded.value;
    inputExact_ = true;
    inputError_.clear();
    inputErrorPosition_ = -1;
    inputText_ = exactInputText(decoded.value);
    pinnedCode_ = std::make_pair(row, code);
    textToParse_ = false;
    rowsStale_ = true;
    emit inputTextChanged(inputText_);
    emit inputErrorChanged(QString(), -1);
    recompute();
}

bool ExplorerController::stepRow(int row, int direction) {
    if (row < 0 || row >= static_cast<int>(rows().size()))
        return false;
    const ExplorerRow& r = rows()[static_cast<std::size_t>(row)];
    // Rows of a format list still being computed step nowhere: the code would be read in
    // another format.
    if (row >= static_cast<int>(formats_.size()) ||
        !sameFormat(r.spec, formats_[static_cast<std::size_t>(row)]))
        return false;
    const auto& neighbour = direction > 0 ? r.report.details.nextUp : r.report.details.nextDown;
    if (!neighbour)
        return false;
    const Code code = neighbour->code; // `r` may be gone once a receiver of stepping() is done
    emit stepping(row, direction);
    setInputFromCode(row, code);
    return true;
}

void ExplorerController::setRoundingChoice(const RoundingChoice& choice) {
    // The random-bit rule means something under stochastic rounding only: kept at its default
    // otherwise, so that "rne" is one choice whatever came before.
    const RandomBitRule rule =
        choice.mode == RoundingMode::Stochastic ? choice.stochastic : RandomBitRule{};
    if (options_.mode == choice.mode && options_.stochastic == rule)
        return;
    options_.mode = choice.mode;
    options_.stochastic = rule;
    rowsStale_ = true;
    emit optionsChanged();
    recompute();
}

void ExplorerController::setOverflowPolicy(OverflowPolicy policy) {
    if (options_.overflow == policy)
        return;
    options_.overflow = policy;
    rowsStale_ = true;
    emit optionsChanged();
    recompute();
}

void ExplorerController::setFormats(std::vector<FormatSpec> formats) {
    formats_ = std::move(formats);
    pinnedCode_.reset();
    rowsStale_ = true;
    // formatsChanged comes with the rows, so that views laid out on it measure real contents.
    formatsChangePending_ = true;
    recompute();
}

void ExplorerController::setRowScale(int row, const ExactValue& scale) {
    if (row < 0 || row >= static_cast<int>(formats_.size()) || !scale.isFinite() ||
        scale.isZero() || scale.isNegative())
        return;
    formats_[static_cast<std::size_t>(row)].scale = scale;
    rowsStale_ = true;
    recompute();
}

bool sameFormat(const FormatSpec& a, const FormatSpec& b) {
    if (a.id != b.id || a.kind != b.kind || a.isSigned != b.isSigned ||
        a.exponentBits != b.exponentBits || a.fractionBits != b.fractionBits ||
        a.explicitIntegerBit != b.explicitIntegerBit || a.bias != b.bias ||
        a.specials != b.specials || a.exponentZeroIsSubnormal != b.exponentZeroIsSubnormal ||
        a.infinityAtTop != b.infinityAtTop || a.evenCodeTies != b.evenCodeTies ||
        a.integerBits != b.integerBits || a.isCustom != b.isCustom ||
        a.table.size() != b.table.size() || !a.scale.isIdenticalTo(b.scale))
        return false;
    for (std::size_t i = 0; i < a.table.size(); ++i)
        if (!a.table[i].isIdenticalTo(b.table[i]))
            return false;
    return true;
}

bool ExplorerInput::sameAs(const ExplorerInput& other) const {
    return text == other.text && value.isIdenticalTo(other.value) && exact == other.exact &&
           pinnedCode == other.pinnedCode;
}

bool ExplorerState::sameAs(const ExplorerState& other) const {
    if (!input.sameAs(other.input) || options.mode != other.options.mode ||
        options.overflow != other.options.overflow || formats.size() != other.formats.size())
        return false;
    for (std::size_t i = 0; i < formats.size(); ++i)
        if (!sameFormat(formats[i], other.formats[i]))
            return false;
    return true;
}

ExplorerInput ExplorerController::input() const {
    return {inputText_, inputValue_, inputExact_, pinnedCode_};
}

ExplorerState ExplorerController::state() const {
    return {input(), options_, formats_};
}

void ExplorerController::restore(const ExplorerState& state) {
    const bool formatsDiffer = [&] {
        if (state.formats.size() != formats_.size())
            return true;
        for (std::size_t i = 0; i < formats_.size(); ++i)
            if (!sameFormat(state.formats[i], formats_[i]))
                return true;
        return false;
    }();
    formats_ = state.formats;
    const bool optionsDiffer =
        options_.mode != state.options.mode || options_.overflow != state.options.overflow;
    options_ = state.options;
    const bool textChanged = inputText_ != state.input.text;
    const bool hadError = !inputError_.isEmpty();
    inputText_ = state.input.text;
    inputValue_ = state.input.value;
    inputExact_ = state.input.exact;
    pinnedCode_ = state.input.pinnedCode;
    inputError_.clear();
    inputErrorPosition_ = -1;
    textToParse_ = false;
    rowsStale_ = true;
    formatsChangePending_ = formatsChangePending_ || formatsDiffer;
    // The state's signals at once, the rows' (formatsChanged, rowsChanged) when they are there.
    if (optionsDiffer)
        emit optionsChanged();
    if (textChanged)
        emit inputTextChanged(inputText_);
    if (hadError)
        emit inputErrorChanged(QString(), -1);
    recompute();
}

void ExplorerController::restoreInput(const ExplorerInput& input) {
    ExplorerState next = state();
    next.input = input;
    if (const auto& pin = input.pinnedCode;
        pin && (pin->first < 0 || pin->first >= static_cast<int>(formats_.size()) ||
                (pin->second & ~formats_[static_cast<std::size_t>(pin->first)].codeMask()) != 0))
        next.input.pinnedCode.reset();
    restore(next);
}

ExplorerJob ExplorerController::job() const {
    ExplorerJob job;
    job.text = inputText_;
    job.parseText = textToParse_;
    job.value = inputValue_;
    job.exact = inputExact_;
    job.pinnedCode = pinnedCode_;
    job.options = options_;
    job.formats = formats_;
    job.rowsStale = rowsStale_;
    return job;
}

void ExplorerController::recompute() {
    // A small value costs less than handing it to a thread: computed here, deterministically,
    // and whatever a worker is still computing is stale from now on.
    if (!textToParse_ && isLightValue(inputValue_)) {
        queue_->supersede();
        apply(runExplorerJobGuarded(queue_->jobFunction(), job()));
        return;
    }
    queue_->submit(job());
    // Most texts parse and round in far less than the wait: shown before this returns, like
    // the small values above, with no flicker of a "computing" state.
    if (std::optional<ExplorerJobResult> result = queue_->waitForNewest(synchronousWait_)) {
        apply(*result);
        return;
    }
    // An error shown is an older text's ("3^66500/7^": expected an exponent); the one of the
    // text being parsed is not known yet.
    if (textToParse_ && !inputError_.isEmpty()) {
        inputError_.clear();
        inputErrorPosition_ = -1;
        failureShown_ = false;
        emit inputErrorChanged(QString(), -1);
    }
    setComputing(true);
}

void ExplorerController::waitForIdle() {
    if (std::optional<ExplorerJobResult> result = queue_->waitForNewest(std::nullopt))
        apply(*result);
}

bool ExplorerController::jobsInFlight() const {
    return !queue_->drained();
}

bool ExplorerController::waitForIdle(std::chrono::milliseconds timeout) {
    if (std::optional<ExplorerJobResult> result = queue_->waitForNewest(timeout))
        apply(*result);
    return !computing_ && !queue_->busy();
}

void ExplorerController::setJobFunction(ExplorerJobFunction run) {
    queue_->setJobFunction(std::move(run));
}

void ExplorerController::apply(const ExplorerJobResult& result) {
    if (!result.failure.isEmpty()) {
        // Shown like a parse error; the rows keep what they showed.
        textToParse_ = false;
        inputError_ = result.failure;
        inputErrorPosition_ = -1;
        emit inputErrorChanged(inputError_, inputErrorPosition_);
        failureShown_ = true;
        setComputing(false);
        return;
    }
    // A failure is the job's, not the text's: the next job that does not parse says no more.
    if (std::exchange(failureShown_, false) && !result.parsed) {
        inputError_.clear();
        inputErrorPosition_ = -1;
        emit inputErrorChanged(QString(), -1);
    }
    if (result.parsed) {
        textToParse_ = false;
        if (!result.parseError.isEmpty()) {
            inputError_ = result.parseError;
            inputErrorPosition_ = result.parseErrorPosition;
            emit inputErrorChanged(inputError_, inputErrorPosition_);
        } else {
            const bool hadError = !inputError_.isEmpty();
            inputError_.clear();
            inputErrorPosition_ = -1;
            inputValue_ = result.value;
            inputExact_ = result.exact;
            pinnedCode_.reset();
            if (hadError)
                emit inputErrorChanged(QString(), -1);
        }
    }
    if (!result.rows) {
        setComputing(false);
        return;
    }
    rows_ = result.rows;
    shownValue_ = result.value;
    shownExact_ = result.exact;
    lastUpdateMicroseconds_ = result.microseconds;
    rowsStale_ = false;
    setComputing(false);
    if (std::exchange(formatsChangePending_, false))
        emit formatsChanged();
    emit rowsChanged();
}

void ExplorerController::setComputing(bool computing) {
    if (computing_ == computing)
        return;
    computing_ = computing;
    emit computingChanged(computing_);
}

} // namespace fpx::gui
