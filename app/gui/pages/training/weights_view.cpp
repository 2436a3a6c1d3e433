// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/training/weights_view.h"

#include "pages/training/training_plots.h"
#include "plot_frame.h"

#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/training/update_rule.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QTableWidget>

namespace fpx::gui {

namespace {

std::optional<std::vector<SgdVariant>> parseVariants(const QString& text, QString& error) {
    std::vector<SgdVariant> variants;
    for (const QString& entry : text.split(',', Qt::SkipEmptyParts)) {
        const QStringList parts = entry.trimmed().split('+');
        SgdVariant variant{parts.value(0).trimmed().toStdString(),
                           parts.value(1).trimmed().toStdString()};
        for (const std::string& id : {variant.format, variant.master})
            if (!id.empty())
                if (const FormatLookup found = findFormat(id); !found) {
                    error = QString::fromStdString(found.error);
                    return std::nullopt;
                }
        if (parts.size() > 2 || variant.format.empty()) {
            error = QObject::tr("'%1': use FORMAT or FORMAT+MASTER").arg(entry.trimmed());
            return std::nullopt;
        }
        variants.push_back(std::move(variant));
    }
    if (variants.empty()) {
        error = QObject::tr("name at least one format");
        return std::nullopt;
    }
    return variants;
}

// The combo's last entry, after the built-in rules: the formula field as written.
int customIndex() {
    return int(builtinUpdateRuleNames().size());
}

QString customFormulaTip() {
    return QObject::tr("A formula in w, lr and g: exact arithmetic (+ − × ÷, fma, sqrt, min, "
                       "max, abs), rounded once where a format is named (bf16(…), fp32(…, "
                       "rtz)); F is the stepped weight's format. The result is rounded into F "
                       "at the end.");
}

// The rule of a built-in's name; they always read.
UpdateRule builtinRule(const QString& name) {
    return *parseUpdateRule(name.toStdString()).rule;
}

} // namespace

WeightsView::WeightsView(QWidget* parent)
    : ViewFrame("weights", parent), runs_(this, [this](SgdResult r) { apply(std::move(r)); }) {
    const SgdRequest defaults;
    QFormLayout* form = this->form();
    weight_ = new QLineEdit(QString::fromStdString(defaults.weight), this);
    weight_->setObjectName("weightsInitial");
    weight_->setToolTip(tr("The initial weight, exact (0.1, 1/3, 2^-5 …)."));
    form->addRow(tr("&Weight"), weight_);
    rate_ = new QLineEdit(QString::fromStdString(defaults.learningRate), this);
    rate_->setObjectName("weightsRate");
    rate_->setToolTip(tr("The learning rate, taken as the double nearest it, as PyTorch's "
                         "Python-float lr is (and as fpx sgd takes it)."));
    form->addRow(tr("&Learning rate"), rate_);
    gradients_ = new QLineEdit(QString::fromStdString(defaults.gradients), this);
    gradients_->setObjectName("weightsGradients");
    gradients_->setToolTip(tr("A distribution (one draw per step, each exact) or a comma list "
                              "of values used in turn."));
    form->addRow(tr("&Gradients"), gradients_);
    steps_ = new QSpinBox(this);
    steps_->setObjectName("weightsSteps");
    steps_->setRange(1, int(kMaxSgdSteps));
    steps_->setValue(int(defaults.steps));
    steps_->setGroupSeparatorShown(true);
    form->addRow(tr("&Steps"), steps_);
    QString variants;
    for (const SgdVariant& v : defaults.variants)
        variants += (variants.isEmpty() ? "" : ",") + QString::fromStdString(v.format) +
                    (v.master.empty() ? "" : "+" + QString::fromStdString(v.master));
    variants_ = new QLineEdit(variants, this);
    variants_->setObjectName("weightsVariants");
    variants_->setToolTip(tr("The weight's format, or FORMAT+MASTER for a working copy cast "
                             "from a master copy, comma-separated."));
    form->addRow(tr("&Formats"), variants_);
    seed_ = new QSpinBox(this);
    seed_->setRange(0, 1'000'000'000);
    seed_->setValue(1);
    form->addRow(tr("S&eed"), seed_);
    rule_ = new QComboBox(this);
    rule_->setObjectName("weightsRule");
    for (const std::string& name : builtinUpdateRuleNames())
        rule_->addItem(QString::fromStdString(name), QString::fromStdString(name));
    rule_->addItem(tr("custom formula"));
    rule_->setToolTip(
        tr("How each step computes w − lr·g and where it rounds, F being the format the "
           "stepped weight is held in (the master's, with one): exact and rounded once; "
           "PyTorch's CPU kernels (1.13's, and 2's as its sources read); FP32 arithmetic; or "
           "the formula as written."));
    form->addRow(tr("&Update rule"), rule_);
    customFormula_ = QStringLiteral("F(fp32(w + F(fp32(-lr))*g))");
    formula_ = new QLineEdit(this);
    formula_->setObjectName("weightsFormula");
    form->addRow(tr("F&ormula"), formula_);
    connect(rule_, &QComboBox::currentIndexChanged, this, [this] { showChosenRule(); });
    // Writing in the field makes the rule the formula written.
    connect(formula_, &QLineEdit::textEdited, this, [this](const QString& text) {
        customFormula_ = text;
        if (rule_->currentIndex() != customIndex()) {
            // The text stays as typed, and the cursor where it is.
            const QSignalBlocker blocker(rule_);
            rule_->setCurrentIndex(customIndex());
            formula_->setToolTip(customFormulaTip());
        }
    });
    showChosenRule();

    ruleShown_ = new QLabel(this);
    ruleShown_->setObjectName("weightsRuleShown");
    ruleShown_->setWordWrap(true);
    ruleShown_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    results()->addWidget(ruleShown_);

    table_ = new QTableWidget(0, 4, this);
    table_->setObjectName("weightsTable");
    table_->setHorizontalHeaderLabels(
        {tr("Weight held in"), tr("Final"), tr("Lost updates"), tr("Error (final − exact)")});
    table_->verticalHeader()->setVisible(false);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    table_->setMaximumHeight(190);
    results()->addWidget(table_);
    plots::drawMessage(*plot(), tr("Master weights"), tr("Run to see the weights' trajectories."));
}

std::optional<SgdRequest> WeightsView::request(QString& error) const {
    SgdRequest r;
    r.weight = weight_->text().trimmed().toStdString();
    r.learningRate = rate_->text().trimmed().toStdString();
    r.gradients = gradients_->text().trimmed().toStdString();
    r.steps = std::size_t(steps_->value());
    r.seed = std::uint64_t(seed_->value());
    r.updateRule = updateRuleText().trimmed().toStdString();
    QString message;
    const std::optional<std::vector<SgdVariant>> variants =
        parseVariants(variants_->text(), message);
    if (!variants) {
        error = tr("Formats: %1").arg(message);
        return std::nullopt;
    }
    r.variants = *variants;
    return r;
}

QString WeightsView::setVariants(const QString& commaSeparated) {
    variants_->setText(commaSeparated);
    QString error;
    parseVariants(commaSeparated, error);
    return error;
}

void WeightsView::showChosenRule() {
    if (rule_->currentIndex() == customIndex()) {
        formula_->setText(customFormula_);
        formula_->setToolTip(customFormulaTip());
        return;
    }
    const UpdateRule rule = builtinRule(rule_->currentData().toString());
    formula_->setText(QString::fromStdString(rule.formulaText()));
    formula_->setCursorPosition(0);
    formula_->setToolTip(
        QString::fromStdString(rule.name + ": " + rule.description + ".\n" + rule.formulaText()) +
        tr("\nWrite in the field to make it a formula of your own."));
}

QString WeightsView::setUpdateRule(const QString& text) {
    const UpdateRuleParse parsed = parseUpdateRule(text.toStdString());
    const int builtin = parsed && parsed.rule->builtin()
                            ? rule_->findData(QString::fromStdString(parsed.rule->name))
                            : -1;
    if (builtin >= 0) {
        rule_->setCurrentIndex(builtin);
        return {};
    }
    customFormula_ = text;
    rule_->setCurrentIndex(customIndex());
    showChosenRule(); // also when the combo was on the custom entry already
    if (!parsed)
        return tr("column %1: %2")
            .arg(parsed.error.position + 1)
            .arg(QString::fromStdString(parsed.error.message));
    return {};
}

QString WeightsView::updateRuleText() const {
    return rule_->currentIndex() == customIndex() ? customFormula_
                                                  : rule_->currentData().toString();
}

void WeightsView::start() {
    QString error;
    std::optional<SgdRequest> request = this->request(error);
    if (!request) {
        refuse(error);
        return;
    }
    setStatus(tr("Simulating…"));
    runs_.start([request = std::move(*request)](JobControl& control) {
        return runSgd(request, control.stop);
    });
}

void WeightsView::apply(SgdResult result) {
    if (!result.error.empty()) {
        fail(result.error, tr("Nothing simulated."), !result_.runs.empty(), tr("Master weights"));
        return;
    }
    showError({});
    result_ = std::move(result);
    setStatus(QString::fromStdString(result_.description) + '.');
    // What each run computed: the rule's formula for each stepped format, F written out.
    QStringList formulas;
    QStringList stepped;
    for (const SgdRun& run : result_.runs) {
        const QString id = QString::fromStdString(run.master ? run.master->id : run.format.id);
        if (stepped.contains(id))
            continue;
        stepped << id;
        formulas << QStringLiteral("%1: <code>%2</code>")
                        .arg(id, QString::fromStdString(run.updateFormula).toHtmlEscaped());
    }
    ruleShown_->setText(tr("<b>Update rule %1</b> — %2")
                            .arg(QString::fromStdString(result_.updateRule).toHtmlEscaped(),
                                 formulas.join(QStringLiteral(" · "))));
    ruleShown_->setToolTip(QString::fromStdString(result_.updateDescription));
    table_->setRowCount(int(result_.runs.size()));
    for (int r = 0; r < int(result_.runs.size()); ++r) {
        const SgdRun& run = result_.runs[std::size_t(r)];
        const QStringList cells = {QString::fromStdString(result_.labels[std::size_t(r)]),
                                   QString::fromStdString(toSignificantDigits(run.finalWeight, 12)),
                                   QLocale().toString(qulonglong(run.lostUpdates)),
                                   QString::fromStdString(toSignificantDigits(run.error, 6))};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            item->setTextAlignment(c == 0 ? Qt::AlignLeft | Qt::AlignVCenter
                                          : Qt::AlignRight | Qt::AlignVCenter);
            if (c == 1)
                item->setToolTip(QString::fromStdString(toDecimal(run.finalWeight).text));
            if (c == 0)
                item->setIcon(plots::seriesSwatch(r));
            table_->setItem(r, c, item);
        }
    }
    if (!result_.runs.empty())
        setStatus(statusText() + ' ' +
                  tr("Exact final weight %1.")
                      .arg(QString::fromStdString(
                          toSignificantDigits(result_.runs.front().finalExact, 12))));
    drawSgdPlot(*plot(), result_);
    emit finished();
}

std::string WeightsView::csvText() const {
    return sgdCsv(result_);
}

} // namespace fpx::gui
