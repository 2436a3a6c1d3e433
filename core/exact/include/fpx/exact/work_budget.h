// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/exact_value.h"
#include "fpx/exact/value_parser.h"

#include <string>

namespace fpx {

// Exact arithmetic is charged in bit products: a product of an a-bit and a b-bit integer
// costs about a·b, a gcd of n-bit integers about n² (docs/behaviour.md, "Bounded work").

// One value or expression: about half a second of big-integer work on a small machine.
inline constexpr double kValueWork = 1.5e11;
// Work below this is not charged to a stream: a value of up to about ten thousand bits. A
// stream of ordinary values then runs in time proportional to its length, however long.
inline constexpr double kFreeValueWork = 1e8;
// Every value of one stream together (a file, standard input, one command's arguments):
// as much as forty values at the limit of kValueWork, well under a minute.
inline constexpr double kStreamWork = 40 * kValueWork;

// The work of rounding and printing a value: its size squared (a division by its
// denominator, its decimal digits).
inline double valueWork(const ExactValue& value) {
    const double bits = static_cast<double>(value.storageBits()) + 64.0;
    return bits * bits;
}

// The work shared by the values of one stream. Each value is bounded by kValueWork; this
// bounds their sum, so that a stream of short but costly lines (3^66500/7^40000 on every line)
// is refused after a while instead of running for hours.
class StreamBudget {
  public:
    explicit StreamBudget(double total = kStreamWork) : left_(total) {}
    // Charges one value's work (beyond kFreeValueWork); false once the budget is spent.
    bool charge(double work) {
        if (work > kFreeValueWork)
            left_ -= work - kFreeValueWork;
        return left_ >= 0;
    }
    // Charges a parsed value: the parse's work, and, where it was read, rounding and printing it.
    bool charge(const ParsedValue& parsed) {
        return charge(parsed.work + (parsed ? valueWork(*parsed.value) : 0));
    }
    bool spent() const { return left_ < 0; }
    // Why a stream was stopped, said once for every reader that charges a budget.
    static std::string spentMessage() {
        return "the work budget for exact arithmetic of this input is spent (too many costly "
               "values such as huge powers or fractions)";
    }

  private:
    double left_;
};

} // namespace fpx
