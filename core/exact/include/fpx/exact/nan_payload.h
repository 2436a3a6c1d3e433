// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/exact/code.h"
#include "fpx/exact/code_details.h"
#include "fpx/exact/format_spec.h"
#include "fpx/exact/rounding.h"

#include <optional>
#include <string_view>

namespace fpx {

// What kind of NaN a code is. IEEE-style formats tell quiet from signaling NaNs by the top
// fraction bit (x87: the bit below the explicit integer bit); formats with a single NaN
// encoding (fn, fnuz, E8M0) have no such bit: their NaN is just NaN.
enum class NaNKind {
    NotNaN,
    Quiet,     // top fraction bit set
    Signaling, // top fraction bit clear, some other fraction bit set
    Single,    // the format's only NaN code(s): no quiet bit, no payload
};

NaNKind nanKind(const FormatSpec& spec, Code code);
// "qNaN", "sNaN", "nan" (Single) or "" (NotNaN).
std::string_view nanKindName(NaNKind kind);
// The class a code is shown with: valueClassName, with "nan" made "qNaN" or "sNaN" where the
// format tells them apart.
std::string codeClassName(const FormatSpec& spec, Code code);

// The NaN payload rule (docs/behaviour.md, "NaN payloads"): the NaN code
// `code` of `from` converted into `to` as x86 (SSE, F16C, x87) and ARM hardware convert it,
// when both formats are IEEE-style:
//
//     from  s 11111111 q ppppppppppppppppppppppp      (fp32: quiet bit q, payload p)
//                        └───── top bits ─────┘
//     to    s 11111    1 pppppppppp                   (fp16: the top 9 payload bits, quiet)
//
// the sign is kept, the fraction field is aligned at its top (truncated when `to` is
// narrower, zero-extended below when wider) and the quiet bit is set (a signaling NaN is
// quieted, and the conversion raises `invalid`). Nullopt when `code` is not a NaN of `from`,
// or either format has no payload (a single NaN, no NaN at all, integers, NF4): there the
// ordinary rounding of NaN (roundToFormat) applies. roundToFormat itself never sees codes,
// only values, so it keeps giving the canonical NaN.
std::optional<Conversion> convertNaNCode(const FormatSpec& from, Code code, const FormatSpec& to);

// The explorer's and `fpx show`'s step for an input typed as a code: when `code` is a NaN of
// `from` with a payload `to` can hold, `report` (the rounding of that NaN into `to`) is made
// to show the payload-keeping code instead of the canonical NaN; where `to` holds no payload,
// a signaling NaN still raises `invalid`. True when the report changed.
bool keepNaNPayload(ConversionReport& report, const FormatSpec& from, Code code,
                    const FormatSpec& to, const RoundingOptions& options = {});

} // namespace fpx
