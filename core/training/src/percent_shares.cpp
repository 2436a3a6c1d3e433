// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/training/percent_shares.h"

#include <algorithm>
#include <numeric>

namespace fpx {

namespace {

// count · units needs up to 64 + 27 bits.
__extension__ typedef unsigned __int128 Wide;

std::uint64_t unitsInAll(int decimals) {
    std::uint64_t units = 100;
    for (int d = 0; d < decimals; ++d)
        units *= 10;
    return units;
}

} // namespace

std::vector<PercentShare> percentShares(const std::vector<std::uint64_t>& counts, int decimals) {
    const std::size_t n = counts.size();
    std::vector<PercentShare> shares(n);
    const Wide total = std::accumulate(counts.begin(), counts.end(), static_cast<Wide>(0));
    if (total == 0)
        return shares;
    const std::uint64_t all = unitsInAll(decimals);
    // Quota of count i: counts[i] · all / total, exactly, as floor and remainder (over total).
    // A non-zero count under one unit gets its one unit first; the rest share what is left.
    std::vector<Wide> remainder(n);
    std::int64_t left = static_cast<std::int64_t>(all);
    for (std::size_t i = 0; i < n; ++i) {
        const Wide scaled = static_cast<Wide>(counts[i]) * all;
        shares[i].units = static_cast<std::uint64_t>(scaled / total);
        remainder[i] = scaled % total;
        shares[i].belowOneUnit = counts[i] != 0 && shares[i].units == 0;
        if (shares[i].belowOneUnit) {
            shares[i].units = 1;
            remainder[i] = 0; // no claim on the units left
        }
        left -= static_cast<std::int64_t>(shares[i].units);
    }
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    // Largest remainder first; the earlier count first on a tie.
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return remainder[a] > remainder[b]; });
    for (std::size_t k = 0; left > 0 && k < n && remainder[order[k]] != 0; ++k) {
        ++shares[order[k]].units;
        --left;
    }
    // The one-unit floors took more than was left: back from the largest shares (each unit taken
    // from a share at its rounded-down quota costs the same), never below one unit.
    while (left < 0) {
        std::size_t largest = 0;
        for (std::size_t i = 1; i < n; ++i)
            if (shares[i].units > shares[largest].units)
                largest = i;
        if (shares[largest].units <= 1)
            break; // more non-zero counts than units: nothing left to take from
        --shares[largest].units;
        ++left;
    }
    return shares;
}

std::string percentShareText(const PercentShare& share, int decimals) {
    if (share.belowOneUnit && share.units <= 1) {
        std::string text = "<0.";
        if (decimals == 0)
            return "<1";
        text.append(static_cast<std::size_t>(decimals - 1), '0');
        return text + "1";
    }
    std::string digits = std::to_string(share.units);
    if (decimals == 0)
        return digits;
    if (digits.size() <= static_cast<std::size_t>(decimals))
        digits.insert(0, static_cast<std::size_t>(decimals) + 1 - digits.size(), '0');
    std::string text = digits.substr(0, digits.size() - static_cast<std::size_t>(decimals)) + "." +
                       digits.substr(digits.size() - static_cast<std::size_t>(decimals));
    while (text.back() == '0')
        text.pop_back();
    if (text.back() == '.')
        text.pop_back();
    return text;
}

} // namespace fpx
