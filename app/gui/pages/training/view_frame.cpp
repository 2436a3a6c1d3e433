// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/training/view_frame.h"

#include "common/error_style.h"
#include "common/folding_form.h"
#include "common/plot_legibility.h"
#include "common/replot_after_resize.h"
#include "plot_builder.h"
#include "plot_frame.h"

#include <qcustomplot.h>

#include <QAbstractButton>
#include <QAbstractSlider>
#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace fpx::gui {

ViewFrame::ViewFrame(const QString& name, QWidget* parent) : QWidget(parent) {
    // The form above the plot, both in one scroll area: the plot keeps a legible height at
    // every zoom (common/plot_legibility.h) and the page's whole width, and where the window is
    // too short for both the form folds away (common/folding_form.h) rather than push the plot
    // off screen.
    QVBoxLayout* column = scrollingPlotsLayout(*this);
    auto* scroll = findChild<QScrollArea*>();
    scroll->setObjectName(name + "Results");
    fold_ = new FoldingForm(this);
    fold_->setObjectName(name + "Fold");
    auto* fields = new QWidget(fold_);
    fields->setObjectName(name + "Form");
    form_ = new QFormLayout(fields);
    form_->setContentsMargins(0, 0, 0, 0);
    form_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    run_ = new QPushButton(tr("&Run"), fold_);
    run_->setObjectName(name + "Run");
    run_->setToolTip(tr("Run with the form's settings, in the background."));
    export_ = new QToolButton(fold_);
    export_->setObjectName(name + "Export");
    export_->setText(tr("Export"));
    export_->setPopupMode(QToolButton::InstantPopup);
    export_->setToolTip(tr("Save the plot as PNG, PDF or SVG, or its data as CSV."));
    auto* menu = new QMenu(export_);
    for (const plots::PlotWriter& writer : plots::plotWriters())
        menu->addAction(writer.description + " (*." + writer.suffix + ")", this, [=, this] {
            const QString filter = writer.description + " (*." + writer.suffix + ")";
            const QString path = QFileDialog::getSaveFileName(
                this, tr("Export"), "fpx-training-" + name + "." + writer.suffix, filter);
            QString error;
            if (!path.isEmpty() && !exportTo(path, &error))
                showError(error);
        });
    export_->setMenu(menu);
    // The status beside the buttons, in one line: it takes no height from the plot.
    status_ = new StatusLine(fold_);
    status_->setObjectName(name + "Status");
    fold_->header()->addWidget(run_);
    fold_->header()->addWidget(export_);
    fold_->header()->addWidget(status_, 1);
    fold_->setForm(fields);
    column->addWidget(fold_);
    error_ = new QLabel(this);
    error_->setObjectName(name + "Error");
    error_->setWordWrap(true);
    styleErrorLabel(*error_, true);
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setVisible(false);
    column->addWidget(error_);
    results_ = new QVBoxLayout;
    results_->setContentsMargins(0, 0, 0, 0);
    plot_ = new QCustomPlot(this);
    plot_->setObjectName(name + "Plot");
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    replotAfterResize(*plot_);
    results_->addWidget(plot_, 1);
    column->addLayout(results_, 1);
    fold_->setRoom(scroll, [this, column] {
        // The error line, then the plot at its least height.
        const int spacing = std::max(0, column->spacing());
        int below = spacing + leastHeight(*plot_) + column->contentsMargins().bottom();
        if (!error_->isHidden())
            below += spacing + (error_->width() > 0 ? error_->heightForWidth(error_->width())
                                                    : error_->sizeHint().height());
        return below;
    });

    connect(run_, &QPushButton::clicked, this, &ViewFrame::run);
}

QString ViewFrame::statusText() const {
    return status_->status();
}

void ViewFrame::setStatus(const QString& text) {
    status_->setStatus(text);
}

void ViewFrame::showError(const QString& message) {
    errorMessage_ = message;
    error_->setText(message.isEmpty() ? QString() : QStringLiteral("⚠ ") + message);
    error_->setVisible(!message.isEmpty());
}

void ViewFrame::run() {
    ranOnce_ = true;
    formRan();
    start();
}

void ViewFrame::runIfChanged() {
    if (ranOnce_ && formText() != ranForm_)
        run();
}

QString ViewFrame::formText() const {
    QStringList fields;
    for (const QVariant& value : formValues())
        fields << value.toString();
    return fields.join(QChar(0x1f));
}

namespace {

bool isInput(const QWidget* w) {
    const auto* button = qobject_cast<const QAbstractButton*>(w);
    return qobject_cast<const QAbstractSpinBox*>(w) || qobject_cast<const QComboBox*>(w) ||
           qobject_cast<const QLineEdit*>(w) || qobject_cast<const QAbstractSlider*>(w) ||
           (button && button->isCheckable());
}

// The inputs in `w` in the order they were made: itself, or those of a compound field (a
// tensor source), not the line edit inside a spin box.
void collectInputs(QWidget* w, std::vector<QWidget*>& inputs) {
    if (isInput(w)) {
        inputs.push_back(w);
        return;
    }
    for (QObject* child : w->children())
        if (auto* inner = qobject_cast<QWidget*>(child))
            collectInputs(inner, inputs);
}

// The inputs of `item` in their order: its widget's, or those of the layout it holds.
void collectInputs(QLayoutItem* item, std::vector<QWidget*>& inputs) {
    if (QWidget* w = item->widget())
        collectInputs(w, inputs);
    if (QLayout* inner = item->layout())
        for (int i = 0; i < inner->count(); ++i)
            collectInputs(inner->itemAt(i), inputs);
}

} // namespace

std::vector<QWidget*> ViewFrame::formInputs() const {
    std::vector<QWidget*> inputs;
    for (int row = 0; row < form_->rowCount(); ++row)
        for (const QFormLayout::ItemRole role :
             {QFormLayout::LabelRole, QFormLayout::FieldRole, QFormLayout::SpanningRole})
            if (QLayoutItem* item = form_->itemAt(row, role))
                collectInputs(item, inputs);
    return inputs;
}

QVariantList ViewFrame::formValues() const {
    QVariantList values;
    for (const QWidget* w : formInputs()) {
        if (const auto* spin = qobject_cast<const QSpinBox*>(w))
            values << spin->value();
        else if (const auto* real = qobject_cast<const QDoubleSpinBox*>(w))
            values << real->value();
        else if (const auto* combo = qobject_cast<const QComboBox*>(w))
            values << combo->currentText();
        else if (const auto* edit = qobject_cast<const QLineEdit*>(w))
            values << edit->text();
        else if (const auto* slider = qobject_cast<const QAbstractSlider*>(w))
            values << slider->value();
        else if (const auto* button = qobject_cast<const QAbstractButton*>(w))
            values << button->isChecked();
        else
            values << QVariant(); // another spin box: not one of the forms' kinds
    }
    return values;
}

bool ViewFrame::setFormValues(const QVariantList& values) {
    const std::vector<QWidget*> inputs = formInputs();
    if (std::size_t(values.size()) != inputs.size())
        return false;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        QWidget* w = inputs[i];
        const QVariant& value = values[qsizetype(i)];
        if (auto* spin = qobject_cast<QSpinBox*>(w))
            spin->setValue(value.toInt());
        else if (auto* real = qobject_cast<QDoubleSpinBox*>(w))
            real->setValue(value.toDouble());
        else if (auto* combo = qobject_cast<QComboBox*>(w))
            combo->setCurrentText(value.toString());
        else if (auto* edit = qobject_cast<QLineEdit*>(w))
            edit->setText(value.toString());
        else if (auto* slider = qobject_cast<QAbstractSlider*>(w))
            slider->setValue(value.toInt());
        else if (auto* button = qobject_cast<QAbstractButton*>(w))
            button->setChecked(value.toBool());
    }
    return true;
}

void ViewFrame::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (!ranOnce_)
        run();
}

void ViewFrame::refuse(const QString& message) {
    showError(message);
    emit finished();
}

void ViewFrame::fail(const std::string& message, const QString& statusText, bool plotHasResult,
                     const QString& title) {
    showError(QString::fromStdString(message));
    setStatus(statusText);
    if (!plotHasResult)
        plots::drawMessage(*plot_, title, QStringLiteral("⚠ ") + QString::fromStdString(message),
                           plots::Meaning::Bad);
    emit finished();
}

bool ViewFrame::exportTo(const QString& path, QString* error) {
    if (QFileInfo(path).suffix().toLower() == "csv") {
        const std::string csv = csvText();
        QSaveFile file(path);
        if (file.open(QIODevice::WriteOnly | QIODevice::Text) &&
            file.write(QByteArray::fromStdString(csv)) == qint64(csv.size()) && file.commit())
            return true;
        if (error)
            *error = tr("cannot write %1").arg(path);
        return false;
    }
    return exportImage(path, error);
}

bool ViewFrame::exportImage(const QString& path, QString* error) {
    // Images through the project's plot writers (their CSV writer is for the explorer's plots).
    return plots::exportPlot(*plot_, plots::PlotData{}, path, error);
}

} // namespace fpx::gui
