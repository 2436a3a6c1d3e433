// SPDX-License-Identifier: GPL-3.0-or-later
// The Quantization page's options: the table the command line and lessons share, and the
// page's typed state applied and read back.
#include "pages/quantization/quantization_page.h"
#include "pages/quantization/quantization_source_form.h"

#include <QDir>
#include <QFile>
#include <QScrollArea>
#include <QScrollBar>
#include <QStandardPaths>

#include <array>

namespace fpx::gui {
namespace {

using Option = PageOption<QuantizationPageState>;
using State = QuantizationPageState;

// Values a distribution draws unless --count says.
constexpr qulonglong kDefaultCount = 65536;

QString setWholeNumber(const QString& text, std::optional<qulonglong>& field) {
    QString error;
    field = wholeNumber(text, error);
    return error;
}

const std::array kOptions{
    Option{"input", "FILE[:TENSOR]",
           "Quantization page: quantize the tensor in FILE (.npy, .safetensors, raw with "
           "--dtype, text); FILE:TENSOR picks one.",
           [](const QString& text, State& state) {
               state.input = text;
               return QString(); // read when applied
           },
           OpensPage::Yes},
    Option{"dtype", "DTYPE",
           "Quantization page: the dtype of a raw --input file: f32, f64, f16, bf16, e4m3 or "
           "e5m2.",
           [](const QString& text, State& state) {
               state.dtype = text;
               return QString();
           }},
    Option{"dist", "SPEC",
           "Quantization page: quantize values drawn from SPEC: normal:MU:SIGMA, "
           "lognormal:MU:SIGMA, laplace:B, student:NU or uniform:A:B.",
           [](const QString& text, State& state) {
               state.dist = text;
               return QString(); // checked with the count and seed when applied
           },
           OpensPage::Yes},
    Option{"count", "N", "Quantization page: how many values --dist draws (65536).",
           [](const QString& text, State& state) { return setWholeNumber(text, state.count); }},
    Option{"seed", "S", "Quantization page: the seed of --dist.",
           [](const QString& text, State& state) { return setWholeNumber(text, state.seed); }},
    Option{"outliers", "FRACTION:SCALE",
           "Quantization page: that FRACTION of --dist's values times SCALE.",
           [](const QString& text, State& state) {
               state.outliers = text;
               return QString();
           }},
    Option{"example", "NAME",
           "Quantization page: quantize a bundled example tensor: weights (256x512 Student-t "
           "weights with outliers).",
           [](const QString& text, State& state) {
               if (text != "weights")
                   return QStringLiteral("the bundled example is weights");
               state.example = text;
               return QString();
           },
           OpensPage::Yes},
    Option{"formats", "LIST",
           "Quantization page (with --page quantize): the quantizers compared, comma-separated.",
           [](const QString& text, State& state) {
               state.formats = text.split(',', Qt::SkipEmptyParts);
               return QString(); // the form checks the ids
           }},
    Option{"block", "N",
           "Quantization page: elements per scale (N, row or tensor) for every scaled format.",
           [](const QString& text, State& state) {
               state.block = text;
               return QString();
           }},
    Option{"scale-rule", "RULE", "Quantization page: MX scale rule: floor, ceil or even.",
           [](const QString& text, State& state) {
               state.scaleRule = text;
               return QString();
           }},
    Option{"select", "FORMAT",
           "Quantization page (with --page quantize): select the row of FORMAT after the run.",
           [](const QString& text, State& state) {
               state.select = text;
               return QString();
           }},
    Option{"inspect-block", "N",
           "Quantization page: inspect block N of the selected format (default: the block "
           "with the largest scale).",
           [](const QString& text, State& state) {
               bool ok = false;
               const qulonglong block = text.toULongLong(&ok);
               if (!ok)
                   return QStringLiteral("expected a block number, from 0");
               state.inspectBlock = block;
               return QString();
           }},
};

// The bundled example `name` as a file: the page reads tensors from files (memory-mapped), so
// the resource is copied out once; the file name is what the page shows as the source.
QString exampleFile(const QString& name, QString& error) {
    const QString directory =
        QStandardPaths::writableLocation(QStandardPaths::TempLocation) + "/fpx-examples";
    const QString path = directory + "/" + name + ".npy";
    QFile resource(":/examples/" + name + ".npy");
    if (!resource.open(QIODevice::ReadOnly)) {
        error = "the example " + name + " is not built into this program";
        return {};
    }
    const QByteArray bytes = resource.readAll();
    QFile copy(path);
    const bool current = copy.open(QIODevice::ReadOnly) && copy.readAll() == bytes;
    copy.close();
    if (!current) {
        QDir().mkpath(directory);
        if (!copy.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
            copy.write(bytes) != bytes.size() || !copy.flush()) {
            error = "cannot write " + path + ": " + copy.errorString();
            return {};
        }
    }
    return path;
}

} // namespace

std::span<const PageOption<QuantizationPageState>> QuantizationPage::options() {
    return kOptions;
}

QString QuantizationPage::apply(const QuantizationPageState& state) {
    if (int(state.input.has_value()) + int(state.dist.has_value()) +
            int(state.example.has_value()) >
        1)
        return "--input, --dist and --example: give one source";
    if (state.input) {
        if (QString error = setInputFile(*state.input, state.dtype.value_or(QString()));
            !error.isEmpty())
            return "--input: " + error;
    } else if (state.dtype) {
        return "--dtype: only with --input";
    }
    if (state.dist) {
        if (QString error =
                setDistribution(*state.dist, state.count.value_or(kDefaultCount),
                                state.seed.value_or(1), state.outliers.value_or(QString()));
            !error.isEmpty())
            return "--dist: " + error;
    } else if (state.count || state.seed || state.outliers) {
        return QStringLiteral("--%1: only with --dist")
            .arg(state.count  ? "count"
                 : state.seed ? "seed"
                              : "outliers");
    }
    if (state.example) {
        QString error;
        const QString path = exampleFile(*state.example, error);
        if (path.isEmpty())
            return "--example: " + error;
        if (error = setInputFile(path); !error.isEmpty())
            return "--example: " + error;
    }
    if (state.formats)
        if (QString error = setFormats(*state.formats); !error.isEmpty())
            return "--formats: " + error;
    if (state.block)
        if (QString error = setBlock(*state.block); !error.isEmpty())
            return "--block: " + error;
    if (state.scaleRule)
        if (QString error = setScaleRule(*state.scaleRule); !error.isEmpty())
            return "--scale-rule: " + error;
    // Either names what the next run shows; without --select the row selected now stays.
    if (state.select || state.inspectBlock)
        selectAfterRun(state.select, state.inspectBlock);
    // What is set is shown from the top of the results, wherever they were scrolled to.
    resultsArea()->verticalScrollBar()->setValue(0);
    return {};
}

QuantizationPageState QuantizationPage::state() const {
    QuantizationPageState state;
    QString error;
    if (const std::optional<QuantizationRequest> request = form_->request(error)) {
        const TensorSource& source = request->source;
        if (source.kind == TensorSource::Kind::File) {
            state.input = QString::fromStdString(source.argument);
            state.dtype = source.raw ? QString::fromStdString(source.raw->dtype) : QString();
        } else {
            state.dist = QString::fromStdString(source.distribution);
            state.count = source.count;
            state.seed = source.seed;
            state.outliers = QString::fromStdString(source.outliers);
        }
        state.formats = QStringList();
        for (const std::string& id : request->formats)
            *state.formats << QString::fromStdString(id);
    }
    state.block = form_->blockText();
    state.scaleRule = form_->scaleRuleText();
    // The format shown: the one the next run will select, else the selected row; empty for
    // the first format (what a page that has not run yet shows).
    const int row = selectedFormat();
    state.select = pendingFormat_ ? *pendingFormat_
                   : row >= 0     ? QString::fromStdString(result_.outcomes[std::size_t(row)].id)
                                  : QString();
    return state;
}

} // namespace fpx::gui
