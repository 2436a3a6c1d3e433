// SPDX-License-Identifier: GPL-3.0-or-later
// Percentages that add up to 100 %: percentShares against a brute force over every way of
// giving out the units (the one rule written here: the least total distance from the exact
// quotas, among the splits where a non-zero count shows and only everything is 100), and the
// range view's FP16 case worked by hand.
#include "fpx/training/percent_shares.h"

#include <QTest>

#include <cstdint>
#include <random>
#include <vector>

using namespace fpx;

namespace {

__extension__ typedef unsigned __int128 Wide;

Wide distance(std::uint64_t units, std::uint64_t count, std::uint64_t all, std::uint64_t total) {
    const Wide a = Wide(units) * total, b = Wide(count) * all;
    return a > b ? a - b : b - a;
}

// The least sum of |units·total − count·all| over every split of `all` units that gives a
// non-zero count at least one, a zero count none, and all of them only to the total.
Wide bestDistance(const std::vector<std::uint64_t>& counts, std::uint64_t all) {
    std::uint64_t total = 0;
    for (std::uint64_t c : counts)
        total += c;
    Wide best = ~Wide(0);
    std::vector<std::uint64_t> units(counts.size());
    auto walk = [&](auto&& self, std::size_t i, std::uint64_t left, Wide sofar) -> void {
        if (sofar >= best)
            return;
        if (i + 1 == counts.size()) {
            units[i] = left;
            const bool ok = (counts[i] == 0) == (left == 0) && (left != all || counts[i] == total);
            if (ok)
                best = std::min(best, sofar + distance(left, counts[i], all, total));
            return;
        }
        for (std::uint64_t u = 0; u <= left; ++u) {
            if ((counts[i] == 0) != (u == 0) || (u == all && counts[i] != total))
                continue;
            self(self, i + 1, left - u, sofar + distance(u, counts[i], all, total));
        }
    };
    walk(walk, 0, all, 0);
    return best;
}

} // namespace

class TestPercentShares : public QObject {
    Q_OBJECT

  private slots:
    void fp16RangeByHand() {
        // 42 of a million overflow: 99.9958 % and 0.0042 %, which two decimals make 100 and 0.
        const std::vector<PercentShare> s = percentShares({0, 0, 999'958, 42, 0}, 2);
        QCOMPARE(s[2].units, std::uint64_t{9'999});
        QCOMPARE(s[3].units, std::uint64_t{1});
        QVERIFY(s[3].belowOneUnit);
        QVERIFY(!s[2].belowOneUnit);
        QCOMPARE(percentShareText(s[2], 2), std::string("99.99"));
        QCOMPARE(percentShareText(s[3], 2), std::string("<0.01"));
        QCOMPARE(percentShareText(s[0], 2), std::string("0"));
    }

    void thirdsAndText() {
        const std::vector<PercentShare> s = percentShares({1, 1, 1}, 2);
        QCOMPARE(s[0].units + s[1].units + s[2].units, std::uint64_t{10'000});
        QCOMPARE(s[0].units, std::uint64_t{3'334}); // the earlier count first on a tie
        QCOMPARE(percentShareText(s[0], 2), std::string("33.34"));
        QCOMPARE(percentShareText(s[1], 2), std::string("33.33"));
        QCOMPARE(percentShareText({10'000, false}, 2), std::string("100"));
        QCOMPARE(percentShareText({1'250, false}, 2), std::string("12.5"));
        QCOMPARE(percentShareText({5, false}, 2), std::string("0.05"));
        QCOMPARE(percentShareText({1, true}, 3), std::string("<0.001"));
        QVERIFY(percentShares({0, 0}, 2)[0].units == 0);
    }

    // Every split of 100 units (no decimals) for up to four counts, small and lopsided.
    void againstBruteForce() {
        std::mt19937_64 random(38);
        for (int trial = 0; trial < 400; ++trial) {
            const std::size_t n = 1 + random() % 4;
            std::vector<std::uint64_t> counts(n);
            for (std::uint64_t& c : counts) {
                switch (random() % 4) {
                case 0:
                    c = 0;
                    break;
                case 1:
                    c = random() % 3;
                    break;
                case 2:
                    c = random() % 1000;
                    break;
                default:
                    c = random() % 10'000'000;
                    break;
                }
            }
            std::uint64_t total = 0;
            for (std::uint64_t c : counts)
                total += c;
            const std::vector<PercentShare> shares = percentShares(counts, 0);
            QCOMPARE(shares.size(), n);
            std::uint64_t sum = 0;
            Wide got = 0;
            for (std::size_t i = 0; i < n; ++i) {
                sum += shares[i].units;
                got += distance(shares[i].units, counts[i], 100, total);
                QCOMPARE(shares[i].belowOneUnit,
                         counts[i] != 0 && Wide(counts[i]) * 100 < Wide(total));
            }
            if (total == 0) {
                QCOMPARE(sum, std::uint64_t{0});
                continue;
            }
            QCOMPARE(sum, std::uint64_t{100});
            const Wide best = bestDistance(counts, 100);
            QVERIFY2(got == best,
                     qPrintable(
                         QString("trial %1: %2 counts, not the closest split").arg(trial).arg(n)));
        }
    }
};

QTEST_APPLESS_MAIN(TestPercentShares)
#include "tst_percent_shares.moc"
