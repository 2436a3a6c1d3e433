// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/quantization/quantization_source_form.h"

#include "fpx/data/value_distribution.h"
#include "fpx/quantization/block_format.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStackedWidget>
#include <QStandardItemModel>

namespace fpx::gui {

namespace {

// Direct casts offered beside the scaled quantizers: the element formats of the common ones.
const QStringList kDirectCasts = {"fp8_e4m3", "fp8_e5m2", "fp6_e2m3", "fp4_e2m1", "bf16", "fp16"};
const QStringList kDefaultFormats = {"mxfp8_e4m3", "mxfp4", "nvfp4", "nf4", "int4", "fp8_e4m3"};
const QStringList kRawTypes = {"f32", "f64", "f16", "bf16", "e4m3", "e5m2"};
constexpr int kMaxCount = 100'000'000;

} // namespace

QuantizationSourceForm::QuantizationSourceForm(QWidget* parent) : QWidget(parent) {
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    sourceKind_ = new QComboBox(this);
    sourceKind_->setObjectName("quantSourceKind");
    sourceKind_->addItems({tr("Tensor file"), tr("Distribution")});
    sourceKind_->setToolTip(tr("Quantize a tensor from a file (.npy, .safetensors, raw, text; "
                               "or drop one on the page) or values drawn from a distribution."));
    form->addRow(tr("&Source"), sourceKind_);
    sourceStack_ = new QStackedWidget(this);

    auto* filePage = new QWidget(sourceStack_);
    auto* fileForm = new QFormLayout(filePage);
    fileForm->setContentsMargins(0, 0, 0, 0);
    auto* fileRow = new QHBoxLayout;
    path_ = new QLineEdit(filePage);
    path_->setObjectName("quantPath");
    path_->setPlaceholderText(tr("weights.safetensors"));
    path_->setToolTip(tr("The tensor file: .npy, .safetensors, raw little-endian values (give "
                         "the dtype) or text, one value per line."));
    auto* open = new QPushButton(tr("&Open…"), filePage);
    fileRow->addWidget(path_, 1);
    fileRow->addWidget(open);
    fileForm->addRow(tr("File"), fileRow);
    tensor_ = new QComboBox(filePage);
    tensor_->setObjectName("quantTensor");
    tensor_->setToolTip(tr("The tensor of a .safetensors file to quantize."));
    fileForm->addRow(tr("&Tensor"), tensor_);
    dtype_ = new QComboBox(filePage);
    dtype_->setObjectName("quantDtype");
    dtype_->addItem(tr("from the header"), QString());
    for (const QString& t : kRawTypes)
        dtype_->addItem(tr("raw %1").arg(t), t);
    dtype_->setToolTip(tr("A headerless file's element type (little-endian)."));
    fileForm->addRow(tr("&Dtype"), dtype_);
    sourceStack_->addWidget(filePage);

    auto* distPage = new QWidget(sourceStack_);
    auto* distForm = new QFormLayout(distPage);
    distForm->setContentsMargins(0, 0, 0, 0);
    distribution_ = new QComboBox(distPage);
    distribution_->setObjectName("quantDistribution");
    distribution_->setEditable(true);
    distribution_->addItems({"normal:0:1", "laplace:1", "student:3", "uniform:-1:1"});
    distribution_->setToolTip(tr("normal:MU:SIGMA, lognormal:MU:SIGMA, laplace:B, student:NU or "
                                 "uniform:A:B; drawn in double, each value rounded once to FP32."));
    distForm->addRow(tr("&Kind"), distribution_);
    outliers_ = new QLineEdit(distPage);
    outliers_->setObjectName("quantOutliers");
    outliers_->setPlaceholderText(tr("none, or 0.001:100"));
    outliers_->setToolTip(tr("FRACTION:SCALE: that fraction of the values multiplied by SCALE, "
                             "as activations with a few huge channels."));
    distForm->addRow(tr("O&utliers"), outliers_);
    count_ = new QSpinBox(distPage);
    count_->setObjectName("quantCount");
    count_->setRange(1, kMaxCount);
    count_->setValue(65536);
    count_->setGroupSeparatorShown(true);
    distForm->addRow(tr("&Count"), count_);
    seed_ = new QSpinBox(distPage);
    seed_->setRange(0, 1'000'000'000);
    seed_->setValue(1);
    distForm->addRow(tr("S&eed"), seed_);
    sourceStack_->addWidget(distPage);
    sourceStack_->setCurrentIndex(1);
    sourceKind_->setCurrentIndex(1);
    form->addRow(sourceStack_);

    formats_ = new QListWidget(this);
    formats_->setObjectName("quantFormats");
    formats_->setToolTip(tr("The quantizers to compare: scaled block formats and direct casts."));
    QStringList ids;
    for (const std::string& id : scaledQuantizerIds())
        ids << QString::fromStdString(id);
    ids << kDirectCasts;
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
    alignLabels({form, fileForm, distForm});

    connect(open, &QPushButton::clicked, this, &QuantizationSourceForm::openFile);
    connect(sourceKind_, &QComboBox::currentIndexChanged, sourceStack_,
            &QStackedWidget::setCurrentIndex);
    connect(path_, &QLineEdit::editingFinished, this, &QuantizationSourceForm::refreshTensors);
    connect(dtype_, &QComboBox::currentIndexChanged, this, &QuantizationSourceForm::refreshTensors);
}

// The source's rows sit in forms of their own (one shown at a time): one label width for all
// keeps the fields in one column and no label clipped.
void QuantizationSourceForm::alignLabels(const QList<QFormLayout*>& forms) {
    int labelWidth = 0;
    for (QFormLayout* f : forms)
        for (int r = 0; r < f->rowCount(); ++r)
            if (QLayoutItem* label = f->itemAt(r, QFormLayout::LabelRole); label && label->widget())
                labelWidth = std::max(labelWidth, label->widget()->sizeHint().width());
    for (QFormLayout* f : forms)
        for (int r = 0; r < f->rowCount(); ++r)
            if (QLayoutItem* label = f->itemAt(r, QFormLayout::LabelRole); label && label->widget())
                label->widget()->setMinimumWidth(labelWidth);
}

QString QuantizationSourceForm::setInputFile(const QString& argument, const QString& dtype) {
    sourceKind_->setCurrentIndex(0);
    const int d = dtype.isEmpty() ? 0 : dtype_->findData(dtype);
    if (d < 0)
        return tr("unknown raw dtype '%1' (use %2)").arg(dtype, kRawTypes.join(", "));
    {
        const QSignalBlocker blocker(dtype_);
        dtype_->setCurrentIndex(d);
    }
    // "PATH:TENSOR" unless PATH itself names a file.
    QString path = argument;
    QString tensor;
    const qsizetype colon = argument.lastIndexOf(':');
    if (!QFileInfo::exists(argument) && colon > 0) {
        path = argument.left(colon);
        tensor = argument.mid(colon + 1);
    }
    path_->setText(path);
    refreshTensors();
    if (!tensor.isEmpty()) {
        const int t = tensor_->findData(tensor);
        if (t < 0)
            return tr("%1: no tensor named '%2'").arg(path, tensor);
        tensor_->setCurrentIndex(t);
    }
    return {};
}

QString QuantizationSourceForm::setDistribution(const QString& spec, qulonglong count,
                                                qulonglong seed, const QString& outliers) {
    sourceKind_->setCurrentIndex(1);
    distribution_->setEditText(spec);
    outliers_->setText(outliers);
    if (count < 1 || count > qulonglong(kMaxCount))
        return tr("the count must be 1 to %L1").arg(kMaxCount);
    count_->setValue(int(count));
    seed_->setValue(int(std::min<qulonglong>(seed, qulonglong(seed_->maximum()))));
    std::string error;
    std::optional<ValueDistribution> d = parseValueDistribution(spec.toStdString(), error);
    if (d && !outliers.isEmpty())
        parseOutliers(outliers.toStdString(), *d, error);
    return QString::fromStdString(error);
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
        }
    }
    // Checked in the order given: the table, the colours and the legends follow it.
    for (int i = formats_->count() - 1; i >= 0; --i) {
        QListWidgetItem* item = formats_->item(i);
        item->setCheckState(wanted.contains(item->text()) ? Qt::Checked : Qt::Unchecked);
    }
    for (int w = int(wanted.size()) - 1; w >= 0; --w) {
        const QList<QListWidgetItem*> found = formats_->findItems(wanted[w], Qt::MatchExactly);
        if (!found.isEmpty())
            formats_->insertItem(0, formats_->takeItem(formats_->row(found.front())));
    }
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
    if (sourceKind_->currentIndex() == 0) {
        r.source.kind = TensorSource::Kind::File;
        QString argument = path_->text().trimmed();
        if (argument.isEmpty()) {
            error = tr("Choose a tensor file (Open…, or drop one on the page).");
            return std::nullopt;
        }
        if (tensor_->count() > 1 && tensor_->currentIndex() >= 0)
            argument += ':' + tensor_->currentData().toString();
        r.source.argument = argument.toStdString();
        if (const QString dtype = dtype_->currentData().toString(); !dtype.isEmpty())
            r.source.raw = RawLayout{dtype.toStdString()};
    } else {
        r.source.kind = TensorSource::Kind::Distribution;
        r.source.distribution = distribution_->currentText().trimmed().toStdString();
        r.source.outliers = outliers_->text().trimmed().toStdString();
        r.source.count = std::size_t(count_->value());
        r.source.seed = std::uint64_t(seed_->value());
    }
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
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open a tensor file"), QString(),
        tr("Tensor files (*.npy *.safetensors *.bin *.raw *.txt);;All files (*)"));
    if (path.isEmpty())
        return;
    setInputFile(path);
    emit fileChosen();
}

void QuantizationSourceForm::refreshTensors() {
    const QString previous = tensor_->currentData().toString();
    tensor_->clear();
    const QString path = path_->text().trimmed();
    if (path.isEmpty() || !QFileInfo(path).isFile())
        return;
    std::optional<RawLayout> raw;
    if (const QString dtype = dtype_->currentData().toString(); !dtype.isEmpty())
        raw = RawLayout{dtype.toStdString()};
    std::string error;
    for (const TensorInfo& info : listTensors(path.toStdString(), raw, error)) {
        QString shape;
        for (std::size_t d : info.shape)
            shape += (shape.isEmpty() ? "" : "×") + QString::number(qulonglong(d));
        const QString name = QString::fromStdString(info.name);
        tensor_->addItem(QStringLiteral("%1  %2 [%3]%4")
                             .arg(name, QString::fromStdString(info.dtype), shape,
                                  info.loadable ? QString() : tr(" (not readable)")),
                         name);
        if (!info.loadable)
            if (auto* model = qobject_cast<QStandardItemModel*>(tensor_->model()))
                model->item(tensor_->count() - 1)->setEnabled(false);
    }
    // The tensor picked before, or else the first one fpx can read.
    int current = tensor_->findData(previous);
    auto* model = qobject_cast<QStandardItemModel*>(tensor_->model());
    for (int i = 0; i < tensor_->count() && current < 0; ++i)
        if (!model || model->item(i)->isEnabled())
            current = i;
    tensor_->setCurrentIndex(std::max(0, current));
    // Opening problems show when the run reads the file; the picker just stays empty.
}

} // namespace fpx::gui
