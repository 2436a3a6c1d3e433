// SPDX-License-Identifier: GPL-3.0-or-later
// SGD update rules as formulas with explicit roundings (docs/behaviour.md, "Update rules").
#include "fpx/training/update_rule.h"

#include "fpx/exact/text_util.h"

#include <algorithm>
#include <stdexcept>

namespace fpx {

namespace {

struct BuiltinFormula {
    std::vector<std::string> formats; // empty: every other format
    const char* text;
};

struct Builtin {
    const char* name;
    const char* description;
    std::vector<BuiltinFormula> formulas;
};

// PyTorch's CPU path for torch.optim.SGD without momentum is param.add_(grad, alpha=-lr): the
// add kernel casts alpha into the parameter's dtype (Scalar::to<scalar_t>(); c10's BFloat16
// and Half are built from a float, so the double lr goes through FP32 first). Its vectorised
// loop computes fmadd(grad, alpha, param): in PyTorch 1.13 (checked against its Debian build)
// Vectorized<BFloat16> converts to FP32, does one FP32 fused multiply-add and rounds back,
// while Half's operators round each step into FP16 (alpha·g, then the sum); PyTorch 2's
// sources convert Half to FP32 as BFloat16 does. For float the FMA is in FP32 itself; for
// double alpha is lr exactly and the FMA rounds once.
const std::vector<Builtin>& builtins() {
    static const std::vector<Builtin> list = {
        {"exact",
         "the exact update rounded once into the weight's format, as a fused step in wide "
         "registers does",
         {{{}, "F(w - lr*g)"}}},
        {"pytorch-cpu",
         "PyTorch 1.13's CPU kernel of param.add_(grad, alpha=-lr) (torch.optim.SGD without "
         "momentum), its vectorised loop: lr cast into the parameter's dtype through FP32; "
         "bf16 one fused multiply-add in FP32, rounded into bf16; fp16 alpha·g and the sum each "
         "rounded into fp16; elements past the last full vector round three times",
         {{{"bf16"}, "F(fp32(w + F(fp32(-lr))*g))"},
          {{"fp16"}, "F(w + F(F(fp32(-lr))*g))"},
          {{"fp32"}, "F(w + F(-lr)*g)"},
          {{"fp64"}, "F(w - lr*g)"}}},
        {"pytorch2-cpu",
         "the same kernel as PyTorch 2's sources read: fp16 too through one FP32 fused "
         "multiply-add, as bf16",
         {{{"bf16", "fp16"}, "F(fp32(w + F(fp32(-lr))*g))"},
          {{"fp32"}, "F(w + F(-lr)*g)"},
          {{"fp64"}, "F(w - lr*g)"}}},
        {"fp32-opmath",
         "arithmetic in FP32, the opmath type of BF16 and FP16: lr rounded to FP32, one FP32 "
         "fused multiply-add, the result rounded into the weight's format",
         {{{}, "F(fp32(w + fp32(-lr)*g))"}}},
    };
    return list;
}

UpdateFormula parsedFormula(std::string_view text) {
    ExpressionParse parsed = parseExplicitExpression(text, updateRuleSyntax());
    if (!parsed)
        throw std::logic_error("built-in update rule '" + std::string(text) +
                               "' does not parse: " + parsed.error.message);
    return UpdateFormula{std::string(text), std::move(*parsed.expression)};
}

UpdateRule builtinRule(const Builtin& builtin) {
    UpdateRule rule;
    rule.name = builtin.name;
    rule.description = builtin.description;
    for (const BuiltinFormula& formula : builtin.formulas) {
        if (formula.formats.empty())
            rule.general = parsedFormula(formula.text);
        else
            rule.byFormat.emplace_back(formula.formats, parsedFormula(formula.text));
    }
    return rule;
}

} // namespace

const ExplicitSyntax& updateRuleSyntax() {
    static const ExplicitSyntax syntax{{"w", "lr", "g"}, {"F"}};
    return syntax;
}

const UpdateFormula* UpdateRule::formulaFor(const FormatSpec& format) const {
    for (const auto& [formats, formula] : byFormat)
        if (std::find(formats.begin(), formats.end(), format.id) != formats.end())
            return &formula;
    return general ? &*general : nullptr;
}

std::optional<std::string> UpdateRule::unsupported(const FormatSpec& format) const {
    if (formulaFor(format) != nullptr)
        return std::nullopt;
    std::string ids;
    for (const auto& [formats, formula] : byFormat)
        for (const std::string& id : formats)
            ids += (ids.empty() ? "" : ", ") + id;
    return "the update rule " + name + " is defined for " + ids + " weights, not " + format.id;
}

std::string UpdateRule::expandedFormula(const FormatSpec& format) const {
    const UpdateFormula* formula = formulaFor(format);
    if (formula == nullptr)
        return {};
    return withFormatsBound(formula->expression, formula->text, ExplicitBindings{{}, {format}});
}

std::string UpdateRule::formulaText() const {
    if (byFormat.empty())
        return general ? general->text : std::string();
    std::string text;
    for (const auto& [formats, formula] : byFormat) {
        std::string ids;
        for (const std::string& id : formats)
            ids += (ids.empty() ? "" : ", ") + id;
        text += (text.empty() ? "" : "; ") + ids + ": " + formula.text;
    }
    if (general)
        text += "; other formats: " + general->text;
    return text;
}

std::vector<std::string> builtinUpdateRuleNames() {
    std::vector<std::string> names;
    for (const Builtin& builtin : builtins())
        names.emplace_back(builtin.name);
    return names;
}

UpdateRuleParse parseUpdateRule(std::string_view text) {
    const std::string name = toLower(trim(text));
    for (const Builtin& builtin : builtins())
        if (name == builtin.name)
            return UpdateRuleParse{builtinRule(builtin), {}};
    // A bare word that names no variable reads as a misspelt built-in ("pytorch"), not as
    // an unknown variable of a formula.
    const std::string_view word = trim(text);
    const bool bare = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '-' || c == '_';
    });
    const auto& variables = updateRuleSyntax().variables;
    if (bare && (word.front() < '0' || word.front() > '9') &&
        std::find(variables.begin(), variables.end(), word) == variables.end()) {
        std::string names;
        for (const Builtin& builtin : builtins())
            names += std::string(builtin.name) + ", ";
        return UpdateRuleParse{std::nullopt,
                               ParseError{static_cast<std::size_t>(word.data() - text.data()),
                                          "unknown update rule '" + std::string(word) + "': use " +
                                              names + "or a formula such as F(w - lr*g)"}};
    }
    ExpressionParse parsed = parseExplicitExpression(text, updateRuleSyntax());
    if (!parsed)
        return UpdateRuleParse{std::nullopt, parsed.error};
    UpdateRule rule;
    rule.name = "custom";
    rule.description = "a formula as written";
    rule.general = UpdateFormula{std::string(text), std::move(*parsed.expression)};
    return UpdateRuleParse{std::move(rule), {}};
}

const UpdateRule& exactUpdateRule() {
    static const UpdateRule rule = builtinRule(builtins().front());
    return rule;
}

} // namespace fpx
