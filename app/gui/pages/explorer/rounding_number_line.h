// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"
#include "fpx/exact/rounding_neighbourhood.h"

#include <QString>
#include <QWidget>

#include <functional>
#include <optional>

namespace fpx::gui {

// A number line of one rounding: the exact input drawn between the two representable values
// around it, the half-way point between them, the rounding interval of the code it rounds to
// shaded (a filled dot at a closed end, a hollow one at an open end, an arrow where it runs on
// past the drawn stretch), and the result ringed. Every number it writes is the exact core's
// (RoundingNeighbourhood); only the positions are doubles. Sizes follow the widget's font, so
// the zoom scales it.
class RoundingNumberLine : public QWidget {
    Q_OBJECT

  public:
    explicit RoundingNumberLine(QWidget* parent = nullptr);

    // Nothing to place (a NaN) when `n` is empty: the line says so instead.
    void setNeighbourhood(const std::optional<RoundingNeighbourhood>& n, const FormatSpec& spec,
                          const RoundingOptions& options);

    // The texts drawn, in full (the drawing fits them to the width it has): for the tooltip
    // and for tests.
    QString inputText() const { return inputText_; }
    QString lowText() const { return lowText_; }
    QString highText() const { return highText_; }
    QString midpointText() const { return midpointText_; }
    QString caption() const { return caption_; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

  protected:
    void paintEvent(QPaintEvent* event) override;
    void changeEvent(QEvent* event) override;

  private:
    // Where a position of the stretch (0 at its low end, 1 at its high end) is drawn.
    double xAt(double position) const;

    bool empty_ = true;
    // Positions on the stretch, from the exact ratios (v − low) / (high − low).
    double input_ = 0;
    double result_ = 0;
    double intervalLow_ = 0;
    double intervalHigh_ = 1;
    bool lowClosed_ = true;
    bool highClosed_ = true;
    bool resultIsLow_ = false;
    bool resultIsHigh_ = false;
    bool showMidpoint_ = false;
    QString inputText_;
    QString lowText_;
    QString highText_;
    QString midpointText_;
    QString caption_;
    // The exact decimals, fitted to the room at paint time.
    QString inputDecimal_;
    QString lowDecimal_;
    QString highDecimal_;
    QString midpointDecimal_;
    QString lowCode_;
    QString highCode_;
};

// The exact decimal `text` ("0.3699999749660491943359375", "1.4e-45", "-65504") in at most
// `fits(candidate)` room: whole where it fits; else cut after the point with "…" while the
// integer part and two significant digits stay whole; else in scientific notation with as
// many digits as fit, cut with "…" ("3.39…e38"), so a value never loses its magnitude.
// Digits are cut, never rounded: what is shown is a prefix of the exact expansion.
QString numberLineDecimal(const QString& text, const std::function<bool(const QString&)>& fits);

} // namespace fpx::gui
