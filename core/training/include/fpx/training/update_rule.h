// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/expression.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/value_parser.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fpx {

// How one SGD step w ← w − lr·g is computed and rounded: a formula of the explicit language
// (expression.h) in the variables w (the stepped weight), lr (the learning rate) and g (the
// gradient), with F the format the stepped weight is held in. Everything inside is exact;
// each format's name rounds its argument once (docs/behaviour.md, "Update rules"). The
// built-ins:
//   exact        F(w - lr*g): the exact update rounded once, fpx's default
//   pytorch-cpu  PyTorch's CPU kernel (param.add_(grad, alpha=-lr)): for bf16 and fp16
//                F(fp32(w + F(fp32(-lr))*g)), for fp32 F(w + F(-lr)*g), for fp64 F(w - lr*g)
//   fp32-opmath  F(fp32(w + fp32(-lr)*g)): arithmetic in FP32, the result rounded into F
// A rule may name its formula per format (pytorch-cpu does); a format it has no formula for is
// refused (unsupported).

// The variables of an update rule, in this order, and its one bound format, F.
const ExplicitSyntax& updateRuleSyntax();

struct UpdateFormula {
    std::string text;      // as written, with F: "F(fp32(w + F(fp32(-lr))*g))"
    Expression expression; // parsed with updateRuleSyntax()
};

struct UpdateRule {
    std::string name;        // "exact", "pytorch-cpu", "fp32-opmath", or "custom"
    std::string description; // one line: where the rule comes from
    // The formula for weights of these format ids, before `general`.
    std::vector<std::pair<std::vector<std::string>, UpdateFormula>> byFormat;
    std::optional<UpdateFormula> general; // every other format; none: they are refused

    bool builtin() const { return name != "custom"; }
    // The formula for a weight held in `format`, or nullptr when the rule has none.
    const UpdateFormula* formulaFor(const FormatSpec& format) const;
    // Why the rule cannot step a weight held in `format`, or nullopt.
    std::optional<std::string> unsupported(const FormatSpec& format) const;
    // The formula for `format` with F written as its id: "bf16(fp32(w + bf16(fp32(-lr))*g))".
    std::string expandedFormula(const FormatSpec& format) const;
    // Every formula, as written: "F(w - lr*g)", or per format for pytorch-cpu
    // ("bf16, fp16: F(fp32(w + F(fp32(-lr))*g)); fp32: …").
    std::string formulaText() const;
};

// The built-ins' names, in the order the command line and the explorer list them; the first
// is the default.
std::vector<std::string> builtinUpdateRuleNames();

struct UpdateRuleParse {
    std::optional<UpdateRule> rule;
    ParseError error; // byte position in the text and message
    explicit operator bool() const { return rule.has_value(); }
};

// A built-in's name, or a formula: "bf16(fp32(w + bf16(-lr)*g))".
UpdateRuleParse parseUpdateRule(std::string_view text);

// The default rule: exact.
const UpdateRule& exactUpdateRule();

} // namespace fpx
