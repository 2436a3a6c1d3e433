// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/explorer/explorer_job.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/nan_payload.h"
#include "fpx/exact/value_parser.h"
#include "fpx/exact/work_budget.h"

#include <QCoreApplication>
#include <QElapsedTimer>

#include <exception>

namespace fpx::gui {

bool isLightValue(const ExactValue& value) {
    return valueWork(value) <= kFreeValueWork;
}

namespace {

std::vector<ExplorerRow> computeRows(const ExactValue& value, bool exact,
                                     const std::optional<std::pair<int, Code>>& pinnedCode,
                                     const RoundingOptions& options,
                                     const std::vector<FormatSpec>& formats) {
    std::vector<ExplorerRow> rows;
    rows.reserve(formats.size());
    for (std::size_t i = 0; i < formats.size(); ++i) {
        ExplorerRow row{formats[i], {}, {}};
        if (!exact && !acceptsStandInInput(row.spec, value)) {
            row.problem = QCoreApplication::translate(
                "fpx::gui::ExplorerController",
                "input too long or far out to round exactly into a scaled format");
            row.report = convertAndDescribe(ExactValue::nan(), row.spec, options);
            rows.push_back(std::move(row));
            continue;
        }
        row.report = convertAndDescribe(value, row.spec, options);
        // A pinned NaN code keeps its payload in every row that can hold it.
        if (pinnedCode && pinnedCode->first != static_cast<int>(i) && value.isNaN() &&
            pinnedCode->first < static_cast<int>(formats.size()))
            keepNaNPayload(row.report, formats[static_cast<std::size_t>(pinnedCode->first)],
                           pinnedCode->second, row.spec, options);
        if (pinnedCode && pinnedCode->first == static_cast<int>(i) &&
            pinnedCode->second != row.report.conversion.code) {
            // The clicked code itself (a NaN payload, say), not the canonical result.
            row.report.conversion.code = pinnedCode->second;
            row.report.conversion.flags = {};
            row.report.details = describeCode(row.spec, pinnedCode->second, options);
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

} // namespace

ExplorerJobResult runExplorerJob(const ExplorerJob& job) {
    ExplorerJobResult result;
    result.generation = job.generation;
    result.value = job.value;
    result.exact = job.exact;
    result.pinnedCode = job.pinnedCode;
    bool computeRowsNow = true;
    if (job.parseText) {
        result.parsed = true;
        const std::string utf8 = job.text.toStdString();
        const ParsedValue parsed = parseValue(utf8);
        if (parsed) {
            result.value = *parsed.value;
            result.exact = parsed.exact;
            result.pinnedCode.reset();
        } else {
            // The message names the column in characters, not bytes.
            const int column =
                QString::fromUtf8(utf8.data(), static_cast<qsizetype>(parsed.error.position))
                    .size();
            result.parseError =
                QCoreApplication::translate("fpx::gui::ExplorerController", "Column %1: %2")
                    .arg(column + 1)
                    .arg(QString::fromStdString(parsed.error.message));
            result.parseErrorPosition = column;
            computeRowsNow = job.rowsStale;
        }
    }
    if (computeRowsNow) {
        QElapsedTimer timer;
        timer.start();
        result.rows = std::make_shared<const std::vector<ExplorerRow>>(
            computeRows(result.value, result.exact, result.pinnedCode, job.options, job.formats));
        result.microseconds = timer.nsecsElapsed() / 1000;
    }
    return result;
}

ExplorerJobResult runExplorerJobGuarded(const ExplorerJobFunction& run, const ExplorerJob& job) {
    QString what;
    try {
        return run(job);
    } catch (const std::exception& error) {
        what = QString::fromLocal8Bit(error.what());
    } catch (...) {
        what = QCoreApplication::translate("fpx::gui::ExplorerController", "unknown error");
    }
    ExplorerJobResult result;
    result.generation = job.generation;
    result.value = job.value;
    result.exact = job.exact;
    result.pinnedCode = job.pinnedCode;
    result.failure = job.parseText ? QCoreApplication::translate("fpx::gui::ExplorerController",
                                                                 "Could not compute this input: %1")
                                         .arg(what)
                                   : QCoreApplication::translate("fpx::gui::ExplorerController",
                                                                 "Could not compute the rows: %1")
                                         .arg(what);
    return result;
}

} // namespace fpx::gui
