// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/explorer/explorer_controller.h"

#include <QWidget>

class QLabel;
class QPushButton;
class QTextBrowser;

namespace fpx::gui {

class BitStrip;
class RoundingNumberLine;

// Teaches one row: the decode written out with its numbers, fields, neighbours, ULP, the
// interval of inputs that round to this code drawn on a number line around the input, the
// format's limits, and buttons to step to the neighbouring representable values.
class DetailPanel : public QWidget {
    Q_OBJECT

  public:
    explicit DetailPanel(QWidget* parent = nullptr);

    // `inputExact` false: the input is a stand-in for a value beyond 10^±20000 (or longer
    // than 40000 digits), and the errors shown are marked approximate (≈).
    void showRow(const ExplorerRow* row, const RoundingOptions& options, bool inputExact = true);
    QString currentHtml() const;
    // Whether a line under the title says the stored value and its error: where the table has
    // no room for their columns, they step out to here.
    void setStoredLineShown(bool shown);
    const QLabel* storedLine() const { return stored_; }
    RoundingNumberLine* numberLine() const { return numberLine_; }

  signals:
    void stepRequested(int direction); // +1 next up, −1 next down

  private:
    QLabel* title_;
    QLabel* stored_;
    BitStrip* strip_;
    RoundingNumberLine* numberLine_;
    QTextBrowser* text_;
    QPushButton* previous_;
    QPushButton* next_;
};

// One code's bit cells, on their own (the detail panel and exports use it).
class BitStrip : public QWidget {
    Q_OBJECT

  public:
    explicit BitStrip(QWidget* parent = nullptr);
    void setRow(const FormatSpec& spec, const DecodedCode& decoded);
    QSize sizeHint() const override;

  protected:
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    // Cells a little wider than a digit of the strip's font, so that the zoom scales them.
    int naturalCellWidth() const;

    std::optional<FormatSpec> spec_;
    DecodedCode decoded_;
};

} // namespace fpx::gui
