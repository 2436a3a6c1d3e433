// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/arithmetic.h"
#include "fpx/exact/code.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/exact_value.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"
#include "fpx/exact/value_parser.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fpx {

// An arithmetic expression as typed, e.g. "fma(0.1, 10, -1)": a tree of literals and
// operations. Computed two ways: exactly (evaluateExactly) and in a format, where every literal
// is rounded into the format first and every operation rounds once (evaluateInFormat;
// docs/behaviour.md, "Arithmetic").
struct Expression {
    enum class Kind { Literal, Operation };
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
    Operation op = Operation::Add;
    std::vector<Expression> operands;

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
FormatEvaluation evaluateInFormat(const Expression& expression, const FormatSpec& spec,
                                  const RoundingOptions& options, std::uint64_t seed);
// The same with the exact value computed once by the caller (evaluateExactly(expression)),
// for many formats: the exact evaluation is the costly part of a long expression.
FormatEvaluation evaluateInFormat(const Expression& expression, const FormatSpec& spec,
                                  const RoundingOptions& options, std::uint64_t seed,
                                  const ExactEvaluation& exact);

} // namespace fpx
