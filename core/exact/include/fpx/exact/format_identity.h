// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/format_spec.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fpx {

// Which format a name or a set of fields stands for, and how to write it back.
//
// Built-in names come first: a short spec that is a built-in's alias names that built-in
// (findFormat, format_catalogue.h), so `e4m3` is OCP FP8 E4M3 (fn), `e5m2` OCP E5M2, `e3m2`
// OCP FP6 E3M2 and `e2m3` OCP FP6 E2M3 (every code finite), `e2m1` OCP FP4; the IEEE-style
// formats of those widths are spelt with their bias (`e4m3b7`, `e3m2b3`).

// The aliases e<E>m<M>[b<bias>] (no suffix) that name a built-in rather than the IEEE-style
// custom rule, with the built-in's id: {"e4m3", "fp8_e4m3"}, {"e3m2", "fp6_e3m2"},
// {"e4m3b11", "fp8_e4m3b11fnuz"}…
std::vector<std::pair<std::string, std::string>> shortSpecsTakenByBuiltins();

// The spec string that findFormat reads back as `spec`'s encoding: "e4m3b11fnuz", "int6",
// "e3m2b3f". Built-ins are written as custom specs too (fp16 is "e5m10b15"), always with the
// bias, so that the string never names a built-in through its alias. Empty for lookup tables
// (NF4); x87 FP80's explicit integer bit has no spelling (sameEncoding tells them apart). A
// P3109 format whose ∞ or ties the spec cannot say is written as its id ("binary8p3se").
std::string specString(const FormatSpec& spec);

// The same format: the same codes stand for the same values (kind, widths, bias, specials,
// signedness, scale, levels), whatever the id or alias it was added under.
bool sameEncoding(const FormatSpec& a, const FormatSpec& b);

// The spec suffix of a binary float's specials: "" (IEEE), "fn", "fnu", "fnuz" or "f".
std::string_view specialsSuffix(const FormatSpec& spec);

// A short name that shows the bias and the specials, e.g. "e4m3 b=7 fn", "e5m10 b=15 ieee",
// "int6"; lookup tables give their id.
std::string fieldsName(const FormatSpec& spec);

} // namespace fpx
