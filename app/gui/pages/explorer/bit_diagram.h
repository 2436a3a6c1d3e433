// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "pages/explorer/explorer_controller.h"

#include <QPalette>
#include <QSize>
#include <QString>

#include <vector>

class QPainter;

namespace fpx::gui {

// The bit diagram of some rows, ready for slides: format name, aligned bit cells, the hex
// code and the exact value, one line per format, above the input.
class BitDiagram {
  public:
    BitDiagram(std::vector<const ExplorerRow*> rows, QString input, QPalette palette);

    QSize size() const;
    void paint(QPainter& painter) const;

    bool savePng(const QString& path, qreal scale = 2.0) const;
    bool saveSvg(const QString& path) const;

  private:
    std::vector<const ExplorerRow*> rows_;
    QString input_;
    QPalette palette_;
};

} // namespace fpx::gui
