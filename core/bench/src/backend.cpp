// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/bench/backend.h"

#include <algorithm>

namespace fpx::bench {

std::string_view directionId(Direction direction) {
    return direction == Direction::Encode ? "encode" : "decode";
}

std::string_view operationId(Operation operation) {
    switch (operation) {
    case Operation::Copy:
        return "copy";
    case Operation::Convert:
        return "convert";
    case Operation::Arithmetic:
        return "arithmetic";
    case Operation::Accumulate:
        return "accumulate";
    case Operation::Quantize:
        return "quantize";
    case Operation::QuantizeFile:
        return "quantize-file";
    }
    return "convert";
}

std::optional<Operation> parseOperation(std::string_view id) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    for (Operation op : {Operation::Copy, Operation::Convert, Operation::Arithmetic,
                         Operation::Accumulate, Operation::Quantize, Operation::QuantizeFile}) {
        const std::string_view name = operationId(op);
        if (name.size() == id.size() && std::equal(name.begin(), name.end(), id.begin(),
                                                   [&](char a, char b) { return a == lower(b); }))
            return op;
    }
    return std::nullopt;
}

std::string_view supportId(Support support) {
    switch (support) {
    case Support::Native:
        return "native";
    case Support::Emulated:
        return "emulated";
    case Support::Unsupported:
        return "unsupported";
    }
    return "unsupported";
}

std::string_view distributionId(InputDistribution distribution) {
    switch (distribution) {
    case InputDistribution::Normal:
        return "normal";
    case InputDistribution::Subnormal:
        return "subnormal";
    case InputDistribution::Overflowing:
        return "overflow";
    case InputDistribution::WithNaN:
        return "nan";
    }
    return "normal";
}

std::optional<InputDistribution> parseDistribution(std::string_view text) {
    for (InputDistribution d : {InputDistribution::Normal, InputDistribution::Subnormal,
                                InputDistribution::Overflowing, InputDistribution::WithNaN})
        if (text == distributionId(d))
            return d;
    return std::nullopt;
}

} // namespace fpx::bench
