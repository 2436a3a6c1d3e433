// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/benchmarks/bench_results_model.h"

#include "pages/benchmarks/saved_run.h"

#include "fpx/bench/bench_preset.h"
#include "fpx/bench/sizes.h"

#include <QBrush>
#include <QColor>
#include <QStringList>

#include <cmath>

namespace fpx::gui {

namespace {

constexpr QColor kBad(0xd0, 0x40, 0x2f);
constexpr QColor kGood(0x2e, 0x8b, 0x4a);
constexpr QColor kDesign(0xb0, 0x6a, 0x00); // known, documented deviations (not failures)

bool isArithmetic(const bench::BenchResult& r) {
    return r.operation == bench::Operation::Arithmetic;
}

// The rows compared with the exact core before they are timed: a failure is an error.
bool verifiedBeforeTiming(const bench::BenchResult& r) {
    return r.operation == bench::Operation::Convert ||
           r.operation == bench::Operation::Accumulate || r.operation == bench::Operation::Quantize;
}

QString number(double value, int digits = 3) {
    return QString::number(value, 'g', digits);
}

// "0.85 %", "9.8 %", "113 %", "1170 %": never in exponent notation.
QString percent(double fraction) {
    const double p = fraction * 100;
    const int decimals = std::abs(p) < 1 ? 2 : std::abs(p) < 10 ? 1 : 0;
    return QStringLiteral("%1 %").arg(QString::number(p, 'f', decimals));
}

// Throughput at the fastest and the slowest sample, relative to the median: throughput is
// work / time, so the shortest time gives the highest figure.
std::pair<double, double> spreadFactors(const bench::BenchResult& r) {
    if (r.time.median <= 0 || r.time.min <= 0 || r.time.max <= 0)
        return {1, 1};
    return {r.time.median / r.time.max, r.time.median / r.time.min};
}

// A sum's or quantizer's ratio in words: "ratio 0.52× against memcpy alongside, 64 Mi,
// 2 threads, goal ≥ 0.5× (met); 2 passes, bare loop 0.61×".
QString ratioLine(const bench::BenchResult& r) {
    QString line = BenchResultsModel::tr("ratio %1 against %2")
                       .arg(BenchResultsModel::ratioText(r), QString::fromStdString(r.ceilingName));
    if (const auto met = BenchResultsModel::goalMet(r))
        line += BenchResultsModel::tr(", goal %1 (%2)")
                    .arg(BenchResultsModel::goalText(r),
                         *met ? BenchResultsModel::tr("met") : BenchResultsModel::tr("not met"));
    if (r.passes > 0)
        line += r.passes == 1 ? BenchResultsModel::tr("; 1 pass")
                              : BenchResultsModel::tr("; %1 passes").arg(r.passes);
    if (r.bareRatio > 0)
        line += BenchResultsModel::tr(", bare loop %1×").arg(QString::number(r.bareRatio, 'f', 2));
    return line;
}

} // namespace

BenchResultsModel::BenchResultsModel(QObject* parent) : QAbstractTableModel(parent) {}

BenchResultsModel::~BenchResultsModel() = default;

int BenchResultsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(results_.size());
}

int BenchResultsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

void BenchResultsModel::append(const bench::BenchResult& result) {
    const int row = rowCount();
    beginInsertRows({}, row, row);
    results_.push_back(result);
    endInsertRows();
    // A copy measured after conversions of its size gives them their ceiling.
    if (result.operation == bench::Operation::Copy && row > 0)
        emit dataChanged(index(0, PercentOfCeiling), index(row - 1, PercentOfCeiling));
}

void BenchResultsModel::clear() {
    beginResetModel();
    results_.clear();
    endResetModel();
}

double BenchResultsModel::ceiling(int row) const {
    const bench::BenchResult& r = result(row);
    if (r.ceiling > 0)
        return r.ceiling;
    if (r.operation != bench::Operation::Convert)
        return 0;
    for (const bench::BenchResult& c : results_)
        if (c.operation == bench::Operation::Copy && c.backend == r.backend &&
            c.deviceIndex == r.deviceIndex && c.elements == r.elements && c.threads == r.threads)
            return c.bytesPerSecond;
    return 0;
}

QString BenchResultsModel::ceilingName(int row) const {
    const bench::BenchResult& r = result(row);
    if (r.ceiling > 0)
        return QString::fromStdString(r.ceilingName);
    return ceiling(row) > 0 ? tr("copy of the same size and threads") : QString();
}

void BenchResultsModel::setComparison(const SavedRun* run) {
    saved_.clear();
    savedExact_.clear();
    savedLoose_.clear();
    savedDevices_.clear();
    comparing_ = run != nullptr;
    comparisonPath_.clear();
    comparisonDescription_.clear();
    if (run) {
        saved_ = run->results;
        comparisonPath_ = run->path;
        comparisonDescription_ = run->description;
        for (int i = 0; i < static_cast<int>(saved_.size()); ++i) {
            const bench::BenchResult& s = saved_[std::size_t(i)];
            savedExact_.insert(resultKey(s, true), i);
            savedLoose_.insert(resultKey(s, false), i);
            savedDevices_.insert(QString::fromStdString(s.device));
        }
    }
    emit headerDataChanged(Qt::Horizontal, VsSaved, VsSaved);
    if (!results_.empty())
        emit dataChanged(index(0, VsSaved), index(rowCount() - 1, VsSaved));
}

int BenchResultsModel::savedIndexOf(const bench::BenchResult& r, bool* loose) const {
    if (loose)
        *loose = false;
    if (!comparing_)
        return -1;
    if (const auto exact = savedExact_.constFind(resultKey(r, true)); exact != savedExact_.cend())
        return *exact;
    // The saved run never measured this device: another machine, compare like with like.
    if (savedDevices_.contains(QString::fromStdString(r.device)))
        return -1;
    const auto found = savedLoose_.constFind(resultKey(r, false));
    if (found == savedLoose_.cend())
        return -1;
    if (loose)
        *loose = true;
    return *found;
}

const bench::BenchResult* BenchResultsModel::savedFor(int row) const {
    const int i = savedIndexOf(result(row));
    return i < 0 ? nullptr : &saved_[std::size_t(i)];
}

std::optional<double> BenchResultsModel::ratioToSaved(int row) const {
    const bench::BenchResult* saved = savedFor(row);
    if (!saved || saved->throughput() <= 0)
        return std::nullopt;
    return result(row).throughput() / saved->throughput();
}

int BenchResultsModel::matchedCount() const {
    int count = 0;
    for (int row = 0; row < rowCount(); ++row)
        count += savedFor(row) != nullptr;
    return count;
}

bool BenchResultsModel::comparisonIgnoresDevice() const {
    for (const bench::BenchResult& r : results_) {
        bool loose = false;
        if (savedIndexOf(r, &loose) >= 0 && loose)
            return true;
    }
    return false;
}

QString BenchResultsModel::elementsText(std::size_t elements) {
    return QString::fromStdString(bench::sizeLabel(elements));
}

QString BenchResultsModel::throughputText(const bench::BenchResult& r, double value) {
    if (isArithmetic(r))
        return QStringLiteral("%1 TFLOP/s").arg(number(value / 1e12));
    return QStringLiteral("%1 GB/s").arg(number(value / 1e9));
}

QString BenchResultsModel::ratioText(const bench::BenchResult& r) {
    return r.ratio > 0 ? QStringLiteral("%1×").arg(QString::number(r.ratio, 'f', 2)) : QString();
}

QString BenchResultsModel::goalText(const bench::BenchResult& r) {
    if (r.goalAtLeast > 0)
        return QStringLiteral("≥ %1×").arg(number(r.goalAtLeast, 2));
    if (r.goalAtMost > 0)
        return QStringLiteral("≤ %1×").arg(number(r.goalAtMost, 2));
    return {};
}

std::optional<bool> BenchResultsModel::goalMet(const bench::BenchResult& r) {
    if (!(r.ratio > 0))
        return std::nullopt;
    if (r.goalAtLeast > 0)
        return r.ratio >= r.goalAtLeast;
    if (r.goalAtMost > 0)
        return r.ratio <= r.goalAtMost;
    return std::nullopt;
}

QString BenchResultsModel::label(int row, bool withDevice) const {
    const bench::BenchResult& r = result(row);
    if (readableLabels_)
        return QString::fromStdString(bench::readableLabel(r));
    QStringList parts;
    if (withDevice)
        parts << QStringLiteral("%1 %2").arg(QString::fromStdString(r.backend),
                                             QString::fromStdString(r.device));
    switch (r.operation) {
    case bench::Operation::Copy:
        parts << tr("copy");
        break;
    case bench::Operation::Convert:
        parts << QStringLiteral("%1 %2").arg(QString::fromStdString(r.format),
                                             QString::fromLatin1(bench::directionId(r.direction)));
        break;
    case bench::Operation::Arithmetic:
        parts << QStringLiteral("%1 %2").arg(QString::fromStdString(r.format), tr("arithmetic"));
        break;
    case bench::Operation::Accumulate:
        parts << tr("%1 sum").arg(QString::fromStdString(r.format));
        break;
    case bench::Operation::Quantize:
        parts << tr("%1 quantize").arg(QString::fromStdString(r.format));
        break;
    case bench::Operation::QuantizeFile:
        parts << tr("%1 load + quantize file").arg(QString::fromStdString(r.format));
        break;
    }
    if (!r.workload.empty())
        parts << QString::fromStdString(r.workload);
    if (!r.path.empty())
        parts << QString::fromStdString(r.path);
    if (r.elements > 0)
        parts << elementsText(r.elements);
    parts << (r.threads == 1 ? tr("1 thread") : tr("%1 threads").arg(r.threads));
    return parts.join(QStringLiteral(" · "));
}

QString BenchResultsModel::description(int row) const {
    const bench::BenchResult& r = result(row);
    QStringList lines;
    lines << label(row, true);
    const auto [low, high] = spreadFactors(r);
    lines << tr("%1 (samples from %2 to %3), %4 G elements/s")
                 .arg(throughputText(r, r.throughput()), throughputText(r, r.throughput() * low),
                      throughputText(r, r.throughput() * high), number(r.elementsPerSecond / 1e9));
    if (const double c = ceiling(row); c > 0)
        lines << tr("%1 of %2 (%3)")
                     .arg(percent(r.throughput() / c), ceilingName(row), throughputText(r, c));
    if (r.ratio > 0)
        lines << ratioLine(r);
    lines << text(row, Verified);
    if (const bench::BenchResult* saved = savedFor(row))
        lines << tr("saved run: %1 (%2×)")
                     .arg(throughputText(*saved, saved->throughput()))
                     .arg(number(*ratioToSaved(row)));
    if (!r.note.empty())
        lines << QString::fromStdString(r.note);
    return lines.join('\n');
}

QString BenchResultsModel::text(int row, int column) const {
    const bench::BenchResult& r = result(row);
    switch (static_cast<Column>(column)) {
    case Backend:
        return QString::fromStdString(r.backend);
    case Device:
        return QString::fromStdString(r.device);
    case Operation:
        return QString::fromLatin1(bench::operationId(r.operation));
    case Format:
        return QString::fromStdString(r.format);
    case Direction:
        return r.operation == bench::Operation::Convert
                   ? QString::fromLatin1(bench::directionId(r.direction))
                   : QString();
    case Path:
        return QString::fromStdString(r.path);
    case Workload:
        return QString::fromStdString(r.workload);
    case Elements:
        return r.elements > 0 ? elementsText(r.elements) : QStringLiteral("—");
    case Threads:
        return QString::number(r.threads);
    case ElementsPerSecond:
        return number(r.elementsPerSecond / 1e9);
    case Throughput:
        return throughputText(r, r.throughput());
    case PercentOfCeiling: {
        const double c = ceiling(row);
        return c > 0 ? percent(r.throughput() / c) : QString();
    }
    case Ratio: {
        const QString goal = goalText(r);
        if (r.ratio <= 0 || goal.isEmpty())
            return ratioText(r);
        return tr("%1 (goal %2)").arg(ratioText(r), goal);
    }
    case Spread: {
        const auto [low, high] = spreadFactors(r);
        return QStringLiteral("+%1 / −%2").arg(percent(high - 1), percent(1 - low));
    }
    case Verified:
        if (!verifiedBeforeTiming(r) && r.checked == 0)
            return tr("—");
        if (r.mismatches > 0 && !r.exactByDesign)
            return tr("differs by design: %1 of %2")
                .arg(static_cast<qulonglong>(r.mismatches))
                .arg(static_cast<qulonglong>(r.checked));
        if (r.mismatches > 0)
            return tr("NO: %1 of %2 differ")
                .arg(static_cast<qulonglong>(r.mismatches))
                .arg(static_cast<qulonglong>(r.checked));
        if (!r.verified)
            return tr("not verified");
        return r.checked > 0 ? tr("yes (%1 checked)").arg(static_cast<qulonglong>(r.checked))
                             : tr("yes");
    case VsSaved: {
        const auto ratio = ratioToSaved(row);
        return ratio ? QStringLiteral("%1×").arg(QString::number(*ratio, 'f', 2)) : QString();
    }
    case Note:
        return QString::fromStdString(r.note);
    case ColumnCount:
        break;
    }
    return {};
}

QVariant BenchResultsModel::sortValue(int row, int column) const {
    const bench::BenchResult& r = result(row);
    switch (static_cast<Column>(column)) {
    case Elements:
        return static_cast<qulonglong>(r.elements);
    case Threads:
        return r.threads;
    case ElementsPerSecond:
        return r.elementsPerSecond;
    case Throughput:
        return r.throughput();
    case PercentOfCeiling: {
        const double c = ceiling(row);
        return c > 0 ? r.throughput() / c : -1.0;
    }
    case Ratio:
        return r.ratio > 0 ? r.ratio : -1.0;
    case Spread:
        return r.time.median > 0 ? (r.time.max - r.time.min) / r.time.median : 0.0;
    case Verified:
        return r.mismatches > 0 ? -static_cast<double>(r.mismatches) : (r.verified ? 1.0 : 0.0);
    case VsSaved:
        return ratioToSaved(row).value_or(-1.0);
    default:
        return text(row, column);
    }
}

QString BenchResultsModel::toolTip(int row, int column) const {
    const bench::BenchResult& r = result(row);
    switch (static_cast<Column>(column)) {
    case Path:
        return r.hardware ? tr("%1: the device's own conversion or arithmetic instructions.")
                                .arg(QString::fromStdString(r.path))
                          : tr("%1: ordinary integer and float code (emulation).")
                                .arg(QString::fromStdString(r.path));
    case Throughput:
        return isArithmetic(r) ? tr("Operations per second (FLOP/s; OP/s for integers).")
                               : tr("Bytes read plus bytes written per second.");
    case PercentOfCeiling: {
        const double c = ceiling(row);
        return c > 0 ? tr("Measured against %1: %2.").arg(ceilingName(row), throughputText(r, c))
                     : tr("No ceiling for this result.");
    }
    case Ratio:
        return r.ratio > 0 ? ratioLine(r) : tr("Copies, conversions and arithmetic have no ratio.");
    case Spread:
        return tr("Throughput of the fastest and the slowest of %1 samples, relative to the "
                  "median (%2 iterations each).")
            .arg(r.time.samples)
            .arg(static_cast<qulonglong>(r.time.iterationsPerSample));
    case Verified: {
        QString tip = tr("Before timing, the path's output was compared bit for bit with the "
                         "exact core on %1 elements; %2 differed.")
                          .arg(static_cast<qulonglong>(r.checked))
                          .arg(static_cast<qulonglong>(r.mismatches));
        if (!r.exactByDesign)
            tip += QLatin1Char('\n') + tr("This path is known to differ (see the note): "
                                          "reported, not a failure.");
        return tip;
    }
    case VsSaved:
        if (const bench::BenchResult* saved = savedFor(row))
            return tr("This run / the saved run: %1 against %2.")
                .arg(throughputText(r, r.throughput()),
                     throughputText(*saved, saved->throughput()));
        return comparing_ ? tr("The saved run has no matching result.") : QString();
    default:
        return description(row);
    }
}

QVariant BenchResultsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const int row = index.row();
    const int column = index.column();
    const bench::BenchResult& r = result(row);
    switch (role) {
    case Qt::DisplayRole:
        return text(row, column);
    case Qt::UserRole:
        return sortValue(row, column);
    case Qt::ToolTipRole:
        return toolTip(row, column);
    case Qt::TextAlignmentRole:
        switch (column) {
        case Elements:
        case Threads:
        case ElementsPerSecond:
        case Throughput:
        case PercentOfCeiling:
        case Ratio:
        case Spread:
        case VsSaved:
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        default:
            return QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
        }
    case Qt::ForegroundRole:
        if (column == Verified && r.exactByDesign &&
            (r.mismatches > 0 || (verifiedBeforeTiming(r) && !r.verified)))
            return QBrush(kBad);
        if (column == Ratio && goalMet(r) == false)
            return QBrush(kBad);
        if (column == Verified && !r.exactByDesign && r.mismatches > 0)
            return QBrush(kDesign);
        if (column == VsSaved) {
            if (const auto ratio = ratioToSaved(row)) {
                if (*ratio < 0.95)
                    return QBrush(kBad);
                if (*ratio > 1.05)
                    return QBrush(kGood);
            }
        }
        return {};
    default:
        return {};
    }
}

QVariant BenchResultsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal)
        return {};
    struct Header {
        const char* title;
        const char* tip;
    };
    auto header = [](Column column) -> Header {
        switch (column) {
        case Backend:
            return {QT_TR_NOOP("Backend"), QT_TR_NOOP("Where it ran: cpu, cuda or opencl.")};
        case Device:
            return {QT_TR_NOOP("Device"), QT_TR_NOOP("The device's name.")};
        case Operation:
            return {QT_TR_NOOP("Operation"),
                    QT_TR_NOOP("copy: the device's copy bandwidth, the ceiling of conversions; "
                               "convert: bulk conversion; arithmetic: FMA / matrix-multiply "
                               "throughput; accumulate: a sum in a format; quantize: a block "
                               "quantizer; quantize-file: loading and quantizing a file.")};
        case Format:
            return {QT_TR_NOOP("Format"), QT_TR_NOOP("The number format (fp32 for copies).")};
        case Direction:
            return {QT_TR_NOOP("Direction"),
                    QT_TR_NOOP("encode: FP32 → format; decode: format → FP32.")};
        case Path:
            return {QT_TR_NOOP("Path"),
                    QT_TR_NOOP("The code path measured: a hardware instruction or emulation.")};
        case Workload:
            return {QT_TR_NOOP("Workload"),
                    QT_TR_NOOP("The inputs of a sum or quantizer: the terms' distribution "
                               "(uniform:0:1 settles, normal:0:1 wanders across binades) or the "
                               "tensor's.")};
        case Elements:
            return {QT_TR_NOOP("Elements"),
                    QT_TR_NOOP("Elements per pass (matrix multiply: M = N = K).")};
        case Threads:
            return {QT_TR_NOOP("Threads"), QT_TR_NOOP("CPU threads used.")};
        case ElementsPerSecond:
            return {QT_TR_NOOP("G elem/s"),
                    QT_TR_NOOP("Billions of elements converted per second (median sample).")};
        case Throughput:
            return {QT_TR_NOOP("Throughput"),
                    QT_TR_NOOP("GB/s read + written for copies and conversions; TFLOP/s for "
                               "arithmetic.")};
        case PercentOfCeiling:
            return {QT_TR_NOOP("% of ceiling"),
                    QT_TR_NOOP("Throughput as a share of its ceiling: the measured copy "
                               "bandwidth for conversions, the datasheet peak for arithmetic.")};
        case Ratio:
            return {QT_TR_NOOP("Ratio"),
                    QT_TR_NOOP("Sums and quantizers, as fpx bench prints them: a sum's speed "
                               "against a plain float loop or memcpy, a quantizer's GB/s against "
                               "memcpy's, load + quantize time against reading the file; with "
                               "the goal.")};
        case VsSaved:
            return {QT_TR_NOOP("vs saved"),
                    QT_TR_NOOP("This run's throughput divided by the saved run's (Compare with "
                               "saved run…).")};
        case Spread:
            return {QT_TR_NOOP("Spread"),
                    QT_TR_NOOP("Throughput of the fastest and the slowest sample against the "
                               "median.")};
        case Verified:
            return {QT_TR_NOOP("Verified"),
                    QT_TR_NOOP("Whether the path agreed bit for bit with the exact core before "
                               "timing.")};
        case Note:
            return {QT_TR_NOOP("Note"), QT_TR_NOOP("Caveats: flushed subnormals, emulation, …")};
        case ColumnCount:
            break;
        }
        return {"", ""};
    };
    if (section < 0 || section >= ColumnCount)
        return {};
    const Header h = header(static_cast<Column>(section));
    if (role == Qt::DisplayRole)
        return tr(h.title);
    if (role == Qt::ToolTipRole) {
        if (section == VsSaved && comparing_)
            return tr(h.tip) + QLatin1Char('\n') + comparisonPath_;
        return tr(h.tip);
    }
    return {};
}

} // namespace fpx::gui
