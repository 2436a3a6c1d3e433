// SPDX-License-Identifier: GPL-3.0-or-later
// Codes typed into the explorer, offscreen: the table's code column and the same-bits dialog
// read them with the one code parser (readCode). Codes made only of digit separators ("_",
// "0x___", "0b_") are refused by both entries, and the dialog says at which column a digit
// was expected.
#include "explorer_table.h"
#include "pages/explorer/explorer_controller.h"
#include "pages/explorer/format_table_model.h"
#include "pages/explorer/same_bits_dialog.h"
#include "shell/main_window.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QTableWidget>
#include <QTest>

using namespace fpx;
using namespace fpx::gui;
using fpx::test::rowOf;
using fpx::test::specs;

class TestCodeEntry : public QObject {
    Q_OBJECT

  private slots:
    void tableRefusesSeparatorOnlyCodes_data() {
        QTest::addColumn<QString>("code");
        for (const char* code : {"_", "__", "0x___", "0x", "0b_", "0b' _"})
            QTest::newRow(code) << QString(code);
    }
    void tableRefusesSeparatorOnlyCodes() {
        QFETCH(QString, code);
        MainWindow window;
        window.controller()->setFormats(specs("fp16,fp32"));
        FormatTableModel* model = window.model();
        const int fp16 = rowOf(model, "fp16");
        QVERIFY(model->setData(model->index(fp16, FormatTableModel::Hex), "0x3c01"));
        QCOMPARE(window.valueEdit()->text(), QString("1.0009765625"));
        QVERIFY(!model->setData(model->index(fp16, FormatTableModel::Hex), code));
        // Nothing changed: the value is not 0 and the row still holds 0x3c01.
        QCOMPARE(window.valueEdit()->text(), QString("1.0009765625"));
        QCOMPARE(model->fullText(fp16, FormatTableModel::Hex), QString("0x3c01"));
    }

    void sameBitsDialogSaysWhereADigitWasExpected_data() {
        QTest::addColumn<QString>("code");
        QTest::addColumn<QString>("status");
        QTest::newRow("_") << "_"
                           << "column 1: expected a hex digit";
        QTest::newRow("0x___") << "0x___"
                               << "column 3: expected a hex digit";
        QTest::newRow("0b_") << "0b_"
                             << "column 3: expected a binary digit";
        QTest::newRow("blank, 0x") << " 0x"
                                   << "column 4: expected a hex digit";
        QTest::newRow("a non-ASCII first byte") << "é0xg"
                                                << "column 1: expected a hex digit";
        QTest::newRow("9 bits") << "0x1ff"
                                << "column 3: wider than 8 bits";
    }
    void sameBitsDialogSaysWhereADigitWasExpected() {
        QFETCH(QString, code);
        QFETCH(QString, status);
        SameBitsDialog dialog;
        dialog.widthBox()->setCurrentIndex(dialog.widthBox()->findData(8));
        dialog.codeEdit()->setText("0x80");
        QVERIFY(dialog.table()->rowCount() > 0);
        dialog.codeEdit()->setText(code);
        QCOMPARE(dialog.table()->rowCount(), 0);
        QVERIFY2(dialog.statusLabel()->text().contains(status),
                 qPrintable(dialog.statusLabel()->text()));
        QVERIFY(dialog.statusLabel()->text().contains("8-bit code"));
    }
};

QTEST_MAIN(TestCodeEntry)
#include "tst_code_entry.moc"
