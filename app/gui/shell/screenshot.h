// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

namespace fpx::gui {

class MainWindow;

// Renders the window at SIZE ("WIDTHxHEIGHT") to a PNG file, as the user would see it once the
// work the window started has finished: the plot computed off the GUI thread, the Arithmetic
// page's accumulation run, the Quantization page's run, and, when `waitForBenchmark`, the
// benchmark run. The file appears whole
// or not at all. Returns the problem ("--size: …", "cannot write …"), or an empty string.
QString renderScreenshot(MainWindow& window, const QString& size, bool waitForBenchmark,
                         const QString& file);

} // namespace fpx::gui
