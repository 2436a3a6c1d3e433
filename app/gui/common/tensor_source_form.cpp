// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/tensor_source_form.h"

#include "fpx/data/tensor_file.h"
#include "fpx/data/value_distribution.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStackedWidget>
#include <QStandardItemModel>

#include <algorithm>

namespace fpx::gui {
namespace {

const QStringList kRawTypes = {"f32", "f64", "f16", "bf16", "e4m3", "e5m2"};
constexpr int kMaxCount = 100'000'000;

} // namespace

TensorSourceForm::TensorSourceForm(const TensorSourceSetup& setup, QWidget* parent)
    : QWidget(parent), setup_(setup) {
    const QString prefix = setup.objectPrefix;
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    kind_ = new QComboBox(this);
    kind_->setObjectName(prefix + "SourceKind");
    kind_->setToolTip(setup.kindTip);
    form->addRow(tr("&Source"), kind_);
    stack_ = new QStackedWidget(this);

    filePage_ = new QWidget(stack_);
    auto* fileForm = new QFormLayout(filePage_);
    fileForm->setContentsMargins(0, 0, 0, 0);
    auto* fileRow = new QHBoxLayout;
    path_ = new QLineEdit(filePage_);
    path_->setObjectName(prefix + "Path");
    path_->setPlaceholderText(setup.pathPlaceholder);
    path_->setToolTip(tr("The tensor file: .npy, .safetensors, raw little-endian values (give "
                         "the dtype) or text, one value per line."));
    auto* open = new QPushButton(tr("&Open…"), filePage_);
    fileRow->addWidget(path_, 1);
    fileRow->addWidget(open);
    fileForm->addRow(tr("File"), fileRow);
    tensor_ = new QComboBox(filePage_);
    tensor_->setObjectName(prefix + "Tensor");
    tensor_->setToolTip(tr("The tensor of a .safetensors file."));
    fileForm->addRow(tr("&Tensor"), tensor_);
    dtype_ = new QComboBox(filePage_);
    dtype_->setObjectName(prefix + "Dtype");
    dtype_->addItem(tr("from the header"), QString());
    for (const QString& t : kRawTypes)
        dtype_->addItem(tr("raw %1").arg(t), t);
    dtype_->setToolTip(tr("A headerless file's element type (little-endian)."));
    fileForm->addRow(tr("&Dtype"), dtype_);

    distributionPage_ = new QWidget(stack_);
    auto* distForm = new QFormLayout(distributionPage_);
    distForm->setContentsMargins(0, 0, 0, 0);
    distribution_ = new QComboBox(distributionPage_);
    distribution_->setObjectName(prefix + "Distribution");
    distribution_->setEditable(true);
    distribution_->addItems(setup.distributions);
    distribution_->setToolTip(setup.distributionTip);
    distForm->addRow(tr("&Kind"), distribution_);
    if (setup.outliers) {
        outliers_ = new QLineEdit(distributionPage_);
        outliers_->setObjectName(prefix + "Outliers");
        outliers_->setPlaceholderText(tr("none, or 0.001:100"));
        outliers_->setToolTip(tr("FRACTION:SCALE: that fraction of the values multiplied by "
                                 "SCALE, as activations with a few huge channels."));
        distForm->addRow(tr("O&utliers"), outliers_);
    }
    count_ = new QSpinBox(distributionPage_);
    count_->setObjectName(prefix + "Count");
    count_->setRange(1, kMaxCount);
    count_->setValue(setup.count);
    count_->setGroupSeparatorShown(true);
    distForm->addRow(tr("&Count"), count_);
    seed_ = new QSpinBox(distributionPage_);
    seed_->setRange(0, 1'000'000'000);
    seed_->setValue(1);
    distForm->addRow(tr("S&eed"), seed_);

    // The kinds in the page's order; the distribution shown first, as a page opens drawing.
    const QList<std::pair<QString, QWidget*>> kinds =
        setup.fileFirst
            ? QList<std::pair<QString, QWidget*>>{{tr("Tensor file"), filePage_},
                                                  {tr("Distribution"), distributionPage_}}
            : QList<std::pair<QString, QWidget*>>{{tr("Distribution"), distributionPage_},
                                                  {tr("Tensor file"), filePage_}};
    for (const auto& [name, page] : kinds) {
        kind_->addItem(name);
        stack_->addWidget(page);
    }
    stack_->setCurrentWidget(distributionPage_);
    kind_->setCurrentIndex(stack_->currentIndex());
    form->addRow(stack_);
    forms_ = {form, fileForm, distForm};

    connect(open, &QPushButton::clicked, this, &TensorSourceForm::openFile);
    connect(kind_, &QComboBox::currentIndexChanged, stack_, &QStackedWidget::setCurrentIndex);
    connect(path_, &QLineEdit::editingFinished, this, &TensorSourceForm::refreshTensors);
    connect(dtype_, &QComboBox::currentIndexChanged, this, &TensorSourceForm::refreshTensors);
}

bool TensorSourceForm::fileShown() const {
    return stack_->currentWidget() == filePage_;
}

QString TensorSourceForm::setFile(const QString& argument, const QString& dtype) {
    kind_->setCurrentIndex(stack_->indexOf(filePage_));
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

QString TensorSourceForm::setDistribution(const QString& spec, qulonglong count, qulonglong seed,
                                          const QString& outliers) {
    kind_->setCurrentIndex(stack_->indexOf(distributionPage_));
    distribution_->setEditText(spec);
    if (outliers_)
        outliers_->setText(outliers);
    if (count < 1 || count > qulonglong(kMaxCount))
        return tr("the count must be 1 to %L1").arg(kMaxCount);
    count_->setValue(int(count));
    seed_->setValue(int(std::min<qulonglong>(seed, qulonglong(seed_->maximum()))));
    std::string error;
    std::optional<ValueDistribution> d = parseValueDistribution(spec.toStdString(), error);
    if (d && !outliers.isEmpty()) {
        if (!outliers_)
            return tr("no outliers here");
        parseOutliers(outliers.toStdString(), *d, error);
    }
    return QString::fromStdString(error);
}

std::optional<TensorSource> TensorSourceForm::source(QString& error) const {
    TensorSource source;
    if (fileShown()) {
        source.kind = TensorSource::Kind::File;
        QString argument = path_->text().trimmed();
        if (argument.isEmpty()) {
            error = setup_.chooseFileMessage;
            return std::nullopt;
        }
        if (tensor_->count() > 1 && tensor_->currentIndex() >= 0)
            argument += ':' + tensor_->currentData().toString();
        source.argument = argument.toStdString();
        if (const QString dtype = dtype_->currentData().toString(); !dtype.isEmpty())
            source.raw = RawLayout{dtype.toStdString()};
    } else {
        source.kind = TensorSource::Kind::Distribution;
        source.distribution = distribution_->currentText().trimmed().toStdString();
        if (outliers_)
            source.outliers = outliers_->text().trimmed().toStdString();
        source.count = std::size_t(count_->value());
        source.seed = std::uint64_t(seed_->value());
    }
    return source;
}

void TensorSourceForm::openFile() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open a tensor file"), QString(),
        tr("Tensor files (*.npy *.safetensors *.bin *.raw *.txt);;All files (*)"));
    if (path.isEmpty())
        return;
    setFile(path);
    emit fileChosen();
}

void TensorSourceForm::refreshTensors() {
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
        // No shape and no elements: a text file's tensor, not counted until it is read.
        const bool counted = !info.shape.empty() || info.elementCount > 0;
        const QString name = QString::fromStdString(info.name);
        tensor_->addItem(QStringLiteral("%1  %2%3%4")
                             .arg(name, QString::fromStdString(info.dtype),
                                  counted ? QStringLiteral(" [%1]").arg(shape) : QString(),
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

void alignFormLabels(const QList<QFormLayout*>& forms) {
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

} // namespace fpx::gui
