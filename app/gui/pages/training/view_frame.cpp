// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/training/view_frame.h"

#include "common/error_style.h"
#include "common/plot_legibility.h"
#include "plot_builder.h"
#include "plot_frame.h"

#include <qcustomplot.h>

#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QToolButton>
#include <QVBoxLayout>

namespace fpx::gui {

ViewFrame::ViewFrame(const QString& name, QWidget* parent) : QWidget(parent) {
    auto* layout = new QHBoxLayout(this);
    auto* controls = new QWidget(this);
    controls->setMaximumWidth(340);
    auto* column = new QVBoxLayout(controls);
    column->setContentsMargins(0, 0, 0, 0);
    form_ = new QFormLayout;
    form_->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    column->addLayout(form_);
    auto* buttons = new QHBoxLayout;
    run_ = new QPushButton(tr("&Run"), controls);
    run_->setObjectName(name + "Run");
    run_->setToolTip(tr("Run with the form's settings, in the background."));
    export_ = new QToolButton(controls);
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
    buttons->addWidget(run_);
    buttons->addWidget(export_);
    column->addLayout(buttons);
    status_ = new QLabel(controls);
    status_->setObjectName(name + "Status");
    status_->setWordWrap(true);
    column->addWidget(status_);
    error_ = new QLabel(controls);
    error_->setObjectName(name + "Error");
    error_->setWordWrap(true);
    styleErrorLabel(*error_, true);
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setVisible(false);
    column->addWidget(error_);
    column->addStretch(1);
    layout->addWidget(controls);

    // The plot keeps a legible height at every zoom (common/plot_legibility.h); on a short
    // window the results scroll rather than squash it or grow the window past the screen.
    QScrollArea* scroll = plotsScrollArea(this);
    scroll->setObjectName(name + "Results");
    auto* right = new QWidget(scroll);
    results_ = new QVBoxLayout(right);
    results_->setContentsMargins(0, 0, 0, 0);
    plot_ = new QCustomPlot(right);
    plot_->setObjectName(name + "Plot");
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    results_->addWidget(plot_, 1);
    scroll->setWidget(right);
    layout->addWidget(scroll, 1);

    connect(run_, &QPushButton::clicked, this, &ViewFrame::run);
}

QString ViewFrame::statusText() const {
    return status_->text();
}

void ViewFrame::setStatus(const QString& text) {
    status_->setText(text);
}

void ViewFrame::showError(const QString& message) {
    errorMessage_ = message;
    error_->setText(message.isEmpty() ? QString() : QStringLiteral("⚠ ") + message);
    error_->setVisible(!message.isEmpty());
}

void ViewFrame::run() {
    ranOnce_ = true;
    start();
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
    // Images through the project's plot writers (their CSV writer is for the explorer's plots).
    return plots::exportPlot(*plot_, plots::PlotData{}, path, error);
}

} // namespace fpx::gui
