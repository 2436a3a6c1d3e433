// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/operation_steps.h"

#include "fpx/exact/code.h"
#include "fpx/exact/code_details.h"
#include "fpx/exact/decimal_text.h"
#include "fpx/exact/format_limits.h"
#include "fpx/exact/stochastic_decision.h"

#include <algorithm>

namespace fpx {

namespace {

std::string exponentText(std::int64_t e) {
    return "2^" + std::to_string(e);
}

std::string signText(const ExactValue& v) {
    return v.isNegative() ? "-" : "+";
}

// BigInt → binary digits, most significant first ("0" for zero).
std::string binaryOf(const BigInt& n) {
    if (n == 0)
        return "0";
    std::string digits;
    const auto top = boost::multiprecision::msb(n);
    for (auto bit = static_cast<long long>(top); bit >= 0; --bit)
        digits += boost::multiprecision::bit_test(n, static_cast<unsigned>(bit)) ? '1' : '0';
    return digits;
}

// |v| / 2^lead written in binary: the integer part, '.', `kept` digits, then '|' and `extra`
// more digits, then "…" when any bit beyond them is non-zero. Straight from the exact value:
//   N = ⌊|v| · 2^(kept + extra − lead)⌋, its last kept + extra binary digits are the fraction.
std::string binaryDigits(const ExactValue& v, std::int64_t lead, int kept, int extra,
                         bool markMore = true) {
    const Truncation n = truncateAt(v, lead - kept - extra);
    const bool more = n.inexact();
    std::string digits = binaryOf(n.kept);
    const auto fraction = static_cast<std::size_t>(kept + extra);
    if (digits.size() < fraction + 1)
        digits.insert(0, fraction + 1 - digits.size(), '0');
    const std::size_t integerDigits = digits.size() - fraction;
    std::string text = digits.substr(0, integerDigits);
    if (kept > 0) // a format without fraction bits writes no point
        text += "." + digits.substr(integerDigits, static_cast<std::size_t>(kept));
    if (extra > 0)
        text += "|" + digits.substr(integerDigits + static_cast<std::size_t>(kept));
    if (more && markMore)
        text += "…";
    return text;
}

// The binade exponent a value is written with: its own, or emin below the normal range.
std::int64_t writtenExponent(const FormatSpec& spec, const ExactValue& v) {
    if (v.isZero())
        return spec.minExponent();
    return std::max<std::int64_t>(v.floorLog2(), spec.minExponent());
}

// "+1.0000000000 × 2^0", "+0.0000000011 × 2^-14", "+∞", "NaN".
std::string floatText(const FormatSpec& spec, const ExactValue& v) {
    if (v.isNaN())
        return "NaN";
    if (v.isInfinity())
        return v.isNegative() ? "-∞" : "+∞";
    const std::int64_t e = writtenExponent(spec, v);
    return signText(v) + binaryDigits(v, e, spec.fractionBits, 0) + " × " + exponentText(e);
}

std::string decimal(const ExactValue& v) {
    const DecimalText d = toDecimal(v, 24);
    return d.exact ? d.text : d.text + "…";
}

const char* operandName(std::size_t i, std::size_t count) {
    static const char* const names[] = {"a", "b", "c"};
    return count == 1 ? "x" : names[i];
}

// Bits past the last kept one, from the exact value: t = |x| / 2^quantum = kept + fraction,
// G = the fraction's first bit, R its second, S whether anything below them is non-zero.
struct RoundingBits {
    BigInt kept;
    bool guard = false;
    bool round = false;
    bool sticky = false;
    ExactValue fraction; // of one unit in the last place, in [0, 1)
    bool inexact() const { return guard || round || sticky; }
};

RoundingBits roundingBits(const ExactValue& x, std::int64_t quantum) {
    RoundingBits r;
    const Truncation t = truncateAt(x, quantum);
    r.kept = t.kept;
    const BigInt& rest = t.remainder; // fraction = rest / denominator
    const BigInt& denominator = t.divisor;
    r.fraction = ExactValue::fraction(false, rest, denominator);
    const BigInt quarters = (rest * 4) / denominator; // the two bits G R
    r.guard = quarters >= 2;
    r.round = (quarters & 1) != 0;
    r.sticky = quarters * denominator != rest * 4;
    return r;
}

// The rounding decision and its reason; `up` says whether the magnitude goes up by one ulp.
std::string decision(const RoundingBits& b, bool negative, const RoundingOptions& options,
                     bool wentUp, bool tiesAway, bool& up) {
    const RoundingMode mode = options.mode;
    const std::string grs = "G=" + std::to_string(b.guard) + " R=" + std::to_string(b.round) +
                            " S=" + std::to_string(b.sticky);
    if (!b.inexact()) {
        up = false;
        return grs + ": the exact result fits, nothing to round";
    }
    const bool lastBitOdd = (b.kept & 1) != 0;
    switch (mode) {
    case RoundingMode::NearestEven:
        if (!b.guard) {
            up = false;
            return "G=0 → below half an ulp: round down (truncate)";
        }
        if (b.round || b.sticky) {
            up = true;
            return "G=1, R|S=1 → above half an ulp: round up";
        }
        if (tiesAway) {
            up = true;
            return "G=1, R=S=0: a tie; with no fraction bits there is no even neighbour, so "
                   "ties round up (away from zero)";
        }
        up = lastBitOdd;
        return lastBitOdd ? "G=1, R=S=0: a tie → to even: the last kept bit is 1, round up"
                          : "G=1, R=S=0: a tie → to even: the last kept bit is 0, stays";
    case RoundingMode::NearestAway:
        up = b.guard;
        return b.guard ? grs + ": half an ulp or more → round up (ties away from zero)"
                       : "G=0 → below half an ulp: round down (truncate)";
    case RoundingMode::TowardZero:
        up = false;
        return grs + ": toward zero → truncate";
    case RoundingMode::TowardPositive:
        up = !negative;
        return grs + (negative ? ": toward +∞ on a negative value → truncate"
                               : ": toward +∞ on a positive value, inexact → round up");
    case RoundingMode::TowardNegative:
        up = negative;
        return grs + (negative ? ": toward −∞ on a negative value, inexact → round up"
                               : ": toward −∞ on a positive value → truncate");
    case RoundingMode::ToOdd:
        up = !lastBitOdd;
        return grs + ": to odd → truncate and set the last bit to 1" +
               (lastBitOdd ? " (already 1)" : "");
    case RoundingMode::Stochastic:
        up = wentUp;
        return grs + ": stochastic → up with probability " +
               toSignificantDigits(stochasticProbabilityAway(b.fraction, options.stochastic), 6) +
               (options.stochastic.count == 0
                    ? std::string(" (the discarded fraction of an ulp); ")
                    : " (the discarded fraction " + toSignificantDigits(b.fraction, 6) +
                          " of an ulp, seen through " + std::to_string(options.stochastic.count) +
                          " random bits); ") +
               (wentUp ? "this draw went up" : "this draw went down");
    }
    up = false;
    return grs;
}

std::string flagsText(const ArithmeticFlags& flags) {
    const std::string text = arithmeticFlagsToString(flags);
    return text.empty() ? "exact, no flags" : "flags: " + text;
}

class FloatExplainer {
  public:
    FloatExplainer(const FormatSpec& spec, const ExpressionStep& step,
                   const RoundingOptions& options)
        : spec_(spec), step_(step), options_(options) {}

    std::vector<std::string> lines() {
        const FormatLimits limits = deriveLimits(spec_);
        say(step_.text + " in " + spec_.id + ": p = " + std::to_string(spec_.precision()) +
            " significant bits, normal exponents " + std::to_string(spec_.minExponent()) + "…" +
            std::to_string(limits.maxExponent) + ", " +
            std::string(roundingModeName(options_.mode)));
        for (std::size_t i = 0; i < step_.operands.size(); ++i)
            say("  " + std::string(operandName(i, step_.operands.size())) + " = " +
                floatText(spec_, step_.operands[i]) + "  (" + hex(step_.operandCodes[i]) + ")");
        if (explainWithoutRounding())
            return finish();
        explainExactResult();
        explainRounding();
        return finish();
    }

  private:
    void say(std::string line) { lines_.push_back(std::move(line)); }
    std::string hex(Code code) const { return codeToHex(code, spec_.totalBits()); }
    const ExactValue& operand(std::size_t i) const { return step_.operands[i]; }
    const ExactValue& exact() const { return step_.result.exact.value; }

    // Operations that never round, and results that are special: one line says why.
    bool explainWithoutRounding() {
        const ExactResult& r = step_.result.exact;
        switch (step_.op) {
        case Operation::Negate:
            say("−x flips the sign bit: exact, nothing to round");
            return true;
        case Operation::Abs:
            say("abs clears the sign bit: exact, nothing to round");
            return true;
        case Operation::Min:
        case Operation::Max:
            say(std::string(step_.op == Operation::Min ? "min" : "max") +
                " picks one operand (−0 < +0; a NaN operand is ignored): exact, nothing to "
                "round");
            return true;
        default:
            break;
        }
        if (r.invalid) {
            say("invalid operation (∞ − ∞, 0 × ∞, 0 / 0, ∞ / ∞ or √ of a negative number): "
                "no real result → NaN, flag invalid");
            return true;
        }
        if (r.divideByZero) {
            say("a non-zero number divided by zero → ±∞ exactly, flag divide-by-zero");
            return true;
        }
        const bool anyNaN = std::any_of(step_.operands.begin(), step_.operands.end(),
                                        [](const ExactValue& v) { return v.isNaN(); });
        if (anyNaN) {
            say("a NaN operand gives NaN (quietly: no flag)");
            return true;
        }
        if (!exact().isFinite()) {
            say("an infinite operand gives ±∞ exactly");
            return true;
        }
        if (exact().isZero()) {
            if (step_.op == Operation::Multiply || step_.op == Operation::Divide)
                say("a zero operand: the exact result is zero, its sign the product of the "
                    "signs");
            else if (step_.op == Operation::Sqrt)
                say("√±0 = ±0 exactly");
            else
                say("the exact result is zero: its sign by IEEE 754 (x − x is +0, −0 only when "
                    "rounding toward −∞; −0 + −0 is −0)");
            return true;
        }
        return false;
    }

    // The exact result in binary, written at the exponent `lead`, with `extra` digits past the
    // format's fraction bits.
    std::string written(const ExactValue& v, std::int64_t lead, int extra) const {
        return signText(v) + binaryDigits(v, lead, spec_.fractionBits, extra) + " × " +
               exponentText(lead);
    }

    // Two addends aligned to the larger exponent, and their exact sum.
    // `productFirst`: x is fma's exact product, written at its own exponent (it need not be a
    // value of the format, and may lie far below its range).
    void explainAlignedSum(const ExactValue& x, const std::string& xName, const ExactValue& y,
                           const std::string& yName, bool productFirst = false) {
        if (x.isZero() || y.isZero()) {
            say("adding zero: the exact sum is the other addend");
            lead_ = writtenExponent(spec_, exact());
            return;
        }
        const std::int64_t ex = productFirst ? x.floorLog2() : writtenExponent(spec_, x);
        const std::int64_t ey = writtenExponent(spec_, y);
        lead_ = std::max(ex, ey);
        const std::int64_t distance = std::max(ex, ey) - std::min(ex, ey);
        const int extra = static_cast<int>(std::clamp<std::int64_t>(distance, 3, 24));
        if (distance == 0)
            say("align: both exponents are " + exponentText(lead_) + ", nothing to shift");
        else
            say("align: shift " + (ex < ey ? xName : yName) + "'s significand right " +
                std::to_string(distance) + (distance == 1 ? " place" : " places") + ", to " +
                exponentText(lead_) + " (bits past '|' lie beyond the format's precision):");
        say("    " + written(x, lead_, extra) + "   " + xName);
        say("    " + written(y, lead_, extra) + "   " + yName);
        say("  exact sum = " + written(exact(), lead_, extra));
    }

    void explainExactResult() {
        switch (step_.op) {
        case Operation::Add:
            explainAlignedSum(operand(0), "a", operand(1), "b");
            break;
        case Operation::Subtract:
            say("a − b = a + (−b)");
            explainAlignedSum(operand(0), "a", operand(1).negated(), "−b");
            break;
        case Operation::Multiply: {
            lead_ = writtenExponent(spec_, operand(0)) + writtenExponent(spec_, operand(1));
            say("multiply the significands (exact: at most 2p = " +
                std::to_string(2 * spec_.precision()) + " bits) and add the exponents:");
            say("  exact product = " + written(exact(), lead_, spec_.precision() + 1));
            break;
        }
        case Operation::Divide: {
            lead_ = writtenExponent(spec_, operand(0)) - writtenExponent(spec_, operand(1));
            say("divide the significands and subtract the exponents (a quotient's bits may "
                "never end: the sticky bit keeps whether any is non-zero):");
            say("  exact quotient = " + written(exact(), lead_, 8));
            break;
        }
        case Operation::Fma: {
            const ExactValue product = operand(0) * operand(1);
            say("a × b exactly, not rounded (what \"fused\" means):");
            if (product.isZero())
                say("  a × b = " + std::string(product.isNegative() ? "-0" : "+0"));
            else
                say("  a × b = " + written(product, product.floorLog2(), spec_.precision() + 1));
            explainAlignedSum(product, "a×b", operand(2), "c", true);
            break;
        }
        case Operation::Sqrt: {
            lead_ = exact().floorLog2();
            say("√x: halve the exponent (made even first); √ of the significand has bits that "
                "never end unless it is a perfect square:");
            say("  exact root = " + written(exact(), lead_, 8) +
                (step_.result.exact.approximate ? "  (every bit shown is the true root's)" : ""));
            break;
        }
        default:
            lead_ = writtenExponent(spec_, exact());
            break;
        }
    }

    void explainRounding() {
        const ExactValue& x = exact();
        const std::int64_t top = x.floorLog2();
        const std::int64_t emin = spec_.minExponent();
        const std::int64_t binade = std::max(top, emin);
        if (top > lead_)
            say("normalize: shift right " + std::to_string(top - lead_) + " → " +
                written(x, top, 3));
        else if (top < lead_ && binade < lead_)
            say("normalize: shift left " + std::to_string(lead_ - binade) +
                (cancelling() ? " (leading bits cancelled)" : "") + " → " + written(x, binade, 3));
        if (top < emin)
            say("below the normal range: the exponent stays " + exponentText(emin) +
                " and the significand keeps " + std::to_string(spec_.fractionBits) +
                " bits after the point (a subnormal)");
        const std::int64_t quantum = binade - spec_.fractionBits;
        const RoundingBits bits = roundingBits(x, quantum);
        say("keep " + std::to_string(spec_.fractionBits) + " bits after the point: " + signText(x) +
            binaryDigits(x, binade, spec_.fractionBits, 0, false) + " × " + exponentText(binade) +
            ", then G=" + std::to_string(bits.guard) + " R=" + std::to_string(bits.round) + " S=" +
            std::to_string(bits.sticky) + " (guard, round, sticky = OR of every bit below)");
        const ExactValue truncated = ExactValue::dyadic(false, bits.kept, quantum);
        const bool wentUp =
            step_.result.value.isFinite() && compare(step_.result.value.abs(), truncated) > 0;
        bool up = false;
        // Without fraction bits "even" means nothing: the conversion rounds ties away.
        const bool tiesAway = spec_.fractionBits == 0;
        say(decision(bits, x.isNegative(), options_, wentUp, tiesAway, up));
        if (up) {
            const BigInt next = bits.kept + 1;
            if (top >= emin && next == (BigInt(1) << (spec_.fractionBits + 1)))
                say("the increment carries: 1.11…1 + 0.00…1 = 10.00…0 → 1.00…0 × " +
                    exponentText(binade + 1));
            else if (top < emin && next == (BigInt(1) << spec_.fractionBits))
                say("the increment reaches the smallest normal number, 1.00…0 × " +
                    exponentText(emin));
        }
        const ArithmeticFlags& flags = step_.result.flags;
        if (flags.overflow)
            say("overflow: rounded with an unbounded exponent, the result exceeds the largest "
                "finite value " +
                decimal(deriveLimits(spec_).max) + " → " + floatText(spec_, step_.result.value) +
                " (overflow policy " + std::string(overflowPolicyId(options_.overflow)) + ")");
        if (flags.underflow)
            say("underflow: tiny (below " + exponentText(emin) +
                " even rounded to full precision) and inexact");
    }

    bool cancelling() const {
        return step_.op == Operation::Add || step_.op == Operation::Subtract ||
               step_.op == Operation::Fma;
    }

    std::vector<std::string> finish() {
        const OperationResult& r = step_.result;
        say("result = " + floatText(spec_, r.value) + " = " + decimal(r.value) + "  (" +
            hex(r.rounded.code) + "), " + flagsText(r.flags));
        if (step_.ulpError && !step_.ulpError->isZero())
            say("error = result − exact = " + toSignificantDigits(r.value - exact(), 6) + " = " +
                toSignificantDigits(*step_.ulpError, 6) + " ulp");
        return std::move(lines_);
    }

    const FormatSpec& spec_;
    const ExpressionStep& step_;
    const RoundingOptions& options_;
    std::int64_t lead_ = 0; // the exponent the exact result was written at
    std::vector<std::string> lines_;
};

// "1/127", "0.5": a scale as a fraction when its decimal does not end.
std::string fractionText(const ExactValue& v) {
    if (v.hasTerminatingDecimal())
        return toDecimal(v).text;
    BigInt numerator = v.numerator();
    BigInt denominator = v.denominator();
    if (v.exponent2() >= 0)
        numerator <<= static_cast<unsigned>(v.exponent2());
    else
        denominator <<= static_cast<unsigned>(-v.exponent2());
    return (v.isNegative() ? "-" : "") + numerator.str() + "/" + denominator.str();
}

// Integer formats: values are levels times the scale; the exact result, in levels, is rounded
// to a whole level and clamped to the range.
std::vector<std::string> explainLevels(const FormatSpec& spec, const ExpressionStep& step,
                                       const RoundingOptions& options) {
    std::vector<std::string> lines;
    const std::string scale = fractionText(spec.scale);
    lines.push_back(step.text + " in " + spec.id + ": values are levels × scale " + scale + ", " +
                    std::string(roundingModeName(options.mode)));
    for (std::size_t i = 0; i < step.operands.size(); ++i) {
        const DecodedCode d = decodeCode(spec, step.operandCodes[i]);
        lines.push_back("  " + std::string(operandName(i, step.operands.size())) + " = level " +
                        std::to_string(d.level) + " × " + scale + " = " + decimal(d.value) + "  (" +
                        codeToHex(d.code, spec.totalBits()) + ")");
    }
    const ExactResult& exact = step.result.exact;
    if (exact.value.isNaN()) {
        lines.push_back(std::string(exact.invalid ? "invalid operation" : "NaN") +
                        ": no level → level 0, flag invalid");
    } else if (exact.value.isInfinity()) {
        lines.push_back("the exact result is ±∞" +
                        std::string(exact.divideByZero ? " (division by zero)" : "") +
                        ": clamped to the end of the range, flag overflow");
    } else {
        const ExactValue levels = exact.value / spec.scale;
        lines.push_back("exact result = " + decimal(exact.value) + " = " +
                        toSignificantDigits(levels, 12) + " levels (result / scale)");
        const RoundingBits bits = roundingBits(levels, 0);
        if (bits.inexact())
            lines.push_back(
                "between levels " + std::string(levels.isNegative() ? "-" : "") + bits.kept.str() +
                " and " + std::string(levels.isNegative() ? "-" : "") +
                BigInt(bits.kept + 1).str() + ": " + toSignificantDigits(bits.fraction, 6) +
                " of the way; " + std::string(roundingModeName(options.mode)) + " picks one");
        if (step.result.flags.overflow)
            lines.push_back("beyond the range of levels: clamped, flag overflow");
    }
    const DecodedCode result = decodeCode(spec, step.result.rounded.code);
    lines.push_back("result = level " + std::to_string(result.level) + " = " +
                    decimal(result.value) + "  (" + codeToHex(result.code, spec.totalBits()) +
                    "), " + flagsText(step.result.flags));
    return lines;
}

} // namespace

std::vector<std::string> explainOperation(const FormatSpec& spec, const ExpressionStep& step,
                                          const RoundingOptions& options) {
    if (const auto why = arithmeticUnsupported(spec))
        return {*why};
    if (spec.kind == FormatKind::Integer)
        return explainLevels(spec, step, options);
    return FloatExplainer(spec, step, options).lines();
}

} // namespace fpx
