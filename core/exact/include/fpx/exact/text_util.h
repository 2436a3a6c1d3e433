// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fpx {

std::string_view trim(std::string_view text);
std::string toLower(std::string_view text);
// Every part between separators, empty ones included: "a::b" gives {"a", "", "b"}, "" gives {""}.
std::vector<std::string_view> splitAt(std::string_view text, char separator);

} // namespace fpx
