// SPDX-License-Identifier: GPL-3.0-or-later
#include "pages/benchmarks/saved_run.h"

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>

namespace fpx::gui {

namespace {

QString tr(const char* text) {
    return QCoreApplication::translate("fpx::gui::SavedRun", text);
}

// The first of `names` present in `object` (writers differ in snake_case and camelCase).
QJsonValue pick(const QJsonObject& object, std::initializer_list<const char*> names) {
    for (const char* name : names) {
        const auto found = object.find(QLatin1String(name));
        if (found != object.end() && !found->isNull() && !found->isUndefined())
            return *found;
    }
    return QJsonValue(QJsonValue::Undefined);
}

QString text(const QJsonObject& object, std::initializer_list<const char*> names) {
    const QJsonValue value = pick(object, names);
    if (value.isString())
        return value.toString();
    if (value.isObject())
        return value.toObject().value("name").toString();
    if (value.isDouble())
        return QString::number(value.toDouble());
    return {};
}

std::optional<double> number(const QJsonObject& object, std::initializer_list<const char*> names) {
    const QJsonValue value = pick(object, names);
    if (value.isDouble())
        return value.toDouble();
    if (value.isString()) {
        bool ok = false;
        const double parsed = value.toString().toDouble(&ok);
        if (ok)
            return parsed;
    }
    return std::nullopt;
}

// A count or an index: a number the integer type holds (a fraction is cut off), or
// `fallback` where the field is absent. A saved run is text anyone can edit, and converting a
// double outside the integer's range (or NaN, or a negative count) is undefined behaviour, so
// such a field is refused with `error` naming it.
template <typename Int>
std::optional<Int> wholeNumber(const QJsonObject& object, std::initializer_list<const char*> names,
                               Int fallback, QString& error) {
    const std::optional<double> value = number(object, names);
    if (!value)
        return fallback;
    // [min, 2^digits): both ends are exact doubles (0 or −2^digits, and a power of two).
    const double low = static_cast<double>(std::numeric_limits<Int>::min());
    const double high = std::ldexp(1.0, std::numeric_limits<Int>::digits);
    if (!(*value >= low && *value < high)) {
        error = tr("\"%1\" is %2, not a count").arg(QLatin1String(*names.begin())).arg(*value);
        return std::nullopt;
    }
    return static_cast<Int>(*value);
}

// A ratio, a goal or a time of the sums and quantizers: 0 where the field is absent; one that
// is negative or not finite is refused with `error` naming it, as nothing measured gives it.
std::optional<double> ratioField(const QJsonObject& object, const char* name, QString& error) {
    const double value = number(object, {name}).value_or(0);
    if (!(value >= 0 && std::isfinite(value))) {
        error = tr("\"%1\" is %2, not a ratio or a time").arg(QLatin1String(name)).arg(value);
        return std::nullopt;
    }
    return value;
}

std::optional<bench::Direction> parseDirection(const QString& id) {
    for (bench::Direction d : {bench::Direction::Encode, bench::Direction::Decode})
        if (id.compare(QString::fromLatin1(bench::directionId(d)), Qt::CaseInsensitive) == 0)
            return d;
    return std::nullopt;
}

// One entry of "results"; an empty error when it reads.
bench::BenchResult parseResult(const QJsonObject& o, QString& error) {
    bench::BenchResult r;
    r.backend = text(o, {"backend"}).toStdString();
    r.device = text(o, {"device", "device_name", "deviceName"}).toStdString();
    const auto deviceIndex = wholeNumber<int>(o, {"device_index", "deviceIndex"}, 0, error);
    if (!deviceIndex)
        return r;
    r.deviceIndex = *deviceIndex;
    const QString operation = text(o, {"operation", "op"});
    if (const auto op = bench::parseOperation(operation.isEmpty() ? std::string("convert")
                                                                  : operation.toStdString()))
        r.operation = *op;
    else {
        error = tr("unknown operation \"%1\"").arg(operation);
        return r;
    }
    r.format = text(o, {"format"}).toStdString();
    if (r.format.empty()) {
        error = tr("no \"format\"");
        return r;
    }
    const QString direction = text(o, {"direction"});
    if (const auto d = parseDirection(direction.isEmpty() ? QStringLiteral("encode") : direction))
        r.direction = *d;
    else {
        error = tr("unknown direction \"%1\"").arg(direction);
        return r;
    }
    r.path = text(o, {"path"}).toStdString();
    r.hardware = pick(o, {"hardware"}).toBool();
    const auto elements = wholeNumber<std::size_t>(o, {"elements"}, 0, error);
    const auto threads = elements ? wholeNumber<int>(o, {"threads"}, 1, error) : std::nullopt;
    if (!threads)
        return r;
    r.elements = *elements;
    r.threads = *threads;
    r.bytesPerSecond = number(o, {"bytes_per_second", "bytesPerSecond"}).value_or(0);
    r.elementsPerSecond = number(o, {"elements_per_second", "elementsPerSecond"}).value_or(0);
    r.operationsPerSecond =
        number(o, {"operations_per_second", "operationsPerSecond", "flops"}).value_or(0);
    if (r.throughput() <= 0) {
        error = r.operation == bench::Operation::Arithmetic
                    ? tr("no positive \"operations_per_second\"")
                    : tr("no positive \"bytes_per_second\"");
        return r;
    }
    const QJsonObject time = pick(o, {"time", "seconds", "timing"}).toObject();
    r.time.median = number(time, {"median", "median_seconds"})
                        .value_or(number(o, {"median_seconds", "medianSeconds"}).value_or(0));
    r.time.min = number(time, {"min", "min_seconds"})
                     .value_or(number(o, {"min_seconds", "minSeconds"}).value_or(r.time.median));
    r.time.max = number(time, {"max", "max_seconds"})
                     .value_or(number(o, {"max_seconds", "maxSeconds"}).value_or(r.time.median));
    const auto samples = wholeNumber<int>(o, {"samples"}, 0, error);
    const auto timeSamples =
        samples ? wholeNumber<int>(time, {"samples"}, *samples, error) : std::nullopt;
    if (!timeSamples)
        return r;
    r.time.samples = *timeSamples;
    r.ceiling = number(o, {"ceiling"}).value_or(0);
    r.ceilingName = text(o, {"ceiling_name", "ceilingName"}).toStdString();
    r.verified = pick(o, {"verified"}).toBool();
    r.exactByDesign = pick(o, {"exact_by_design", "exactByDesign"}).toBool(true);
    const auto checked = wholeNumber<std::uint64_t>(o, {"checked"}, 0, error);
    const auto mismatches =
        checked ? wholeNumber<std::uint64_t>(o, {"mismatches"}, 0, error) : std::nullopt;
    if (!mismatches)
        return r;
    r.checked = *checked;
    r.mismatches = *mismatches;
    r.note = text(o, {"note"}).toStdString();
    // The ratios of the sums and quantizers; a run saved without them (version 1, or any
    // conversion) reads them as none.
    r.workload = text(o, {"workload"}).toStdString();
    const struct {
        const char* name;
        double* field;
    } measures[] = {{"reference_median_seconds", &r.referenceSeconds},
                    {"ratio", &r.ratio},
                    {"goal_at_least", &r.goalAtLeast},
                    {"goal_at_most", &r.goalAtMost},
                    {"bare_ratio", &r.bareRatio}};
    for (const auto& [name, field] : measures) {
        const std::optional<double> value = ratioField(o, name, error);
        if (!value)
            return r;
        *field = *value;
    }
    const auto passes = wholeNumber<int>(o, {"passes"}, 0, error);
    if (!passes)
        return r;
    r.passes = *passes;
    return r;
}

QString describe(const QJsonObject& root) {
    const QJsonObject meta = pick(root, {"metadata", "run"}).toObject();
    QString started = text(meta, {"started_at", "startedAt"});
    if (started.isEmpty())
        started = text(root, {"started_at", "startedAt"});
    QJsonArray devices = pick(meta, {"devices"}).toArray();
    if (devices.isEmpty())
        devices = pick(root, {"devices"}).toArray();
    QStringList names;
    for (const QJsonValue& device : devices) {
        const QString name =
            device.isString() ? device.toString() : device.toObject().value("name").toString();
        if (!name.isEmpty() && !names.contains(name))
            names << name;
    }
    QStringList parts;
    if (!names.isEmpty())
        parts << names.join(QStringLiteral(", "));
    if (!started.isEmpty())
        parts << started;
    return parts.join(QStringLiteral(", "));
}

} // namespace

std::optional<SavedRun> loadSavedRun(const QString& path, QString* error) {
    const QString name = QFileInfo(path).fileName();
    auto fail = [&](const QString& why) -> std::optional<SavedRun> {
        if (error)
            *error = QStringLiteral("%1: %2").arg(name, why);
        return std::nullopt;
    };
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return fail(tr("cannot be read (%1).").arg(file.errorString()));
    const QByteArray bytes = file.readAll();
    if (bytes.trimmed().isEmpty())
        return fail(tr("the file is empty."));
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(bytes, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return fail(tr("not valid JSON: %1 at byte %2.")
                        .arg(parseError.errorString())
                        .arg(parseError.offset));
    if (!document.isObject())
        return fail(tr("not an fpx benchmark run: expected a JSON object with a \"results\" "
                       "array."));
    const QJsonObject root = document.object();
    if (const QJsonValue kind = root.value("format");
        !kind.isUndefined() && kind.toString() != "fpx-bench")
        return fail(tr("not an fpx benchmark run: its \"format\" is %1, not \"fpx-bench\".")
                        .arg(kind.isString() ? "\"" + kind.toString() + "\"" : tr("not a string")));
    const QJsonValue results = root.value("results");
    if (!results.isArray())
        return fail(tr("not an fpx benchmark run: it has no \"results\" array."));
    SavedRun run;
    run.path = path;
    run.description = describe(root);
    const QJsonArray entries = results.toArray();
    for (qsizetype i = 0; i < entries.size(); ++i) {
        if (!entries[i].isObject())
            return fail(tr("result %1 is not an object.").arg(i + 1));
        QString why;
        bench::BenchResult result = parseResult(entries[i].toObject(), why);
        if (!why.isEmpty())
            return fail(tr("result %1: %2.").arg(i + 1).arg(why));
        run.results.push_back(std::move(result));
    }
    if (run.results.empty())
        return fail(tr("the run holds no results to compare with."));
    return run;
}

QString resultKey(const bench::BenchResult& r, bool withDevice) {
    return QStringList{QString::fromStdString(r.backend),
                       withDevice ? QString::fromStdString(r.device) : QString(),
                       QString::fromLatin1(bench::operationId(r.operation)),
                       QString::fromStdString(r.format),
                       QString::fromLatin1(bench::directionId(r.direction)),
                       QString::fromStdString(r.path),
                       QString::number(static_cast<qulonglong>(r.elements)),
                       QString::number(r.threads),
                       QString::fromStdString(r.workload)}
        .join(QChar(0x1f));
}

} // namespace fpx::gui
