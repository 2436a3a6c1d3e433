// SPDX-License-Identifier: GPL-3.0-or-later
// Formats in the explorer, offscreen, with real widgets: the "same bits in every format" view
// (opens at the selected row's code, colours the fields like the rows, lists custom formats of
// that width), the Formats dialog (fields and spec string agree both ways, one format is added
// once, names show bias and specials, the e3m2 rule is stated), NaN payloads of a typed code
// (checked against this CPU's own float → double cast) and ≈ on errors against a stand-in
// input — the same as `fpx show` prints (the real binary is run for that).
#include "common/bit_cells.h"
#include "common/code_cells_delegate.h"
#include "explorer_table.h"
#include "pages/explorer/detail_panel.h"
#include "pages/explorer/format_manager_dialog.h"
#include "pages/explorer/format_table_model.h"
#include "pages/explorer/same_bits_dialog.h"
#include "shell/main_window.h"

#include "fpx/exact/format_catalogue.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <QTimer>

#include <cstdint>
#include <cstring>
#include <functional>

using namespace fpx;
using namespace fpx::gui;
using fpx::test::rowOf;
using fpx::test::specs;

namespace {

QString cell(const FormatTableModel* model, const QString& id, FormatTableModel::Column c) {
    return model->fullText(rowOf(model, id), c);
}

QString shown(const FormatTableModel* model, const QString& id, FormatTableModel::Column c) {
    return model->data(model->index(rowOf(model, id), c)).toString();
}

// This CPU's float → double conversion of an FP32 NaN code (the volatile keeps it at run
// time): the reference for the payload rule.
QString cpuFloatToDouble(std::uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, 4);
    volatile float in = f;
    volatile double out = in;
    const double d = out;
    std::uint64_t result;
    std::memcpy(&result, &d, 8);
    return QStringLiteral("0x%1").arg(result, 16, 16, QChar('0'));
}

// Runs `body` on the modal dialog that `open` shows, then closes it.
template <typename Dialog>
bool onModalDialog(const std::function<void()>& open, const std::function<void(Dialog*)>& body) {
    bool seen = false;
    QTimer::singleShot(0, [&] {
        auto* dialog = qobject_cast<Dialog*>(QApplication::activeModalWidget());
        if (dialog) {
            seen = true;
            body(dialog);
            dialog->reject();
        }
    });
    open();
    return seen;
}

QAction* actionNamed(QWidget& window, const QString& text) {
    for (QAction* action : window.findChildren<QAction*>())
        if (action->text().remove('&').startsWith(text))
            return action;
    return nullptr;
}

QString runFpx(const QStringList& args) {
    QProcess process;
    process.start(QStringLiteral(FPX_CLI_PATH), args);
    process.waitForFinished(120000);
    return QString::fromUtf8(process.readAllStandardOutput());
}

} // namespace

class TestFormatsDialogs : public QObject {
    Q_OBJECT

  private slots:
    void sameBitsOpensAtTheSelectedRow();
    void sameBitsColoursFieldsLikeTheRows();
    void sameBitsAgreesWithTheCli();
    void specFromFields();
    void fieldsFromSpec();
    void fieldsAndSpecRoundTrip();
    void sameFormatIsAddedOnce();
    void namesShowBiasAndSpecials();
    void e3m2RuleIsStated();
    void nanPayloadKeptInEveryRow();
    void signalingNaNIsShownAsSuch();
    void approximateErrorsAreMarked();
};

void TestFormatsDialogs::sameBitsOpensAtTheSelectedRow() {
    MainWindow window;
    window.controller()->setFormats(specs("fp16,fp8_e4m3,e2m5b0,int8"));
    window.controller()->setInputText("0.3952");
    window.controller()->waitForIdle();
    const int row = rowOf(window.model(), "fp8_e4m3");
    window.selectRow(row);
    const QString code = cell(window.model(), "fp8_e4m3", FormatTableModel::Hex);
    QCOMPARE(code, QString("0x2d")); // 0.3952 in E4M3: 0 0101 101 = 0.40625
    QAction* action = actionNamed(window, "Same bits in every format");
    QVERIFY(action);
    const bool seen = onModalDialog<SameBitsDialog>(
        [&] { action->trigger(); },
        [&](SameBitsDialog* dialog) {
            QCOMPARE(dialog->codeEdit()->text(), code);
            QCOMPARE(dialog->widthBox()->currentData().toInt(), 8);
            QTableWidget* table = dialog->table();
            QStringList ids;
            for (int r = 0; r < table->rowCount(); ++r)
                ids << table->item(r, SameBitsDialog::Format)->text();
            QVERIFY2(ids.contains("e2m5b0"), qPrintable(ids.join(','))); // the custom one
            QVERIFY(ids.contains("fp8_e5m2") && ids.contains("int8"));   // built-ins
            QVERIFY(!ids.contains("fp16"));                              // other width
            QCOMPARE(ids.count("fp8_e4m3"), 1);
            const int selected = table->currentRow();
            QVERIFY(selected >= 0);
            QCOMPARE(table->item(selected, SameBitsDialog::Format)->text(), QString("fp8_e4m3"));
            QCOMPARE(table->item(selected, SameBitsDialog::Value)->text(), QString("0.40625"));
        });
    QVERIFY(seen);

    // A 16-bit row opens at 16 bits, an INT8 row at its level.
    window.selectRow(rowOf(window.model(), "fp16"));
    QVERIFY(
        (onModalDialog<SameBitsDialog>([&] { action->trigger(); },
                                       [&](SameBitsDialog* dialog) {
                                           QCOMPARE(dialog->widthBox()->currentData().toInt(), 16);
                                           QCOMPARE(dialog->codeEdit()->text(), QString("0x3653"));
                                       })));
}

void TestFormatsDialogs::sameBitsColoursFieldsLikeTheRows() {
    SameBitsDialog dialog(specs("fp16"));
    dialog.resize(900, 600);
    dialog.openAt(*findFormat("fp8_e4m3").spec, 0xff); // every bit set: full field colours
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QTableWidget* table = dialog.table();
    QCOMPARE(table->itemDelegateForColumn(SameBitsDialog::Bits),
             static_cast<QAbstractItemDelegate*>(dialog.bitsDelegate()));
    const int row = table->currentRow();
    QCOMPARE(table->item(row, SameBitsDialog::Format)->text(), QString("fp8_e4m3"));
    const QRect rect = table->visualItemRect(table->item(row, SameBitsDialog::Bits));
    const QImage image = table->viewport()->grab(rect).toImage();
    auto has = [&](const QColor& colour) {
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                if (image.pixelColor(x, y).rgb() == colour.rgb())
                    return true;
        return false;
    };
    // The colours of the explorer's rows (bit_cells.h), drawn from the same painter.
    QVERIFY(has(fieldColour(BitFieldKind::Sign)));
    QVERIFY(has(fieldColour(BitFieldKind::Exponent)));
    QVERIFY(has(fieldColour(BitFieldKind::Fraction)));
    QVERIFY(!has(fieldColour(BitFieldKind::Level))); // no integer level in a float row
}

void TestFormatsDialogs::sameBitsAgreesWithTheCli() {
    SameBitsDialog dialog(specs("e2m5b0,fp16"));
    dialog.openAt(*findFormat("fp8_e4m3").spec, 0x80);
    const QJsonObject cli =
        QJsonDocument::fromJson(
            runFpx({"show", "--bits", "0x80", "--width", "8", "--formats", "e2m5b0,fp16", "--json"})
                .toUtf8())
            .object();
    const QJsonArray results = cli["results"].toArray();
    QTableWidget* table = dialog.table();
    QCOMPARE(results.size(), table->rowCount());
    for (int r = 0; r < table->rowCount(); ++r) {
        const QJsonObject o = results[r].toObject();
        QCOMPARE(table->item(r, SameBitsDialog::Format)->text(), o["format"].toString());
        QCOMPARE(table->item(r, SameBitsDialog::Bits)->text(), o["fields"].toString());
        QCOMPARE(table->item(r, SameBitsDialog::Class)->text(), o["class"].toString());
        QCOMPARE(table->item(r, SameBitsDialog::Value)->text(), o["value"].toString());
    }
}

void TestFormatsDialogs::specFromFields() {
    FormatManagerDialog dialog(specs("fp16"));
    dialog.exponentBitsBox()->setValue(3);
    dialog.mantissaBitsBox()->setValue(2);
    dialog.specialsBox()->setCurrentIndex(dialog.specialsBox()->findData(QString()));
    dialog.defaultBiasBox()->setChecked(true);
    // IEEE-style E3M2 with the default bias 3: `e3m2` would name OCP FP6, so the bias is
    // written out.
    QCOMPARE(dialog.specEdit()->text(), QString("e3m2b3"));
    QVERIFY(findFormat(dialog.specEdit()->text().toStdString()).spec->hasInfinity());
    dialog.specialsBox()->setCurrentIndex(dialog.specialsBox()->findData(QString("f")));
    QCOMPARE(dialog.specEdit()->text(), QString("e3m2f"));
    dialog.exponentBitsBox()->setValue(6);
    dialog.mantissaBitsBox()->setValue(9);
    dialog.specialsBox()->setCurrentIndex(dialog.specialsBox()->findData(QString()));
    dialog.defaultBiasBox()->setChecked(false);
    dialog.biasBox()->setValue(40);
    QCOMPARE(dialog.specEdit()->text(), QString("e6m9b40"));
    dialog.specialsBox()->setCurrentIndex(dialog.specialsBox()->findData(QString("fnuz")));
    QCOMPARE(dialog.specEdit()->text(), QString("e6m9b40fnuz"));
    dialog.defaultBiasBox()->setChecked(true);
    QCOMPARE(dialog.specEdit()->text(), QString("e6m9fnuz"));
    QCOMPARE(dialog.biasBox()->value(), 32); // fnuz: 2^(E−1)
    // IEEE with no mantissa bit is no format: the spec says so, not "e8m0" (OCP E8M0).
    dialog.exponentBitsBox()->setValue(8);
    dialog.mantissaBitsBox()->setValue(0);
    dialog.specialsBox()->setCurrentIndex(dialog.specialsBox()->findData(QString()));
    QCOMPARE(dialog.specEdit()->text(), QString("e8m0b127"));
    QVERIFY(!dialog.addButton()->isEnabled());
    // IEEE E4M3 with bias 11 has no spelling of its own (e4m3b11 is Graphcore's fnuz
    // format): the fields follow the spec rather than disagree with it.
    dialog.exponentBitsBox()->setValue(4);
    dialog.mantissaBitsBox()->setValue(3);
    dialog.defaultBiasBox()->setChecked(false);
    dialog.biasBox()->setValue(11);
    QCOMPARE(dialog.specEdit()->text(), QString("e4m3b11"));
    QCOMPARE(dialog.specialsBox()->currentData().toString(), QString("fnuz"));
}

void TestFormatsDialogs::fieldsFromSpec() {
    FormatManagerDialog dialog(specs("fp16"));
    struct Case {
        const char* spec;
        int e, m, bias;
        bool defaultBias;
        const char* specials;
    };
    // Fields typed from the formats' definitions (docs/behaviour.md, "Format facts").
    const Case cases[] = {
        {"e4m3b11fnuz", 4, 3, 11, false, "fnuz"},
        {"e3m2", 3, 2, 3, true, "f"},
        {"e3m2b3", 3, 2, 3, true, ""},
        {"fp8_e4m3", 4, 3, 7, true, "fn"},
        {"e5m2", 5, 2, 15, true, ""},
        {"bfloat16", 8, 7, 127, true, ""},
        {"e8m0fnu", 8, 0, 127, true, "fnu"},
        {"e6m9b40", 6, 9, 40, false, ""},
    };
    for (const Case& c : cases) {
        dialog.specEdit()->setText(c.spec);
        QCOMPARE(dialog.specEdit()->text(), QString(c.spec)); // typed text stays
        QCOMPARE(dialog.exponentBitsBox()->value(), c.e);
        QCOMPARE(dialog.mantissaBitsBox()->value(), c.m);
        QCOMPARE(dialog.biasBox()->value(), c.bias);
        QCOMPARE(dialog.defaultBiasBox()->isChecked(), c.defaultBias);
        QCOMPARE(dialog.specialsBox()->currentData().toString(), QString(c.specials));
    }
    dialog.specEdit()->setText("int6"); // no float fields: they are disabled, not wrong
    QVERIFY(!dialog.exponentBitsBox()->isEnabled());
    // A P3109 extended format's ∞ below its NaN has no field: off too, and the id stays.
    dialog.specEdit()->setText("binary8p3se");
    QVERIFY(!dialog.exponentBitsBox()->isEnabled());
    QCOMPARE(dialog.specEdit()->text(), QString("binary8p3se"));
    // The finite one is fp8_e5m2fnuz's encoding, which the fields spell.
    dialog.specEdit()->setText("binary8p3sf");
    QVERIFY(dialog.exponentBitsBox()->isEnabled());
    QCOMPARE(dialog.specialsBox()->currentData().toString(), QString("fnuz"));
    dialog.specEdit()->setText("e5m10");
    QVERIFY(dialog.exponentBitsBox()->isEnabled());
}

void TestFormatsDialogs::fieldsAndSpecRoundTrip() {
    // Whatever the fields, the spec they write reads back as exactly those fields; and that
    // spec typed in sets the same fields.
    FormatManagerDialog dialog(specs("fp16"));
    int checked = 0;
    for (int e = 1; e <= 8; ++e)
        for (int m : {0, 1, 2, 3, 5, 10})
            for (const char* specials : {"", "fn", "fnuz", "f"})
                for (int bias : {-1, 0, 3}) { // −1: the default bias
                    dialog.exponentBitsBox()->setValue(e);
                    dialog.mantissaBitsBox()->setValue(m);
                    dialog.specialsBox()->setCurrentIndex(
                        dialog.specialsBox()->findData(QString(specials)));
                    dialog.defaultBiasBox()->setChecked(bias < 0);
                    if (bias >= 0)
                        dialog.biasBox()->setValue(bias);
                    const QString text = dialog.specEdit()->text();
                    const FormatLookup lookup = findFormat(text.toStdString());
                    if (!lookup)
                        continue; // e.g. IEEE with no mantissa bit: the dialog says why
                    const FormatSpec& s = *lookup.spec;
                    const int expectedBias =
                        bias >= 0
                            ? bias
                            : (QString(specials) == "fnuz" ? (1 << (e - 1)) : (1 << (e - 1)) - 1);
                    QVERIFY2(s.exponentBits == e && s.fractionBits == m && s.bias == expectedBias,
                             qPrintable(text));
                    const char* suffix = s.specials == SpecialEncoding::Ieee                ? ""
                                         : s.specials == SpecialEncoding::NanAtAllOnes      ? "fn"
                                         : s.specials == SpecialEncoding::NanAtNegativeZero ? "fnuz"
                                                                                            : "f";
                    QVERIFY2(QString(suffix) == specials, qPrintable(text));
                    QCOMPARE(dialog.exponentBitsBox()->value(), e); // unchanged by the echo
                    QCOMPARE(dialog.biasBox()->value(), expectedBias);
                    ++checked;
                }
    QVERIFY(checked > 300);
}

void TestFormatsDialogs::sameFormatIsAddedOnce() {
    FormatManagerDialog dialog(specs("fp16,fp8_e4m3"));
    const int count = dialog.list()->count();
    for (const char* sameAsFp16 : {"e5m10", "float16", "e5m10b15", "torch.half"}) {
        dialog.specEdit()->setText(sameAsFp16);
        QVERIFY2(!dialog.addButton()->isEnabled(), sameAsFp16);
        QVERIFY2(dialog.specStatus()->text().contains("already in the list as fp16"),
                 qPrintable(dialog.specStatus()->text()));
        QVERIFY(!dialog.addSpec());
        QCOMPARE(dialog.list()->count(), count);
    }
    dialog.specEdit()->setText("e4m3b7fn");
    QVERIFY(dialog.specStatus()->text().contains("already in the list as fp8_e4m3"));
    // A built-in not shown is checked, not added again.
    dialog.specEdit()->setText("e3m2f");
    QVERIFY(!dialog.addSpec());
    QCOMPARE(dialog.list()->count(), count);
    bool fp6Shown = false;
    for (const FormatSpec& s : dialog.formats())
        fp6Shown = fp6Shown || s.id == "fp6_e3m2";
    QVERIFY(fp6Shown);
    // A new format once, then no more.
    dialog.specEdit()->setText("e6m9b40");
    QVERIFY(dialog.addButton()->isEnabled());
    QTest::mouseClick(dialog.addButton(), Qt::LeftButton);
    QCOMPARE(dialog.list()->count(), count + 1);
    dialog.specEdit()->setText("e6m9b40");
    QVERIFY(!dialog.addButton()->isEnabled());
    QVERIFY(!dialog.addSpec());
    QCOMPARE(dialog.list()->count(), count + 1);
}

void TestFormatsDialogs::namesShowBiasAndSpecials() {
    FormatManagerDialog dialog(specs("fp8_e4m3"));
    dialog.specEdit()->setText("e4m3b10");
    QVERIFY(dialog.addSpec());
    QStringList texts;
    for (int i = 0; i < dialog.list()->count(); ++i)
        texts << dialog.list()->item(i)->text();
    const QString all = texts.join('\n');
    QVERIFY2(all.contains("e4m3b10  —  e4m3 b=10 ieee (custom)"), qPrintable(all));
    QVERIFY(all.contains("[e4m3 b=7 fn]"));
    QVERIFY(all.contains("[e4m3 b=8 fnuz]"));
    QVERIFY(dialog.specStatus()->text().contains("e4m3 b=10 ieee"));
    // e4m3b11 is an alias: the built-in Graphcore format, as the rule says.
    dialog.specEdit()->setText("e4m3b11");
    QVERIFY(dialog.specStatus()->text().contains("fp8_e4m3b11fnuz"));
}

void TestFormatsDialogs::e3m2RuleIsStated() {
    FormatManagerDialog dialog(specs("fp16"));
    const QString rule = dialog.specRule()->text();
    QVERIFY2(rule.contains("e3m2 is fp6_e3m2 (e3m2 b=3 f, no ∞ or NaN)"), qPrintable(rule));
    QVERIFY(rule.contains("e4m3, ") && rule.contains("e4m3b11"));
    QVERIFY(rule.contains("write the bias: e3m2b3"));
    const QString table = dialog.specRule()->toolTip();
    QVERIFY2(table.contains("e3m2 = fp6_e3m2"), qPrintable(table));
    QVERIFY(table.contains("e4m3 = fp8_e4m3"));
    QVERIFY(table.contains("e4m3b11 = fp8_e4m3b11fnuz"));
    dialog.specEdit()->setText("e3m2");
    QVERIFY2(dialog.specStatus()->text().contains("fp6_e3m2"),
             qPrintable(dialog.specStatus()->text()));
    QVERIFY(dialog.specStatus()->text().contains("no ∞"));
    dialog.specEdit()->setText("e3m2b3");
    QVERIFY(dialog.specStatus()->text().contains(", ∞"));
}

void TestFormatsDialogs::nanPayloadKeptInEveryRow() {
    MainWindow window;
    window.controller()->setFormats(specs("fp64,fp32,bf16,fp16,fp8_e4m3,fp8_e5m2,int8"));
    FormatTableModel* model = window.model();
    QVERIFY(
        model->setData(model->index(rowOf(model, "fp32"), FormatTableModel::Hex), "0x7fc00123"));
    QCOMPARE(cell(model, "fp32", FormatTableModel::Hex), QString("0x7fc00123"));
    QCOMPARE(cell(model, "fp64", FormatTableModel::Hex), cpuFloatToDouble(0x7fc00123));
    QCOMPARE(cell(model, "fp64", FormatTableModel::Hex), QString("0x7ff8002460000000"));
    QCOMPARE(cell(model, "bf16", FormatTableModel::Hex), QString("0x7fc0")); // top 7 bits
    QCOMPARE(cell(model, "fp16", FormatTableModel::Hex), QString("0x7e00"));
    QCOMPARE(cell(model, "fp8_e4m3", FormatTableModel::Hex), QString("0x7f")); // its one NaN
    QCOMPARE(cell(model, "fp32", FormatTableModel::Class), QString("qNaN"));
    QCOMPARE(cell(model, "fp64", FormatTableModel::Class), QString("qNaN"));
    QCOMPARE(cell(model, "fp8_e4m3", FormatTableModel::Class), QString("nan"));
    // A payload in the top bits survives into the narrow formats too.
    QVERIFY(
        model->setData(model->index(rowOf(model, "fp32"), FormatTableModel::Hex), "0xffd5a000"));
    QCOMPARE(cell(model, "fp64", FormatTableModel::Hex), cpuFloatToDouble(0xffd5a000));
    QCOMPARE(cell(model, "bf16", FormatTableModel::Hex), QString("0xffd5"));
    QCOMPARE(cell(model, "fp16", FormatTableModel::Hex), QString("0xfead")); // 1 11111 1010101101
    QCOMPARE(cell(model, "fp8_e5m2", FormatTableModel::Hex), QString("0xfe"));
    // Pinning the FP64 row's code carries it back into FP32 as the CPU would.
    QVERIFY(model->setData(model->index(rowOf(model, "fp64"), FormatTableModel::Hex),
                           "0x7ff8002460000000"));
    QCOMPARE(cell(model, "fp32", FormatTableModel::Hex), QString("0x7fc00123"));
    // A value typed (not a code) still gives the canonical NaN.
    window.controller()->setInputText("nan");
    window.controller()->waitForIdle();
    QCOMPARE(cell(model, "fp64", FormatTableModel::Hex), QString("0x7ff8000000000000"));
    QCOMPARE(cell(model, "fp32", FormatTableModel::Hex), QString("0x7fc00000"));
}

void TestFormatsDialogs::signalingNaNIsShownAsSuch() {
    MainWindow window;
    window.controller()->setFormats(specs("fp32,fp64,fp16"));
    FormatTableModel* model = window.model();
    QVERIFY(
        model->setData(model->index(rowOf(model, "fp32"), FormatTableModel::Hex), "0x7f800123"));
    QCOMPARE(cell(model, "fp32", FormatTableModel::Class), QString("sNaN"));
    QCOMPARE(cell(model, "fp32", FormatTableModel::Hex), QString("0x7f800123")); // as typed
    QCOMPARE(cell(model, "fp64", FormatTableModel::Class), QString("qNaN"));     // quieted
    QCOMPARE(cell(model, "fp64", FormatTableModel::Hex), cpuFloatToDouble(0x7f800123));
    QCOMPARE(cell(model, "fp64", FormatTableModel::Flags), QString("invalid"));
    window.selectRow(rowOf(model, "fp32")); // the window fills its detail panel
    const QString html = window.detailPanel()->currentHtml();
    QVERIFY(html.contains("sNaN"));
    QVERIFY(html.contains("signaling"));
    QVERIFY(html.contains("payload 0x000123"));
    // Flipping the quiet bit makes it a qNaN.
    model->toggleBit(rowOf(model, "fp32"), 22);
    QCOMPARE(cell(model, "fp32", FormatTableModel::Class), QString("qNaN"));
}

void TestFormatsDialogs::approximateErrorsAreMarked() {
    MainWindow window;
    window.controller()->setFormats(specs("fp16,fp32"));
    FormatTableModel* model = window.model();
    const QString approx = QStringLiteral("≈");
    window.controller()->setInputText("1e-30000"); // beyond 10^-20000: held as a stand-in
    window.controller()->waitForIdle();
    for (auto c :
         {FormatTableModel::Error, FormatTableModel::RelativeError, FormatTableModel::UlpError}) {
        QVERIFY2(shown(model, "fp16", c).startsWith(approx), qPrintable(shown(model, "fp16", c)));
        QVERIFY(cell(model, "fp16", c).startsWith(approx));
    }
    window.selectRow(rowOf(model, "fp16"));
    QVERIFY(window.detailPanel()->currentHtml().contains(approx));
    const QJsonObject json = QJsonDocument::fromJson(model->tableAsJson().toUtf8()).object();
    const QJsonObject fp16 = json["results"].toArray()[0].toObject();
    QVERIFY(fp16["error_approximate"].toBool());
    QVERIFY(!fp16["error"].toString().startsWith(approx));

    // The same input in `fpx show`: the same mark, the same flag.
    const QString text = runFpx({"show", "1e-30000", "--formats", "fp16,fp32"});
    QVERIFY2(text.contains(approx + shown(model, "fp16", FormatTableModel::Error).mid(1).left(4)),
             qPrintable(text));
    const QJsonObject cli =
        QJsonDocument::fromJson(
            runFpx({"show", "1e-30000", "--formats", "fp16", "--json"}).toUtf8())
            .object();
    QVERIFY(cli["results"].toArray()[0].toObject()["error_approximate"].toBool());

    // An ordinary input: no mark anywhere.
    window.controller()->setInputText("0.3952");
    window.controller()->waitForIdle();
    QVERIFY(!shown(model, "fp16", FormatTableModel::Error).startsWith(approx));
    QVERIFY(!window.detailPanel()->currentHtml().contains(approx)); // refreshed on input
    // Overflow to ∞ is not approximate: ∞ is ∞.
    window.controller()->setInputText("1e30000");
    window.controller()->waitForIdle();
    QVERIFY(!shown(model, "fp16", FormatTableModel::Error).startsWith(approx));
}

QTEST_MAIN(TestFormatsDialogs)
#include "tst_formats_dialogs.moc"
