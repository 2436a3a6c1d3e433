// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/quantization/quantization_table.h"

#include "pages/quantization/quantization_plots.h"

#include <QCoreApplication>
#include <QHeaderView>
#include <QLocale>
#include <QPixmap>
#include <QTableWidget>

#include <cmath>
#include <iterator>

namespace fpx::gui::quantization_table {

namespace {

constexpr const char* kHeaders[] = {"Format",  "SQNR (dB)",    "RMSE",  "Max |error|", "Clipped",
                                    "Flushed", "Bits/element", "Bytes", "Path"};
constexpr const char* kTips[] = {
    "The quantizer: a block format with shared scales, or a direct cast (no scale).",
    "Signal-to-quantization-noise ratio, 10·log10(Σx² / Σ(x − q)²), over the finite inputs.",
    "Root of the mean squared error.",
    "The largest |x − q|.",
    "Finite inputs whose scaled value saturated at the element's largest value.",
    "Non-zero finite inputs that became zero.",
    "Storage bits per element, the scales included.",
    "Storage bytes of the whole tensor, codes and scales.",
    ("How it was computed: a fast kernel proved bit-exact against the exact core, or the exact "
     "core itself.")};
static_assert(std::size(kHeaders) == ColumnCount);
static_assert(std::size(kTips) == ColumnCount);

// The page's context, so that the strings keep the translation context they had there.
QString tr(const char* text, const char* disambiguation = nullptr, int n = -1) {
    return QCoreApplication::translate("fpx::gui::QuantizationPage", text, disambiguation, n);
}

QTableWidgetItem* cell(const QString& text, const QString& tip = {}) {
    auto* item = new QTableWidgetItem(text);
    item->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    item->setToolTip(tip.isEmpty() ? text : tip);
    return item;
}

QString sqnrText(double db) {
    if (std::isinf(db))
        return db > 0 ? QStringLiteral("∞") : QStringLiteral("−∞");
    return QString::number(db, 'f', 4);
}

} // namespace

void setUp(QTableWidget& table) {
    table.setColumnCount(ColumnCount);
    for (int c = 0; c < ColumnCount; ++c) {
        auto* header = new QTableWidgetItem(tr(kHeaders[c]));
        header->setToolTip(tr(kTips[c]));
        table.setHorizontalHeaderItem(c, header);
    }
    table.verticalHeader()->setVisible(false);
    table.setAlternatingRowColors(true);
    table.setSelectionBehavior(QAbstractItemView::SelectRows);
    table.setSelectionMode(QAbstractItemView::SingleSelection);
    table.setWordWrap(false);
}

void fill(QTableWidget& table, const QuantizationResult& result) {
    table.clearContents();
    table.clearSpans();
    table.setRowCount(int(result.outcomes.size()));
    for (int r = 0; r < int(result.outcomes.size()); ++r) {
        const FormatOutcome& o = result.outcomes[std::size_t(r)];
        auto* name = cell(QString::fromStdString(o.id),
                          o.format ? QString::fromStdString(o.format->displayName) : QString());
        name->setIcon(plots::seriesSwatch(r));
        table.setItem(r, Format, name);
        if (!o.quantized) {
            auto* message =
                cell(QStringLiteral("⚠ ") +
                     QString::fromStdString(o.error.empty() ? std::string("not run (cancelled)")
                                                            : o.error));
            message->setForeground(
                plots::meaningColour(plots::Meaning::Bad, plots::plotTheme(table.palette())));
            table.setItem(r, Sqnr, message);
            table.setSpan(r, Sqnr, 1, ColumnCount - Sqnr);
            continue;
        }
        const QuantizationReport& q = o.report;
        auto number = [](double x) { return QString::number(x, 'g', 6); };
        auto count = [](std::size_t n) { return QLocale().toString(qulonglong(n)); };
        auto* sqnr = cell(sqnrText(q.sqnrDb));
        sqnr->setData(Qt::UserRole, q.sqnrDb);
        table.setItem(r, Sqnr, sqnr);
        table.setItem(r, Rmse, cell(number(q.rmse)));
        table.setItem(r, MaxError,
                      cell(number(q.maxAbsError), tr("%1 at element %L2")
                                                      .arg(number(q.maxAbsError))
                                                      .arg(qulonglong(q.maxErrorIndex))));
        table.setItem(r, Clipped, cell(count(q.clipped)));
        table.setItem(r, Flushed, cell(count(q.flushed)));
        table.setItem(r, BitsPerElement, cell(number(q.bitsPerElement)));
        table.setItem(r, Bytes, cell(count(q.bytes)));
        QString path = QString::fromStdString(o.path);
        if (q.nanInputs || q.infInputs)
            path += tr("; %L1 NaN, %L2 ±∞ inputs left out")
                        .arg(qulonglong(q.nanInputs))
                        .arg(qulonglong(q.infInputs));
        table.setItem(r, Path, cell(path));
        for (int c = Sqnr; c < Path; ++c)
            table.item(r, c)->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    // Each column as wide as its text, the last one stretched to the table's edge: the header
    // stretches only when the flag turns on, so it is turned off for the new widths first.
    table.horizontalHeader()->setStretchLastSection(false);
    table.resizeColumnsToContents();
    table.horizontalHeader()->setStretchLastSection(true);
}

} // namespace fpx::gui::quantization_table
