// SPDX-License-Identifier: GPL-3.0-or-later
#include "plot_request.h"

#include <QObject>
#include <QTextStream>

namespace fpx::plots {

namespace {

struct KindName {
    PlotKind kind;
    const char* id;
    const char* title;
};

constexpr KindName kKinds[] = {
    {PlotKind::Error, "error", "Rounding error"},
    {PlotKind::Ulp, "ulp", "ULP spacing"},
    {PlotKind::Range, "range", "Range"},
    {PlotKind::Values, "values", "Representable values"},
    {PlotKind::Memory, "memory", "Memory per parameter count"},
};

} // namespace

QString plotKindId(PlotKind kind) {
    for (const KindName& k : kKinds)
        if (k.kind == kind)
            return k.id;
    return {};
}

QString plotKindTitle(PlotKind kind) {
    for (const KindName& k : kKinds)
        if (k.kind == kind)
            return QObject::tr(k.title);
    return {};
}

std::optional<PlotKind> parsePlotKind(const QString& text) {
    for (const KindName& k : kKinds)
        if (text.compare(k.id, Qt::CaseInsensitive) == 0)
            return k.kind;
    return std::nullopt;
}

PlotData computePlotData(const PlotRequest& request) {
    PlotData data;
    data.request = request;
    for (const FormatSpec& spec : request.formats) {
        FormatSeries s;
        s.id = QString::fromStdString(spec.id);
        switch (request.kind) {
        case PlotKind::Error:
            s.error = roundingErrorCurve(spec, request.options, request.from, request.to,
                                         request.logarithmic);
            break;
        case PlotKind::Ulp:
            s.ulp = ulpStaircase(spec);
            break;
        case PlotKind::Range:
            s.range = rangeBar(spec);
            break;
        case PlotKind::Values:
            s.values = finiteValues(spec);
            s.codeClasses = codeClassMap(spec);
            break;
        case PlotKind::Memory:
            break;
        }
        data.series.push_back(std::move(s));
    }
    if (request.kind == PlotKind::Memory)
        data.storage = storageCosts(request.formats);
    return data;
}

QString plotDataCsv(const PlotData& data) {
    QString text;
    QTextStream out(&text);
    out.setRealNumberPrecision(17);
    auto points = [&](const QString& id, const char* series, const std::vector<PlotPoint>& pts) {
        for (const PlotPoint& p : pts)
            out << id << ',' << series << ',' << p.x << ',' << p.y << '\n';
    };
    switch (data.request.kind) {
    case PlotKind::Error:
        out << "format,series,x,error\n";
        for (const FormatSeries& s : data.series) {
            points(s.id, s.error.exact ? "absolute" : "absolute_upper", s.error.absolute);
            points(s.id, "absolute_lower", s.error.absoluteLower);
            points(s.id, "relative", s.error.relative);
        }
        break;
    case PlotKind::Ulp:
        out << "format,series,log2_x,log2_ulp\n";
        for (const FormatSeries& s : data.series)
            points(s.id, "ulp", s.ulp);
        break;
    case PlotKind::Range:
        out << "format,log2_min_subnormal,log2_min_normal,log2_max,decimal_digits\n";
        for (const FormatSeries& s : data.series)
            out << s.id << ',' << s.range.log2MinSubnormal << ',' << s.range.log2MinNormal << ','
                << s.range.log2Max << ',' << s.range.decimalDigits << '\n';
        break;
    case PlotKind::Values:
        out << "format,value\n";
        for (const FormatSeries& s : data.series)
            for (double v : s.values)
                out << s.id << ',' << v << '\n';
        break;
    case PlotKind::Memory:
        out << "format,bits_per_element,bytes_per_billion_parameters,note\n";
        for (const StorageCost& c : data.storage)
            out << QString::fromStdString(c.label) << ',' << c.bitsPerElement << ','
                << c.bitsPerElement / 8 * 1e9 << ",\"" << QString::fromStdString(c.note) << "\"\n";
        break;
    }
    return text;
}

} // namespace fpx::plots
