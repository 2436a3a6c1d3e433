// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/quantization/quantization_model.h"

class QTableWidget;

// The Quantization page's table of errors, one row per quantizer. A namespace of its own keeps
// the columns' short names out of fpx::gui.
namespace fpx::gui::quantization_table {

enum Column {
    Format,
    Sqnr,
    Rmse,
    MaxError,
    Clipped,
    Flushed,
    BitsPerElement,
    Bytes,
    Path,
    ColumnCount
};

// Headers with their tooltips; whole rows, one at a time, selectable.
void setUp(QTableWidget& table);
// One row per outcome: its errors, or across the row why it was not quantized.
void fill(QTableWidget& table, const QuantizationResult& result);

} // namespace fpx::gui::quantization_table
