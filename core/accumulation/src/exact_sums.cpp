// SPDX-License-Identifier: GPL-3.0-or-later
// The exact reference sum of the terms (and its prefixes for a trace).
#include "fpx/accumulation/accumulation.h"

#include "fpx/exact/superaccumulator.h"

#include <algorithm>

namespace fpx {

namespace {

template <class Stored> ExactSums sumStored(const std::vector<Stored>& values, std::size_t every) {
    ExactSums sums;
    Superaccumulator total;
    const std::size_t n = values.size();
    const Stored* data = values.data();
    if (every == 0) {
        total.add(data, n);
    } else {
        sums.prefixes.reserve(n / every);
        for (std::size_t begin = 0; begin < n; begin += every) {
            const std::size_t end = std::min(n, begin + every);
            total.add(data + begin, end - begin);
            if (end - begin == every)
                sums.prefixes.push_back(total.value());
        }
    }
    sums.total = total.value();
    return sums;
}

ExactSums sumExact(const std::vector<ExactValue>& values, std::size_t every) {
    ExactSums sums;
    ExactValue total;
    for (std::size_t i = 0; i < values.size(); ++i) {
        total = total + values[i];
        if (every > 0 && (i + 1) % every == 0)
            sums.prefixes.push_back(total);
    }
    sums.total = total;
    return sums;
}

} // namespace

ExactSums exactSums(const TermSequence& terms, std::size_t every) {
    switch (terms.storage) {
    case TermSequence::Storage::Float:
        return sumStored(terms.floats, every);
    case TermSequence::Storage::Double:
        return sumStored(terms.doubles, every);
    case TermSequence::Storage::Exact:
        return sumExact(terms.exact, every);
    }
    return {};
}

} // namespace fpx
