// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "common/page_options.h"

#include <QString>
#include <QStringList>

#include <cstddef>
#include <optional>

namespace fpx::gui {

// The Quantization page as options and lessons set it: each field that is set is applied, the
// others are left as they are (QuantizationPage::apply); QuantizationPage::state() sets the
// fields of the form as it stands (the source it names, the formats, block and scale rule) and
// the format shown, so that applying it again shows the same.
struct QuantizationPageState {
    // The source: a tensor file, values drawn from a distribution, or a bundled example.
    std::optional<QString> input; // "PATH" or "PATH:TENSOR"
    std::optional<QString> dtype; // of a raw --input file; empty: from the header
    std::optional<QString> dist;  // normal:MU:SIGMA, …
    std::optional<qulonglong> count;
    std::optional<qulonglong> seed;
    std::optional<QString> outliers; // FRACTION:SCALE; empty: none
    std::optional<QString> example;  // a bundled example tensor: weights
    // How: the quantizers compared, the block layout, the MX scale rule.
    std::optional<QStringList> formats;
    std::optional<QString> block;     // default, N, row, tensor
    std::optional<QString> scaleRule; // default, floor, ceil, even
    // What the next run's result shows: the selected format (empty: the first one quantized)
    // and the inspected block (unset: the block with the largest scale).
    std::optional<QString> select;
    std::optional<std::size_t> inspectBlock;
};

} // namespace fpx::gui
