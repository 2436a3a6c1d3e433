// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <QObject>

#include <vector>

namespace fpx::gui {

// The formats and the rounding the explorer shows, which the Arithmetic page's labs compute
// in too: one selection, changed from either page and followed by both. The explorer's
// controller holds it; a lab sees only this, never the explorer.
class FormatSelection : public QObject {
    Q_OBJECT

  public:
    using QObject::QObject;

    virtual std::vector<FormatSpec> formats() const = 0;
    virtual const RoundingOptions& roundingOptions() const = 0;
    RoundingMode roundingMode() const { return roundingOptions().mode; }
    RoundingChoice roundingChoice() const {
        return {roundingOptions().mode, roundingOptions().stochastic};
    }
    OverflowPolicy overflowPolicy() const { return roundingOptions().overflow; }
    // A mode, and for stochastic rounding how many random bits decide (sr:N).
    virtual void setRoundingChoice(const RoundingChoice& choice) = 0;
    void setRoundingMode(RoundingMode mode) { setRoundingChoice({mode, {}}); }
    virtual void setOverflowPolicy(OverflowPolicy policy) = 0;

  signals:
    void formatsChanged(); // formats were added, removed or reordered
    void optionsChanged(); // the rounding mode or overflow policy
};

} // namespace fpx::gui
