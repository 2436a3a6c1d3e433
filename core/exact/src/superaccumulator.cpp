// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/superaccumulator.h"

namespace fpx {

void Superaccumulator::addSpecial(bool isNaN, bool negative) {
    if (isNaN)
        nan_ = true;
    else if (negative)
        negativeInfinity_ = true;
    else
        positiveInfinity_ = true;
}

// Leaves every limb but the last in [0, 2^32), the signed remainder in the last one.
void Superaccumulator::propagateCarries() {
    for (std::size_t i = 0; i + 1 < limbs_.size(); ++i) {
        const std::int64_t carry = limbs_[i] >> 32; // floor division by 2^32
        limbs_[i] -= carry * (std::int64_t(1) << 32);
        limbs_[i + 1] += carry;
    }
    pending_ = 0;
}

ExactValue Superaccumulator::value() const {
    if (nan_ || (positiveInfinity_ && negativeInfinity_))
        return ExactValue::nan();
    if (positiveInfinity_ || negativeInfinity_)
        return ExactValue::infinity(negativeInfinity_);
    Superaccumulator copy = *this;
    copy.propagateCarries();
    BigInt total = 0;
    for (std::size_t i = copy.limbs_.size(); i-- > 0;) {
        total <<= 32;
        total += copy.limbs_[i];
    }
    const bool negative = total < 0;
    if (negative)
        total = -total;
    return ExactValue::dyadic(negative, std::move(total), -1074);
}

} // namespace fpx
