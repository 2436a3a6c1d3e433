// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/exact_value.h"

#include <string>
#include <string_view>

namespace fpx {

// An input longer than 40000 digits or beyond 10^±20000 is held as a stand-in
// (ParsedValue::exact == false, see value_parser.h): it rounds exactly like the text into
// every binary float, but the error against the stand-in is not the error against the text.
// Such errors are shown with this mark, by the explorer and `fpx show` alike.
inline constexpr std::string_view kApproximateMark = "≈";

// True when an error computed from an input held as a stand-in is shown: a finite, non-zero
// error (∞ and NaN errors are what they are whatever the input's digits).
inline bool errorIsApproximate(bool inputExact, const ExactValue& error) {
    return !inputExact && error.isFinite() && !error.isZero();
}

// `text` with the mark in front when `approximate`.
inline std::string markApproximate(const std::string& text, bool approximate) {
    return approximate ? std::string(kApproximateMark) + text : text;
}

} // namespace fpx
