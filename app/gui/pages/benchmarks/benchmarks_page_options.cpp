// SPDX-License-Identifier: GPL-3.0-or-later
// The Benchmarks page's options: the table the command line and lessons share, and the page's
// typed state applied and read back.
#include "pages/benchmarks/benchmarks_panel.h"

#include "fpx/exact/format_catalogue.h"

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QLineEdit>

#include <array>

namespace fpx::gui {
namespace {

using Option = PageOption<BenchmarksPageState>;
using State = BenchmarksPageState;

const std::array kOptions{
    Option{"bench-formats", "LIST", "Formats to benchmark, comma-separated ids.",
           [](const QString& text, State& state) {
               const FormatListLookup lookup = findFormats(text.toStdString());
               if (!lookup.error.empty())
                   return QString::fromStdString(lookup.error);
               state.formats = QStringList();
               for (const FormatSpec& spec : lookup.specs)
                   *state.formats << QString::fromStdString(spec.id);
               return QString();
           },
           OpensPage::No},
    Option{"bench-budget", "SECONDS", "Seconds per benchmark measurement.",
           [](const QString& text, State& state) {
               bool ok = false;
               const double seconds = text.toDouble(&ok);
               if (!ok || !(seconds >= 0.01 && seconds <= 60))
                   return QStringLiteral("expected seconds, 0.01 to 60");
               state.budget = seconds;
               return QString();
           }},
    Option{"bench-sizes", "LIST",
           "Array sizes to benchmark, in elements: 4k,1M,… (instead of in cache and beyond the "
           "last-level cache).",
           [](const QString& text, State& state) {
               QString error;
               if (!BenchmarksPanel::parseSizes(text, &error))
                   return error;
               state.sizes = text;
               return QString();
           }},
    Option{"bench-compare", "FILE", "Compare the benchmarks with a run saved as JSON.",
           [](const QString& text, State& state) {
               state.compare = text;
               return QString();
           },
           OpensPage::No, OptionUse::CommandLineOnly},
    Option{"bench-preset", "NAME",
           "The run --bench-run starts: full (what the form says) or class (a few conversions "
           "a class reads in seconds, as fpx bench --preset class).",
           [](const QString& text, State& state) {
               if (text != "full" && text != "class")
                   return QStringLiteral("use full or class");
               state.classPreset = text == "class";
               return QString();
           },
           OpensPage::Yes, OptionUse::CommandLineOnly},
    Option{"bench-run", nullptr,
           "Start a benchmark with the Benchmarks page's settings (with --screenshot: wait for "
           "it to finish).",
           [](const QString&, State& state) {
               state.run = true;
               return QString();
           },
           OpensPage::Yes, OptionUse::CommandLineOnly},
};

} // namespace

std::span<const PageOption<BenchmarksPageState>> BenchmarksPanel::options() {
    return kOptions;
}

QString BenchmarksPanel::apply(const BenchmarksPageState& state) {
    if (state.formats)
        setFormats(*state.formats);
    if (state.budget)
        setBudget(*state.budget);
    if (state.sizes)
        setSizes(false, false, *state.sizes);
    if (state.compare) {
        QString error;
        MessageSink sink = std::exchange(
            messageSink_, [&error](const QString&, const QString& text) { error = text; });
        const bool loaded = loadComparison(*state.compare);
        messageSink_ = std::move(sink);
        if (!loaded)
            return "--bench-compare: " + error;
    }
    if (state.run) {
        if (state.classPreset)
            runClass();
        else
            run();
    }
    return {};
}

BenchmarksPageState BenchmarksPanel::state() const {
    BenchmarksPageState state;
    state.formats = checkedFormats();
    state.budget = budget_->value();
    if (customSize_->isChecked())
        state.sizes = customSizes_->text();
    return state;
}

} // namespace fpx::gui
