#!/usr/bin/env python3
"""Independent reference check of `fpx convert`.

A from-scratch Python model (standard library only, exact rational arithmetic
via fractions.Fraction) of rounding exact values into every fpx format, written
from the format facts and conversion rules of docs/behaviour.md ("Format facts",
"Conversion rules"), not from fpx's code.  It generates tens of thousands of inputs (random decimals,
exact values, exact midpoints and midpoints +/- a tiny epsilon, values around
max and the overflow threshold, specials, p/q fractions), feeds them through one
`fpx convert --to FMT --round MODE --overflow POLICY` call per
(format, mode, policy) and compares every output code with the reference.

Usage:  python3 tools/reference_check.py [--fpx build/bin/fpx] [--seed N]
                                         [--scale F] [--formats a,b] [-v]
Exit status 0 when every comparison agrees, 1 otherwise.

Reference semantics (project decisions):
  * modes rne (ties to even code), rna (ties away), rtz, rup, rdn,
    rto (truncate, then set the last significand bit if inexact);
  * overflow is decided AFTER rounding with an unbounded exponent;
  * policy ieee: overflow -> +-inf (NaN where no inf), but rtz/rto -> +-max,
    rup -> +inf / -max, rdn -> +max / -inf;  policy saturate: +-max for every
    non-NaN result, +-inf inputs included;  fp6/fp4 always saturate;
  * fnuz: a single zero (0x00), NaN = 0x80;  fp8_e4m3 (fn): NaN = S.1111.111,
    inf input -> NaN under ieee;
  * fp8_e8m0: unsigned, bias 127, no zero, 0xFF NaN, nearest ties round UP,
    values below 2^-127 -> 0x00, zero/negative -> 0xFF (ieee) / 0x00 (saturate),
    +inf -> 0xFF (ieee) / 0xFE (saturate);
  * NaN inputs -> canonical quiet NaN with the input's sign (IEEE: exponent all
    ones, top fraction bit set; fp80: significand C000...);
  * int8/int4/int2/uint8/uint4: clamp(round(x/scale)), scale 1/qmax, two's
    complement codes, NaN -> 0, +-inf -> clamp;
  * nf4: the 16 float32 levels (float32 nearest each listed decimal), x/absmax
    (absmax 1), the neighbour chosen by the mode (rne: nearest, tie -> even
    code index; rto: the odd-index neighbour), clamp outside [-1, 1].
Not compared (implementation defined / unspecified): NaN into fp6/fp4 and nf4.
"""

import argparse
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
import time
from fractions import Fraction

if hasattr(sys, "set_int_max_str_digits"):
    sys.set_int_max_str_digits(0)

MODES = ["rne", "rna", "rtz", "rup", "rdn", "rto"]
POLICIES = ["ieee", "saturate"]

# --------------------------------------------------------------------------
# exact helpers


def floor_log2(a):
    """floor(log2(a)) for a Fraction a > 0."""
    n, d = a.numerator, a.denominator
    e = n.bit_length() - d.bit_length()
    if (n << -e if e < 0 else n) < (d << e if e >= 0 else d):
        e -= 1
    return e


def pow2(k):
    return Fraction(1 << k) if k >= 0 else Fraction(1, 1 << -k)


def round_ratio(num, den, mode, neg):
    """Round num/den >= 0 (ints) to an integer magnitude; neg = sign of value."""
    n, r = divmod(num, den)
    if r == 0:
        return n, False
    twice = 2 * r
    if mode == "rne":
        up = twice > den or (twice == den and (n & 1))
    elif mode == "rna":
        up = twice >= den
    elif mode == "rtz":
        up = False
    elif mode == "rup":
        up = not neg
    elif mode == "rdn":
        up = neg
    elif mode == "rto":
        return n | 1, True
    else:
        raise ValueError(mode)
    return n + (1 if up else 0), True


def dyadic_decimal(v):
    """Exact decimal text of a dyadic Fraction (finite expansion)."""
    neg = v < 0
    v = -v if neg else v
    n, d = v.numerator, v.denominator
    k = d.bit_length() - 1
    assert d == 1 << k, "not dyadic"
    s = "-" if neg else ""
    if k == 0:
        return s + str(n)
    digits = str(n * 5 ** k).rstrip("0")
    # value = digits * 10^(-k + stripped)
    exp10 = -k + (len(str(n * 5 ** k)) - len(digits))
    if exp10 >= 0:
        return s + digits + "0" * exp10
    point = len(digits) + exp10
    if point > 0:
        return s + digits[:point] + "." + digits[point:]
    if point > -6:
        return s + "0." + "0" * (-point) + digits
    return s + digits[0] + ("." + digits[1:] if len(digits) > 1 else "") + "e" + str(point - 1)


def near_decimals(v, k):
    """Decimal texts of v > 0 cut to k significant digits: truncated and bumped."""
    e10 = int(floor_log2(v) * 0.30102999566398120) - 1
    while Fraction(10) ** (e10 + 1) <= v:
        e10 += 1
    q = Fraction(10) ** (e10 - k + 1)
    D = (v / q).__floor__()
    return ["%de%d" % (D, e10 - k + 1), "%de%d" % (D + 1, e10 - k + 1)]


def exact_text(v, maxlen=400):
    """Exact text for a dyadic value: a decimal if short enough, else n/2^k."""
    txt = dyadic_decimal(v) if v.denominator.bit_length() < 4 * maxlen else None
    if txt is not None and len(txt) <= maxlen:
        return txt
    k = v.denominator.bit_length() - 1
    if k == 0:
        return str(v.numerator)
    return "%d/2^%d" % (v.numerator, k)


def parse_input(s):
    """Our own parse of the texts we generate -> ('nan'|'inf'|'num', neg, Fraction)."""
    t = s.strip().lower()
    neg = t.startswith("-")
    body = t.lstrip("+-")
    if body == "nan":
        return ("nan", neg, None)
    if body in ("inf", "infinity"):
        return ("inf", neg, None)
    if "/" in body:
        p, q = body.split("/")
        pv = Fraction(p)
        qv = pow2(int(q[2:])) if q.startswith("2^") else Fraction(q)
        v = pv / qv
    elif body.startswith("2^"):
        v = pow2(int(body[2:]))
    else:
        v = Fraction(body)
    return ("num", neg, v)


# --------------------------------------------------------------------------
# format models (from docs/behaviour.md, "Format facts", not from fpx)


class FloatFmt:
    def __init__(self, name, E, M, bias, special, explicit=False):
        self.name, self.E, self.M, self.bias = name, E, M, bias
        self.special = special          # ieee | fn | fnuz | finite
        self.explicit = explicit        # fp80: explicit integer bit
        self.p = M if explicit else M + 1
        self.fbits = M
        self.bits = 1 + E + M
        self.emin = 1 - bias
        top = (1 << E) - 1
        self.emax = (top - 1 if special == "ieee" else top) - bias
        if special == "fn":    # top code S.1111.111 is NaN
            self.maxval = (2 - pow2(2 - self.p)) * pow2(self.emax)
        else:
            self.maxval = (2 - pow2(1 - self.p)) * pow2(self.emax)
        self.min_normal = pow2(self.emin)
        self.min_sub = pow2(self.emin - self.p + 1)
        self.sbit = 1 << (self.bits - 1)

    # codes ---------------------------------------------------------------
    def encode(self, neg, v):
        """Code of representable magnitude v (<= max)."""
        if v == 0:
            return 0 if (self.special == "fnuz" or not neg) else self.sbit
        e = floor_log2(v)
        if e < self.emin:
            expf = 0
            sig = v / pow2(self.emin - self.p + 1)
        else:
            expf = e + self.bias
            sig = v / pow2(e - self.p + 1)
        assert sig.denominator == 1, (self.name, v)
        sig = sig.numerator
        if not self.explicit and expf > 0:
            sig -= 1 << (self.p - 1)
        assert 0 <= sig < (1 << self.fbits) and 0 <= expf < (1 << self.E)
        return (self.sbit if neg else 0) | (expf << self.fbits) | sig

    def inf_code(self, neg):
        c = ((1 << self.E) - 1) << self.fbits
        if self.explicit:
            c |= 1 << 63
        return c | (self.sbit if neg else 0)

    def nan_code(self, neg):
        if self.special == "fnuz":
            return self.sbit
        if self.special == "fn":
            return (self.sbit if neg else 0) | (self.sbit - 1)
        if self.special == "finite":
            return None
        c = ((1 << self.E) - 1) << self.fbits
        c |= (3 << 62) if self.explicit else (1 << (self.fbits - 1))
        return c | (self.sbit if neg else 0)

    def overflow_code(self, neg, mode, policy):
        maxc = self.encode(neg, self.maxval)
        if policy == "saturate" or self.special == "finite":
            return maxc
        to_max = mode in ("rtz", "rto") or (mode == "rup" and neg) or (mode == "rdn" and not neg)
        if to_max:
            return maxc
        return self.inf_code(neg) if self.special == "ieee" else self.nan_code(neg)

    # conversion ----------------------------------------------------------
    def convert(self, inp, mode, policy):
        kind, neg, v = inp
        if kind == "nan":
            return self.nan_code(neg)
        if kind == "inf":
            if policy == "saturate" or self.special == "finite":
                return self.encode(neg, self.maxval)
            return self.inf_code(neg) if self.special == "ieee" else self.nan_code(neg)
        if v == 0:
            return self.encode(neg, Fraction(0))
        e = max(floor_log2(v), self.emin)
        k = e - self.p + 1               # quantum 2^k, unbounded exponent
        n, d = v.numerator, v.denominator
        if k >= 0:
            N, _ = round_ratio(n, d << k, mode, neg)
        else:
            N, _ = round_ratio(n << -k, d, mode, neg)
        r = N * pow2(k)
        if r > self.maxval:
            return self.overflow_code(neg, mode, policy)
        return self.encode(neg, r)

    def neighbours_up(self, v):
        """Next representable magnitude above v (v representable, may exceed max)."""
        e = max(floor_log2(v), self.emin) if v > 0 else self.emin
        return v + pow2(e - self.p + 1)


class E8M0:
    name = "fp8_e8m0"
    bits = 8

    def __init__(self):
        self.maxval = pow2(127)
        self.minval = pow2(-127)

    def convert(self, inp, mode, policy):
        kind, neg, v = inp
        if kind == "nan":
            return 0xFF
        if neg or (kind == "num" and v == 0):
            return 0xFF if policy == "ieee" else 0x00
        if kind == "inf":
            return 0xFF if policy == "ieee" else 0xFE
        if v < self.minval:
            return 0x00
        e = floor_log2(v)
        if v != pow2(e):
            if mode in ("rne", "rna"):
                if v >= Fraction(3, 2) * pow2(e):
                    e += 1
            elif mode == "rup":
                e += 1
            # rtz, rdn: floor; rto: 1-bit significand is always odd -> floor
        if e > 127:
            if policy == "ieee" and mode in ("rne", "rna", "rup"):
                return 0xFF
            return 0xFE
        return e + 127


class IntFmt:
    def __init__(self, name, bits, signed):
        self.name, self.bits, self.signed = name, bits, signed
        self.qmax = (1 << (bits - 1)) - 1 if signed else (1 << bits) - 1
        self.qmin = -(1 << (bits - 1)) if signed else 0
        self.scale = Fraction(1, self.qmax)

    def convert(self, inp, mode, policy):
        kind, neg, v = inp
        if kind == "nan":
            q = 0
        elif kind == "inf":
            q = self.qmin if neg else self.qmax
        else:
            y = v / self.scale
            N, _ = round_ratio(y.numerator, y.denominator, mode, neg)
            q = -N if neg else N
            q = max(self.qmin, min(self.qmax, q))
        return q & ((1 << self.bits) - 1)


NF4_DECIMALS = [
    "-1.0", "-0.6961928009986877", "-0.5250730514526367", "-0.39491748809814453",
    "-0.28444138169288635", "-0.18477343022823334", "-0.09105003625154495", "0.0",
    "0.07958029955625534", "0.16093020141124725", "0.24611230194568634",
    "0.33791524171829224", "0.44070982933044434", "0.5626170039176941",
    "0.7229568362236023", "1.0"]


class NF4:
    name = "nf4"
    bits = 4

    def __init__(self, fp32):
        self.levels = []
        for s in NF4_DECIMALS:
            lv = parse_input(s)
            c = fp32.convert(lv, "rne", "ieee")          # float32 nearest
            f32 = struct.unpack("<f", struct.pack("<I", c))[0]
            assert f32 == struct.unpack("<f", struct.pack("<f", float(s)))[0]
            self.levels.append(Fraction(f32))
        assert self.levels == sorted(self.levels)

    def convert(self, inp, mode, policy):
        kind, neg, v = inp
        if kind == "nan":
            return None                       # unspecified: not compared
        if kind == "inf":
            return 0 if neg else 15
        y = -v if neg else v
        L = self.levels
        if y >= L[15]:
            return 15
        if y <= L[0]:
            return 0
        i = max(j for j in range(16) if L[j] <= y)
        if L[i] == y:
            return i
        lo, hi = i, i + 1
        dlo, dhi = y - L[lo], L[hi] - y
        pos = y > 0 or (y == 0 and not neg)
        if mode == "rne":
            return lo if dlo < dhi else hi if dhi < dlo else (lo if lo % 2 == 0 else hi)
        if mode == "rna":
            return lo if dlo < dhi else hi if dhi < dlo else (hi if pos else lo)
        if mode == "rtz":
            return lo if pos else hi
        if mode == "rup":
            return hi
        if mode == "rdn":
            return lo
        if mode == "rto":
            return lo if lo % 2 == 1 else hi
        raise ValueError(mode)


def build_models():
    m = {}
    for args in [("fp64", 11, 52, 1023, "ieee"), ("fp32", 8, 23, 127, "ieee"),
                 ("tf32", 8, 10, 127, "ieee"), ("bf16", 8, 7, 127, "ieee"),
                 ("fp16", 5, 10, 15, "ieee"), ("fp8_e4m3", 4, 3, 7, "fn"),
                 ("fp8_e5m2", 5, 2, 15, "ieee"), ("fp8_e4m3fnuz", 4, 3, 8, "fnuz"),
                 ("fp8_e5m2fnuz", 5, 2, 16, "fnuz"), ("fp8_e4m3b11fnuz", 4, 3, 11, "fnuz"),
                 ("fp8_e3m4", 3, 4, 3, "ieee"), ("fp6_e3m2", 3, 2, 3, "finite"),
                 ("fp6_e2m3", 2, 3, 1, "finite"), ("fp4_e2m1", 2, 1, 1, "finite")]:
        m[args[0]] = FloatFmt(*args)
    m["fp80"] = FloatFmt("fp80", 15, 64, 16383, "ieee", explicit=True)
    m["fp128"] = FloatFmt("fp128", 15, 112, 16383, "ieee")
    m["fp8_e8m0"] = E8M0()
    for name, bits, signed in [("int8", 8, 1), ("int4", 4, 1), ("int2", 2, 1),
                               ("uint8", 8, 0), ("uint4", 4, 0)]:
        m[name] = IntFmt(name, bits, bool(signed))
    m["nf4"] = NF4(m["fp32"])
    return m


def self_test(m):
    """Check the model against the facts of docs/behaviour.md, "Format facts"."""
    P = pow2
    table = {  # id: (max, min normal, min subnormal)
        "fp64": ((2 - P(-52)) * P(1023), P(-1022), P(-1074)),
        "fp32": ((2 - P(-23)) * P(127), P(-126), P(-149)),
        "tf32": ((2 - P(-10)) * P(127), P(-126), P(-136)),
        "bf16": ((2 - P(-7)) * P(127), P(-126), P(-133)),
        "fp16": (65504, P(-14), P(-24)),
        "fp8_e4m3": (448, P(-6), P(-9)),
        "fp8_e5m2": (57344, P(-14), P(-16)),
        "fp8_e4m3fnuz": (240, P(-7), P(-10)),
        "fp8_e5m2fnuz": (57344, P(-15), P(-17)),
        "fp8_e4m3b11fnuz": (30, P(-10), P(-13)),
        "fp8_e3m4": (Fraction(31, 2), Fraction(1, 4), P(-6)),
        "fp6_e3m2": (28, Fraction(1, 4), Fraction(1, 16)),
        "fp6_e2m3": (Fraction(15, 2), 1, Fraction(1, 8)),
        "fp4_e2m1": (6, 1, Fraction(1, 2)),
        "fp80": ((2 - P(-63)) * P(16383), P(-16382), P(-16445)),
        "fp128": ((2 - P(-112)) * P(16383), P(-16382), P(-16494)),
    }
    for k, (mx, mn, ms) in table.items():
        f = m[k]
        assert (f.maxval, f.min_normal, f.min_sub) == (mx, mn, ms), k
    assert abs(float(m["fp80"].maxval) if False else 0) == 0
    assert str(m["fp80"].maxval)[:6] == "118973"
    ex = {"fp16": 0x3653, "bf16": 0x3eca, "fp8_e4m3": 0x2d, "fp8_e5m2": 0x36, "fp4_e2m1": 0x1}
    inp = parse_input("0.3952")
    for k, c in ex.items():
        assert m[k].convert(inp, "rne", "ieee") == c, k
    e4 = m["fp8_e4m3"]
    assert e4.convert(parse_input("464"), "rne", "ieee") == 0x7e
    assert e4.convert(parse_input("465"), "rne", "ieee") == 0x7f
    assert e4.convert(parse_input("465"), "rne", "saturate") == 0x7e
    assert m["fp16"].convert(parse_input("65520"), "rne", "ieee") == 0x7c00
    fp4 = [m["fp4_e2m1"].encode(False, Fraction(x)) for x in
           ["0", "0.5", "1", "1.5", "2", "3", "4", "6"]]
    assert fp4 == list(range(8))
    assert m["fp80"].convert(parse_input("1"), "rne", "ieee") == 0x3fff8000000000000000
    assert m["fp32"].convert(parse_input("1/3"), "rne", "ieee") == 0x3eaaaaab
    # struct cross-check of fp32/fp64 RNE on random doubles
    rnd = random.Random(1)
    for _ in range(2000):
        x = struct.unpack("<d", struct.pack("<Q", rnd.getrandbits(64)))[0]
        if x != x or x in (float("inf"), float("-inf")):
            continue
        inp = ("num", x < 0 or (x == 0 and str(x)[0] == "-"), abs(Fraction(x)))
        assert m["fp64"].convert(inp, "rne", "ieee") == struct.unpack("<Q", struct.pack("<d", x))[0]
        try:
            want = struct.unpack("<I", struct.pack("<f", x))[0]
        except OverflowError:
            continue
        assert m["fp32"].convert(inp, "rne", "ieee") == want


# --------------------------------------------------------------------------
# input generation


def rand_decimal(rnd, b):
    """Random decimal with 1-25 significant digits of magnitude ~2^b."""
    nd = rnd.randint(1, 25)
    D = str(rnd.randint(1, 9)) + "".join(str(rnd.randint(0, 9)) for _ in range(nd - 1))
    e10 = int(b * 0.30102999566398120) + rnd.randint(-1, 1)
    sign = "-" if rnd.random() < 0.5 else ""
    style = rnd.random()
    if style < 0.6:
        return sign + D[0] + ("." + D[1:] if nd > 1 else "") + "e" + str(e10)
    if style < 0.8 or abs(e10) > 30:
        return sign + D + "E" + str(e10 - nd + 1)
    v = Fraction(int(D)) * Fraction(10) ** (e10 - nd + 1)
    if v.denominator == 1:
        return sign + str(v.numerator)
    k = nd - 1 - e10
    s = D.rjust(k + 1, "0")
    return sign + s[:-k] + "." + s[-k:]


def gen_float(f, rnd, n_target):
    out = []
    sgn = lambda: -1 if rnd.random() < 0.5 else 1
    ulp = lambda v: pow2(max(floor_log2(v), f.emin) - f.p + 1)

    def rand_value():
        r = rnd.random()
        if r < 0.2:   # subnormal / min normal region
            e = rnd.randint(f.emin - f.p, f.emin + 1)
        elif r < 0.35:
            e = rnd.randint(f.emax - 1, f.emax)
        else:
            e = rnd.randint(f.emin, f.emax)
        e = max(e, f.emin - f.p + 1)
        if e < f.emin:
            sig = rnd.randint(1, (1 << (e - (f.emin - f.p + 1) + 1)) - 1)
            v = sig * f.min_sub
            v = v if v <= f.maxval else f.maxval
        else:
            v = pow2(e) * (1 + Fraction(rnd.getrandbits(f.p - 1), 1 << (f.p - 1))) if f.p > 1 else pow2(e)
        return min(v, f.maxval)

    n_rand = n_target * 2 // 5
    for _ in range(n_rand):
        r = rnd.random()
        if r < 0.25:
            b = rnd.randint(f.emin - f.p - 4, f.emin + 2)
        elif r < 0.4:
            b = rnd.randint(f.emax - 2, f.emax + 4)
        else:
            b = rnd.randint(f.emin - f.p - 4, f.emax + 4)
        out.append(rand_decimal(rnd, b))
    n_ex = n_target // 10
    for _ in range(n_ex):
        v = rand_value()
        out.append(exact_text(sgn() * v))
    n_mid = n_target * 2 // 5
    for _ in range(n_mid // 3):
        v = rand_value() if rnd.random() < 0.95 else Fraction(0)
        if v == f.maxval and rnd.random() < 0.5:
            v = v - ulp(v)
        w = f.neighbours_up(v) if v > 0 else f.min_sub
        mid = (v + w) / 2
        eps = (w - v) / pow2(rnd.randint(4, 70))
        s = sgn()
        out.append(exact_text(s * mid))
        out.append(exact_text(s * (mid + eps)))
        out.append(exact_text(s * (mid - eps)))
        if mid > 0 and rnd.random() < 0.5:    # decimals just below/above a midpoint
            out += [("-" if s < 0 else "") + t for t in near_decimals(mid, rnd.randint(8, 40))]
    # around max and the overflow threshold, bottom of the range
    mx = f.maxval
    u = ulp(mx)
    nxt = f.neighbours_up(mx)           # unbounded next value above max
    for s in (1, -1):
        for v in [mx, mx - u, mx + u / 2, mx - u / 2, (mx + nxt) / 2, nxt, 2 * nxt,
                  (mx + nxt) / 2 + u / 1024, (mx + nxt) / 2 - u / 1024, mx + u / 1024,
                  pow2(f.emax + 1), pow2(f.emax + 1) + u, pow2(f.emax + 2) * 3,
                  f.min_sub, f.min_sub / 2, f.min_sub / 2 + f.min_sub / 4096,
                  f.min_sub / 2 - f.min_sub / 4096, f.min_sub / 4, f.min_sub * 3 / 2,
                  f.min_normal, f.min_normal - f.min_sub, f.min_normal - f.min_sub / 2,
                  f.min_normal - f.min_sub / 3 if False else f.min_normal - f.min_sub / 4]:
            out.append(exact_text(s * v))
    for e in (f.emax + 1, f.emax + 2, f.emin - f.p, f.emin - f.p - 1, f.emin - f.p + 1, 0, -1, 1):
        out.append("2^%d" % e)
        out.append("-2^%d" % e)
    out += ["1e%d" % int((f.emax + 50) * 0.302), "-1e%d" % int((f.emax + 50) * 0.302),
            "1e-%d" % int((f.p - f.emin + 50) * 0.302)]
    return out


SPECIALS = ["0", "-0", "0.0", "-0.0", "inf", "-inf", "nan", "-nan", "1/3", "-1/3",
            "2/3", "-2/3", "1/7", "-5/7", "1", "-1", "0.1", "-0.1", "0.3952", "7/2",
            "100/3", "-100/3", "1/10", "123456789/1000", "355/113",
            "1e-99999", "-1e-99999", "1e99999", "-1e99999"]


def gen_int(f, rnd, n_target):
    out = []
    q = f.qmax
    lo, hi = f.qmin - 3, f.qmax + 3
    for _ in range(n_target // 4):           # y = k + j/8 (ties at j=4), x = y/qmax
        y = Fraction(rnd.randint(lo * 8, hi * 8), 8)
        x = y / q
        out.append("%d/%d" % (x.numerator, x.denominator))
    for _ in range(n_target // 4):           # tie +- epsilon
        y = Fraction(2 * rnd.randint(lo, hi) + 1, 2) + Fraction(rnd.choice([-1, 1]), 10 ** rnd.randint(3, 30))
        x = y / q
        out.append("%d/%d" % (x.numerator, x.denominator))
    for _ in range(n_target // 4):           # random decimals spread over the range
        b = rnd.randint(-20, 3) if rnd.random() < 0.3 else rnd.randint(-4, 2)
        out.append(rand_decimal(rnd, b))
    for _ in range(n_target // 8):           # random dyadics
        out.append(exact_text(Fraction(rnd.randint(-(1 << 20), 1 << 20), 1 << rnd.randint(8, 24))))
    for _ in range(n_target // 8):           # arbitrary p/q
        out.append("%d/%d" % (rnd.randint(-5000, 5000), rnd.randint(1, 3000)))
    return out


def gen_nf4(f, rnd, n_target):
    out = []
    L = f.levels
    for lv in L:
        out.append(exact_text(lv))
    for _ in range(n_target // 3):
        i = rnd.randint(0, 14)
        mid = (L[i] + L[i + 1]) / 2
        eps = pow2(-rnd.randint(26, 80))
        out += [exact_text(mid), exact_text(mid + eps), exact_text(mid - eps)]
    for _ in range(n_target // 3):
        out.append(rand_decimal(rnd, rnd.randint(-12, 1)))
    for _ in range(n_target // 6):
        out.append(exact_text(rnd.choice(L) + rnd.choice([-1, 1]) * pow2(-rnd.randint(24, 60))))
    return out


def gen_e8m0(f, rnd, n_target):
    out = []
    for _ in range(n_target // 3):
        e = rnd.randint(-130, 130)
        v = pow2(e)
        r = rnd.random()
        if r < 0.3:
            t = v
        elif r < 0.6:
            t = v * 3 / 2
        elif r < 0.8:
            t = v * 3 / 2 + rnd.choice([-1, 1]) * v / pow2(rnd.randint(4, 60))
        else:
            t = v + rnd.choice([-1, 1]) * v / pow2(rnd.randint(2, 60))
        out.append(exact_text(t))
    for _ in range(n_target // 2):
        out.append(rand_decimal(rnd, rnd.randint(-135, 135)))
    for _ in range(n_target // 10):
        out.append(exact_text(-pow2(rnd.randint(-140, 140))))
    out += ["2^127", "2^128", "2^-127", "2^-128", "3/2^128", "-0", "0", "inf", "-inf"]
    return out


def gen_inputs(name, f, rnd, n_target):
    if isinstance(f, FloatFmt):
        v = gen_float(f, rnd, n_target)
    elif isinstance(f, IntFmt):
        v = gen_int(f, rnd, n_target)
    elif isinstance(f, NF4):
        v = gen_nf4(f, rnd, n_target)
    else:
        v = gen_e8m0(f, rnd, n_target)
    v = [s for s in v if "*" not in s] + SPECIALS
    return v


# --------------------------------------------------------------------------
# driver


def run_fpx(fpx, fmt, mode, policy, text, result, key):
    try:
        p = subprocess.run([fpx, "convert", "--to", fmt, "--round", mode, "--overflow", policy],
                           input=text, capture_output=True, text=True)
        result[key] = (p.returncode, p.stdout.split("\n"), p.stderr)
    except OSError as e:              # e.g. the binary is being relinked
        result[key] = (-1, [], str(e))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--fpx", default="build/bin/fpx")
    ap.add_argument("--seed", type=int, default=20240601)
    ap.add_argument("--scale", type=float, default=1.0, help="multiplies input counts")
    ap.add_argument("--formats", default="", help="comma-separated subset of ids")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--examples", type=int, default=3, help="examples per mismatch class")
    args = ap.parse_args()

    t0 = time.time()
    # run a private copy: a concurrent rebuild must not swap the binary mid-run
    snapdir = tempfile.mkdtemp(prefix="fpx_refcheck_")
    try:
        fpx = shutil.copy2(args.fpx, os.path.join(snapdir, "fpx"))
        return check(args, fpx, t0)
    finally:
        shutil.rmtree(snapdir, ignore_errors=True)


def check(args, fpx, t0):
    models = build_models()
    self_test(models)
    ids = [f["id"] for f in json.loads(subprocess.run(
        [fpx, "formats", "--json"], capture_output=True, text=True, check=True).stdout)["formats"]]
    if args.formats:
        ids = [i for i in ids if i in args.formats.split(",")]
    unknown = [i for i in ids if i not in models]
    if unknown:
        print("no reference model for:", ", ".join(unknown))
    rnd = random.Random(args.seed)
    total, bad = 0, 0
    classes = {}
    per_format = {}
    for fmt in ids:
        if fmt not in models:
            continue
        model = models[fmt]
        n_target = int((1200 if fmt in ("fp80", "fp128") else 2500) * args.scale)
        texts = gen_inputs(fmt, model, rnd, n_target)
        parsed = [parse_input(s) for s in texts]
        blob = "\n".join(texts) + "\n"
        results, threads = {}, []
        for mode in MODES:
            for pol in POLICIES:
                th = threading.Thread(target=run_fpx, args=(fpx, fmt, mode, pol, blob, results, (mode, pol)))
                th.start()
                threads.append(th)
                if len(threads) >= 2:
                    threads.pop(0).join()
        for th in threads:
            th.join()
        nf = 0
        for mode in MODES:
            for pol in POLICIES:
                rc, lines, err = results[(mode, pol)]
                for i, (s, inp) in enumerate(zip(texts, parsed)):
                    ref = model.convert(inp, mode, pol)
                    if ref is None:
                        continue
                    got_txt = lines[i].strip() if i < len(lines) else "<missing>"
                    try:
                        got = int(got_txt, 16)
                    except ValueError:
                        got = None
                    total += 1
                    nf += 1
                    if got != ref:
                        bad += 1
                        tag = inp[0] if inp[0] != "num" else ("zero" if inp[2] == 0 else "finite")
                        key = (fmt, mode, pol, tag, "neg" if inp[1] else "pos")
                        classes.setdefault(key, []).append((len(s), s, got_txt, ref))
                if rc != 0:
                    print("fpx rc=%d for %s %s %s: %s" % (rc, fmt, mode, pol, err.strip()[:200]))
        per_format[fmt] = nf
        print("%-16s %7d comparisons  (%d inputs x 12)  %.1fs" % (fmt, nf, len(texts), time.time() - t0), flush=True)

    width = lambda fmt: (models[fmt].bits + 3) // 4
    print()
    print("total comparisons: %d, disagreements: %d, runtime %.1fs" % (total, bad, time.time() - t0))
    for key in sorted(classes):
        fmt, mode, pol = key[:3]
        ex = sorted(classes[key])[:args.examples]
        print("MISMATCH %-16s %-3s %-8s %-6s %-3s  %d cases" % (key + (len(classes[key]),)))
        for _, s, got, ref in ex:
            shown = s if len(s) <= 120 else s[:60] + "..." + s[-40:]
            print("   echo '%s' | %s convert --to %s --round %s --overflow %s  -> got %s, reference 0x%0*x"
                  % (shown, args.fpx, fmt, mode, pol, got, width(fmt), ref))
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
