// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the tests of fpx_machines share: a machine by name, and a narrow format's values to
// draw operands from.

#include "fpx/exact/conversion.h"
#include "fpx/machines/machine.h"

#include <QtGlobal>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fpx::test {

inline MachineModel machineNamed(const char* name) {
    std::string error;
    const std::optional<MachineModel> found = findMachine(name, error);
    if (!found)
        qFatal("%s", error.c_str());
    return *found;
}

// Every finite value of a format of at most 12 bits, as doubles; with `binades` > 0 only zero
// and the values within 2^±binades, so that sums of their products stay exact in double. A
// wider format (TF32) gets 4096 normal values drawn from its significands and the binades
// within 2^±binades (2^±30 when 0), and zero.
inline std::vector<double> finiteDoubles(const FormatSpec& spec, int binades = 0) {
    std::vector<double> values;
    if (spec.totalBits() > 12) {
        const int reach = binades > 0 ? binades : 30;
        std::uint64_t state = 0x9E3779B97F4A7C15ULL;
        auto next = [&state] { // splitmix64: deterministic, no global generator
            std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
            return z ^ (z >> 31);
        };
        values.push_back(0.0);
        for (int i = 0; i < 4096; ++i) {
            const std::uint64_t bits = next();
            const double fraction = double(bits & ((std::uint64_t{1} << spec.fractionBits) - 1)) /
                                    std::ldexp(1.0, spec.fractionBits);
            const int exponent = int((bits >> 32) % std::uint64_t(2 * reach - 1)) - (reach - 1);
            values.push_back(std::ldexp((bits >> 63) ? -(1 + fraction) : 1 + fraction, exponent));
        }
        return values;
    }
    for (Code code = 0; code < (Code{1} << std::min(spec.totalBits(), 12)); ++code)
        if (const DecodedCode d = decodeCode(spec, code); d.value.isFinite()) {
            const double x = doubleFromExact(d.value);
            if (binades == 0 || x == 0 ||
                (std::fabs(x) < std::ldexp(1.0, binades) &&
                 std::fabs(x) > std::ldexp(1.0, -binades)))
                values.push_back(x);
        }
    return values;
}

} // namespace fpx::test
