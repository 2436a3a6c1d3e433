// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/explorer/bit_diagram.h"

#include "common/bit_cells.h"

#include "fpx/exact/decimal_text.h"

#include <QFontDatabase>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>

namespace fpx::gui {

namespace {

constexpr int kRowHeight = 30;
constexpr int kNameWidth = 110;
constexpr int kCellWidth = 16;
constexpr int kValueWidth = 260;
constexpr int kPadding = 16;

std::vector<FormatSpec> specsOf(const std::vector<const ExplorerRow*>& rows) {
    std::vector<FormatSpec> specs;
    for (const ExplorerRow* row : rows)
        specs.push_back(row->spec);
    return specs;
}

} // namespace

BitDiagram::BitDiagram(std::vector<const ExplorerRow*> rows, QString input, QPalette palette)
    : rows_(std::move(rows)), input_(std::move(input)), palette_(std::move(palette)) {}

QSize BitDiagram::size() const {
    const BitCellLayout layout = BitCellLayout::forFormats(specsOf(rows_), kCellWidth);
    return {2 * kPadding + kNameWidth + layout.totalWidth() + kValueWidth,
            2 * kPadding + kRowHeight * (static_cast<int>(rows_.size()) + 1)};
}

void BitDiagram::paint(QPainter& painter) const {
    const BitCellLayout layout = BitCellLayout::forFormats(specsOf(rows_), kCellWidth);
    const QSize total = size();
    painter.fillRect(QRect(QPoint(0, 0), total), palette_.color(QPalette::Base));
    QFont font = painter.font();
    font.setPixelSize(14);
    painter.setFont(font);
    painter.setPen(palette_.color(QPalette::Text));
    painter.drawText(QRect(kPadding, kPadding, total.width() - 2 * kPadding, kRowHeight),
                     Qt::AlignLeft | Qt::AlignVCenter, QObject::tr("x = %1").arg(input_));
    QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    mono.setPixelSize(13);
    int y = kPadding + kRowHeight;
    for (const ExplorerRow* row : rows_) {
        painter.setFont(font);
        painter.setPen(palette_.color(QPalette::Text));
        painter.drawText(QRect(kPadding, y, kNameWidth, kRowHeight),
                         Qt::AlignLeft | Qt::AlignVCenter, QString::fromStdString(row->spec.id));
        const QRect cells(kPadding + kNameWidth, y, layout.totalWidth(), kRowHeight);
        paintBitCells(painter, cells, layout, row->spec, row->report.details.decoded, palette_);
        painter.setFont(mono);
        QString value = QString::fromStdString(toDecimal(row->report.details.decoded.value).text);
        if (value.size() > 26)
            value = value.left(25) + QChar(0x2026);
        painter.drawText(
            QRect(cells.right() + 10, y, kValueWidth, kRowHeight), Qt::AlignLeft | Qt::AlignVCenter,
            QString::fromStdString(codeToHex(row->report.conversion.code, row->spec.totalBits())) +
                "  " + value);
        y += kRowHeight;
    }
}

bool BitDiagram::savePng(const QString& path, qreal scale) const {
    QImage image(size() * scale, QImage::Format_ARGB32);
    image.setDevicePixelRatio(scale);
    image.fill(palette_.color(QPalette::Base));
    QPainter painter(&image);
    paint(painter);
    painter.end();
    return image.save(path, "PNG");
}

bool BitDiagram::saveSvg(const QString& path) const {
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(size());
    generator.setViewBox(QRect(QPoint(0, 0), size()));
    generator.setTitle(QObject::tr("fpx bit diagram"));
    generator.setDescription(QObject::tr("x = %1").arg(input_));
    QPainter painter;
    if (!painter.begin(&generator))
        return false;
    paint(painter);
    return painter.end();
}

} // namespace fpx::gui
