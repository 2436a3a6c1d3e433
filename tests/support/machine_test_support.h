// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once
// What the tests of fpx_machines share: a machine by name, and a narrow format's values to
// draw operands from.

#include "fpx/exact/conversion.h"
#include "fpx/machines/machine.h"

#include <QtGlobal>

#include <algorithm>
#include <cmath>
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
// and the values within 2^±binades, so that sums of their products stay exact in double.
inline std::vector<double> finiteDoubles(const FormatSpec& spec, int binades = 0) {
    std::vector<double> values;
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
