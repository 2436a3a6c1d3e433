// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/explorer/format_manager_dialog.h"

#include "common/error_style.h"
#include "common/number_text.h"

#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_identity.h"
#include "fpx/exact/format_limits.h"
#include "fpx/exact/value_parser.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <initializer_list>

namespace fpx::gui {

namespace {

QString summary(const FormatSpec& spec) {
    const FormatLimits l = deriveLimits(spec);
    QString text = QObject::tr("%1 bits, max %2")
                       .arg(spec.totalBits())
                       .arg(QString::fromStdString(toSignificantDigits(l.max, 6)));
    if (l.minSubnormal)
        text += QObject::tr(", smallest %1")
                    .arg(QString::fromStdString(toSignificantDigits(*l.minSubnormal, 4)));
    text += spec.hasInfinity() ? QObject::tr(", ∞") : QObject::tr(", no ∞");
    text += spec.hasNaN() ? QObject::tr(", NaN") : QString();
    return text;
}

// "fp8_e4m3  —  FP8 E4M3 (OCP, e4m3fn)  [e4m3 b=7 fn]": the bias and specials in the name.
QString itemText(const FormatSpec& spec) {
    QString text = QString::fromStdString(spec.id + "  —  " + spec.displayName);
    if (spec.kind == FormatKind::BinaryFloat && !spec.isCustom)
        text += QStringLiteral("  [%1]").arg(QString::fromStdString(fieldsName(spec)));
    return text;
}

// The spec suffix of a binary float's specials, as the spec string spells it.
QString suffixOf(const FormatSpec& spec) {
    return QString::fromUtf8(specialsSuffix(spec).data(), qsizetype(specialsSuffix(spec).size()));
}

// The default bias of the custom rule for these fields (format_catalogue.h).
int defaultBias(int exponentBits, const QString& suffix) {
    return suffix == "fnuz" ? (1 << (exponentBits - 1)) : (1 << (exponentBits - 1)) - 1;
}

// The line under the spec field: which short specs name built-ins, from the alias table, with
// e3m2 (the one asked about most: OCP FP6 or IEEE-style?) spelt out.
QString shortSpecRule() {
    QStringList others;
    for (const auto& [alias, id] : shortSpecsTakenByBuiltins())
        if (alias != "e3m2")
            others << QString::fromStdString(alias);
    const FormatLookup fp6 = findFormat("e3m2");
    return QObject::tr("Built-in names come first: e3m2 is %1 (%2, no ∞ or NaN), and %3 are "
                       "built-ins too. For the IEEE-style rule write the bias: e3m2b3.")
        .arg(QString::fromStdString(fp6.spec->id), QString::fromStdString(fieldsName(*fp6.spec)),
             others.join(", "));
}

// Its tooltip: every such name and the built-in it stands for.
QString shortSpecTable() {
    QStringList taken;
    for (const auto& [alias, id] : shortSpecsTakenByBuiltins())
        taken << QStringLiteral("%1 = %2").arg(QString::fromStdString(alias),
                                               QString::fromStdString(id));
    return QObject::tr("Names that are built-ins: %1").arg(taken.join(", "));
}

} // namespace

FormatManagerDialog::FormatManagerDialog(const std::vector<FormatSpec>& enabled, QWidget* parent)
    : QDialog(parent) {
    // A dialog is a window of its own, and a window takes the application's font unless told
    // otherwise: this one takes the explorer's, which the zoom sets, when it opens and whenever
    // the zoom changes while it is open. First, so that the fonts derived below start from it.
    setAttribute(Qt::WA_WindowPropagation);
    setWindowTitle(tr("Formats"));
    auto* layout = new QHBoxLayout(this);

    // Left: every format, the shown ones checked and in order.
    auto* left = new QVBoxLayout;
    list_ = new QListWidget(this);
    list_->setObjectName("formatList");
    list_->setDragDropMode(QAbstractItemView::InternalMove);
    list_->setToolTip(
        tr("Checked formats are shown, in this order. Drag or use the buttons to reorder."));
    left->addWidget(new QLabel(tr("Shown formats (drag to reorder):"), this));
    left->addWidget(list_, 1);
    auto* moves = new QHBoxLayout;
    auto* up = new QPushButton(tr("Move &up"), this);
    auto* down = new QPushButton(tr("Move &down"), this);
    up->setToolTip(tr("Move the selected format one row up (Alt+U)."));
    down->setToolTip(tr("Move the selected format one row down (Alt+D)."));
    moves->addWidget(up);
    moves->addWidget(down);
    left->addLayout(moves);
    auto* scaleBox = new QGroupBox(tr("Scale of the selected integer or NF4 format"), this);
    auto* scaleForm = new QFormLayout(scaleBox);
    scaleEdit_ = new QLineEdit(scaleBox);
    scaleEdit_->setObjectName("scaleEdit");
    scaleEdit_->setToolTip(
        tr("Integer formats store round(x / scale); NF4 stores the level nearest x / absmax. "
           "Any exact value: 1/127, 0.01, 2^-7."));
    scaleStatus_ = new QLabel(scaleBox);
    scaleForm->addRow(tr("Scale / absmax"), scaleEdit_);
    scaleForm->addRow(scaleStatus_);
    left->addWidget(scaleBox);
    layout->addLayout(left, 1);

    // Right: a custom format from fields or a spec string.
    auto* custom = new QGroupBox(tr("Add a custom format"), this);
    auto* form = new QFormLayout(custom);
    specEdit_ = new QLineEdit(custom);
    specEdit_->setObjectName("specEdit");
    specEdit_->setPlaceholderText(tr("e4m3, e5m2fnuz, e4m3b11fnuz, e6m9b40, int6"));
    specEdit_->setToolTip(
        tr("e<E>m<M>[b<bias>][fn|fnuz|fnu|f]: E exponent bits, M mantissa bits. No suffix: IEEE "
           "(∞ and NaN); fn: no ∞, only the all-ones code is NaN (OCP E4M3); fnuz: no ∞, no −0, "
           "NaN = 100…0; fnu: unsigned; f: every code finite. int<N>, uint<N>: integers."));
    specStatus_ = new QLabel(custom);
    specStatus_->setObjectName("specStatus");
    specStatus_->setWordWrap(true);
    specRule_ = new QLabel(shortSpecRule(), custom);
    specRule_->setToolTip(shortSpecTable());
    specRule_->setObjectName("specRule");
    specRule_->setWordWrap(true);
    QFont small = specRule_->font();
    small.setPointSizeF(small.pointSizeF() * 0.9);
    specRule_->setFont(small);
    exponentBits_ = new QSpinBox(custom);
    exponentBits_->setRange(1, 15);
    exponentBits_->setValue(4);
    mantissaBits_ = new QSpinBox(custom);
    mantissaBits_->setRange(0, 112);
    mantissaBits_->setValue(3);
    bias_ = new QSpinBox(custom);
    bias_->setRange(-32768, 32768);
    defaultBias_ = new QCheckBox(tr("default bias"), custom);
    defaultBias_->setChecked(true);
    specials_ = new QComboBox(custom);
    specials_->addItem(tr("IEEE: ±∞ and NaNs"), "");
    specials_->addItem(tr("fn: no ∞, all-ones is NaN"), "fn");
    specials_->addItem(tr("fnuz: no ∞, no −0, 100…0 is NaN"), "fnuz");
    specials_->addItem(tr("fnu: unsigned, all-ones is NaN"), "fnu");
    specials_->addItem(tr("f: every code finite"), "f");
    auto* biasRow = new QHBoxLayout;
    biasRow->addWidget(bias_);
    biasRow->addWidget(defaultBias_);
    form->addRow(tr("&Spec"), specEdit_);
    form->addRow(specRule_);
    form->addRow(specStatus_);
    form->addRow(tr("&Exponent bits"), exponentBits_);
    form->addRow(tr("&Mantissa bits"), mantissaBits_);
    auto* biasLabel = new QLabel(tr("&Bias"), custom);
    biasLabel->setBuddy(bias_);
    form->addRow(biasLabel, biasRow);
    form->addRow(tr("&Inf / NaN / zero"), specials_);
    add_ = new QPushButton(tr("&Add format"), custom);
    add_->setObjectName("addFormat");
    add_->setToolTip(tr("Add the format above to the list, shown."));
    form->addRow(add_);
    auto* right = new QVBoxLayout;
    right->addWidget(custom);
    right->addStretch();
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    right->addWidget(buttons);
    layout->addLayout(right, 1);

    for (const FormatSpec& spec : enabled)
        addItem(spec, true);
    for (const FormatSpec& spec : builtinFormats()) {
        bool shown = false;
        for (const FormatSpec& e : enabled)
            shown = shown || e.id == spec.id;
        if (!shown)
            addItem(spec, false);
    }

    connect(specEdit_, &QLineEdit::textChanged, this, &FormatManagerDialog::validateSpec);
    for (QSpinBox* box : {exponentBits_, mantissaBits_, bias_})
        connect(box, &QSpinBox::valueChanged, this, &FormatManagerDialog::specFromFields);
    connect(defaultBias_, &QCheckBox::toggled, this, [this](bool on) {
        bias_->setEnabled(!on);
        specFromFields();
    });
    connect(specials_, &QComboBox::currentIndexChanged, this, &FormatManagerDialog::specFromFields);
    connect(add_, &QPushButton::clicked, this, &FormatManagerDialog::addSpec);
    connect(up, &QPushButton::clicked, this, [this] { moveCurrent(-1); });
    connect(down, &QPushButton::clicked, this, [this] { moveCurrent(+1); });
    connect(list_, &QListWidget::currentRowChanged, this, &FormatManagerDialog::showScaleOfCurrent);
    connect(scaleEdit_, &QLineEdit::textEdited, this, &FormatManagerDialog::applyScale);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    bias_->setEnabled(false);
    specFromFields();
    list_->setCurrentRow(0);
    resize(900, 520);
}

bool FormatManagerDialog::addSpec() {
    const FormatLookup lookup = findFormat(specEdit_->text().toStdString());
    if (!lookup)
        return false;
    const int existing = rowWithSameFormat(*lookup.spec);
    if (existing >= 0) {
        // The same codes with the same values: one row is enough, whatever it is called.
        list_->setCurrentRow(existing);
        list_->item(existing)->setCheckState(Qt::Checked);
        validateSpec();
        return false;
    }
    addItem(*lookup.spec, true);
    list_->setCurrentRow(list_->count() - 1);
    validateSpec();
    return true;
}

int FormatManagerDialog::rowWithSameFormat(const FormatSpec& spec) const {
    for (int i = 0; i < list_->count(); ++i) {
        const FormatSpec& other =
            specs_[static_cast<std::size_t>(list_->item(i)->data(Qt::UserRole).toInt())];
        if (sameEncoding(other, spec))
            return i;
    }
    return -1;
}

void FormatManagerDialog::addItem(const FormatSpec& spec, bool checked) {
    auto* item = new QListWidgetItem(itemText(spec), list_);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable | Qt::ItemIsDragEnabled);
    item->setFlags(item->flags() & ~Qt::ItemIsDropEnabled);
    item->setCheckState(checked ? Qt::Checked : Qt::Unchecked);
    item->setData(Qt::UserRole, static_cast<int>(specs_.size()));
    item->setToolTip(QString::fromStdString(spec.description) + "\n" + summary(spec));
    specs_.push_back(spec);
}

std::vector<FormatSpec> FormatManagerDialog::formats() const {
    std::vector<FormatSpec> result;
    for (int i = 0; i < list_->count(); ++i) {
        const QListWidgetItem* item = list_->item(i);
        if (item->checkState() == Qt::Checked)
            result.push_back(specs_[static_cast<std::size_t>(item->data(Qt::UserRole).toInt())]);
    }
    return result;
}

void FormatManagerDialog::validateSpec() {
    const QString text = specEdit_->text().trimmed();
    if (text.isEmpty()) {
        specStatus_->setText(tr("Type a spec or set the fields below."));
        specStatus_->setStyleSheet({});
        add_->setEnabled(false);
        return;
    }
    const FormatLookup lookup = findFormat(text.toStdString());
    add_->setEnabled(lookup.spec.has_value());
    if (!lookup) {
        specStatus_->setText(QStringLiteral("⚠ ") + QString::fromStdString(lookup.error));
        styleErrorLabel(*specStatus_);
        return;
    }
    if (!writingSpec_)
        fieldsFromSpec(*lookup.spec);
    QString status = QStringLiteral("✓ ") + QString::fromStdString(lookup.spec->id) + " (" +
                     QString::fromStdString(fieldsName(*lookup.spec)) +
                     "): " + summary(*lookup.spec);
    const int existing = rowWithSameFormat(*lookup.spec);
    if (existing >= 0) {
        const FormatSpec& other =
            specs_[static_cast<std::size_t>(list_->item(existing)->data(Qt::UserRole).toInt())];
        status += tr(" — already in the list as %1: the same format cannot be added twice.")
                      .arg(QString::fromStdString(other.id));
        add_->setEnabled(false);
        specStatus_->setStyleSheet("color: #b07000;");
    } else {
        specStatus_->setStyleSheet("color: #2ea85a;");
    }
    specStatus_->setText(status);
}

void FormatManagerDialog::fieldsFromSpec(const FormatSpec& spec) {
    // The fields spell e<E>m<M>b<bias> and a suffix: a P3109 format's ∞ below its NaN and its
    // ties at precision 1 have no field, so its fields are off, as an integer's are.
    const bool isFloat = spec.kind == FormatKind::BinaryFloat && !spec.explicitIntegerBit &&
                         !spec.infinityAtTop && !spec.evenCodeTies;
    for (QWidget* w :
         std::initializer_list<QWidget*>{exponentBits_, mantissaBits_, defaultBias_, specials_})
        w->setEnabled(isFloat);
    if (!isFloat) {
        bias_->setEnabled(false);
        return;
    }
    updatingFields_ = true;
    const QString suffix = suffixOf(spec);
    exponentBits_->setValue(spec.exponentBits);
    mantissaBits_->setValue(spec.fractionBits);
    specials_->setCurrentIndex(std::max(0, specials_->findData(suffix)));
    const bool isDefault = spec.bias == defaultBias(spec.exponentBits, suffix);
    defaultBias_->setChecked(isDefault);
    bias_->setValue(spec.bias);
    bias_->setEnabled(!isDefault);
    updatingFields_ = false;
}

void FormatManagerDialog::specFromFields() {
    if (updatingFields_)
        return;
    const int e = exponentBits_->value();
    const int m = mantissaBits_->value();
    const QString suffix = specials_->currentData().toString();
    const int bias = defaultBias_->isChecked() ? defaultBias(e, suffix) : bias_->value();
    if (defaultBias_->isChecked()) {
        updatingFields_ = true;
        bias_->setValue(bias);
        updatingFields_ = false;
    }
    // The short form when it reads back as these fields; otherwise (e3m2 names OCP FP6, not
    // the IEEE-style E3M2 the fields say) the bias is written out: e3m2b3.
    const QString full = QStringLiteral("e%1m%2b%3%4").arg(e).arg(m).arg(bias).arg(suffix);
    QString text = QStringLiteral("e%1m%2").arg(e).arg(m) +
                   (defaultBias_->isChecked() ? QString() : QStringLiteral("b%1").arg(bias)) +
                   suffix;
    const FormatLookup shortForm = findFormat(text.toStdString());
    const FormatLookup fields = findFormat(full.toStdString());
    // And when the fields make no format (IEEE e8m0), the full form says why, rather than
    // the short one naming a built-in (e8m0 is OCP E8M0).
    if (!shortForm || !fields || !sameEncoding(*shortForm.spec, *fields.spec))
        text = full;
    // Where even the full form is a built-in's alias (e4m3b11 is Graphcore's fnuz format),
    // the fields follow the spec, so that the two never disagree.
    const FormatLookup shown = findFormat(text.toStdString());
    const bool agrees = shown && shown.spec->kind == FormatKind::BinaryFloat &&
                        shown.spec->exponentBits == e && shown.spec->fractionBits == m &&
                        shown.spec->bias == bias && suffixOf(*shown.spec) == suffix;
    writingSpec_ = agrees;
    specEdit_->setText(text);
    writingSpec_ = false;
}

void FormatManagerDialog::moveCurrent(int delta) {
    const int row = list_->currentRow();
    const int target = row + delta;
    if (row < 0 || target < 0 || target >= list_->count())
        return;
    QListWidgetItem* item = list_->takeItem(row);
    list_->insertItem(target, item);
    list_->setCurrentRow(target);
}

void FormatManagerDialog::showScaleOfCurrent() {
    const QListWidgetItem* item = list_->currentItem();
    const FormatSpec* spec =
        item ? &specs_[static_cast<std::size_t>(item->data(Qt::UserRole).toInt())] : nullptr;
    const bool scaled = spec && spec->isScaled();
    scaleEdit_->setEnabled(scaled);
    scaleEdit_->setText(scaled ? exactExpression(spec->scale) : QString());
    scaleStatus_->setText(scaled ? QString() : tr("Binary floats have no scale."));
}

void FormatManagerDialog::applyScale() {
    const QListWidgetItem* item = list_->currentItem();
    if (!item)
        return;
    FormatSpec& spec = specs_[static_cast<std::size_t>(item->data(Qt::UserRole).toInt())];
    const ParsedValue parsed = parseValue(scaleEdit_->text().toStdString());
    if (!parsed || !parsed.value->isFinite() || parsed.value->isZero() ||
        parsed.value->isNegative()) {
        scaleStatus_->setText(QStringLiteral("⚠ ") +
                              (parsed ? tr("the scale must be a finite positive number")
                                      : QString::fromStdString(parsed.error.message)));
        styleErrorLabel(*scaleStatus_);
        return;
    }
    spec.scale = *parsed.value;
    scaleStatus_->setText(
        tr("✓ max %1").arg(QString::fromStdString(toSignificantDigits(deriveLimits(spec).max, 6))));
    scaleStatus_->setStyleSheet("color: #2ea85a;");
}

} // namespace fpx::gui
