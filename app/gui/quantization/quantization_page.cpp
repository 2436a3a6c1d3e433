// SPDX-License-Identifier: GPL-3.0-or-later
#include "quantization/quantization_page.h"

#include "quantization/block_inspector.h"
#include "quantization/quantization_plots.h"

#include "fpx/block_format.h"
#include "fpx/value_distribution.h"
#include "fpx/wide_rounding.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMimeData>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>
#include <QStandardItemModel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>

#include <cmath>

namespace fpx::gui {

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
    "How it was computed: a fast kernel proved bit-exact against the exact core, or the exact "
    "core itself."};
static_assert(std::size(kHeaders) == QuantizationPage::ColumnCount);
static_assert(std::size(kTips) == QuantizationPage::ColumnCount);

// Direct casts offered beside the scaled quantizers: the element formats of the common ones.
const QStringList kDirectCasts = {"fp8_e4m3", "fp8_e5m2", "fp6_e2m3", "fp4_e2m1", "bf16", "fp16"};
const QStringList kDefaultFormats = {"mxfp8_e4m3", "mxfp4", "nvfp4", "nf4", "int4", "fp8_e4m3"};
const QStringList kRawTypes = {"f32", "f64", "f16", "bf16", "e4m3", "e5m2"};
constexpr int kMaxCount = 100'000'000;

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

QuantizationPage::QuantizationPage(QWidget* parent) : QWidget(parent) {
    setAcceptDrops(true);
    auto* layout = new QHBoxLayout(this);

    // The form.
    auto* controls = new QWidget(this);
    controls->setMaximumWidth(330);
    auto* column = new QVBoxLayout(controls);
    column->setContentsMargins(0, 0, 0, 0);
    auto* form = new QFormLayout;
    column->addLayout(form);
    sourceKind_ = new QComboBox(controls);
    sourceKind_->setObjectName("quantSourceKind");
    sourceKind_->addItems({tr("Tensor file"), tr("Distribution")});
    sourceKind_->setToolTip(tr("Quantize a tensor from a file (.npy, .safetensors, raw, text; "
                               "or drop one on the page) or values drawn from a distribution."));
    form->addRow(tr("&Source"), sourceKind_);
    sourceStack_ = new QStackedWidget(controls);

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
    distribution_->setToolTip(tr("normal:MU:SIGMA, laplace:B, student:NU or uniform:A:B; drawn "
                                 "in double, each value rounded once to FP32."));
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

    formats_ = new QListWidget(controls);
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
    block_ = new QComboBox(controls);
    block_->setObjectName("quantBlockLayout");
    block_->setEditable(true);
    block_->addItems({"default", "16", "32", "64", "128", "256", "row", "tensor"});
    block_->setToolTip(tr("Elements per scale for every scaled format: default (each format's "
                          "own), N consecutive elements, a row, or the whole tensor."));
    form->addRow(tr("&Block"), block_);
    scaleRule_ = new QComboBox(controls);
    scaleRule_->setObjectName("quantScaleRule");
    scaleRule_->addItems({"default", "floor", "ceil", "even"});
    scaleRule_->setToolTip(tr("How an MX block's power-of-two scale follows from its amax: floor "
                              "(OCP MX v1.0, may saturate), ceil (never saturates), even (amax "
                              "first rounded to the element's precision)."));
    form->addRow(tr("Scale &rule"), scaleRule_);
    auto* buttons = new QHBoxLayout;
    run_ = new QPushButton(tr("&Quantize"), controls);
    run_->setObjectName("quantRun");
    run_->setToolTip(tr("Quantize in every checked format, in the background."));
    cancel_ = new QPushButton(tr("&Cancel"), controls);
    cancel_->setObjectName("quantCancel");
    cancel_->setEnabled(false);
    buttons->addWidget(run_);
    buttons->addWidget(cancel_);
    form->addRow(buttons);
    progress_ = new QProgressBar(controls);
    progress_->setObjectName("quantProgress");
    progress_->setRange(0, 1000);
    progress_->setValue(0);
    progress_->setTextVisible(false);
    form->addRow(progress_);
    status_ = new QLabel(controls);
    status_->setObjectName("quantStatus");
    status_->setWordWrap(true);
    form->addRow(status_);
    error_ = new QLabel(controls);
    error_->setObjectName("quantError");
    error_->setWordWrap(true);
    error_->setStyleSheet("color: #d0402f; font-weight: bold;");
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setVisible(false);
    form->addRow(error_);
    column->addStretch(1);
    layout->addWidget(controls);
    // The source's rows sit in forms of their own (one shown at a time): one label width for
    // all three keeps the fields in one column and no label clipped.
    int labelWidth = 0;
    for (QFormLayout* f : {form, fileForm, distForm})
        for (int r = 0; r < f->rowCount(); ++r)
            if (QLayoutItem* label = f->itemAt(r, QFormLayout::LabelRole); label && label->widget())
                labelWidth = std::max(labelWidth, label->widget()->sizeHint().width());
    for (QFormLayout* f : {form, fileForm, distForm})
        for (int r = 0; r < f->rowCount(); ++r)
            if (QLayoutItem* label = f->itemAt(r, QFormLayout::LabelRole); label && label->widget())
                label->widget()->setMinimumWidth(labelWidth);

    // The results: table; values and inspector; errors and sweep.
    auto* results = new QWidget(this);
    auto* resultsColumn = new QVBoxLayout(results);
    resultsColumn->setContentsMargins(0, 0, 0, 0);
    source_ = new QLabel(results);
    source_->setObjectName("quantSource");
    source_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    resultsColumn->addWidget(source_);
    vertical_ = new QSplitter(Qt::Vertical, results);
    QSplitter* vertical = vertical_;
    table_ = new QTableWidget(0, ColumnCount, vertical);
    table_->setObjectName("quantTable");
    for (int c = 0; c < ColumnCount; ++c) {
        auto* header = new QTableWidgetItem(tr(kHeaders[c]));
        header->setToolTip(tr(kTips[c]));
        table_->setHorizontalHeaderItem(c, header);
    }
    table_->verticalHeader()->setVisible(false);
    table_->setAlternatingRowColors(true);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setWordWrap(false);
    auto* middle = new QSplitter(Qt::Horizontal, vertical);
    values_ = new QCustomPlot(middle);
    values_->setObjectName("quantValuesPlot");
    values_->setMinimumHeight(200);
    values_->setToolTip(tr("Click a value to inspect the block that holds the nearest one."));
    inspector_ = new BlockInspector(middle);
    inspector_->setObjectName("quantInspectorPanel");
    middle->addWidget(values_);
    middle->addWidget(inspector_);
    middle->setStretchFactor(0, 3);
    middle->setStretchFactor(1, 2);
    auto* bottom = new QSplitter(Qt::Horizontal, vertical);
    errors_ = new QCustomPlot(bottom);
    errors_->setObjectName("quantErrorsPlot");
    errors_->setMinimumHeight(180);
    sweep_ = new QCustomPlot(bottom);
    sweep_->setObjectName("quantSweepPlot");
    sweep_->setMinimumHeight(180);
    bottom->addWidget(errors_);
    bottom->addWidget(sweep_);
    vertical->addWidget(table_);
    vertical->addWidget(middle);
    vertical->addWidget(bottom);
    vertical->setStretchFactor(0, 2);
    vertical->setStretchFactor(1, 4);
    vertical->setStretchFactor(2, 3);
    resultsColumn->addWidget(vertical, 1);
    layout->addWidget(results, 1);
    drawMessage(*values_, tr("Values"), tr("Quantize to see the values and a format's grid."));
    drawMessage(*errors_, tr("|error| per element"), QString());
    drawMessage(*sweep_, tr("SQNR against block size"), QString());

    progressTimer_.setInterval(50);
    connect(&progressTimer_, &QTimer::timeout, this, [this] {
        const std::size_t total = total_ ? total_->load() : 0;
        if (total > 0 && progress_->maximum() == 0)
            progress_->setRange(0, 1000); // the tensor is read: from busy to a fraction
        if (total > 0)
            progress_->setValue(
                static_cast<int>(1000.0 * static_cast<double>(done_->load()) / double(total)));
    });
    connect(&watcher_, &QFutureWatcher<QuantizationResult>::finished, this,
            &QuantizationPage::applyResult);
    connect(run_, &QPushButton::clicked, this, &QuantizationPage::run);
    connect(cancel_, &QPushButton::clicked, this, &QuantizationPage::cancel);
    connect(open, &QPushButton::clicked, this, &QuantizationPage::openFile);
    connect(sourceKind_, &QComboBox::currentIndexChanged, sourceStack_,
            &QStackedWidget::setCurrentIndex);
    connect(path_, &QLineEdit::editingFinished, this, &QuantizationPage::refreshTensors);
    connect(dtype_, &QComboBox::currentIndexChanged, this, &QuantizationPage::refreshTensors);
    connect(table_, &QTableWidget::itemSelectionChanged, this, &QuantizationPage::showSelection);
    connect(inspector_, &BlockInspector::blockChanged, this, &QuantizationPage::drawValues);
    connect(values_, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
        const int row = selectedFormat();
        if (row < 0 || !result_.input || !values_->axisRect())
            return;
        const auto& quantized = result_.outcomes[std::size_t(row)].quantized;
        if (!quantized)
            return;
        const double x =
            values_->axisRect()->axis(QCPAxis::atBottom)->pixelToCoord(event->position().x());
        inspector_->setBlock(blockNearestValue(*result_.input, *quantized, x));
    });
}

QuantizationPage::~QuantizationPage() {
    if (stop_)
        stop_->store(true);
    watcher_.waitForFinished();
}

QString QuantizationPage::setInputFile(const QString& argument, const QString& dtype) {
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

QString QuantizationPage::setDistribution(const QString& spec, qulonglong count, qulonglong seed,
                                          const QString& outliers) {
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

QString QuantizationPage::setFormats(const QStringList& ids) {
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

QString QuantizationPage::setBlock(const QString& layout) {
    block_->setEditText(layout);
    std::string error;
    if (layout != "default" && !parseBlockLayout(layout.toStdString(), error))
        return QString::fromStdString(error);
    return {};
}

QString QuantizationPage::setScaleRule(const QString& rule) {
    const int i = scaleRule_->findText(rule);
    if (i < 0)
        return tr("unknown scale rule '%1' (use floor, ceil or even)").arg(rule);
    scaleRule_->setCurrentIndex(i);
    return {};
}

std::optional<QuantizationRequest> QuantizationPage::request(QString& error) const {
    QuantizationRequest r;
    if (sourceKind_->currentIndex() == 0) {
        r.source.kind = QuantizationSource::Kind::File;
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
        r.source.kind = QuantizationSource::Kind::Distribution;
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

int QuantizationPage::selectedFormat() const {
    const QList<QTableWidgetItem*> selected = table_->selectedItems();
    if (selected.isEmpty())
        return -1;
    const int row = selected.front()->row();
    return row < int(result_.outcomes.size()) ? row : -1;
}

void QuantizationPage::selectFormat(int row) {
    if (row >= 0 && row < table_->rowCount())
        table_->selectRow(row);
}

void QuantizationPage::selectAfterRun(const QString& format, std::optional<std::size_t> block) {
    pendingFormat_ = format;
    pendingBlock_ = block;
}

QString QuantizationPage::statusText() const {
    return status_->text();
}

QString QuantizationPage::errorText() const {
    return errorMessage_;
}

void QuantizationPage::showError(const QString& message) {
    errorMessage_ = message;
    error_->setText(message.isEmpty() ? QString() : QStringLiteral("⚠ ") + message);
    error_->setVisible(!message.isEmpty());
}

void QuantizationPage::openFile() {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open a tensor file"), QString(),
        tr("Tensor files (*.npy *.safetensors *.bin *.raw *.txt);;All files (*)"));
    if (path.isEmpty())
        return;
    setInputFile(path);
    run();
}

void QuantizationPage::dragEnterEvent(QDragEnterEvent* event) {
    if (event->mimeData()->hasUrls())
        event->acceptProposedAction();
}

void QuantizationPage::dropEvent(QDropEvent* event) {
    const QList<QUrl> urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.front().isLocalFile())
        return;
    setInputFile(urls.front().toLocalFile());
    event->acceptProposedAction();
    run();
}

void QuantizationPage::refreshTensors() {
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

void QuantizationPage::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (!ranOnce_)
        run();
}

void QuantizationPage::run() {
    ranOnce_ = true;
    if (isRunning()) {
        rerun_ = true; // this one stops; the form runs again when it has
        stop_->store(true);
        return;
    }
    QString error;
    const std::optional<QuantizationRequest> request = this->request(error);
    if (!request) {
        showError(error);
        emit finished();
        return;
    }
    showError({});
    stop_ = std::make_shared<std::atomic<bool>>(false);
    done_ = std::make_shared<std::atomic<std::size_t>>(0);
    total_ = std::make_shared<std::atomic<std::size_t>>(0);
    status_->setText(tr("Quantizing…"));
    setRunning(true);
    watcher_.setFuture(
        QtConcurrent::run([request = *request, stop = stop_, done = done_, total = total_] {
            return runQuantization(request, [&](std::size_t finished, std::size_t all) {
                done->store(finished);
                total->store(all);
                return !stop->load();
            });
        }));
}

void QuantizationPage::cancel() {
    rerun_ = false;
    if (stop_)
        stop_->store(true);
}

void QuantizationPage::setRunning(bool running) {
    run_->setEnabled(!running);
    cancel_->setEnabled(running);
    // Busy while the tensor is read or drawn (no fraction is known yet), then the fraction.
    progress_->setRange(0, running ? 0 : 1000);
    progress_->setValue(0);
    if (running)
        progressTimer_.start();
    else
        progressTimer_.stop();
}

void QuantizationPage::applyResult() {
    setRunning(false);
    if (rerun_) {
        rerun_ = false;
        run();
        return;
    }
    QuantizationResult result = watcher_.result();
    if (!result.error.empty()) {
        // Nothing was quantized: the tables and plots keep the last run, the message says why.
        showError(QString::fromStdString(result.error));
        status_->setText(tr("Nothing quantized."));
        if (!result_.input) // nothing shown yet: the plot says it too, where the eye is
            drawMessage(*values_, tr("Values"),
                        QStringLiteral("⚠ ") + QString::fromStdString(result.error),
                        QColor(0xd0, 0x40, 0x2f));
        emit finished();
        return;
    }
    result_ = std::move(result);
    progress_->setValue(result_.cancelled ? 0 : 1000);
    const QuantizationInput& input = *result_.input;
    source_->setText(tr("<b>%1</b> · %L2 values · finite range [%3, %4]")
                         .arg(QString::fromStdString(input.description).toHtmlEscaped())
                         .arg(qulonglong(input.view.size()))
                         .arg(QString::number(input.min, 'g', 6))
                         .arg(QString::number(input.max, 'g', 6)));
    std::size_t quantized = 0;
    for (const FormatOutcome& o : result_.outcomes)
        quantized += o.quantized ? 1 : 0;
    status_->setText(result_.cancelled
                         ? tr("Cancelled: %n format(s) finished.", nullptr, int(quantized))
                         : tr("%n format(s) quantized.", nullptr, int(quantized)));
    const int previous = selectedFormat();
    fillTable();
    drawErrorHistograms(*errors_, result_);
    drawBlockSizeSweep(*sweep_, result_);
    int first = -1;
    for (int r = 0; r < int(result_.outcomes.size()) && first < 0; ++r)
        if (result_.outcomes[std::size_t(r)].quantized)
            first = r;
    int row = previous >= 0 && previous < int(result_.outcomes.size()) &&
                      result_.outcomes[std::size_t(previous)].quantized
                  ? previous
                  : first;
    for (int r = 0; r < int(result_.outcomes.size()); ++r)
        if (!pendingFormat_.isEmpty() &&
            QString::fromStdString(result_.outcomes[std::size_t(r)].id) == pendingFormat_)
            row = r;
    pendingFormat_.clear();
    {
        const QSignalBlocker blocker(table_);
        table_->clearSelection();
    }
    if (row >= 0)
        selectFormat(row);
    else
        showSelection();
    if (pendingBlock_)
        inspector_->setBlock(*pendingBlock_);
    pendingBlock_.reset();
    emit finished();
}

void QuantizationPage::fillTable() {
    const QSignalBlocker blocker(table_);
    table_->clearContents();
    table_->clearSpans();
    table_->setRowCount(int(result_.outcomes.size()));
    for (int r = 0; r < int(result_.outcomes.size()); ++r) {
        const FormatOutcome& o = result_.outcomes[std::size_t(r)];
        auto* name = cell(QString::fromStdString(o.id),
                          o.format ? QString::fromStdString(o.format->displayName) : QString());
        QPixmap swatch(12, 12);
        swatch.fill(quantizerColour(r));
        name->setIcon(QIcon(swatch));
        table_->setItem(r, Format, name);
        if (!o.quantized) {
            auto* message =
                cell(QStringLiteral("⚠ ") +
                     QString::fromStdString(o.error.empty() ? std::string("not run (cancelled)")
                                                            : o.error));
            message->setForeground(QColor(0xd0, 0x40, 0x2f));
            table_->setItem(r, Sqnr, message);
            table_->setSpan(r, Sqnr, 1, ColumnCount - Sqnr);
            continue;
        }
        const QuantizationReport& q = o.report;
        auto number = [](double x) { return QString::number(x, 'g', 6); };
        auto count = [](std::size_t n) { return QLocale().toString(qulonglong(n)); };
        auto* sqnr = cell(sqnrText(q.sqnrDb));
        sqnr->setData(Qt::UserRole, q.sqnrDb);
        table_->setItem(r, Sqnr, sqnr);
        table_->setItem(r, Rmse, cell(number(q.rmse)));
        table_->setItem(r, MaxError,
                        cell(number(q.maxAbsError), tr("%1 at element %L2")
                                                        .arg(number(q.maxAbsError))
                                                        .arg(qulonglong(q.maxErrorIndex))));
        table_->setItem(r, Clipped, cell(count(q.clipped)));
        table_->setItem(r, Flushed, cell(count(q.flushed)));
        table_->setItem(r, BitsPerElement, cell(number(q.bitsPerElement)));
        table_->setItem(r, Bytes, cell(count(q.bytes)));
        QString path = QString::fromStdString(o.path);
        if (q.nanInputs || q.infInputs)
            path += tr("; %L1 NaN, %L2 ±∞ inputs left out")
                        .arg(qulonglong(q.nanInputs))
                        .arg(qulonglong(q.infInputs));
        table_->setItem(r, Path, cell(path));
        for (int c = Sqnr; c < Path; ++c)
            table_->item(r, c)->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    table_->resizeColumnsToContents();
    table_->horizontalHeader()->setStretchLastSection(true);
    // Every format's row in sight (up to a dozen), the plots sharing the rest.
    QList<int> sizes = vertical_->sizes();
    const int total = sizes.value(0) + sizes.value(1) + sizes.value(2);
    if (total > 0) {
        const int rows = std::min(table_->rowCount(), 12);
        const int wanted = table_->horizontalHeader()->height() + 2 * table_->frameWidth() + 2 +
                           rows * table_->verticalHeader()->defaultSectionSize();
        const int table = std::min(wanted, total / 3);
        vertical_->setSizes({table, (total - table) * 5 / 9, (total - table) * 4 / 9});
    }
}

void QuantizationPage::showSelection() {
    const int row = selectedFormat();
    const FormatOutcome* outcome = row >= 0 ? &result_.outcomes[std::size_t(row)] : nullptr;
    {
        const QSignalBlocker blocker(inspector_);
        inspector_->setQuantized(result_.input, outcome ? outcome->quantized : nullptr);
        if (outcome && outcome->quantized)
            inspector_->setBlock(blockWithLargestScale(*outcome->quantized));
    }
    drawValues();
}

void QuantizationPage::drawValues() {
    if (!result_.input) {
        drawMessage(*values_, tr("Values"), tr("Quantize to see the values and a format's grid."));
        return;
    }
    const int row = selectedFormat();
    const FormatOutcome* outcome = row >= 0 ? &result_.outcomes[std::size_t(row)] : nullptr;
    std::vector<double> grid;
    gridLabel_.clear();
    if (outcome && outcome->quantized) {
        const QuantizedTensor& q = *outcome->quantized;
        const std::size_t block = inspector_->block();
        const bool direct = q.format.scheme == BlockScheme::Direct;
        const double scale = direct ? 1.0 : q.blockScale(block);
        grid = representableGrid(q.format, scale, result_.values.low, result_.values.high);
        const QString id = QString::fromStdString(outcome->id);
        if (direct)
            gridLabel_ = tr("%1 values").arg(id);
        else
            gridLabel_ = tr("%1 grid × block %L2's scale %3%4")
                             .arg(id)
                             .arg(qulonglong(block))
                             .arg(QString::number(scale, 'g', 6))
                             .arg(block == blockWithLargestScale(q) ? tr(" (largest)") : QString());
        if (grid.empty())
            gridLabel_ += tr(" — too fine to draw");
    }
    drawValueHistogram(*values_, result_, grid, gridLabel_, quantizerColour(std::max(0, row)));
    if (grid.empty() && !gridLabel_.isEmpty()) {
        // The legend only lists drawn plottables: say why there is no grid.
        auto* note = new QCPItemText(values_);
        note->position->setType(QCPItemPosition::ptAxisRectRatio);
        note->position->setAxisRect(values_->axisRect());
        note->position->setCoords(0.02, 0.04);
        note->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
        note->setText(gridLabel_);
        note->setFont(QFont("sans", 8));
        values_->replot();
    }
}

} // namespace fpx::gui
