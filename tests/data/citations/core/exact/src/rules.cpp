// SPDX-License-Identifier: GPL-3.0-or-later
// Cited rightly: (docs/behaviour.md, "Conversion rules"), over two lines (docs/behaviour.md,
// "NaN payloads").
// A section that is not there: (docs/behaviour.md, "Rounding rules").
// A document that is not there: (docs/design.md, "Conversion rules").
