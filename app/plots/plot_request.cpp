// SPDX-License-Identifier: GPL-3.0-or-later
#include "plot_request.h"

#include "fpx/exact/conversion.h"

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
    {PlotKind::Precision, "precision", "Precision against magnitude"},
    {PlotKind::Range, "range", "Range"},
    {PlotKind::Values, "values", "Representable values"},
    {PlotKind::Codes, "codes", "Code map"},
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

PlotSwitches plotSwitches(PlotKind kind) {
    PlotSwitches s;
    switch (kind) {
    case PlotKind::Error:
        s.range = s.log = true;
        s.logMeaning = QObject::tr("Logarithmic x axis (positive ranges): every binade gets the "
                                   "same width.");
        break;
    case PlotKind::Ulp:
    case PlotKind::Precision:
    case PlotKind::Range:
        s.range = true;
        s.logWhy = QObject::tr("This plot is always on a log2 axis: its values span hundreds of "
                               "binades.");
        break;
    case PlotKind::Values:
        s.range = s.log = true;
        s.logMeaning = QObject::tr("Symmetric logarithmic x axis: small and large values, both "
                                   "signs, together.");
        break;
    case PlotKind::Codes:
        s.rangeWhy = QObject::tr("The code map shows every code of each format: no x range.");
        s.logWhy = QObject::tr("The code map is a grid of codes: no axis to take the log of.");
        break;
    case PlotKind::Memory:
        s.rangeWhy = QObject::tr("The memory plot has one bar per format: no x range.");
        s.logWhy = QObject::tr("The memory plot's bars are linear in GB, to compare sizes.");
        break;
    }
    if (s.range)
        s.rangeWhy.clear();
    return s;
}

std::uint64_t memoryUnitBytes(bool gib) {
    return gib ? std::uint64_t(1) << 30 : 1'000'000'000;
}

QString memoryUnitName(bool gib) {
    return gib ? QStringLiteral("GiB") : QStringLiteral("GB");
}

PlotData computePlotData(const PlotRequest& request) {
    PlotData data;
    data.request = request;
    for (const FormatSpec& spec : request.formats) {
        FormatSeries s;
        s.id = QString::fromStdString(spec.id);
        s.bits = spec.totalBits();
        switch (request.kind) {
        case PlotKind::Error:
            s.error = roundingErrorCurve(spec, request.options, request.from, request.to,
                                         request.logarithmic);
            break;
        case PlotKind::Ulp:
            s.ulp = ulpStaircase(spec);
            break;
        case PlotKind::Precision:
            s.precision = precisionStaircase(spec);
            break;
        case PlotKind::Range:
            s.range = rangeBar(spec);
            break;
        case PlotKind::Values:
            s.values = finiteValues(spec);
            break;
        case PlotKind::Codes:
            s.codeClasses = codeClassMap(spec);
            break;
        case PlotKind::Memory:
            break;
        }
        data.series.push_back(std::move(s));
    }
    if (request.kind == PlotKind::Memory && !request.recipes.empty()) {
        // A training recipe fixes its formats: the formats shown play no part.
        data.series.clear();
        for (TrainingRecipe recipe : request.recipes) {
            std::string error;
            if (auto f = trainingFootprint(recipe, request.parameters, request.adapters, error))
                data.memory.push_back(std::move(*f));
        }
    } else if (request.kind == PlotKind::Memory) {
        data.series.clear();
        std::vector<std::string> ids;
        for (const FormatSpec& spec : request.formats)
            ids.push_back(spec.id);
        if (!request.memoryIds.empty())
            ids = request.memoryIds;
        else
            ids = memoryIdsForFormats(ids);
        for (const std::string& id : ids) {
            std::string error;
            // A format with no stored form of its own (a custom scale-only format) has no bar.
            if (auto f = memoryFootprint(id, request.parameters, error))
                data.memory.push_back(std::move(*f));
        }
    }
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
    case PlotKind::Precision:
        out << "format,series,log2_x,significant_bits\n";
        for (const FormatSeries& s : data.series)
            points(s.id, "precision", s.precision);
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
    case PlotKind::Codes:
        out << "format,code,class\n";
        for (const FormatSeries& s : data.series)
            for (std::size_t code = 0; code < s.codeClasses.size(); ++code)
                out << s.id << ',' << code << ','
                    << QString::fromUtf8(
                           valueClassName(static_cast<ValueClass>(s.codeClasses[code])))
                    << '\n';
        break;
    case PlotKind::Memory:
        // Exact bytes (integers), and the plotted size in the chosen unit.
        out << (data.request.recipes.empty() ? "format" : "recipe")
            << ",parameters,part,stored_as,bytes," << memoryUnitName(data.request.gib) << '\n';
        for (const MemoryFootprint& f : data.memory) {
            auto row = [&](const std::string& part, const std::string& storage,
                           std::uint64_t bytes) {
                out << QString::fromStdString(f.id) << ',' << f.parameters << ','
                    << QString::fromStdString(part) << ",\"" << QString::fromStdString(storage)
                    << "\"," << bytes << ','
                    << QString::fromStdString(
                           bytesInUnit(bytes, memoryUnitBytes(data.request.gib), 3))
                    << '\n';
            };
            for (const FootprintPart& p : f.parts)
                row(p.name, p.storage, p.bytes);
            row("total", f.note, f.totalBytes());
        }
        break;
    }
    return text;
}

} // namespace fpx::plots
