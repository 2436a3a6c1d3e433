// SPDX-License-Identifier: GPL-3.0-or-later
#include "explorer_controller.h"

#include "fpx/decimal_text.h"
#include "fpx/format_catalogue.h"
#include "fpx/nan_payload.h"
#include "fpx/value_parser.h"

#include <QElapsedTimer>

namespace fpx::gui {

std::vector<FormatSpec> defaultExplorerFormats() {
    std::vector<FormatSpec> formats;
    for (const char* id : {"fp64", "fp32", "tf32", "bf16", "fp16", "fp8_e4m3", "fp8_e5m2",
                           "fp6_e3m2", "fp6_e2m3", "fp4_e2m1", "int8", "int4", "nf4"})
        formats.push_back(*findFormat(id).spec);
    return formats;
}

ExplorerController::ExplorerController(QObject* parent) : QObject(parent) {
    rows_.reserve(16);
    for (FormatSpec& spec : defaultExplorerFormats())
        rows_.push_back({std::move(spec), {}, {}});
    setInputText(inputText_);
}

void ExplorerController::setInputText(const QString& text) {
    const bool textChanged = text != inputText_;
    inputText_ = text;
    const std::string utf8 = text.toStdString();
    const ParsedValue parsed = parseValue(utf8);
    if (!parsed) {
        // The message names the column in characters, not bytes.
        const int column =
            QString::fromUtf8(utf8.data(), static_cast<qsizetype>(parsed.error.position)).size();
        inputError_ =
            tr("Column %1: %2").arg(column + 1).arg(QString::fromStdString(parsed.error.message));
        inputErrorPosition_ = column;
        if (textChanged)
            emit inputTextChanged(inputText_);
        emit inputErrorChanged(inputError_, inputErrorPosition_);
        return;
    }
    const bool hadError = !inputError_.isEmpty();
    inputError_.clear();
    inputErrorPosition_ = -1;
    inputValue_ = *parsed.value;
    inputExact_ = parsed.exact;
    pinnedCode_.reset();
    if (textChanged)
        emit inputTextChanged(inputText_);
    if (hadError)
        emit inputErrorChanged(QString(), -1);
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
    if (row < 0 || row >= static_cast<int>(rows_.size()))
        return;
    const FormatSpec& spec = rows_[static_cast<std::size_t>(row)].spec;
    code &= spec.codeMask();
    const DecodedCode decoded = decodeCode(spec, code);
    inputValue_ = decoded.value;
    inputExact_ = true;
    inputError_.clear();
    inputErrorPosition_ = -1;
    inputText_ = exactInputText(decoded.value);
    pinnedCode_ = std::make_pair(row, code);
    emit inputTextChanged(inputText_);
    emit inputErrorChanged(QString(), -1);
    recompute();
}

bool ExplorerController::stepRow(int row, int direction) {
    if (row < 0 || row >= static_cast<int>(rows_.size()))
        return false;
    const ExplorerRow& r = rows_[static_cast<std::size_t>(row)];
    const auto& neighbour = direction > 0 ? r.report.details.nextUp : r.report.details.nextDown;
    if (!neighbour)
        return false;
    emit stepping(row, direction);
    setInputFromCode(row, neighbour->code);
    return true;
}

void ExplorerController::setRoundingMode(RoundingMode mode) {
    if (options_.mode == mode)
        return;
    options_.mode = mode;
    emit optionsChanged();
    recompute();
}

void ExplorerController::setOverflowPolicy(OverflowPolicy policy) {
    if (options_.overflow == policy)
        return;
    options_.overflow = policy;
    emit optionsChanged();
    recompute();
}

void ExplorerController::setFormats(std::vector<FormatSpec> formats) {
    rows_.clear();
    for (FormatSpec& spec : formats)
        rows_.push_back({std::move(spec), {}, {}});
    pinnedCode_.reset();
    // Reports first, so that views laid out on formatsChanged measure real contents.
    recompute(false);
    emit formatsChanged();
    emit rowsChanged();
}

std::vector<FormatSpec> ExplorerController::formats() const {
    std::vector<FormatSpec> specs;
    for (const ExplorerRow& row : rows_)
        specs.push_back(row.spec);
    return specs;
}

void ExplorerController::setRowScale(int row, const ExactValue& scale) {
    if (row < 0 || row >= static_cast<int>(rows_.size()) || !scale.isFinite() || scale.isZero() ||
        scale.isNegative())
        return;
    rows_[static_cast<std::size_t>(row)].spec.scale = scale;
    recompute();
}

bool sameFormat(const FormatSpec& a, const FormatSpec& b) {
    if (a.id != b.id || a.kind != b.kind || a.isSigned != b.isSigned ||
        a.exponentBits != b.exponentBits || a.fractionBits != b.fractionBits ||
        a.explicitIntegerBit != b.explicitIntegerBit || a.bias != b.bias ||
        a.specials != b.specials || a.exponentZeroIsSubnormal != b.exponentZeroIsSubnormal ||
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
    return {input(), options_, formats()};
}

void ExplorerController::restore(const ExplorerState& state) {
    const bool formatsDiffer = [&] {
        if (state.formats.size() != rows_.size())
            return true;
        for (std::size_t i = 0; i < rows_.size(); ++i)
            if (!sameFormat(state.formats[i], rows_[i].spec))
                return true;
        return false;
    }();
    rows_.clear();
    for (const FormatSpec& spec : state.formats)
        rows_.push_back({spec, {}, {}});
    const bool optionsDiffer =
        options_.mode != state.options.mode || options_.overflow != state.options.overflow;
    options_ = state.options;
    // The input last, and without a recomputation of its own: one recompute below.
    const bool textChanged = inputText_ != state.input.text;
    const bool hadError = !inputError_.isEmpty();
    inputText_ = state.input.text;
    inputValue_ = state.input.value;
    inputExact_ = state.input.exact;
    pinnedCode_ = state.input.pinnedCode;
    inputError_.clear();
    inputErrorPosition_ = -1;
    recompute(false);
    if (formatsDiffer)
        emit formatsChanged();
    if (optionsDiffer)
        emit optionsChanged();
    if (textChanged)
        emit inputTextChanged(inputText_);
    if (hadError)
        emit inputErrorChanged(QString(), -1);
    emit rowsChanged();
}

void ExplorerController::restoreInput(const ExplorerInput& input) {
    ExplorerState next = state();
    next.input = input;
    if (const auto& pin = input.pinnedCode;
        pin && (pin->first < 0 || pin->first >= static_cast<int>(rows_.size()) ||
                (pin->second & ~rows_[static_cast<std::size_t>(pin->first)].spec.codeMask()) != 0))
        next.input.pinnedCode.reset();
    restore(next);
}

void ExplorerController::recompute(bool notify) {
    QElapsedTimer timer;
    timer.start();
    for (std::size_t i = 0; i < rows_.size(); ++i) {
        ExplorerRow& row = rows_[i];
        row.problem.clear();
        if (!inputExact_ && !acceptsStandInInput(row.spec, inputValue_)) {
            row.problem = tr("input too long or far out to round exactly into a scaled format");
            row.report = convertAndDescribe(ExactValue::nan(), row.spec, options_);
            continue;
        }
        row.report = convertAndDescribe(inputValue_, row.spec, options_);
        // A pinned NaN code keeps its payload in every row that can hold it.
        if (pinnedCode_ && pinnedCode_->first != static_cast<int>(i) && inputValue_.isNaN())
            keepNaNPayload(row.report, rows_[static_cast<std::size_t>(pinnedCode_->first)].spec,
                           pinnedCode_->second, row.spec, options_);
        if (pinnedCode_ && pinnedCode_->first == static_cast<int>(i) &&
            pinnedCode_->second != row.report.conversion.code) {
            // The clicked code itself (a NaN payload, say), not the canonical result.
            row.report.conversion.code = pinnedCode_->second;
            row.report.conversion.flags = {};
            row.report.details = describeCode(row.spec, pinnedCode_->second, options_);
        }
    }
    lastUpdateMicroseconds_ = timer.nsecsElapsed() / 1000;
    if (notify)
        emit rowsChanged();
}

} // namespace fpx::gui
