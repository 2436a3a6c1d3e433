// SPDX-License-Identifier: GPL-3.0-or-later
#include "shell/lesson_runner.h"

#include "pages/arithmetic/arithmetic_page.h"
#include "pages/arithmetic/expression_panel.h"
#include "pages/explorer/explorer_controller.h"
#include "pages/explorer/explorer_history.h"
#include "pages/explorer/explorer_page.h"
#include "pages/explorer/plots_panel.h"
#include "pages/machines/machines_page.h"
#include "pages/quantization/quantization_page.h"
#include "pages/training/training_page.h"
#include "shell/command_line.h"
#include "shell/main_window.h"
#include "shell/visible_targets.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>

#include <algorithm>

namespace fpx::gui {
namespace {

QString where(const Lesson& lesson, const LessonAction& action, const QString& message) {
    return QString::fromStdString(lessonErrorText(
        lesson.source, LessonError{action.line, action.column, message.toStdString()}));
}

// The key of "--key: message" (what every page's apply() returns), or an empty string.
QString keyOfProblem(const QString& problem) {
    if (!problem.startsWith("--"))
        return {};
    const qsizetype end = problem.indexOf(QRegularExpression("[: ]"));
    return problem.mid(2, end < 0 ? -1 : end - 2);
}

// A relative --input path is taken from the lesson file's folder, so a lesson and its tensors
// can be handed out together ("FILE:TENSOR" too).
QString besideLesson(const std::string& value, const Lesson& lesson) {
    const QString text = QString::fromStdString(value);
    if (lesson.source.rfind("built-in", 0) == 0)
        return text;
    const QDir folder = QFileInfo(QString::fromStdString(lesson.source)).absoluteDir();
    for (const QString& path : {text, text.left(text.lastIndexOf(':'))}) {
        if (path.isEmpty() || QFileInfo(path).isAbsolute() || !folder.exists(path))
            continue;
        return folder.filePath(path) + text.mid(path.size());
    }
    return text;
}

} // namespace

LessonRunner::LessonRunner(MainWindow& window)
    : window_(window), arithmeticDefaults_(window.arithmeticPage()->state()),
      quantizationDefaults_(window.quantizationPage()->state()),
      trainingDefaults_(window.trainingPage()->state()),
      machinesDefaults_(window.machinesPage()->state()) {}

void LessonRunner::resetToDefaults() {
    // What a fresh window without remembered settings shows (ExplorerSettings' defaults).
    ExplorerController* controller = window_.controller();
    controller->setFormats(defaultExplorerFormats());
    controller->setRoundingMode(RoundingMode::NearestEven);
    controller->setOverflowPolicy(OverflowPolicy::Ieee);
    controller->setInputText(QStringLiteral("0.3952"));
    window_.plotsPanel()->resetToDefaults();
    // The other pages as the window opened; a default that no longer applies (a format the
    // explorer no longer shows) is left as it is rather than reported.
    window_.arithmeticPage()->apply(arithmeticDefaults_);
    window_.quantizationPage()->apply(quantizationDefaults_);
    window_.trainingPage()->apply(trainingDefaults_);
    window_.machinesPage()->apply(machinesDefaults_);
    window_.showPage(MainWindow::Page::Explorer);
    window_.showLowerTab(0);
    window_.explorerPage()->fitSplitToTab();
}

QStringList LessonRunner::applyStep(const Lesson& lesson, std::size_t index) {
    // One undo step and one Back/Forward entry for the whole step, not one per setting.
    ExplorerHistory* history = window_.history();
    history->beginGroup(QStringLiteral("lesson step %1").arg(index + 1));
    QStringList problems = applyState(lesson, index);
    history->endGroup();
    return problems;
}

QStringList LessonRunner::applyState(const Lesson& lesson, std::size_t index) {
    QStringList problems;
    std::vector<LessonAction> actions = mergedActions(lesson, index);
    for (LessonAction& action : actions)
        if (action.key == "input")
            action.value = besideLesson(action.value, lesson).toStdString();
    std::vector<VisibleTarget> targets;
    if (const LessonAction* show = showAction(lesson, index)) {
        QString error;
        if (auto parsed = parseVisibleTargets(QString::fromStdString(show->value), error))
            targets = std::move(*parsed);
        else
            problems << where(lesson, *show, "show: " + error);
    }
    // Each action into its page's typed state; one that is not a usable option (unknown key,
    // refused key, a flag with a value, a bad value) is reported at its line and left out.
    auto settingsOf = [](const std::vector<LessonAction>& list) {
        std::vector<OptionSetting> settings;
        for (const LessonAction& action : list)
            settings.push_back({QString::fromStdString(action.key),
                                QString::fromStdString(action.value), !action.value.empty()});
        return settings;
    };
    {
        PageStates states(PageStates::Source::Lesson);
        const std::vector<QString> setProblems = states.set(settingsOf(actions));
        std::vector<LessonAction> usable;
        for (std::size_t i = 0; i < actions.size(); ++i) {
            if (setProblems[i].isEmpty())
                usable.push_back(actions[i]);
            else
                problems << where(lesson, actions[i], setProblems[i]);
        }
        actions = std::move(usable);
    }
    // Applying stops at the first problem; that action is reported and left out, and the
    // state is applied again without it, so the step's other actions still take effect.
    for (std::size_t attempt = 0; attempt <= actions.size(); ++attempt) {
        resetToDefaults();
        PageStates states(PageStates::Source::Lesson);
        states.set(settingsOf(actions));
        const QString problem = states.apply(window_);
        if (problem.isEmpty())
            break;
        const QString key = keyOfProblem(problem);
        const auto culprit = std::find_if(actions.begin(), actions.end(), [&](const auto& a) {
            return QString::fromStdString(a.key) == key;
        });
        if (culprit == actions.end()) {
            // A problem of several actions together ("--input and --dist: …"): the step's line.
            const LessonStep& step = lesson.steps[std::min(index, lesson.steps.size() - 1)];
            problems << QString::fromStdString(
                lessonErrorText(lesson.source, LessonError{step.line, 1, problem.toStdString()}));
            break;
        }
        problems << where(lesson, *culprit, problem);
        actions.erase(culprit);
    }
    // A bad value or expression is shown in its field, not returned, on the command line; a
    // lesson names it in the panel too.
    for (const LessonAction& action : actions) {
        QString fieldError;
        if (action.key == "value")
            fieldError = window_.controller()->inputError();
        else if (action.key == "expr")
            fieldError = window_.arithmeticPage()->expressionPanel()->inputError();
        if (!fieldError.isEmpty())
            problems << where(lesson, action,
                              "--" + QString::fromStdString(action.key) + ": " + fieldError);
    }
    // The Quantization page runs when first shown; later steps change its source or formats
    // while it is open, so it runs again.
    if (window_.currentPage() == MainWindow::Page::Quantization && window_.isVisible())
        window_.quantizationPage()->run();
    bringIntoView(window_, targets);
    return problems;
}

void LessonRunner::bringIntoViewAgain(const Lesson& lesson, std::size_t index) {
    const LessonAction* show = showAction(lesson, index);
    QString error;
    if (!show)
        return;
    if (const auto targets = parseVisibleTargets(QString::fromStdString(show->value), error))
        bringIntoView(window_, *targets);
}

QStringList LessonRunner::hiddenTargets(const Lesson& lesson, std::size_t index) const {
    const LessonAction* show = showAction(lesson, index);
    if (!show)
        return {};
    QString error;
    const auto targets = parseVisibleTargets(QString::fromStdString(show->value), error);
    if (!targets)
        return {where(lesson, *show, "show: " + error)};
    QStringList problems;
    for (const QString& problem : gui::hiddenTargets(window_, *targets))
        problems << where(lesson, *show, "show: " + problem);
    return problems;
}

} // namespace fpx::gui
