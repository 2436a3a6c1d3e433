// SPDX-License-Identifier: GPL-3.0-or-later
// Machine files (docs/behaviour.md, "Machine files"): one line at a time, every problem with
// its line and column, nothing half-read.
#include "fpx/machines/machine_file.h"

#include "fpx/exact/text_util.h"
#include "fpx/machines/machine_element.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <fstream>
#include <optional>
#include <sstream>

namespace fpx {
namespace {

constexpr std::array kOutputs = {FusedOutput::Fp32TowardZero, FusedOutput::E8M13TowardZero,
                                 FusedOutput::Fp16NearestEven, FusedOutput::Fp32NearestEven};
constexpr std::array kAlgorithms = {InstructionAlgorithm::Fused,
                                    InstructionAlgorithm::FusedThenAccumulator,
                                    InstructionAlgorithm::PairwiseFp32};

// A problem at a column of the line being read.
struct Problem {
    std::size_t column;
    std::string message;
};

// A word of a line and the column (1-based, in bytes) it starts at.
struct Word {
    std::string_view text;
    std::size_t column;
};

std::vector<Word> wordsOf(std::string_view line) {
    std::vector<Word> words;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
            ++i;
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t')
            ++i;
        if (i > start)
            words.push_back({line.substr(start, i - start), start + 1});
    }
    return words;
}

std::optional<int> numberIn(std::string_view text, int most) {
    int value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || value < 1 || value > most)
        return std::nullopt;
    return value;
}

bool validName(std::string_view name) {
    return !name.empty() && name.size() <= 64 && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
    });
}

std::optional<Problem> readOption(MachineInstruction& made, const Word& word, bool& sawProducts,
                                  bool& sawFraction) {
    const std::size_t equals = word.text.find('=');
    const std::string_view key = word.text.substr(0, equals);
    const std::string_view value =
        equals == std::string_view::npos ? std::string_view() : word.text.substr(equals + 1);
    const std::size_t valueColumn = word.column + key.size() + 1;
    const auto flag = [&](bool& field) -> std::optional<Problem> {
        if (equals != std::string_view::npos)
            return Problem{word.column, "'" + std::string(key) + "' is a flag: it takes no value"};
        field = true;
        return std::nullopt;
    };
    if (key == "two-stage")
        return flag(made.twoStage);
    if (key == "flush-subnormals")
        return flag(made.flushesSubnormals);
    if (key == "truncates-fp32")
        return flag(made.truncatesFp32Operands);
    if (key == "block-scaled")
        return flag(made.blockScaled);
    if (equals == std::string_view::npos)
        return Problem{word.column,
                       "unknown flag '" + std::string(key) +
                           "' (flags: two-stage, flush-subnormals, truncates-fp32, block-scaled)"};
    if (key == "products" || key == "fraction-bits" || key == "sub-block") {
        const int most = key == "fraction-bits" ? 200 : 4096;
        const std::optional<int> n = numberIn(value, most);
        if (!n)
            return Problem{valueColumn, std::string(key) + ": expected 1 to " +
                                            std::to_string(most) + ", got '" + std::string(value) +
                                            "'"};
        if (key == "products") {
            made.products = *n;
            sawProducts = true;
        } else if (key == "fraction-bits") {
            made.model.fractionBits = *n;
            sawFraction = true;
        } else {
            made.subBlock = *n;
        }
        return std::nullopt;
    }
    if (key == "algorithm") {
        for (const InstructionAlgorithm a : kAlgorithms)
            if (value == algorithmId(a)) {
                made.algorithm = a;
                return std::nullopt;
            }
        return Problem{valueColumn, "algorithm: expected fused, fused-then-accumulator or "
                                    "pairwise-fp32, got '" +
                                        std::string(value) + "'"};
    }
    if (key == "cut") {
        for (const TermCut c : {TermCut::TowardZero, TermCut::TowardNegative})
            if (value == termCutId(c)) {
                made.model.cut = c;
                return std::nullopt;
            }
        return Problem{valueColumn, "cut: expected toward-zero or toward-negative, got '" +
                                        std::string(value) + "'"};
    }
    if (key == "output") {
        for (const FusedOutput o : kOutputs)
            if (value == outputId(o)) {
                made.model.output = o;
                return std::nullopt;
            }
        return Problem{valueColumn, "output: expected fp32-toward-zero, e8m13-toward-zero, "
                                    "fp16-nearest-even or fp32-nearest-even, got '" +
                                        std::string(value) + "'"};
    }
    return Problem{word.column, "unknown option '" + std::string(key) +
                                    "' (products, fraction-bits, algorithm, cut, output, "
                                    "sub-block)"};
}

// The instruction on a line `instruction ELEMENTS OPTION...` (words after the keyword).
std::optional<Problem> readInstruction(const std::vector<Word>& words, MachineInstruction& made) {
    if (words.size() < 2)
        return Problem{words.front().column + words.front().text.size(),
                       "expected the elements after 'instruction', e.g. fp16,bf16"};
    const Word& list = words[1];
    std::size_t offset = 0;
    bool blocks = false, plain = false;
    for (const std::string_view id : splitAt(list.text, ',')) {
        std::string error;
        const std::optional<MachineElement> element = findMachineElement(id, error);
        if (!element)
            return Problem{list.column + offset, error};
        (element->block ? blocks : plain) = true;
        made.elements.push_back(element->id);
        offset += id.size() + 1;
    }
    bool sawProducts = false, sawFraction = false;
    for (std::size_t w = 2; w < words.size(); ++w)
        if (std::optional<Problem> problem = readOption(made, words[w], sawProducts, sawFraction))
            return problem;
    const std::size_t at = words.front().column;
    if (!sawProducts)
        return Problem{at, "the instruction needs products=G, the products it fuses"};
    if (!sawFraction && made.algorithm != InstructionAlgorithm::PairwiseFp32)
        return Problem{at, "the instruction needs fraction-bits=F, the bits its terms keep"};
    if (blocks && plain)
        return Problem{list.column, "block formats and plain formats in one instruction: give "
                                    "each its own"};
    if (blocks != made.blockScaled)
        return Problem{list.column, blocks ? "block formats need the flag block-scaled"
                                           : "block-scaled needs block formats (mxfp8_e4m3, "
                                             "mxfp4, nvfp4, ...)"};
    if (made.blockScaled && made.algorithm != InstructionAlgorithm::Fused)
        return Problem{at, "block-scaled goes with algorithm=fused"};
    if (made.subBlock > 0 && !made.blockScaled)
        return Problem{at, "sub-block goes with block-scaled"};
    if (made.twoStage && made.algorithm != InstructionAlgorithm::FusedThenAccumulator)
        return Problem{at, "two-stage goes with algorithm=fused-then-accumulator"};
    if (made.flushesSubnormals && made.algorithm != InstructionAlgorithm::PairwiseFp32)
        return Problem{at, "flush-subnormals goes with algorithm=pairwise-fp32"};
    if (made.algorithm != InstructionAlgorithm::Fused)
        made.model.output = FusedOutput::Fp32NearestEven; // what the AMD algorithms produce
    if (made.algorithm == InstructionAlgorithm::PairwiseFp32)
        made.model.fractionBits = 23; // FP32's own: every step is an FP32 operation
    return std::nullopt;
}

} // namespace

std::string outputId(FusedOutput output) {
    return outputFormat(output).id + "-" + std::string(outputRoundingId(output));
}

std::string machineFileText(const MachineModel& machine) {
    std::string text = "machine " + machine.name + "\n";
    if (!machine.description.empty())
        text += "description " + machine.description + "\n";
    if (!machine.source.empty())
        text += "source " + machine.source + "\n";
    for (const MachineInstruction& instruction : machine.instructions) {
        std::string elements;
        for (const std::string& id : instruction.elements)
            elements += (elements.empty() ? "" : ",") + id;
        text += "instruction " + elements + " products=" + std::to_string(instruction.products);
        if (instruction.algorithm != InstructionAlgorithm::PairwiseFp32)
            text += " fraction-bits=" + std::to_string(instruction.model.fractionBits);
        if (instruction.algorithm != InstructionAlgorithm::Fused)
            text += " algorithm=" + std::string(algorithmId(instruction.algorithm));
        if (instruction.model.cut != TermCut::TowardZero)
            text += " cut=" + std::string(termCutId(instruction.model.cut));
        if (instruction.algorithm == InstructionAlgorithm::Fused)
            text += " output=" + outputId(instruction.model.output);
        if (instruction.blockScaled)
            text += " block-scaled";
        if (instruction.subBlock > 0)
            text += " sub-block=" + std::to_string(instruction.subBlock);
        if (instruction.twoStage)
            text += " two-stage";
        if (instruction.flushesSubnormals)
            text += " flush-subnormals";
        if (instruction.truncatesFp32Operands)
            text += " truncates-fp32";
        text += "\n";
    }
    return text;
}

MachineFileParse parseMachineFile(std::string_view text, std::string_view source) {
    MachineFileParse parse;
    const auto fail = [&](std::size_t line, std::size_t column, const std::string& message) {
        MachineFileParse failed;
        failed.error = std::string(source) + ":" + std::to_string(line) + ":" +
                       std::to_string(column) + ": " + message;
        return failed;
    };
    if (text.size() > kMaxMachineFileBytes)
        return fail(1, 1, "the file is larger than 1 MiB");
    if (text.substr(0, 3) == "\xEF\xBB\xBF")
        text.remove_prefix(3); // a byte-order mark some editors write
    if (text.find('\0') != std::string_view::npos)
        return fail(1, 1, "the file holds a NUL byte: not a text file");
    std::vector<std::size_t> machineLines;
    std::size_t number = 0;
    for (std::string_view rest = text; !rest.empty() || number == 0;) {
        const std::size_t end = rest.find('\n');
        std::string_view line = rest.substr(0, end);
        rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
        ++number;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        line = line.substr(0, line.find('#'));
        const std::vector<Word> words = wordsOf(line);
        if (words.empty()) {
            if (rest.empty())
                break;
            continue;
        }
        const Word& key = words.front();
        const std::size_t textColumn = words.size() > 1 ? words[1].column : key.column;
        const std::string_view restOfLine =
            words.size() > 1 ? trim(line.substr(words[1].column - 1)) : std::string_view();
        if (key.text == "machine") {
            if (words.size() != 2 || !validName(words[1].text))
                return fail(number, textColumn,
                            "expected one machine name of lower-case letters, digits, '-', '_' "
                            "or '.'");
            const std::string name(words[1].text);
            const bool builtIn = std::any_of(builtInMachines().begin(), builtInMachines().end(),
                                             [&](const MachineModel& m) { return m.name == name; });
            if (builtIn)
                return fail(number, textColumn, "'" + name + "' is a built-in machine's name");
            for (const MachineModel& m : parse.machines)
                if (m.name == name)
                    return fail(number, textColumn, "a second machine named '" + name + "'");
            if (parse.machines.size() == kMaxMachinesInFile)
                return fail(number, key.column, "more than 256 machines in one file");
            if (!parse.machines.empty() && parse.machines.back().instructions.empty())
                return fail(machineLines.back(), 1,
                            "machine '" + parse.machines.back().name + "' has no instruction");
            parse.machines.push_back({name, {}, {}, {}});
            machineLines.push_back(number);
            continue;
        }
        if (parse.machines.empty())
            return fail(number, key.column, "expected 'machine NAME' before anything else");
        MachineModel& machine = parse.machines.back();
        if (key.text == "description" || key.text == "source") {
            if (restOfLine.empty())
                return fail(number, key.column + key.text.size(), "expected text after it");
            (key.text == "description" ? machine.description : machine.source) =
                std::string(restOfLine);
        } else if (key.text == "instruction") {
            MachineInstruction made;
            if (std::optional<Problem> problem = readInstruction(words, made))
                return fail(number, problem->column, problem->message);
            for (const std::string& id : made.elements)
                if (machine.instructionFor(id))
                    return fail(number, textColumn,
                                "a second instruction of '" + machine.name + "' for " + id);
            machine.instructions.push_back(std::move(made));
        } else {
            return fail(number, key.column,
                        "unknown key '" + std::string(key.text) +
                            "' (machine, description, source, instruction)");
        }
    }
    if (parse.machines.empty())
        return fail(1, 1, "no machine: the file starts one with 'machine NAME'");
    if (parse.machines.back().instructions.empty())
        return fail(machineLines.back(), 1,
                    "machine '" + parse.machines.back().name + "' has no instruction");
    for (MachineModel& machine : parse.machines)
        if (machine.source.empty())
            machine.source = std::string(source);
    return parse;
}

MachineFileParse readMachineFile(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        MachineFileParse failed;
        failed.error = path + ": cannot open the file";
        return failed;
    }
    std::string text(kMaxMachineFileBytes + 1, '\0');
    file.read(text.data(), std::streamsize(text.size()));
    text.resize(std::size_t(file.gcount()));
    return parseMachineFile(text, path);
}

} // namespace fpx
