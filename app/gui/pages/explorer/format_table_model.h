// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/explorer/explorer_controller.h"

#include <QAbstractTableModel>

namespace fpx::gui {

// The explorer's table: one row per format, columns for bits, hex, exact value, errors, class
// and flags. Reads the controller; edits (a toggled bit, a typed code) go back to it.
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
    // The whole table as tab-separated text, CSV or JSON.
    QString tableAsText() const;
    QString tableAsCsv() const;
    QString tableAsJson() const;

  private:
    ExplorerController* controller_;
};

} // namespace fpx::gui
