// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/expression.h"

#include "fpx/exact/code_details.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/work_budget.h"
#include "text_cursor.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <stdexcept>

namespace fpx {

namespace {

// Significant bits of the exact reference's square roots: far more than the widest format's
// precision (113 bits), so an error against the approximate root is right to many digits.
constexpr int kExactRootBits = 320;

// One expression's big-integer work, as value_parser.cpp budgets its arithmetic.
constexpr double kWorkBudget = kValueWork;

struct Failure {
    ParseError error;
};

// A parsed node and the span it occupies as written, parentheses included: the node's own span
// leaves them out ("(0.1+0.2)" is the node "0.1+0.2"), its parent's span takes them in.
struct Parsed {
    Expression node;
    std::size_t outerBegin = 0;
    std::size_t outerEnd = 0;
};

struct Function {
    std::string_view name;
    Operation op;
    const char* arguments; // how the usage reads, for errors
};

constexpr std::array kFunctions = {
    Function{"fma", Operation::Fma, "fma(a, b, c)"}, Function{"sqrt", Operation::Sqrt, "sqrt(x)"},
    Function{"abs", Operation::Abs, "abs(x)"},       Function{"min", Operation::Min, "min(a, b)"},
    Function{"max", Operation::Max, "max(a, b)"},
};

bool isLetter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

std::string column(std::size_t position) {
    return std::to_string(position + 1);
}

// "w, lr or g" for messages.
std::string listOfNames(const std::vector<std::string>& names) {
    std::string text;
    for (std::size_t i = 0; i < names.size(); ++i)
        text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return text;
}

class ExpressionParser : public TextCursor {
  public:
    // `syntax` set: the explicit language, with written roundings and these names.
    ExpressionParser(std::string_view text, const ExplicitSyntax* syntax)
        : TextCursor(text, 0), syntax_(syntax) {}

    Expression parseAll() {
        if (text_.size() > kMaxExpressionLength)
            throw failAt(kMaxExpressionLength, "expression longer than " +
                                                   std::to_string(kMaxExpressionLength) + " bytes");
        skipBlanks();
        if (atEnd())
            throw fail("empty expression: expected one such as 0.1+0.2, fma(2,3,-6) or "
                       "sqrt(2)");
        Parsed parsed = parseSum();
        skipBlanks();
        if (!atEnd()) {
            if (peek() == ')')
                throw fail("unmatched ')'");
            if (peek() == '^' || (peek() == '*' && peek(1) == '*'))
                throw fail("'^' raises only a number to a power (2^-24, 10^-3): write a "
                           "product of a sub-expression out");
            throw fail(describeUnexpected() + ", expected an operator (+ - * /) or the end");
        }
        return std::move(parsed.node);
    }

  private:
    Failure fail(std::string message) const { return failAt(pos_, std::move(message)); }
    static Failure failAt(std::size_t position, std::string message) {
        return Failure{ParseError{position, std::move(message)}};
    }

    void enter() {
        if (++depth_ > kMaxExpressionDepth)
            throw fail("nested too deeply (at most " + std::to_string(kMaxExpressionDepth) +
                       " levels of parentheses, functions and signs)");
    }
    void leave() { --depth_; }

    Expression operation(Operation op, std::vector<Expression> operands, std::size_t begin,
                         std::size_t end) const {
        Expression node;
        node.kind = Expression::Kind::Operation;
        node.op = op;
        node.operands = std::move(operands);
        node.begin = begin;
        node.end = end;
        node.text = std::string(text_.substr(begin, end - begin));
        return node;
    }

    Parsed binary(Operation op, Parsed left, Parsed right) const {
        const std::size_t begin = left.outerBegin;
        const std::size_t end = right.outerEnd;
        std::vector<Expression> operands;
        operands.push_back(std::move(left.node));
        operands.push_back(std::move(right.node));
        return Parsed{operation(op, std::move(operands), begin, end), begin, end};
    }

    // "+", "-" or U+2212 MINUS SIGN.
    std::optional<bool> readSign() {
        if (peek() == '+' || peek() == '-') {
            ++pos_;
            return text_[pos_ - 1] == '-';
        }
        if (startsWith("\xE2\x88\x92")) {
            pos_ += 3;
            return true;
        }
        return std::nullopt;
    }

    // sum := product (('+' | '-') product)*
    Parsed parseSum() {
        Parsed result = parseProduct();
        for (;;) {
            skipBlanks();
            const std::optional<bool> minus = readSign();
            if (!minus)
                return result;
            skipBlanks();
            Parsed right = parseProduct();
            result = binary(*minus ? Operation::Subtract : Operation::Add, std::move(result),
                            std::move(right));
        }
    }

    // product := unary (('*' | '/' | '×') unary)*
    Parsed parseProduct() {
        Parsed result = parseUnary();
        for (;;) {
            skipBlanks();
            Operation op;
            if (peek() == '*' && peek(1) != '*') {
                op = Operation::Multiply;
                ++pos_;
            } else if (peek() == '/') {
                op = Operation::Divide;
                ++pos_;
            } else if (startsWith("\xC3\x97")) { // ×
                op = Operation::Multiply;
                pos_ += 2;
            } else if (startsWith("\xC3\xB7")) { // ÷
                op = Operation::Divide;
                pos_ += 2;
            } else {
                return result;
            }
            skipBlanks();
            Parsed right = parseUnary();
            result = binary(op, std::move(result), std::move(right));
        }
    }

    // unary := sign unary | primary. A sign written directly before a literal is part of it.
    Parsed parseUnary() {
        const std::size_t signPos = pos_;
        const std::optional<bool> minus = readSign();
        if (!minus)
            return parsePrimary();
        enter();
        skipBlanks();
        Parsed operand = parseUnary();
        leave();
        const std::size_t end = operand.outerEnd;
        const bool bareLiteral =
            operand.node.isLiteral() && operand.outerBegin == operand.node.begin;
        if (bareLiteral) {
            Expression& literal = operand.node;
            if (*minus)
                literal.value = literal.value.negated();
            literal.begin = signPos;
            literal.text = std::string(text_.substr(signPos, literal.end - signPos));
            return Parsed{std::move(literal), signPos, end};
        }
        if (!*minus) {
            operand.outerBegin = signPos;
            return operand;
        }
        std::vector<Expression> operands;
        operands.push_back(std::move(operand.node));
        return Parsed{operation(Operation::Negate, std::move(operands), signPos, end), signPos,
                      end};
    }

    // primary := literal | '(' sum ')' | name '(' arguments ')'
    Parsed parsePrimary() {
        if (peek() == '(') {
            const std::size_t open = pos_;
            enter();
            ++pos_;
            skipBlanks();
            Parsed inner = parseSum();
            skipBlanks();
            expectClosing(open);
            leave();
            inner.outerBegin = open;
            inner.outerEnd = pos_;
            return inner;
        }
        if (isLetter(peek()))
            return parseName();
        if (isDigit(peek()) || peek() == '.')
            return parseLiteral(false);
        if (atEnd())
            throw fail("expected a number, '(' or a function after the end of the text");
        if (peek() == ')')
            throw fail("expected a number, '(' or a function before ')'");
        throw fail("expected a number, '(' or a function, found " +
                   describeUnexpected().substr(11));
    }

    void expectClosing(std::size_t open) {
        if (peek() == ')') {
            ++pos_;
            return;
        }
        const std::string what = atEnd() ? "the end" : describeUnexpected().substr(11);
        throw fail("expected ')' to close the '(' at column " + column(open) + ", found " + what);
    }

    Parsed parseLiteral(bool specials) {
        const std::size_t begin = pos_;
        const NumberLiteral literal = readNumberLiteral(text_, pos_, specials);
        if (!literal)
            throw Failure{literal.error};
        pos_ = literal.end;
        Expression node;
        node.kind = Expression::Kind::Literal;
        node.value = *literal.value;
        node.exact = literal.exact;
        node.begin = begin;
        node.end = pos_;
        node.text = std::string(text_.substr(begin, pos_ - begin));
        return Parsed{std::move(node), begin, pos_};
    }

    Parsed parseName() {
        const std::size_t begin = pos_;
        std::size_t end = pos_;
        while (end < text_.size() && (isLetter(text_[end]) || isDigit(text_[end])))
            ++end;
        std::string name(text_.substr(begin, end - begin));
        std::transform(name.begin(), name.end(), name.begin(), lower);
        for (const char* special : {"inf", "infinity", "nan", "qnan", "snan"})
            if (name == special)
                return parseLiteral(true);
        const auto function = std::find_if(kFunctions.begin(), kFunctions.end(),
                                           [&](const Function& f) { return f.name == name; });
        if (function == kFunctions.end() && syntax_ != nullptr)
            return parseExplicitName(begin, end);
        if (function == kFunctions.end())
            throw fail("unknown name '" + std::string(text_.substr(begin, end - begin)) +
                       "': use numbers, + - * /, parentheses, fma, sqrt, min, max or abs");
        pos_ = end;
        skipBlanks();
        if (peek() != '(')
            throw fail("expected '(' after '" + name + "': write " + function->arguments);
        const std::size_t open = pos_;
        enter();
        ++pos_;
        const auto wanted = static_cast<std::size_t>(operandCount(function->op));
        std::vector<Expression> operands;
        for (;;) {
            skipBlanks();
            if (operands.size() == wanted)
                throw fail(name + " takes " + std::to_string(wanted) + " argument" +
                           (wanted == 1 ? "" : "s") + ": write " + function->arguments);
            operands.push_back(parseSum().node);
            skipBlanks();
            if (peek() != ',')
                break;
            ++pos_;
        }
        if (operands.size() != wanted && peek() == ')')
            throw fail(name + " takes " + std::to_string(wanted) + " argument" +
                       (wanted == 1 ? "" : "s") + ", found " + std::to_string(operands.size()) +
                       ": write " + function->arguments);
        expectClosing(open);
        leave();
        return Parsed{operation(function->op, std::move(operands), begin, pos_), begin, pos_};
    }

    // The explicit language's names, written exactly as declared for variables and bound
    // formats: a variable, or a format (bound, or the catalogue's) followed by '('.
    Parsed parseExplicitName(std::size_t begin, std::size_t end) {
        const std::string written(text_.substr(begin, end - begin));
        const auto slotIn =
            [&](const std::vector<std::string>& names) -> std::optional<std::size_t> {
            const auto found = std::find(names.begin(), names.end(), written);
            if (found == names.end())
                return std::nullopt;
            return static_cast<std::size_t>(found - names.begin());
        };
        if (const auto slot = slotIn(syntax_->variables)) {
            pos_ = end;
            skipBlanks();
            if (peek() == '(')
                throw fail("'" + written + "' is a variable, not a format or a function");
            pos_ = end;
            Expression node;
            node.kind = Expression::Kind::Variable;
            node.name = written;
            node.slot = *slot;
            node.begin = begin;
            node.end = end;
            node.text = written;
            return Parsed{std::move(node), begin, end};
        }
        if (const auto slot = slotIn(syntax_->formats))
            return parseRounding(begin, end, std::nullopt, *slot);
        // A format of the catalogue only where a rounding is written: a bare "x" is an unknown
        // variable, however like a format it reads.
        std::size_t next = end;
        while (next < text_.size() && (text_[next] == ' ' || text_[next] == '\t'))
            ++next;
        if (next < text_.size() && text_[next] == '(') {
            const FormatLookup format = findFormat(written);
            if (!format)
                throw failAt(begin, format.error.rfind("unknown format", 0) == 0
                                        ? format.error
                                        : "unknown format '" + written + "': " + format.error);
            return parseRounding(begin, end, *format.spec, 0);
        }
        if (syntax_->variables.empty())
            throw failAt(begin, "unknown name '" + written +
                                    "': this expression has no variables; write a number, or a "
                                    "format's rounding such as bf16(0.1)");
        throw failAt(begin, "unknown variable '" + written + "': use " +
                                listOfNames(syntax_->variables) +
                                " (a format rounds only what follows it in parentheses)");
    }

    // format '(' sum [',' mode] ')': one rounding of the argument into the format.
    Parsed parseRounding(std::size_t begin, std::size_t end, std::optional<FormatSpec> format,
                         std::size_t slot) {
        const std::string written(text_.substr(begin, end - begin));
        pos_ = end;
        skipBlanks();
        if (peek() != '(')
            throw fail("expected '(' after the format '" + written + "': write " + written +
                       "(x) or " + written + "(x, rtz)");
        const std::size_t open = pos_;
        enter();
        ++pos_;
        skipBlanks();
        if (peek() == ')')
            throw fail(written + "(…) rounds one argument: write " + written + "(x)");
        std::vector<Expression> operands;
        operands.push_back(parseSum().node);
        skipBlanks();
        std::optional<RoundingMode> mode;
        if (peek() == ',') {
            ++pos_;
            skipBlanks();
            const std::size_t modeBegin = pos_;
            while (!atEnd() && (isLetter(peek()) || isDigit(peek()) || peek() == '-'))
                ++pos_;
            const std::string_view modeText = text_.substr(modeBegin, pos_ - modeBegin);
            if (modeText.empty())
                throw fail("expected a rounding mode after ',' (rne, rna, rtz, rup, rdn, rto "
                           "or sr), found " +
                           (atEnd() ? std::string("the end") : describeUnexpected().substr(11)));
            mode = parseRoundingMode(modeText);
            if (!mode)
                throw failAt(modeBegin, "unknown rounding mode '" + std::string(modeText) +
                                            "': use rne, rna, rtz, rup, rdn, rto or sr");
            skipBlanks();
        }
        expectClosing(open);
        leave();
        Expression node;
        node.kind = Expression::Kind::Rounding;
        node.name = written;
        node.slot = slot;
        node.format = std::move(format);
        node.mode = mode;
        node.operands = std::move(operands);
        node.begin = begin;
        node.end = pos_;
        node.text = std::string(text_.substr(begin, pos_ - begin));
        return Parsed{std::move(node), begin, pos_};
    }

    const ExplicitSyntax* syntax_ = nullptr;
    int depth_ = 0;
};

// Calls visit(node) for every node, operands before their operation, left to right, without
// recursion: a left-leaning chain such as 1+1+…+1 is as deep as it is long, deeper than a small
// thread stack would allow.
template <typename Visit> void postOrder(const Expression& root, Visit&& visit) {
    struct Frame {
        const Expression* node;
        std::size_t next; // the next operand to descend into
    };
    std::vector<Frame> stack{{&root, 0}};
    while (!stack.empty()) {
        Frame& top = stack.back();
        if (top.next < top.node->operands.size()) {
            const Expression* operand = &top.node->operands[top.next++];
            stack.push_back({operand, 0}); // `top` is not used past this point
            continue;
        }
        visit(*top.node);
        stack.pop_back();
    }
}

// The last `count` entries of a stack of operand values, taken off it.
template <typename T> std::vector<T> popOperands(std::vector<T>& values, std::size_t count) {
    std::vector<T> operands(std::make_move_iterator(values.end() - static_cast<long>(count)),
                            std::make_move_iterator(values.end()));
    values.resize(values.size() - count);
    return operands;
}

// Exact arithmetic costs about bits(a)·bits(b) for a product, the span of both for an aligned
// sum, and the square of the sum of the sizes for the gcd that keeps a fraction reduced. Where
// `work` is given, it is charged before each operation and the budget enforced.
void chargeWork(const Expression& node, const std::vector<ExactValue>& operands, double* work) {
    if (work == nullptr)
        return;
    double total = 0;
    double product = 1;
    bool dyadic = true;
    std::int64_t lowest = 0;
    std::int64_t highest = 0;
    bool first = true;
    for (const ExactValue& x : operands) {
        if (!x.isFinite() || x.isZero())
            continue;
        const double bits = static_cast<double>(x.storageBits()) + 64.0;
        total += bits;
        product *= bits;
        dyadic = dyadic && x.isDyadic();
        lowest = first ? x.exponent2() : std::min(lowest, x.exponent2());
        highest = first ? x.exponent2() : std::max(highest, x.exponent2());
        first = false;
    }
    const double span = static_cast<double>(highest - lowest);
    double cost = product + (total + span) * 64.0;
    if (!dyadic)
        cost += (total + span) * (total + span);
    if (node.op == Operation::Sqrt)
        cost += 4.0 * (total + kExactRootBits) * (total + kExactRootBits);
    *work += cost;
    if (*work > kWorkBudget)
        throw Failure{ParseError{node.begin, "expression too costly to compute exactly "
                                             "(simplify it)"}};
}

// The format an exact operation is given where none matters; made once, since an update rule
// is evaluated at every step.
const FormatSpec& anyFormat() {
    static const FormatSpec spec;
    return spec;
}

ExactEvaluation evaluateOperation(const Expression& node, std::vector<ExactEvaluation> in,
                                  double* work) {
    std::vector<ExactValue> operands;
    bool approximate = false;
    for (ExactEvaluation& e : in) {
        approximate = approximate || e.approximate;
        operands.push_back(std::move(e.value));
    }
    chargeWork(node, operands, work);
    const ExactValue& x = operands[0];
    if (node.op == Operation::Sqrt && x.isFinite() && !x.isZero() && !x.isNegative()) {
        bool exact = true;
        ExactValue root = squareRootApproximation(x, kExactRootBits, exact);
        return ExactEvaluation{std::move(root), approximate || !exact};
    }
    // Every other operation (and sqrt of 0, ∞, NaN or a negative) is exact; the format only
    // matters to the root's stand-in, so any format will do.
    const ExactResult r = exactOperation(node.op, operands, anyFormat());
    return ExactEvaluation{r.value, approximate};
}

// The exact value, a written rounding taken as exact (an explicit expression's value without
// its roundings).
ExactEvaluation evaluate(const Expression& expression, double* work) {
    std::vector<ExactEvaluation> values;
    postOrder(expression, [&](const Expression& node) {
        switch (node.kind) {
        case Expression::Kind::Literal:
            values.push_back(ExactEvaluation{node.value, !node.exact});
            return;
        case Expression::Kind::Variable:
            throw std::invalid_argument("evaluateExactly: the variable '" + node.name +
                                        "' has no value");
        case Expression::Kind::Rounding:
            return; // its argument's value stays on the stack
        case Expression::Kind::Operation:
            break;
        }
        std::vector<ExactEvaluation> operands = popOperands(values, node.operands.size());
        values.push_back(evaluateOperation(node, std::move(operands), work));
    });
    return std::move(values.back());
}

// What an explicit evaluation carries for each node: the value, whether it is approximate,
// and whether rounding it settles that: a square root's approximation of an exact operand is
// truncated with a sticky bit below far more bits than any format keeps, so it rounds as the
// root does; so does a literal's stand-in where the format accepts it (acceptsStandInInput).
struct ExplicitValue {
    ExactValue value;
    bool approximate = false;
    bool rootOfExact = false;
    bool standIn = false;
};

// Rounding costs a division by the value's denominator and a shift: its size squared.
void chargeRounding(const Expression& node, const ExactValue& argument, double& work,
                    double budget) {
    work += argument.isFinite() ? valueWork(argument) : 0;
    if (work > budget)
        throw Failure{ParseError{node.begin, "expression too costly to compute exactly "
                                             "(simplify it)"}};
}

ExplicitEvaluation explicitEvaluation(const Expression& expression,
                                      const ExplicitBindings& bindings,
                                      const ExplicitOptions& options) {
    ExplicitEvaluation out;
    std::vector<ExplicitValue> values;
    values.reserve(8);
    std::size_t rounding = 0;
    try {
        postOrder(expression, [&](const Expression& node) {
            switch (node.kind) {
            case Expression::Kind::Literal:
                values.push_back(ExplicitValue{node.value, !node.exact, false, !node.exact});
                return;
            case Expression::Kind::Variable:
                if (node.slot >= bindings.variables.size())
                    throw std::invalid_argument("evaluateExplicitly: the variable '" + node.name +
                                                "' has no value");
                values.push_back(ExplicitValue{bindings.variables[node.slot]});
                return;
            case Expression::Kind::Rounding:
                break;
            case Expression::Kind::Operation: {
                std::vector<ExplicitValue> in = popOperands(values, node.operands.size());
                std::vector<ExactValue> operands;
                bool approximate = false;
                for (ExplicitValue& v : in) {
                    approximate = approximate || v.approximate;
                    operands.push_back(std::move(v.value));
                }
                double* work = &out.work;
                chargeWork(node, operands, work);
                if (out.work > options.workBudget)
                    throw Failure{ParseError{node.begin, "expression too costly to compute "
                                                         "exactly (simplify it)"}};
                const ExactValue& x = operands[0];
                if (node.op == Operation::Sqrt && x.isFinite() && !x.isZero() && !x.isNegative()) {
                    bool exact = true;
                    ExactValue root = squareRootApproximation(x, kExactRootBits, exact);
                    values.push_back(
                        ExplicitValue{std::move(root), approximate || !exact, !approximate});
                    return;
                }
                ExactResult r = exactOperation(node.op, operands, anyFormat());
                out.flags.invalid = out.flags.invalid || r.invalid;
                out.flags.divideByZero = out.flags.divideByZero || r.divideByZero;
                values.push_back(ExplicitValue{std::move(r.value), approximate});
                return;
            }
            }
            ExplicitValue argument = std::move(values.back());
            values.pop_back();
            if (!node.format && node.slot >= bindings.formats.size())
                throw std::invalid_argument("evaluateExplicitly: the format '" + node.name +
                                            "' is not bound");
            const FormatSpec& spec = node.format ? *node.format : bindings.formats[node.slot];
            chargeRounding(node, argument.value, out.work, options.workBudget);
            RoundingOptions o = options.rounding;
            if (node.mode)
                o.mode = *node.mode;
            o.randomBits =
                options.randomBits ? options.randomBits(rounding) : stochasticBits(0, rounding);
            ++rounding;
            Conversion rounded = roundToFormat(argument.value, spec, o);
            ExactValue value = decodeCode(spec, rounded.code).value;
            out.flags |= fromConversionFlags(rounded.flags);
            const bool settled = argument.rootOfExact ||
                                 (argument.standIn && acceptsStandInInput(spec, argument.value));
            const bool approximate = argument.approximate && !settled;
            if (!options.trace) {
                values.push_back(ExplicitValue{std::move(value), approximate});
                return;
            }
            ExplicitRounding step;
            step.text = node.text;
            step.spec = spec;
            step.mode = o.mode;
            step.argument = std::move(argument.value);
            step.argumentApproximate = argument.approximate;
            step.rounded = std::move(rounded);
            step.value = value;
            out.roundings.push_back(std::move(step));
            values.push_back(ExplicitValue{std::move(value), approximate});
        });
    } catch (const Failure& failure) {
        out.error = failure.error;
        out.roundings.clear();
        return out;
    }
    out.value = std::move(values.back().value);
    out.approximate = values.back().approximate;
    return out;
}

ExpressionParse parse(std::string_view text, const ExplicitSyntax* syntax) {
    double work = 0;
    try {
        ExpressionParser parser(text, syntax);
        Expression expression = parser.parseAll();
        // Evaluate once under the work budget, so that evaluateExactly (which has none) is
        // known to finish promptly. An explicit expression without names is evaluated with its
        // roundings too, as evaluateExplicitly will; with names, each evaluation is charged.
        const bool bound =
            syntax != nullptr && (!syntax->variables.empty() || !syntax->formats.empty());
        if (!bound) {
            evaluate(expression, &work);
            if (syntax != nullptr) {
                ExplicitOptions options;
                options.trace = false;
                const ExplicitEvaluation once = explicitEvaluation(expression, {}, options);
                work += once.work;
                if (once.error)
                    throw Failure{*once.error};
            }
        }
        return ExpressionParse{std::move(expression), {}, work};
    } catch (const Failure& failure) {
        return ExpressionParse{std::nullopt, failure.error, work};
    }
}

} // namespace

ExpressionParse parseExpression(std::string_view text) {
    return parse(text, nullptr);
}

ExpressionParse parseExplicitExpression(std::string_view text, const ExplicitSyntax& syntax) {
    return parse(text, &syntax);
}

ExactEvaluation evaluateExactly(const Expression& expression) {
    return evaluate(expression, nullptr);
}

bool isExplicit(const Expression& expression) {
    bool found = false;
    postOrder(expression, [&](const Expression& node) {
        found = found || node.kind == Expression::Kind::Rounding ||
                node.kind == Expression::Kind::Variable;
    });
    return found;
}

ExplicitEvaluation evaluateExplicitly(const Expression& expression,
                                      const ExplicitBindings& bindings,
                                      const ExplicitOptions& options) {
    return explicitEvaluation(expression, bindings, options);
}

std::string withFormatsBound(const Expression& expression, std::string_view text,
                             const ExplicitBindings& bindings) {
    // The bound formats' names, by position, replaced from the last so that earlier
    // positions stay where they are.
    std::vector<std::pair<std::size_t, const Expression*>> bound;
    postOrder(expression, [&](const Expression& node) {
        if (node.kind == Expression::Kind::Rounding && !node.format &&
            node.slot < bindings.formats.size())
            bound.emplace_back(node.begin, &node);
    });
    std::sort(bound.begin(), bound.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
    std::string result(text);
    for (const auto& [begin, node] : bound)
        if (begin + node->name.size() <= result.size())
            result.replace(begin, node->name.size(), bindings.formats[node->slot].id);
    return result;
}

namespace {

struct Evaluator {
    const FormatSpec& spec;
    RoundingOptions options;
    std::uint64_t seed;
    FormatEvaluation& out;
    std::uint64_t rounding = 0; // index of the next rounding, for stochastic rounding

    RoundingOptions nextOptions() {
        RoundingOptions o = options;
        o.randomBits = stochasticBits(seed, rounding++);
        return o;
    }

    struct InFormat {
        ExactValue value;
        Code code = 0;
    };

    InFormat roundLiteral(const Expression& node) {
        LiteralRounding literal;
        literal.text = node.text;
        literal.exact = node.value;
        literal.rounded = roundToFormat(node.value, spec, nextOptions());
        literal.value = decodeCode(spec, literal.rounded.code).value;
        out.flags |= fromConversionFlags(literal.rounded.flags);
        InFormat result{literal.value, literal.rounded.code};
        out.literals.push_back(std::move(literal));
        return result;
    }

    InFormat perform(const Expression& node, std::vector<InFormat> operands) {
        ExpressionStep step;
        step.op = node.op;
        step.text = node.text;
        for (InFormat& o : operands) {
            step.operands.push_back(std::move(o.value));
            step.operandCodes.push_back(o.code);
        }
        step.result = applyOperation(node.op, step.operands, spec, nextOptions());
        const ExactValue& exact = step.result.exact.value;
        const auto ulp = unitInLastPlace(spec, step.result.rounded.code);
        if (ulp && exact.isFinite() && step.result.value.isFinite())
            step.ulpError = (step.result.value - exact) / *ulp;
        out.flags |= step.result.flags;
        InFormat result{step.result.value, step.result.rounded.code};
        out.steps.push_back(std::move(step));
        return result;
    }

    // Literals and operations in evaluation order: operands first, left to right.
    InFormat run(const Expression& root) {
        std::vector<InFormat> values;
        postOrder(root, [&](const Expression& node) {
            if (node.isLiteral()) {
                values.push_back(roundLiteral(node));
                return;
            }
            std::vector<InFormat> operands = popOperands(values, node.operands.size());
            values.push_back(perform(node, std::move(operands)));
        });
        return std::move(values.back());
    }
};

bool hasStandIn(const Expression& expression, const FormatSpec& spec) {
    bool found = false;
    postOrder(expression, [&](const Expression& node) {
        found =
            found || (node.isLiteral() && !node.exact && !acceptsStandInInput(spec, node.value));
    });
    return found;
}

ExactValue errorAgainst(const ExactValue& value, const ExactValue& exact) {
    if (value.isNaN() || exact.isNaN())
        return ExactValue::nan();
    if (value.isInfinity() && exact.isInfinity())
        return value.isNegative() == exact.isNegative() ? ExactValue::zero() : value;
    return value - exact;
}

} // namespace

FormatEvaluation evaluateInFormat(const Expression& expression, const FormatSpec& spec,
                                  const RoundingOptions& options, std::uint64_t seed) {
    return evaluateInFormat(expression, spec, options, seed, evaluateExactly(expression));
}

FormatEvaluation evaluateInFormat(const Expression& expression, const FormatSpec& spec,
                                  const RoundingOptions& options, std::uint64_t seed,
                                  const ExactEvaluation& exact) {
    FormatEvaluation out;
    out.spec = spec;
    if (isExplicit(expression)) {
        out.unsupported = "the expression writes its own roundings (bf16(…)): it is computed as "
                          "written, not in a format";
        return out;
    }
    out.unsupported = arithmeticUnsupported(spec);
    if (!out.unsupported && hasStandIn(expression, spec))
        out.unsupported = spec.id + " cannot take a literal longer than 40000 digits or beyond "
                                    "10^±20000 exactly (a scaled format)";
    if (out.unsupported)
        return out;
    Evaluator evaluator{spec, options, seed, out};
    const Evaluator::InFormat result = evaluator.run(expression);
    out.code = result.code;
    out.value = result.value;
    out.error = errorAgainst(out.value, exact.value);
    out.errorApproximate = exact.approximate;
    return out;
}

} // namespace fpx
