// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/arithmetic.h"
#include "fpx/exact/code.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"
#include "fpx/exact/value_parser.h"
#include "fpx/exact/work_budget.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fpx {

// An arithmetic expression as typed, e.g. "fma(0.1, 10, -1)": a tree of literals and
// operations. Computed two ways: exactly (evaluateExactly) and in a format, where every literal
// is rounded into the format first and every operation rounds once (evaluateInFormat;
// docs/behaviour.md, "Arithmetic").
//
// The explicit language (parseExplicitExpression) adds written roundings and variables:
// "bf16(fp32(w + bf16(-lr)*g))" computes exactly except where a format's name rounds its
// argument once (docs/behaviour.md, "Update rules"), as a framework's update rule does.
struct Expression {
    enum class Kind { Literal, Operation, Variable, Rounding };
    Kind kind = Kind::Literal;
    // The node's text as typed: the literal ("2^-24", "-0.1"), or the whole sub-expression
    // ("(0.1+0.2)*3"), and its byte span [begin, end) in the parsed text.
    std::string text;
    std::size_t begin = 0;
    std::size_t end = 0;

    // Literal: its exact value. A minus sign written directly before a number belongs to the
    // literal ("-0.1" is rounded as −0.1, as `fpx show -0.1` does; that differs from −(0.1
    // rounded) in the directed modes). `exact` is false for a stand-in of a decimal too long
    // or far out to hold (see ParsedValue::exact).
    ExactValue value;
    bool exact = true;

    // Operation: the operation and its operands, in order (operandCount(op) of them).
    // Rounding: its one operand, the argument.
    Operation op = Operation::Add;
    std::vector<Expression> operands;

    // Variable: its name and its slot in ExplicitSyntax::variables. Rounding: the format's
    // name as written; `format` the catalogue's format, or nullopt for a format bound at
    // evaluation, whose slot in ExplicitSyntax::formats is `slot` ("F": the parameter's
    // format of an update rule); `mode` when written ("bf16(x, rtz)"), else the evaluation's.
    std::string name;
    std::size_t slot = 0;
    std::optional<FormatSpec> format;
    std::optional<RoundingMode> mode;

    bool isLiteral() const { return kind == Kind::Literal; }
};

// The longest text and the deepest nesting parseExpression accepts.
inline constexpr std::size_t kMaxExpressionLength = 4096;
inline constexpr int kMaxExpressionDepth = 64;

struct ExpressionParse {
    std::optional<Expression> expression;
    ParseError error; // byte position and message, e.g. "expected ')' to close the '(' at column 3"
    // The big-integer work of evaluating it once (see work_budget.h), also when refused.
    double work = 0;
    explicit operator bool() const { return expression.has_value(); }
};

// Grammar (blanks ignored; literals as readNumberLiteral reads them, with inf and nan):
//   sum     := product (('+' | '-') product)*
//   product := unary (('*' | '/' | '×' | '÷') unary)*
//   unary   := ('-' | '+' | '−') unary | primary
//   primary := literal | '(' sum ')' | name '(' sum (',' sum)* ')'
//   name    := fma (3 arguments) | sqrt | abs (1) | min | max (2)
// The work is bounded: at most kMaxExpressionLength bytes, kMaxExpressionDepth levels of
// nesting (parentheses, functions, signs), and one exact evaluation under a work budget (a
// clear error otherwise), so evaluateExactly and evaluateInFormat of a parsed expression
// always finish promptly. A left-leaning chain such as 1+1+…+1 is as deep a tree as it is
// long, but not nested: it is evaluated without recursion, so any thread's stack will do.
ExpressionParse parseExpression(std::string_view text);

// The real-number value of the expression: exact rational arithmetic, IEEE 754's rules for
// infinities, NaN and the signs of zeros (round-to-nearest's). A square root of a non-square
// is approximated to squareRootApproximation's ample bits, and `approximate` says so (also for
// a literal stand-in).
struct ExactEvaluation {
    ExactValue value;
    bool approximate = false;
};
// An explicit expression's roundings are left out: its value as if every rounding were exact.
// The expression must have no variables (std::invalid_argument otherwise).
ExactEvaluation evaluateExactly(const Expression& expression);

// A literal rounded into the format: its text, exact value, the conversion and the value of
// the code it gives.
struct LiteralRounding {
    std::string text;
    ExactValue exact;
    Conversion rounded;
    ExactValue value;
};

// One operation performed in the format, in evaluation order.
struct ExpressionStep {
    Operation op = Operation::Add;
    std::string text;                   // the sub-expression, as typed
    std::vector<ExactValue> operands;   // the operands' values in the format
    std::vector<Code> operandCodes;     // and their codes
    OperationResult result;             // exact result, rounded code, its value, flags
    std::optional<ExactValue> ulpError; // (value − exact) / ulp(value); none for ∞, NaN
};

// The expression computed in one format.
struct FormatEvaluation {
    FormatSpec spec;
    // Why the format has no arithmetic (arithmeticUnsupported), or why this expression cannot
    // be computed exactly in it; nothing else is filled in then.
    std::optional<std::string> unsupported;
    std::vector<LiteralRounding> literals; // in the order they are read
    std::vector<ExpressionStep> steps;     // evaluation order: operands before their operation
    Code code = 0;                         // the final result
    ExactValue value;
    ArithmeticFlags flags; // every literal's and every step's flags together
    // value − the exact real value of the expression (evaluateExactly): 0 when both are the
    // same infinity, ±∞ when only one is infinite, NaN when either is NaN.
    ExactValue error;
    bool errorApproximate = false; // the exact value is approximate (sqrt, a stand-in)
};

// Under stochastic rounding the k-th rounding in evaluation order (literals and operations
// counted together, from 0) draws stochasticBits(seed, k); `options.randomBits` is ignored.
// An explicit expression is `unsupported` here: it names its own roundings
// (evaluateExplicitly).
FormatEvaluation evaluateInFormat(const Expression& expression, const FormatSpec& spec,
                                  const RoundingOptions& options, std::uint64_t seed);
// The same with the exact value computed once by the caller (evaluateExactly(expression)),
// for many formats: the exact evaluation is the costly part of a long expression.
FormatEvaluation evaluateInFormat(const Expression& expression, const FormatSpec& spec,
                                  const RoundingOptions& options, std::uint64_t seed,
                                  const ExactEvaluation& exact);

// --- The explicit language: written roundings and variables ------------------------------------

// The names an explicit expression may use besides numbers, functions and the catalogue's
// formats: variables bound to values, and formats bound at evaluation.
struct ExplicitSyntax {
    std::vector<std::string> variables; // e.g. w, lr, g
    std::vector<std::string> formats;   // e.g. F
};

// Grammar: parseExpression's, with two more primaries:
//   primary  := ... | variable | format '(' sum [',' mode] ')'
//   format   := a format id or alias of the catalogue (fp32, bf16, fp8_e4m3, e5m2, int8 …), a
//               custom spec (e3m4, int6), or a name of syntax.formats
//   mode     := a rounding mode as --round takes it (rne, rna, rtz, rup, rdn, rto, sr)
// Names are matched as written for variables and bound formats, without case for the rest.
// Errors carry the byte position ("unknown variable 'x' ...", "unknown format 'bf17' ...").
// The work is bounded as parseExpression's, and an expression without variables or bound
// formats is evaluated once under the work budget here, so evaluateExplicitly of it always
// finishes promptly; with variables, evaluateExplicitly charges each evaluation.
ExpressionParse parseExplicitExpression(std::string_view text, const ExplicitSyntax& syntax = {});

// Whether the expression has any rounding, variable or bound format (the explicit language's).
bool isExplicit(const Expression& expression);

// Values and formats for an explicit expression's variables and bound formats, in the order of
// its ExplicitSyntax.
struct ExplicitBindings {
    std::vector<ExactValue> variables;
    std::vector<FormatSpec> formats;
};

// One written rounding, in evaluation order (arguments before the rounding that takes them).
struct ExplicitRounding {
    std::string text;  // the rounding as typed: "bf16(0.1)"
    FormatSpec spec;   // the format it rounds into (a bound format's binding)
    RoundingMode mode; // its own, or the evaluation's
    ExactValue argument;
    bool argumentApproximate = false; // a square root's approximation fed the argument
    Conversion rounded;               // its code and flags
    ExactValue value;                 // the code's value
};

struct ExplicitOptions {
    // The mode and overflow policy of a rounding that names no mode; randomBits is ignored.
    RoundingOptions rounding;
    // Under stochastic rounding, the bits the k-th rounding (evaluation order, from 0) draws;
    // none: stochasticBits(0, k).
    std::function<std::uint64_t(std::size_t)> randomBits;
    bool trace = true; // record every rounding in ExplicitEvaluation::roundings
    // The big-integer work one evaluation may spend (work_budget.h's units).
    double workBudget = kValueWork;
};

struct ExplicitEvaluation {
    // Exact between the roundings. `approximate` when a square root's approximation reaches
    // the value without a rounding between them that settles it.
    ExactValue value;
    bool approximate = false;
    std::vector<ExplicitRounding> roundings;
    // Every rounding's flags, and invalid or divide-by-zero from the exact operations.
    ArithmeticFlags flags;
    double work = 0; // the big-integer work it cost
    // Set when the evaluation would spend more than the budget: where, and why; the value is
    // not computed then.
    std::optional<ParseError> error;
};

// Evaluates exactly except at the written roundings, each one roundToFormat of the exact value
// of its argument. Throws std::invalid_argument when `bindings` does not bind every variable
// and format the expression uses.
ExplicitEvaluation evaluateExplicitly(const Expression& expression,
                                      const ExplicitBindings& bindings,
                                      const ExplicitOptions& options);

// The text with every bound format's name replaced by its binding: "F(w - lr*g)" with F bound
// to bf16 reads "bf16(w - lr*g)". `text` is the text the expression was parsed from.
std::string withFormatsBound(const Expression& expression, std::string_view text,
                             const ExplicitBindings& bindings);

} // namespace fpx
