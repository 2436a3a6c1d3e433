// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <string_view>

namespace fpx {

std::string_view trim(std::string_view text);
std::string toLower(std::string_view text);

} // namespace fpx
