// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/decimal_layout.h"
#include "pages/explorer/explorer_controller.h"

#include <QAbstractTableModel>

#include <array>

namespace fpx::gui {

// The explorer's table: one row per format, columns for bits, hex, exact value, errors, class
// and flags. Reads the controller; edits (a toggled bit, a typed code) go back to it.
//
// The number columns (value and errors) hold a set number of characters, which the table's
// fitter sets from the width it gives them. Each such column writes all its rows in one
// notation: plain while every row reads plainly in the room, scientific for every row
// otherwise (docs/pages.md, "Explorer"). A value cut to fit keeps its sign and exponent and
// shows "…" where digits were cut; tooltips and copies have every digit.
class FormatTableModel : public QAbstractTableModel {
    Q_OBJECT

  public:
    enum Column {
        Name,
        Bits,
        Hex,
        Value,
        Error,
        UlpError,
        RelativeError,
        Class,
        Flags,
        ColumnCount
    };

    explicit FormatTableModel(ExplorerController* controller, QObject* parent = nullptr);

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    // Hex column: a hex (0x…) or binary (0b…) code sets that row's code directly.
    bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

    const ExplorerRow& row(int r) const { return controller_->rows()[static_cast<std::size_t>(r)]; }
    ExplorerController* controller() const { return controller_; }
    // Flips bit `bit` (0 = least significant) of row `r`'s code.
    void toggleBit(int r, int bit);

    // Full texts, for tooltips and copying.
    QString fullText(int r, Column column) const;

    // How many characters the cells of a number column (Value, Error, UlpError,
    // RelativeError) hold; at least kMinimumChars.
    void setColumnChars(Column column, int chars);
    int columnChars(Column column) const { return chars_[column]; }
    static constexpr int kMinimumChars = 10;
    // The notation every row of a number column is written in just now.
    Notation notation(Column column) const { return notation_[column]; }
    // Texts as wide as the widest that `column` can show for these formats, whatever the value
    // (number columns: at their set number of characters), so that a column sized for them
    // need not change as the value does.
    QStringList widestTexts(Column column) const;
    // A text as wide as any of `chars` characters a number column shows.
    static QString widestNumber(int chars);
    // The whole table as tab-separated text, CSV or JSON.
    QString tableAsText() const;
    QString tableAsCsv() const;
    QString tableAsJson() const;

  private:
    // Chooses each number column's notation for the rows now shown.
    void refreshNotation();
    // An error (`digits` significant digits, fewer if the room asks) in `column`'s notation.
    QString errorText(const ExactValue& error, int digits, Column column) const;

    ExplorerController* controller_;
    std::array<int, ColumnCount> chars_{};
    std::array<Notation, ColumnCount> notation_{};
};

} // namespace fpx::gui
