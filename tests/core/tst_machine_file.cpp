// SPDX-License-Identifier: GPL-3.0-or-later
// Machine files (docs/behaviour.md, "Machine files"): every built-in machine written out and
// read back is the same machine, computing the same bits; a file of one's own works as the
// built-in it copies; every problem is refused whole, with its line and column.
#include "fpx/machines/machine_dot.h"
#include "fpx/machines/machine_file.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"

#include "test_support.h"

#include <QTest>

#include <random>

using namespace fpx;

class TestMachineFile : public QObject {
    Q_OBJECT

  private slots:
    void builtInsReadBackAsThemselves();
    void ownMachineComputesAsTheBuiltInItCopies();
    void commentsBlanksAndDefaults();
    void refusals_data();
    void refusals();
    void missingFile();
};

namespace {

bool sameInstruction(const MachineInstruction& a, const MachineInstruction& b) {
    return a.elements == b.elements && a.products == b.products &&
           a.model.fractionBits == b.model.fractionBits && a.model.cut == b.model.cut &&
           a.model.output == b.model.output && a.truncatesFp32Operands == b.truncatesFp32Operands &&
           a.algorithm == b.algorithm && a.flushesSubnormals == b.flushesSubnormals &&
           a.twoStage == b.twoStage && a.blockScaled == b.blockScaled && a.subBlock == b.subBlock;
}

std::string renamed(std::string text) {
    text.replace(text.find("machine ") + 8, 0, "my-");
    return text;
}

} // namespace

void TestMachineFile::builtInsReadBackAsThemselves() {
    for (const MachineModel& machine : builtInMachines()) {
        const std::string text = renamed(machineFileText(machine));
        const MachineFileParse parse = parseMachineFile(text, "copy");
        QVERIFY2(parse, (parse.error + "\n" + text).c_str());
        QCOMPARE(parse.machines.size(), std::size_t(1));
        const MachineModel& read = parse.machines.front();
        QCOMPARE(read.name, "my-" + machine.name);
        QCOMPARE(read.description, machine.description);
        QCOMPARE(read.source, machine.source);
        QCOMPARE(read.instructions.size(), machine.instructions.size());
        for (std::size_t i = 0; i < machine.instructions.size(); ++i)
            QVERIFY2(sameInstruction(read.instructions[i], machine.instructions[i]),
                     (machine.name + " instruction " + std::to_string(i)).c_str());
    }
}

void TestMachineFile::ownMachineComputesAsTheBuiltInItCopies() {
    // Hopper's FP8 instruction as a user would write it from the published facts.
    const MachineFileParse parse = parseMachineFile(
        "machine my-hopper\n"
        "instruction fp8_e4m3 products=32 fraction-bits=13 output=e8m13-toward-zero\n",
        "mine");
    QVERIFY2(parse, parse.error.c_str());
    std::string error;
    const std::optional<MachineModel> mine = findMachine("my-hopper", error, parse.machines);
    const std::optional<MachineModel> hopper = findMachine("nvidia-hopper", error);
    QVERIFY(mine && hopper);
    QCOMPARE(mine->source, std::string("mine")); // the file, when it names no source
    const FormatSpec e4m3 = test::lookUp("fp8_e4m3");
    std::vector<ExactValue> values;
    for (Code code = 0; code < 256; ++code)
        if (const DecodedCode d = decodeCode(e4m3, code); d.value.isFinite())
            values.push_back(d.value);
    std::mt19937 random(5);
    for (int trial = 0; trial < 200; ++trial) {
        std::vector<ExactValue> a(100), b(100);
        for (std::size_t i = 0; i < a.size(); ++i) {
            a[i] = values[random() % values.size()];
            b[i] = values[random() % values.size()];
        }
        QCOMPARE(test::valueText(machineDot(*mine, e4m3, a, b).value),
                 test::valueText(machineDot(*hopper, e4m3, a, b).value));
    }
}

void TestMachineFile::commentsBlanksAndDefaults() {
    const MachineFileParse parse =
        parseMachineFile("\xEF\xBB\xBF# mine\r\n"
                         "\r\n"
                         "machine a   # first\r\n"
                         "  description  two words \r\n"
                         "  instruction fp16 products=4 fraction-bits=20\r\n"
                         "machine b\n"
                         "instruction bf16 products=2 "
                         "algorithm=pairwise-fp32 flush-subnormals",
                         "f");
    QVERIFY2(parse, parse.error.c_str());
    QCOMPARE(parse.machines.size(), std::size_t(2));
    QCOMPARE(parse.machines[0].description, std::string("two words"));
    const MachineInstruction& a = parse.machines[0].instructions.front();
    QCOMPARE(a.model.output, FusedOutput::Fp32TowardZero);
    QCOMPARE(a.model.cut, TermCut::TowardZero);
    const MachineInstruction& b = parse.machines[1].instructions.front();
    QCOMPARE(b.algorithm, InstructionAlgorithm::PairwiseFp32);
    QVERIFY(b.flushesSubnormals);
    QCOMPARE(b.model.output, FusedOutput::Fp32NearestEven);
}

void TestMachineFile::refusals_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("empty") << ""
                           << "f:1:1: no machine";
    QTest::newRow("before a machine") << "instruction fp16 products=4 fraction-bits=2"
                                      << "f:1:1: expected 'machine NAME'";
    QTest::newRow("bad name") << "machine Big"
                              << "f:1:9: expected one machine name";
    QTest::newRow("built-in name") << "machine nvidia-ada"
                                   << "f:1:9: 'nvidia-ada' is a built-in";
    QTest::newRow("twice") << "machine a\ninstruction fp16 products=4 fraction-bits=2\nmachine a"
                           << "f:3:9: a second machine named 'a'";
    QTest::newRow("no instruction") << "machine a\nmachine b\ninstruction fp16 products=4 "
                                       "fraction-bits=2"
                                    << "f:1:1: machine 'a' has no instruction";
    QTest::newRow("unknown key") << "machine a\n  speed 3"
                                 << "f:2:3: unknown key 'speed'";
    QTest::newRow("unknown element") << "machine a\ninstruction fp16,zz products=4"
                                     << "f:2:18: unknown element 'zz'";
    QTest::newRow("no products") << "machine a\ninstruction fp16 fraction-bits=3"
                                 << "needs products=G";
    QTest::newRow("no fraction bits") << "machine a\ninstruction fp16 products=3"
                                      << "needs fraction-bits=F";
    QTest::newRow("out of range") << "machine a\ninstruction fp16 products=0 fraction-bits=3"
                                  << "f:2:27: products: expected 1 to 4096, got '0'";
    QTest::newRow("unknown option") << "machine a\ninstruction fp16 products=2 speed=3"
                                    << "f:2:29: unknown option 'speed'";
    QTest::newRow("unknown flag") << "machine a\ninstruction fp16 products=2 fast"
                                  << "f:2:29: unknown flag 'fast'";
    QTest::newRow("flag with a value")
        << "machine a\ninstruction fp16 products=2 fraction-bits=3 two-stage=1"
        << "'two-stage' is a flag";
    QTest::newRow("bad output") << "machine a\ninstruction fp16 products=2 fraction-bits=3 "
                                   "output=fp64"
                                << "output: expected fp32-toward-zero";
    QTest::newRow("block without flag") << "machine a\ninstruction mxfp4 products=2 "
                                           "fraction-bits=3"
                                        << "block formats need the flag block-scaled";
    QTest::newRow("flag without blocks") << "machine a\ninstruction fp16 products=2 "
                                            "fraction-bits=3 block-scaled"
                                         << "block-scaled needs block formats";
    QTest::newRow("two-stage on fused") << "machine a\ninstruction fp16 products=2 "
                                           "fraction-bits=3 two-stage"
                                        << "two-stage goes with algorithm=fused-then-accumulator";
    QTest::newRow("element twice") << "machine a\ninstruction fp16 products=2 fraction-bits=3\n"
                                      "instruction bf16,fp16 products=2 fraction-bits=3"
                                   << "f:3:13: a second instruction of 'a' for fp16";
    QTest::newRow("NUL") << QString("machine a") + QChar(0) << "NUL byte";
}

void TestMachineFile::refusals() {
    QFETCH(QString, text);
    QFETCH(QString, message);
    const QByteArray bytes = text.toUtf8();
    const MachineFileParse parse =
        parseMachineFile(std::string_view(bytes.constData(), bytes.size()), "f");
    QVERIFY(!parse);
    QVERIFY(parse.machines.empty()); // refused whole
    QVERIFY2(QString::fromStdString(parse.error).contains(message), parse.error.c_str());
}

void TestMachineFile::missingFile() {
    const MachineFileParse parse = readMachineFile("/no/such/dir/m.machines");
    QVERIFY(!parse);
    QVERIFY2(parse.error.find("/no/such/dir/m.machines: cannot open") == 0, parse.error.c_str());
}

QTEST_APPLESS_MAIN(TestMachineFile)
#include "tst_machine_file.moc"
