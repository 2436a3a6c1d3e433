// SPDX-License-Identifier: GPL-3.0-or-later
// The Machines page's options: the table the command line and lessons share, and the page's
// typed state applied and read back.
#include "pages/machines/instruction_picture.h"
#include "pages/machines/machines_page.h"

#include "common/folding_form.h"

#include "fpx/data/value_distribution.h"
#include "fpx/exact/format_catalogue.h"

#include <QComboBox>
#include <QLineEdit>
#include <QListWidget>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>

#include <array>
#include <limits>

namespace fpx::gui {
namespace {

using Option = PageOption<MachinesPageState>;
using State = MachinesPageState;

constexpr int kPromoteStep = 16;
constexpr int kPromoteMax = 512;

QString setText(const QString& text, std::optional<QString>& field) {
    field = text;
    return {};
}

// The names of the page's catalogue, for messages.
QString catalogueNames(const MachinesPage& page) {
    QStringList names;
    for (const MachineModel* machine : page.catalogue())
        names << QString::fromStdString(machine->name);
    return names.join(", ");
}

const std::array kOptions{
    Option{"machine-file", "FILE",
           "Machines page: a machine file (docs/behaviour.md, \"Machine files\") whose machines "
           "join the built-ins.",
           [](const QString& text, State& state) {
               state.machineFile = text.trimmed();
               return QString();
           },
           // A lesson runs on others' machines, where a path of the author's means nothing.
           OpensPage::Yes, OptionUse::CommandLineOnly},
    // The names --machine and --machines give are checked by apply(), against the page's
    // machines: a machine file's are known only there.
    Option{"machine", "NAME",
           "Machines page: draw one instruction of NAME, a machine of --machine-file, a built-in "
           "machine (fpx machines lists them) or fused:F[:G].",
           [](const QString& text, State& state) {
               if (text.trimmed().isEmpty())
                   return QStringLiteral("expected a machine's name or fused:F[:G]");
               state.machine = text.trimmed();
               return QString();
           },
           OpensPage::Yes},
    Option{"machine-element", "ID",
           "Machines page: the element format of the products (fp8_e4m3, fp16, tf32, …), or "
           "a block format a block-scaled instruction takes (mxfp8_e4m3, mxfp4, nvfp4, …).",
           [](const QString& text, State& state) {
               std::string error;
               const std::optional<MachineElement> element =
                   findPageElement(text.trimmed().toStdString(), error);
               if (!element)
                   return QString::fromStdString(error);
               state.element = QString::fromStdString(element->id);
               return QString();
           },
           OpensPage::Yes},
    Option{
        "machine-a", "LIST", "Machines page: the instruction's a1, a2, … (comma-separated values).",
        [](const QString& text, State& state) { return setText(text, state.a); }, OpensPage::Yes},
    Option{"machine-b", "LIST", "Machines page: the instruction's b1, b2, …",
           [](const QString& text, State& state) { return setText(text, state.b); },
           OpensPage::Yes},
    Option{"machine-c", "VALUE", "Machines page: the accumulator's first value c.",
           [](const QString& text, State& state) { return setText(text, state.c); },
           OpensPage::Yes},
    Option{"machines", "LIST",
           "Machines page: the machines whose error against K is plotted, comma-separated: "
           "built-in ones and those of --machine-file.",
           [](const QString& text, State& state) {
               QStringList names;
               for (const QString& part : text.split(',', Qt::SkipEmptyParts))
                   names << part.trimmed();
               state.machines = names;
               return QString();
           },
           OpensPage::Yes},
    Option{"promote", "N",
           "Machines page: promote every N elements into an FP32 total (0: off; 16, 32, … 512), "
           "each machine at the next multiple of its instruction's products.",
           [](const QString& text, State& state) {
               bool ok = false;
               const int every = text.trimmed().toInt(&ok);
               if (!ok || every < 0 || every > kPromoteMax || every % kPromoteStep != 0)
                   return QStringLiteral("expected 0 (off) or a multiple of %1 up to %2")
                       .arg(kPromoteStep)
                       .arg(kPromoteMax);
               state.promote = every;
               return QString();
           },
           OpensPage::Yes},
    Option{"machine-stat", "STAT",
           "Machines page: plot the largest (max) or the mean relative error.",
           [](const QString& text, State& state) {
               if (text == "max")
                   state.statistic = State::Statistic::Max;
               else if (text == "mean")
                   state.statistic = State::Statistic::Mean;
               else
                   return QStringLiteral("use max or mean");
               return QString();
           },
           OpensPage::Yes},
    Option{"machine-dist", "SPEC",
           "Machines page: the values of A and B for error against K: normal:MU:SIGMA, "
           "lognormal:MU:SIGMA, laplace:B, student:NU or uniform:A:B.",
           [](const QString& text, State& state) {
               std::string error;
               if (!parseValueDistribution(text.trimmed().toStdString(), error))
                   return QString::fromStdString(error);
               state.dist = text.trimmed();
               return QString();
           },
           OpensPage::Yes},
    Option{"machine-results", "MxN",
           "Machines page: m x n results at each K of the error plot (each 1 to 64; 16x16).",
           [](const QString& text, State& state) {
               const QStringList parts = text.trimmed().split('x');
               bool okM = false, okN = false;
               const int m = parts.value(0).toInt(&okM);
               const int n = parts.value(1).toInt(&okN);
               if (parts.size() != 2 || !okM || !okN || m < 1 || m > 64 || n < 1 || n > 64)
                   return QStringLiteral("expected MxN, each 1 to 64, e.g. 16x16");
               state.resultRows = m;
               state.resultColumns = n;
               return QString();
           },
           OpensPage::Yes},
    Option{"machine-seed", "S", "Machines page: the seed of --machine-dist.",
           [](const QString& text, State& state) {
               QString error;
               const std::optional<int> seed =
                   wholeNumberIn(text, 0, std::numeric_limits<int>::max(), error);
               if (!seed)
                   return error;
               state.seed = qulonglong(*seed);
               return QString();
           },
           OpensPage::Yes},
    Option{"machine-kmax", "K",
           "Machines page: the longest K of the error plot, a power of two from 64 to 16384 "
           "(4096).",
           [](const QString& text, State& state) {
               bool ok = false;
               const int k = text.trimmed().toInt(&ok);
               if (!ok || k < 64 || k > 16384 || (k & (k - 1)) != 0)
                   return QStringLiteral("expected a power of two from 64 to 16384");
               state.kMax = k;
               return QString();
           },
           OpensPage::Yes},
    Option{"machine-table-k", "K",
           "Machines page: the table's dot product: a and b repeated to K elements (0: as "
           "typed).",
           [](const QString& text, State& state) {
               QString error;
               state.tableK = wholeNumberIn(text, 0, 65536, error);
               return error;
           },
           OpensPage::Yes},
    Option{"machine-view", "VIEW",
           "Machines page: show instruction (one instruction drawn), error (error against K) "
           "or table (every machine).",
           [](const QString& text, State& state) {
               if (text == "instruction")
                   state.view = State::View::Instruction;
               else if (text == "error")
                   state.view = State::View::Error;
               else if (text == "table")
                   state.view = State::View::Table;
               else
                   return QStringLiteral("use instruction, error or table");
               return QString();
           },
           OpensPage::Yes},
};

} // namespace

std::span<const PageOption<MachinesPageState>> MachinesPage::options() {
    return kOptions;
}

QString MachinesPage::apply(const MachinesPageState& state) {
    // The machine file first: the names the other fields give may be its machines'.
    if (state.machineFile && *state.machineFile != machineFile_)
        if (QString problem = loadMachineFile(*state.machineFile); !problem.isEmpty())
            return "--machine-file: " + problem;
    // The names given are the catalogue's (or fused:F[:G] for --machine).
    if (state.machine) {
        std::string error;
        if (!findMachine(state.machine->toStdString(), error, own_))
            return "--machine: " + QString::fromStdString(error); // it lists the known names
    }
    if (state.machines)
        for (const QString& name : *state.machines)
            if (machines_->findItems(name, Qt::MatchExactly).isEmpty())
                return QStringLiteral("--machines: '%1' is not %2 (use %3)")
                    .arg(name,
                         own_.empty() ? tr("a built-in machine")
                                      : tr("a built-in machine or one of the machine file's"),
                         catalogueNames(*this));
    // The element and the machine together: a machine given without the element brings its
    // own first element; given both, the machine must take the element.
    if (state.element || state.machine) {
        std::string error;
        const std::optional<MachineModel> machine = findMachine(
            (state.machine ? *state.machine : machine_->currentText().trimmed()).toStdString(),
            error, own_);
        QString element = state.element ? *state.element : element_->currentData().toString();
        if (machine && !machine->instructionFor(element.toStdString())) {
            QStringList elements;
            for (const MachineInstruction& instruction : machine->instructions)
                for (const std::string& id : instruction.elements)
                    elements << QString::fromStdString(id);
            if (state.machine && state.element)
                return QStringLiteral("--machine-element: %1 has no instruction for %2 (its "
                                      "elements: %3)")
                    .arg(*state.machine, element, elements.join(", "));
            if (state.machine && !elements.isEmpty()) // the machine brings its first element
                element = elements.front();
        }
        const QSignalBlocker blockElement(element_);
        const QSignalBlocker blockMachine(machine_);
        if (QString problem = setElementId(element); !problem.isEmpty())
            return "--machine-element: " + problem;
        if (state.machine) {
            machine_->setCurrentText(*state.machine);
        } else if (machine && !machine->instructionFor(element.toStdString())) {
            // The element alone: the drawn machine follows it, as choosing it in the form does.
            const std::vector<const MachineModel*> taking =
                machinesTaking(element.toStdString(), own_);
            if (!taking.empty())
                machine_->setCurrentText(QString::fromStdString(taking.front()->name));
        }
        updateMachineList();
    }
    const std::pair<const std::optional<QString>*, QLineEdit*> texts[] = {
        {&state.a, a_}, {&state.b, b_}, {&state.c, c_}};
    for (const auto& [text, edit] : texts)
        if (*text) {
            const QSignalBlocker blocker(edit);
            edit->setText(**text);
        }
    if (state.machines) {
        const QSignalBlocker blocker(machines_);
        for (int i = 0; i < machines_->count(); ++i)
            machines_->item(i)->setCheckState(
                state.machines->contains(machines_->item(i)->text()) ? Qt::Checked : Qt::Unchecked);
    }
    if (state.promote) {
        const QSignalBlocker blocker(promote_);
        promote_->setValue(*state.promote / kPromoteStep);
        updatePromoteLabel();
    }
    if (state.statistic)
        statistic_->setCurrentIndex(statistic_->findData(*state.statistic == State::Statistic::Mean
                                                             ? QStringLiteral("mean")
                                                             : QStringLiteral("max")));
    if (state.dist) {
        const QSignalBlocker blocker(dist_);
        dist_->setText(*state.dist);
    }
    if (state.resultRows) {
        const QSignalBlocker blockRows(rows_);
        const QSignalBlocker blockColumns(columns_);
        rows_->setValue(*state.resultRows);
        columns_->setValue(state.resultColumns.value_or(*state.resultRows));
    }
    if (state.seed) {
        const QSignalBlocker blocker(seed_);
        seed_->setValue(int(*state.seed));
    }
    if (state.kMax) {
        const QSignalBlocker blocker(kMax_);
        kMax_->setCurrentIndex(kMax_->findData(*state.kMax));
    }
    if (state.tableK) {
        const QSignalBlocker blocker(tableK_);
        tableK_->setValue(*state.tableK);
    }
    // The instruction as the form reads after these fields: a problem in it is the option's
    // that set it.
    redrawInstruction();
    if (!picture_->drawn()) {
        InstructionInput input{machine_->currentText().trimmed().toStdString(),
                               element_->currentData().toString().toStdString(),
                               a_->text().toStdString(),
                               b_->text().toStdString(),
                               c_->text().toStdString(),
                               own_};
        std::string error;
        InstructionField field = InstructionField::Machine;
        drawInstruction(input, error, &field);
        const char* key = field == InstructionField::A         ? "machine-a"
                          : field == InstructionField::B       ? "machine-b"
                          : field == InstructionField::C       ? "machine-c"
                          : field == InstructionField::Element ? "machine-element"
                                                               : "machine";
        // "a: item 2 …" reads as "--machine-a: item 2 …".
        QString message = QString::fromStdString(error);
        for (const char* prefix : {"a: ", "b: ", "c: "})
            if (message.startsWith(QLatin1String(prefix)))
                message = message.mid(3);
        return QStringLiteral("--%1: %2").arg(QLatin1String(key), message);
    }
    plotStale_ = tableStale_ = true;
    if (state.view)
        showView(*state.view);
    updateGroups();
    refreshVisible();
    // The form folds by the room again: the same state shows the same page.
    fold_->forgetChoice();
    return {};
}

MachinesPageState MachinesPage::state() const {
    MachinesPageState state;
    state.machineFile = machineFile_;
    state.machine = machine_->currentText().trimmed();
    state.element = element_->currentData().toString();
    state.a = a_->text();
    state.b = b_->text();
    state.c = c_->text();
    state.machines = QStringList();
    for (int i = 0; i < machines_->count(); ++i)
        if (machines_->item(i)->checkState() == Qt::Checked)
            *state.machines << machines_->item(i)->text();
    state.promote = promote_->value() * kPromoteStep;
    state.statistic =
        statistic_->currentData() == "mean" ? State::Statistic::Mean : State::Statistic::Max;
    state.dist = dist_->text().trimmed();
    state.resultRows = rows_->value();
    state.resultColumns = columns_->value();
    state.seed = qulonglong(seed_->value());
    state.kMax = kMax_->currentData().toInt();
    state.tableK = tableK_->value();
    state.view = currentView();
    return state;
}

} // namespace fpx::gui
