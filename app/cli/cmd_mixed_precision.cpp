// SPDX-License-Identifier: GPL-3.0-or-later
// fpx mixed-precision: one gradient through one step of mixed-precision training, stage by
// stage, each value exact with its code and bits (docs/behaviour.md, "The mixed-precision
// step"); the Training page's pipeline view shows the same stages.
#include "arguments.h"
#include "commands.h"
#include "presentation.h"

#include "fpx/exact/bit_layout.h"
#include "fpx/exact/code.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/value_parser.h"
#include "fpx/training/mixed_precision_step.h"

#include <ostream>
#include <stdexcept>

namespace fpx::cli {

namespace {

constexpr const char* kUsage =
    "usage: fpx mixed-precision [--preset NAME] [--gradient G] [--scale S] [--weight W]\n"
    "                           [--lr LR] [--clip C] [--decay L] [--half ID] [--master ID]\n"
    "                           [--json] [--color|--no-color]\n"
    "  One gradient through one step of mixed-precision training, NVIDIA's recipe:\n"
    "  1 FP32 master weight, 2 its FP16 copy (3 the forward pass reads it), 4 the loss\n"
    "  times S, 5 the FP16 backward pass (S*g rounded into FP16), 6 times 1/S in FP32,\n"
    "  the inf/NaN check (skip the step and halve S), 7 clipping and weight decay and the\n"
    "  FP32 master update, then the next FP16 copy. Each stage's value is computed exactly\n"
    "  from the stages before it and rounded once into its format (nearest even); the\n"
    "  value is printed exactly with its code and bits, and what happened to it.\n"
    "  --preset: survives (1e-8, S = 2^16; the default), flushed (S = 1), overflow\n"
    "            (gradient 4, S = 2^16: skipped), master-keeps (update 1e-4 on w = 1),\n"
    "            clip-decay (gradient 4 clipped to 1, decay 0.01); options given override it\n"
    "  G, S, W, LR, C, L: exact values (1e-8, 2^16, 0.01); S is held in --master\n"
    "  --clip C: a gradient with |g| > C becomes sign(g)*C; --decay L adds L*w (SGD's L2)\n"
    "  --half: the passes' format (fp16, bf16 …); --master: the master's (fp32)\n";

std::string presetIds() {
    std::string ids;
    for (const MixedPrecisionPreset& preset : mixedPrecisionPresets())
        ids += (ids.empty() ? "" : ", ") + std::string(preset.id);
    return ids;
}

Outcome<ExactValue> readExact(const Arguments& args, const char* option) {
    const std::string text = *args.value(option);
    const ParsedValue parsed = parseValue(text);
    if (!parsed)
        return CommandError{std::string("--") + option + " '" + text + "': column " +
                            std::to_string(parsed.error.position + 1) + ": " +
                            parsed.error.message};
    if (!parsed.exact || !parsed.value->isFinite())
        return CommandError{std::string("--") + option + " must be a finite exact value, got '" +
                            text + "'"};
    return *parsed.value;
}

Outcome<MixedPrecisionInputs> readInputs(const Arguments& args) {
    const std::string presetId = args.value("preset").value_or("survives");
    const MixedPrecisionPreset* preset = findMixedPrecisionPreset(presetId);
    if (!preset)
        return CommandError{"--preset '" + presetId + "': use " + presetIds()};
    MixedPrecisionInputs in = preset->inputs;
    const std::pair<const char*, ExactValue*> values[] = {{"gradient", &in.gradient},
                                                          {"scale", &in.lossScale},
                                                          {"weight", &in.weight},
                                                          {"lr", &in.learningRate},
                                                          {"decay", &in.weightDecay}};
    for (const auto& [option, field] : values)
        if (args.has(option)) {
            const Outcome<ExactValue> v = readExact(args, option);
            if (!v)
                return v.error();
            *field = *v;
        }
    if (args.has("clip")) {
        const Outcome<ExactValue> v = readExact(args, "clip");
        if (!v)
            return v.error();
        in.clipNorm = *v;
    }
    for (const auto& [option, field] :
         {std::pair{"half", &in.half}, std::pair{"master", &in.master}})
        if (auto id = args.value(option)) {
            const FormatLookup found = findFormat(*id);
            if (!found)
                return CommandError{std::string("--") + option + ": " + found.error};
            *field = *found.spec;
        }
    return in;
}

std::string codeText(const MixedPrecisionStage& s) {
    return codeToHex(s.rounded.code, s.format.totalBits());
}

void renderJson(const MixedPrecisionStep& step, std::ostream& out) {
    const MixedPrecisionInputs& in = step.inputs;
    Json json;
    json["gradient"] = decimalOrNull(in.gradient);
    json["scale"] = decimalOrNull(in.lossScale);
    json["weight"] = decimalOrNull(in.weight);
    json["lr"] = decimalOrNull(in.learningRate);
    json["clip"] = in.clipNorm ? decimalOrNull(*in.clipNorm) : Json(nullptr);
    json["decay"] = decimalOrNull(in.weightDecay);
    json["half"] = in.half.id;
    json["master"] = in.master.id;
    Json stages = Json::array();
    for (const MixedPrecisionStage& s : step.stages) {
        Json stage;
        stage["stage"] = pipelineStageId(s.stage);
        stage["recipe_step"] = recipeStep(s.stage);
        stage["name"] = s.name;
        stage["format"] = s.format.id;
        stage["exact"] = s.exact.isNaN() ? Json("nan") : decimalOrNull(s.exact);
        stage["value"] = s.value.isNaN() ? Json("nan") : decimalOrNull(s.value);
        stage["code"] = codeText(s);
        stage["bits"] = binaryByField(s.format, s.rounded.code);
        stage["class"] = valueClassName(decodeCode(s.format, s.rounded.code).valueClass);
        stage["flags"] = flagsToString(s.rounded.flags);
        stage["outcome"] = stageOutcomeId(s.outcome);
        stage["note"] = s.note;
        stages.push_back(std::move(stage));
    }
    json["stages"] = std::move(stages);
    json["skipped"] = step.skipped;
    json["next_scale"] = decimalOrNull(step.nextScale);
    json["summary"] = step.summary;
    printJson(out, json);
}

void renderText(const MixedPrecisionStep& step, const TerminalStyle& style, std::ostream& out) {
    const MixedPrecisionInputs& in = step.inputs;
    out << "One mixed-precision step: gradient " << toDecimal(in.gradient).text
        << ", S = " << toDecimal(in.lossScale).text << ", w = " << toDecimal(in.weight).text
        << ", lr = " << toDecimal(in.learningRate).text;
    if (in.clipNorm)
        out << ", clip " << toDecimal(*in.clipNorm).text;
    if (!in.weightDecay.isZero())
        out << ", decay " << toDecimal(in.weightDecay).text;
    out << "; " << in.half.id << " passes, " << in.master.id << " master\n\n";
    for (const MixedPrecisionStage& s : step.stages) {
        const int recipe = recipeStep(s.stage);
        const std::string number = recipe ? std::to_string(recipe) : "-";
        out << style.bold(number + "  " + s.name) << "  " << s.format.id << ' ' << codeText(s)
            << "  " << colouredBits(s.format, s.rounded.code, style) << '\n';
        out << "   = " << (s.value.isNaN() ? std::string("nan") : toDecimal(s.value).text);
        if (!s.exact.isIdenticalTo(s.value) && !s.exact.isNaN())
            out << "  (from " << toDecimal(s.exact).text << ")";
        out << "\n   " << s.note << "\n";
    }
    out << '\n' << step.summary << '\n';
}

} // namespace

int runMixedPrecision(const std::vector<std::string>& rawArgs, Streams& io) {
    const Arguments args(
        rawArgs, {"preset", "gradient", "scale", "weight", "lr", "clip", "decay", "half", "master"},
        {"json", "color", "no-color"});
    if (const auto stop = checkOptionsOnly(args, io, "mixed-precision", kUsage))
        return *stop;
    const Outcome<MixedPrecisionInputs> inputs = readInputs(args);
    if (!inputs)
        return reportError(io, "mixed-precision", inputs.error());
    MixedPrecisionStep step;
    try {
        step = runMixedPrecisionStep(*inputs);
    } catch (const std::invalid_argument& refused) {
        return reportError(io, "mixed-precision", CommandError{refused.what()});
    }
    if (args.has("json"))
        renderJson(step, io.out);
    else
        renderText(step, TerminalStyle::forChoice(readColorChoice(args), io.outIsTerminal), io.out);
    return kExitOk;
}

} // namespace fpx::cli
