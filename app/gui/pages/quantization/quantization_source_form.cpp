// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/quantization/quantization_source_form.h"

#include "common/tensor_source_form.h"

#include "fpx/quantization/block_format.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QListWidget>
#include <QScrollBar>

#include <algorithm>
#include <vector>

namespace fpx::gui {

namespace {

// Direct casts offered beside the scaled quantizers: the element formats of the common ones.
const QStringList kDirectCasts = {"fp8_e4m3", "fp8_e5m2", "fp6_e2m3", "fp4_e2m1", "bf16", "fp16"};
const QStringList kDefaultFormats = {"mxfp8_e4m3", "mxfp4", "nvfp4", "nf4", "int4", "fp8_e4m3"};

} // namespace

QuantizationSourceForm::QuantizationSourceForm(QWidget* parent) : QWidget(parent) {
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    source_ = new TensorSourceForm(
        {.objectPrefix = "quant",
         .fileFirst = true,
         .kindTip = tr("Quantize a tensor from a file (.npy, .safetensors, raw, text; or drop "
                       "one on the page) or values drawn from a distribution."),
         .pathPlaceholder = tr("weights.safetensors"),
         .distributions = {"normal:0:1", "laplace:1", "student:3", "uniform:-1:1"},
         .distributionTip = tr("normal:MU:SIGMA, lognormal:MU:SIGMA, laplace:B, student:NU or "
                               "uniform:A:B; drawn in double, each value rounded once to FP32."),
         .count = 65536,
         .outliers = true,
         .chooseFileMessage = tr("Choose a tensor file (Open…, or drop one on the page).")},
        this);
    form->addRow(source_);

    formats_ = new QListWidget(this);
    formats_->setObjectName("quantFormats");
    formats_->setToolTip(tr("The quantizers to compare: scaled block formats and direct casts."));
    QStringList ids;
    for (const std::string& id : scaledQuantizerIds())
        ids << QString::fromStdString(id);
    ids << kDirectCasts;
    order_ = ids;
    for (const QString& id : ids) {
        std::string error;
        const std::optional<BlockFormat> format = findBlockFormat(id.toStdString(), {}, error);
        auto* item = new QListWidgetItem(id, formats_);
        item->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled);
        item->setCheckState(kDefaultFormats.contains(id) ? Qt::Checked : Qt::Unchecked);
        item->setToolTip(
            format ? QString::fromStdString(format->displayName + ". " + format->description)
                   : QString::fromStdString(error));
    }
    form->addRow(tr("&Formats"), formats_);
    block_ = new QComboBox(this);
    block_->setObjectName("quantBlockLayout");
    block_->setEditable(true);
    block_->addItems({"default", "16", "32", "64", "128", "256", "row", "tensor"});
    block_->setToolTip(tr("Elements per scale for every scaled format: default (each format's "
                          "own), N consecutive elements, a row, or the whole tensor."));
    form->addRow(tr("&Block"), block_);
    scaleRule_ = new QComboBox(this);
    scaleRule_->setObjectName("quantScaleRule");
    scaleRule_->addItems({"default", "floor", "ceil", "even"});
    scaleRule_->setToolTip(tr("How an MX block's power-of-two scale follows from its amax: floor "
                              "(OCP MX v1.0, may saturate), ceil (never saturates), even (amax "
                              "first rounded to the element's precision)."));
    form->addRow(tr("Scale &rule"), scaleRule_);
    alignFormLabels(QList<QFormLayout*>{form} + source_->forms());

    connect(source_, &TensorSourceForm::fileChosen, this, &QuantizationSourceForm::fileChosen);
}

QString QuantizationSourceForm::setInputFile(const QString& argument, const QString& dtype) {
    const QString error = source_->setFile(argument, dtype);
    showFieldsFromTheStart();
    return error;
}

QString QuantizationSourceForm::setDistribution(const QString& spec, qulonglong count,
                                                qulonglong seed, const QString& outliers) {
    const QString error = source_->setDistribution(spec, count, seed, outliers);
    showFieldsFromTheStart();
    return error;
}

void QuantizationSourceForm::showFieldsFromTheStart() {
    // A text wider than its field shows the part its cursor was last scrolled to, which
    // depends on the field's widths since: from the start, the same text always looks the same.
    for (QLineEdit* edit : source_->findChildren<QLineEdit*>())
        edit->setCursorPosition(0);
}

QString QuantizationSourceForm::setFormats(const QStringList& ids) {
    QStringList wanted;
    for (const QString& entry : ids)
        for (const QString& id : entry.split(',', Qt::SkipEmptyParts))
            wanted << id.trimmed();
    for (const QString& id : wanted) {
        std::string error;
        if (!findBlockFormat(id.toStdString(), {}, error))
            return QString::fromStdString(error);
        if (formats_->findItems(id, Qt::MatchExactly).isEmpty()) {
            auto* item = new QListWidgetItem(id, formats_);
            item->setFlags(Qt::ItemIsUserCheckable | Qt::ItemIsEnabled);
            order_ << id;
        }
    }
    // Checked in the order given: the table, the colours and the legends follow it. The rest
    // in the list's own order, whatever was checked before, and the list from its top: the
    // same formats always look the same.
    for (int i = formats_->count() - 1; i >= 0; --i) {
        QListWidgetItem* item = formats_->item(i);
        item->setCheckState(wanted.contains(item->text()) ? Qt::Checked : Qt::Unchecked);
    }
    std::vector<QListWidgetItem*> items;
    while (formats_->count() > 0)
        items.push_back(formats_->takeItem(0));
    auto rank = [&](const QListWidgetItem* item) {
        const qsizetype given = wanted.indexOf(item->text());
        return given >= 0 ? given : wanted.size() + order_.indexOf(item->text());
    };
    std::stable_sort(items.begin(), items.end(),
                     [&](const auto* a, const auto* b) { return rank(a) < rank(b); });
    for (QListWidgetItem* item : items)
        formats_->addItem(item);
    formats_->scrollToTop();
    formats_->horizontalScrollBar()->setValue(0);
    return {};
}

QString QuantizationSourceForm::setBlock(const QString& layout) {
    block_->setEditText(layout);
    std::string error;
    if (layout != "default" && !parseBlockLayout(layout.toStdString(), error))
        return QString::fromStdString(error);
    return {};
}

QString QuantizationSourceForm::blockText() const {
    return block_->currentText();
}

QString QuantizationSourceForm::scaleRuleText() const {
    return scaleRule_->currentText();
}

QString QuantizationSourceForm::setScaleRule(const QString& rule) {
    const int i = scaleRule_->findText(rule);
    if (i < 0)
        return tr("unknown scale rule '%1' (use floor, ceil or even)").arg(rule);
    scaleRule_->setCurrentIndex(i);
    return {};
}

std::optional<QuantizationRequest> QuantizationSourceForm::request(QString& error) const {
    QuantizationRequest r;
    const std::optional<TensorSource> source = source_->source(error);
    if (!source)
        return std::nullopt;
    r.source = *source;
    for (int i = 0; i < formats_->count(); ++i)
        if (formats_->item(i)->checkState() == Qt::Checked)
            r.formats.push_back(formats_->item(i)->text().toStdString());
    if (r.formats.empty()) {
        error = tr("Check at least one format.");
        return std::nullopt;
    }
    const QString block = block_->currentText().trimmed();
    if (block != "default" && !block.isEmpty()) {
        std::string message;
        r.options.blocks = parseBlockLayout(block.toStdString(), message);
        if (!r.options.blocks) {
            error = tr("Block: %1").arg(QString::fromStdString(message));
            return std::nullopt;
        }
    }
    if (scaleRule_->currentIndex() > 0)
        r.options.scaleRule = parseScaleRule(scaleRule_->currentText().toStdString());
    return r;
}

void QuantizationSourceForm::openFile() {
    source_->openFile();
}

} // namespace fpx::gui
