// SPDX-License-Identifier: GPL-3.0-or-later
// Runs the real fpx binary (FPX_CLI_PATH, defined by tests/CMakeLists.txt) through QProcess,
// for every test of the command line.
#pragma once

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QtGlobal>

#include <algorithm>

namespace fpx::test {

struct CliRun {
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

inline CliRun
runFpx(const QStringList& args, const QByteArray& input = {},
       const QProcessEnvironment& environment = QProcessEnvironment::systemEnvironment()) {
    QProcess process;
    process.setProcessEnvironment(environment);
    process.start(QStringLiteral(FPX_CLI_PATH), args);
    if (!process.waitForStarted())
        qFatal("cannot start fpx");
    // Feed stdin while draining stdout so large streams cannot deadlock.
    qint64 written = 0;
    QByteArray out;
    while (written < input.size()) {
        const qint64 n = process.write(input.constData() + written,
                                       std::min<qint64>(1 << 16, input.size() - written));
        if (n < 0)
            break;
        written += n;
        process.waitForBytesWritten(-1);
        out += process.readAllStandardOutput();
    }
    process.closeWriteChannel();
    process.waitForFinished(300000);
    out += process.readAllStandardOutput();
    CliRun run;
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = out;
    run.err = process.readAllStandardError();
    return run;
}

inline QJsonObject json(const CliRun& run) {
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(run.out, &error);
    if (error.error != QJsonParseError::NoError)
        qWarning("invalid JSON: %s", qPrintable(error.errorString()));
    return document.object();
}

// A run's exit status and the first few KiB of its output, for failure messages.
inline QString describe(const CliRun& run) {
    return QStringLiteral("exit %1\nstdout:\n%2\nstderr:\n%3")
        .arg(run.exitCode)
        .arg(QString::fromUtf8(run.out.left(3000)), QString::fromUtf8(run.err.left(3000)));
}

} // namespace fpx::test
