// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/exact/format_catalogue.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_identity.h"
#include "fpx/exact/text_util.h"
#include "fpx/exact/value_parser.h"

#include <algorithm>
#include <charconv>
#include <initializer_list>

namespace fpx {

namespace {

FormatSpec binaryFloat(std::string id, std::string displayName, int exponentBits, int fractionBits,
                       int bias, SpecialEncoding specials,
                       std::initializer_list<const char*> aliases, std::string description) {
    FormatSpec s;
    s.id = std::move(id);
    s.displayName = std::move(displayName);
    s.description = std::move(description);
    for (const char* a : aliases)
        s.aliases.emplace_back(a);
    s.kind = FormatKind::BinaryFloat;
    s.exponentBits = exponentBits;
    s.fractionBits = fractionBits;
    s.bias = bias;
    s.specials = specials;
    return s;
}

FormatSpec integerFormat(std::string id, std::string displayName, int bits, bool isSigned,
                         std::initializer_list<const char*> aliases, std::string description) {
    FormatSpec s;
    s.id = std::move(id);
    s.displayName = std::move(displayName);
    s.description = std::move(description);
    for (const char* a : aliases)
        s.aliases.emplace_back(a);
    s.kind = FormatKind::Integer;
    s.integerBits = bits;
    s.isSigned = isSigned;
    s.scale = defaultIntegerScale(bits, isSigned);
    return s;
}

// NF4 levels as bitsandbytes stores them: a float32 tensor. The decimal texts are the
// shortest forms of those float32 values; each level is the float32 they round to.
FormatSpec nf4Format() {
    static constexpr const char* kLevels[16] = {
        "-1.0",
        "-0.6961928009986877",
        "-0.5250730514526367",
        "-0.39491748809814453",
        "-0.28444138169288635",
        "-0.18477343022823334",
        "-0.09105003625154495",
        "0.0",
        "0.07958029955625534",
        "0.16093020141124725",
        "0.24611230194568634",
        "0.33791524171829224",
        "0.44070982933044434",
        "0.5626170039176941",
        "0.7229568362236023",
        "1.0",
    };
    FormatSpec fp32 = binaryFloat("fp32", "", 8, 23, 127, SpecialEncoding::Ieee, {}, "");
    FormatSpec s;
    s.id = "nf4";
    s.displayName = "NF4 (4-bit NormalFloat)";
    s.description = "QLoRA / bitsandbytes 4-bit levels of a normal distribution; values are "
                    "x / block absmax (blocks of 64) mapped to the nearest level";
    s.aliases = {"normalfloat4", "normal_float4", "bnb_nf4"};
    s.kind = FormatKind::Lookup;
    for (const char* text : kLevels) {
        const ExactValue decimal = *parseValue(text).value;
        s.table.push_back(roundedInto(decimal, fp32));
    }
    s.scale = ExactValue::integer(1);
    return s;
}

std::vector<FormatSpec> makeCatalogue() {
    using SE = SpecialEncoding;
    std::vector<FormatSpec> c;
    c.push_back(binaryFloat("fp64", "FP64 (IEEE binary64)", 11, 52, 1023, SE::Ieee,
                            {"float64", "double", "binary64", "f64", "fp64", "float64_t"},
                            "IEEE 754 double precision: scientific computing, the C double"));
    c.push_back(binaryFloat("fp32", "FP32 (IEEE binary32)", 8, 23, 127, SE::Ieee,
                            {"float32", "float", "single", "binary32", "f32"},
                            "IEEE 754 single precision: the default for ML training and graphics"));
    c.push_back(
        binaryFloat("tf32", "TF32 (NVIDIA TensorFloat-32)", 8, 10, 127, SE::Ieee,
                    {"tensorfloat32", "tensorfloat-32", "tensor_float32"},
                    "FP32 range with FP16 precision: NVIDIA tensor-core input since "
                    "Ampere (hardware rounds ties away: use rna to match cvt.rna.tf32.f32)"));
    c.push_back(binaryFloat("bf16", "BF16 (bfloat16)", 8, 7, 127, SE::Ieee,
                            {"bfloat16", "bfloat", "brainfloat16", "bf16"},
                            "FP32 range with 8 bits of precision: ML training on TPUs and GPUs"));
    c.push_back(binaryFloat("fp16", "FP16 (IEEE binary16)", 5, 10, 15, SE::Ieee,
                            {"float16", "half", "binary16", "f16"},
                            "IEEE 754 half precision: ML training with loss scaling, graphics"));
    c.push_back(
        binaryFloat("fp8_e4m3", "FP8 E4M3 (OCP, e4m3fn)", 4, 3, 7, SE::NanAtAllOnes,
                    {"e4m3", "e4m3fn", "float8_e4m3fn", "fp8_e4m3fn", "f8e4m3fn", "fp8e4m3"},
                    "OCP 8-bit float: no infinity, S.1111.111 is NaN, max 448; "
                    "forward pass of FP8 training and inference"));
    c.push_back(
        binaryFloat("fp8_e5m2", "FP8 E5M2 (OCP)", 5, 2, 15, SE::Ieee,
                    {"e5m2", "float8_e5m2", "f8e5m2", "fp8e5m2"},
                    "OCP 8-bit float with IEEE infinities and NaNs: gradients in FP8 training"));
    c.push_back(binaryFloat("fp8_e4m3fnuz", "FP8 E4M3 FNUZ (AMD/Graphcore)", 4, 3, 8,
                            SE::NanAtNegativeZero, {"e4m3fnuz", "float8_e4m3fnuz", "f8e4m3fnuz"},
                            "8-bit float with bias 8, one zero, NaN = 0x80, max 240 (AMD MI300)"));
    c.push_back(
        binaryFloat("fp8_e5m2fnuz", "FP8 E5M2 FNUZ (AMD/Graphcore)", 5, 2, 16,
                    SE::NanAtNegativeZero, {"e5m2fnuz", "float8_e5m2fnuz", "f8e5m2fnuz"},
                    "8-bit float with bias 16, one zero, NaN = 0x80, max 57344 (AMD MI300)"));
    c.push_back(binaryFloat(
        "fp8_e4m3b11fnuz", "FP8 E4M3 B11 FNUZ (Graphcore)", 4, 3, 11, SE::NanAtNegativeZero,
        {"e4m3b11fnuz", "float8_e4m3b11fnuz", "e4m3b11", "f8e4m3b11fnuz"},
        "8-bit float with bias 11, one zero, NaN = 0x80, max 30 (TPU, Graphcore)"));
    c.push_back(binaryFloat("fp8_e3m4", "FP8 E3M4", 3, 4, 3, SE::Ieee,
                            {"e3m4", "float8_e3m4", "f8e3m4"},
                            "8-bit IEEE-style float with more precision and less range, max 15.5"));
    {
        FormatSpec e8m0 =
            binaryFloat("fp8_e8m0", "E8M0 (OCP MX scale)", 8, 0, 127, SE::NanAtAllOnes,
                        {"e8m0", "e8m0fnu", "float8_e8m0fnu", "fp8_e8m0fnu", "f8e8m0fnu"},
                        "unsigned power of two 2^(e−127), 0xFF is NaN, no zero: the "
                        "shared scale of OCP MX blocks");
        e8m0.isSigned = false;
        e8m0.exponentZeroIsSubnormal = false;
        c.push_back(std::move(e8m0));
    }
    c.push_back(binaryFloat("fp6_e3m2", "FP6 E3M2 (OCP MX)", 3, 2, 3, SE::None,
                            {"e3m2", "e3m2fn", "float6_e3m2fn", "fp6_e3m2fn", "f6e3m2fn"},
                            "OCP MXFP6 element: no infinity or NaN, max 28"));
    c.push_back(binaryFloat("fp6_e2m3", "FP6 E2M3 (OCP MX)", 2, 3, 1, SE::None,
                            {"e2m3", "e2m3fn", "float6_e2m3fn", "fp6_e2m3fn", "f6e2m3fn"},
                            "OCP MXFP6 element: no infinity or NaN, max 7.5"));
    c.push_back(binaryFloat(
        "fp4_e2m1", "FP4 E2M1 (OCP MX, NVFP4)", 2, 1, 1, SE::None,
        {"e2m1", "e2m1fn", "fp4", "float4_e2m1fn", "float4_e2m1fn_x2", "fp4_e2m1fn", "f4e2m1fn"},
        "4-bit float of MXFP4 and NVFP4: values 0, 0.5, 1, 1.5, 2, 3, 4, 6"));
    // Huawei Ascend's 4-bit float: one exponent bit, so eight evenly spaced values from 0 to
    // 1.75 (four of them subnormal) where E2M1 spreads its eight from 0 to 6.
    c.push_back(binaryFloat("fp4_e1m2", "FP4 E1M2 (Ascend)", 1, 2, 1, SE::None,
                            {"e1m2", "e1m2fn", "float4_e1m2fn", "fp4_e1m2fn", "f4e1m2fn"},
                            "4-bit float of Huawei Ascend: values 0, 0.25, 0.5, … 1.75, no "
                            "infinity or NaN"));
    {
        FormatSpec fp80 = binaryFloat(
            "fp80", "FP80 (x87 extended)", 15, 63, 16383, SE::Ieee,
            {"float80", "x87", "extended", "longdouble", "long_double", "binary64x", "f80"},
            "x87 80-bit extended precision with an explicit integer bit: "
            "long double on x86");
        fp80.explicitIntegerBit = true;
        c.push_back(std::move(fp80));
    }
    c.push_back(binaryFloat("fp128", "FP128 (IEEE binary128)", 15, 112, 16383, SE::Ieee,
                            {"float128", "binary128", "quad", "__float128", "f128"},
                            "IEEE 754 quadruple precision: __float128, long double on AArch64"));
    c.push_back(
        integerFormat("int8", "INT8 (quantized)", 8, true, {"qint8", "i8", "s8"},
                      "8-bit symmetric quantization: round(x / scale) clamped to [−128, 127]"));
    c.push_back(
        integerFormat("int4", "INT4 (quantized)", 4, true, {"qint4", "i4", "s4"},
                      "4-bit quantization (GPTQ, AWQ): round(x / scale) clamped to [−8, 7]"));
    c.push_back(integerFormat("int2", "INT2 (quantized)", 2, true, {"i2", "s2"},
                              "2-bit quantization: round(x / scale) clamped to [−2, 1]"));
    c.push_back(integerFormat("uint8", "UINT8 (quantized)", 8, false, {"quint8", "u8"},
                              "8-bit unsigned quantization: round(x / scale) clamped to [0, 255]"));
    c.push_back(integerFormat("uint4", "UINT4 (quantized)", 4, false, {"quint4", "u4"},
                              "4-bit unsigned quantization: round(x / scale) clamped to [0, 15]"));
    c.push_back(nf4Format());
    return c;
}

std::string normalizedName(std::string_view name) {
    std::string key = toLower(trim(name));
    for (std::string_view prefix :
         {"torch.", "np.", "numpy.", "jnp.", "jax.numpy.", "ml_dtypes."}) {
        if (key.starts_with(prefix)) {
            key.erase(0, prefix.size());
            break;
        }
    }
    return key;
}

const FormatSpec* findBuiltin(std::string_view key) {
    for (const FormatSpec& spec : builtinFormats()) {
        if (spec.id == key)
            return &spec;
        for (const std::string& alias : spec.aliases)
            if (alias == key)
                return &spec;
    }
    return nullptr;
}

// Reads an unsigned decimal number at `pos`; nullopt when there is none or it overflows.
std::optional<int> readNumber(std::string_view text, std::size_t& pos) {
    int value = 0;
    const char* begin = text.data() + pos;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec != std::errc() || ptr == begin || *begin == '-' || *begin == '+')
        return std::nullopt;
    pos += static_cast<std::size_t>(ptr - begin);
    return value;
}

FormatLookup fail(std::string message) {
    return FormatLookup{std::nullopt, std::move(message)};
}

constexpr const char* kSpecHelp =
    "expected a built-in id (see `fpx formats`) or a spec such as e5m10, e4m3fn, e5m2fnuz, "
    "e4m3b11fnuz, e8m0fnu, e3m2f, int6, uint3, a P3109 format such as binary8p3se, or a "
    "posit such as posit16 or posit<12,1>";

FormatLookup parseIntegerSpec(std::string_view key, std::string_view original) {
    const bool isSigned = !key.starts_with("u");
    std::size_t pos = isSigned ? 3 : 4;
    const auto bits = readNumber(key, pos);
    if (!bits || pos != key.size())
        return fail("unknown format '" + std::string(original) + "': " + kSpecHelp);
    if (*bits < (isSigned ? 2 : 1) || *bits > (isSigned ? 64 : 63))
        return fail("format '" + std::string(original) + "': integer width must be " +
                    (isSigned ? "2 to 64" : "1 to 63") + " bits");
    FormatSpec s =
        integerFormat(std::string(key),
                      std::string(isSigned ? "INT" : "UINT") + std::to_string(*bits) + " (custom)",
                      *bits, isSigned, {}, "custom integer quantization format");
    s.isCustom = true;
    return FormatLookup{std::move(s), {}};
}

FormatLookup parseFloatSpec(std::string_view key, std::string_view original) {
    const std::string name(original);
    std::size_t pos = 1; // after 'e'
    const auto e = readNumber(key, pos);
    if (!e || pos >= key.size() || key[pos] != 'm')
        return fail("unknown format '" + name + "': " + kSpecHelp);
    ++pos;
    const auto m = readNumber(key, pos);
    if (!m)
        return fail("format '" + name + "': expected the number of mantissa bits after 'm'");
    std::optional<int> bias;
    if (pos < key.size() && key[pos] == 'b') {
        ++pos;
        bool negativeBias = false;
        if (pos < key.size() && key[pos] == '-') {
            negativeBias = true;
            ++pos;
        }
        bias = readNumber(key, pos);
        if (!bias)
            return fail("format '" + name + "': expected the exponent bias after 'b'");
        if (negativeBias)
            bias = -*bias;
    }
    const std::string_view suffix = key.substr(pos);
    SpecialEncoding specials = SpecialEncoding::Ieee;
    bool isSigned = true;
    if (suffix == "fn")
        specials = SpecialEncoding::NanAtAllOnes;
    else if (suffix == "fnuz")
        specials = SpecialEncoding::NanAtNegativeZero;
    else if (suffix == "fnu") {
        specials = SpecialEncoding::NanAtAllOnes;
        isSigned = false;
    } else if (suffix == "f")
        specials = SpecialEncoding::None;
    else if (!suffix.empty())
        return fail("format '" + name + "': unknown suffix '" + std::string(suffix) +
                    "' (use fn, fnuz, fnu or f)");

    if (*e < 1 || *e > 15)
        return fail("format '" + name + "': exponent bits must be between 1 and 15");
    if (*m > 112)
        return fail("format '" + name + "': mantissa bits must be at most 112");
    if ((isSigned ? 1 : 0) + *e + *m > 128)
        return fail("format '" + name + "': more than 128 bits in all");
    if (specials == SpecialEncoding::Ieee && (*e < 2 || *m < 1))
        return fail("format '" + name +
                    "': an IEEE-style format needs at least 2 exponent bits and 1 mantissa bit "
                    "(for ∞ and NaN); add a suffix fn, fnuz, fnu or f");
    if (*e + *m < 2)
        return fail("format '" + name + "': needs at least 2 exponent and mantissa bits in all");
    const int defaultBias =
        specials == SpecialEncoding::NanAtNegativeZero ? (1 << (*e - 1)) : (1 << (*e - 1)) - 1;
    const int b = bias.value_or(defaultBias);
    if (b < -32768 || b > 32768)
        return fail("format '" + name + "': bias must be between -32768 and 32768");

    // Canonical id: the short form, with the bias spelled out when it is not the default or
    // when the short form is a built-in's alias (e4m3 is OCP E4M3, e4m3b7 the IEEE-style one).
    const std::string core = "e" + std::to_string(*e) + "m" + std::to_string(*m);
    std::string id = core + (b != defaultBias ? "b" + std::to_string(b) : "") + std::string(suffix);
    if (findBuiltin(id) != nullptr)
        id = core + "b" + std::to_string(b) + std::string(suffix);

    FormatSpec s = binaryFloat(id, "", *e, *m, b, specials, {}, "custom binary float format");
    s.isSigned = isSigned;
    // Unsigned with no mantissa (E8M0 style): every exponent field is a power of two.
    s.exponentZeroIsSubnormal = !(isSigned == false && *m == 0);
    s.isCustom = true;
    s.displayName = fieldsName(s) + " (custom)";
    return FormatLookup{std::move(s), {}};
}

// IEEE P3109's binary<K>p<P><s|u><e|f> (docs/behaviour.md, "IEEE P3109 formats"): K bits of
// precision P, signed or unsigned, extended (with ∞) or finite. Signed: K − P exponent bits, bias
// 2^(K−P−1), NaN at 100…0 and no −0; unsigned: K − P + 1 exponent bits, bias 2^(K−P), NaN at 11…11.
// The trailing significand has P − 1 bits; an extended format's ∞ is the code of each sign just
// below the NaN. Ties to even go to the even code, also at P = 1.
FormatLookup parseP3109Spec(std::string_view key, std::string_view original) {
    const std::string name(original);
    const std::string help =
        "format '" + name +
        "': a P3109 format is binary<K>p<P> then s or u (signed, unsigned) then e or f "
        "(extended, finite), such as binary8p3se or binary8p4uf";
    std::size_t pos = std::string_view("binary").size();
    const auto k = readNumber(key, pos);
    if (!k || pos >= key.size() || key[pos] != 'p')
        return fail(help);
    ++pos;
    const auto p = readNumber(key, pos);
    if (!p || key.size() != pos + 2)
        return fail(help);
    const char signedness = key[pos];
    const char domain = key[pos + 1];
    if ((signedness != 's' && signedness != 'u') || (domain != 'e' && domain != 'f'))
        return fail(help);
    const bool isSigned = signedness == 's';
    if (*k < 3 || *k > 16)
        return fail("format '" + name + "': P3109 formats have K = 3 to 16 bits");
    const int maxPrecision = isSigned ? *k - 1 : *k;
    if (*p < 1 || *p > maxPrecision)
        return fail("format '" + name + "': the precision P of a " +
                    std::string(isSigned ? "signed" : "unsigned") + " K = " + std::to_string(*k) +
                    " format is 1 to " + std::to_string(maxPrecision));
    const int exponentBits = isSigned ? *k - *p : *k - *p + 1;
    const std::string id =
        "binary" + std::to_string(*k) + "p" + std::to_string(*p) + signedness + domain;
    FormatSpec s = binaryFloat(
        id, "P3109 " + id, exponentBits, *p - 1, 1 << (exponentBits - 1),
        isSigned ? SpecialEncoding::NanAtNegativeZero : SpecialEncoding::NanAtAllOnes, {},
        std::string("IEEE P3109 ") + (isSigned ? "signed" : "unsigned") + ", " +
            (domain == 'e' ? "extended (±∞)" : "finite (no ∞)") +
            " format for machine learning: one zero, one NaN");
    s.isSigned = isSigned;
    s.infinityAtTop = domain == 'e';
    s.evenCodeTies = *p == 1; // with fraction bits the even code is the even significand
    return FormatLookup{std::move(s), {}};
}

// posit<n> (es = 2, the 2022 standard), posit<n>es<es> and posit<n,es>; the canonical id is
// posit<n> for es = 2 and posit<n>es<es> otherwise, a spelling with no comma in it, so that it
// stands in comma-separated lists. es ≤ 5 keeps maxpos (2^((n − 2) × 2^es)) within a double's
// range, where plots carry values.
FormatLookup parsePositSpec(std::string_view key, std::string_view original) {
    const std::string name(original);
    const std::string help = "format '" + name +
                             "': a posit is posit<n> (es = 2, Posit Standard 2022), "
                             "posit<n>es<es> or posit<n,es>, such as posit8, posit16es1 or "
                             "posit<12,1>";
    std::size_t pos = std::string_view("posit").size();
    const bool angled = pos < key.size() && key[pos] == '<';
    if (angled)
        ++pos;
    const auto n = readNumber(key, pos);
    if (!n)
        return fail(help);
    std::optional<int> es = 2;
    if (angled) {
        if (pos >= key.size() || key[pos] != ',')
            return fail(help);
        ++pos;
        es = readNumber(key, pos);
        if (!es || pos + 1 != key.size() || key[pos] != '>')
            return fail(help);
    } else if (pos < key.size()) {
        if (key.substr(pos, 2) != "es")
            return fail(help);
        pos += 2;
        es = readNumber(key, pos);
        if (!es || pos != key.size())
            return fail(help);
    }
    if (*n < 3 || *n > 32)
        return fail("format '" + name + "': posits here have n = 3 to 32 bits");
    if (*es > 5)
        return fail("format '" + name + "': posits here have es = 0 to 5 exponent bits");
    const std::string id =
        "posit" + std::to_string(*n) + (*es == 2 ? std::string() : "es" + std::to_string(*es));
    FormatSpec s;
    s.id = id;
    s.displayName = "Posit" + std::to_string(*n) + " (es = " + std::to_string(*es) + ")";
    s.description = *es == 2 ? "Posit Standard (2022) " + std::to_string(*n) +
                                   "-bit posit: tapered precision, one zero, NaR"
                             : "posit<" + std::to_string(*n) + "," + std::to_string(*es) +
                                   ">: tapered precision, one zero, NaR (es ≠ 2: not the "
                                   "2022 standard's)";
    s.kind = FormatKind::Posit;
    s.positBits = *n;
    s.positExponentBits = *es;
    return FormatLookup{std::move(s), {}};
}

} // namespace

const std::vector<FormatSpec>& builtinFormats() {
    static const std::vector<FormatSpec> catalogue = makeCatalogue();
    return catalogue;
}

ExactValue defaultIntegerScale(int bits, bool isSigned) {
    const BigInt qmax = isSigned ? (BigInt(1) << (bits - 1)) - 1 : (BigInt(1) << bits) - 1;
    return ExactValue::fraction(false, 1, qmax);
}

FormatLookup findFormat(std::string_view name) {
    const std::string key = normalizedName(name);
    if (key.empty())
        return fail("empty format name");
    if (const FormatSpec* builtin = findBuiltin(key))
        return FormatLookup{*builtin, {}};
    // ml_dtypes' float8_e4m3 is the IEEE-style E4M3 (with ∞, max 240), not OCP E4M3FN.
    if (key == "float8_e4m3" || key == "f8e4m3")
        return parseFloatSpec("e4m3b7", name);
    if (key.starts_with("int") || key.starts_with("uint"))
        return parseIntegerSpec(key, trim(name));
    if (key.starts_with("binary") && key.size() > 6 && key[6] >= '0' && key[6] <= '9')
        return parseP3109Spec(key, trim(name));
    if (key.starts_with("e") && key.size() > 1 && key[1] >= '0' && key[1] <= '9')
        return parseFloatSpec(key, trim(name));
    if (key.starts_with("posit"))
        return parsePositSpec(key, trim(name));
    return fail("unknown format '" + std::string(trim(name)) + "': " + kSpecHelp);
}

const FormatSpec& fp32Spec() {
    static const FormatSpec spec = *findFormat("fp32").spec; // immutable after first use
    return spec;
}

const FormatSpec& fp64Spec() {
    static const FormatSpec spec = *findFormat("fp64").spec;
    return spec;
}

std::vector<std::pair<std::string, std::string>> shortSpecsTakenByBuiltins() {
    std::vector<std::pair<std::string, std::string>> taken;
    for (const FormatSpec& spec : builtinFormats()) {
        for (const std::string& alias : spec.aliases) {
            // e<digits>m<digits>[b<digits>], no suffix: what the custom rule would read as an
            // IEEE-style format (e4m3b11 is Graphcore's fnuz format, not IEEE with bias 11).
            std::size_t pos = 1;
            if (!alias.starts_with("e") || !readNumber(alias, pos) || pos >= alias.size() ||
                alias[pos] != 'm')
                continue;
            ++pos;
            if (!readNumber(alias, pos))
                continue;
            if (pos < alias.size() && alias[pos] == 'b') {
                ++pos;
                if (!readNumber(alias, pos))
                    continue;
            }
            if (pos == alias.size())
                taken.emplace_back(alias, spec.id);
        }
    }
    return taken;
}

std::string_view specialsSuffix(const FormatSpec& spec) {
    switch (spec.specials) {
    case SpecialEncoding::Ieee:
        return "";
    case SpecialEncoding::NanAtAllOnes:
        return spec.isSigned ? "fn" : "fnu";
    case SpecialEncoding::NanAtNegativeZero:
        return "fnuz";
    case SpecialEncoding::None:
        return "f";
    }
    return "";
}

std::string specString(const FormatSpec& spec) {
    switch (spec.kind) {
    case FormatKind::Integer:
        return (spec.isSigned ? "int" : "uint") + std::to_string(spec.integerBits);
    case FormatKind::Lookup:
        return {};
    case FormatKind::Posit:
        return spec.id;
    case FormatKind::BinaryFloat:
        break;
    }
    // P3109's ∞ below the NaN and its ties at precision 1 have no e<E>m<M> spelling: its id.
    if (spec.infinityAtTop || spec.evenCodeTies)
        return spec.id;
    // Always with the bias, so that the string never names a built-in through its alias.
    return "e" + std::to_string(spec.exponentBits) + "m" + std::to_string(spec.fractionBits) + "b" +
           std::to_string(spec.bias) + std::string(specialsSuffix(spec));
}

bool sameEncoding(const FormatSpec& a, const FormatSpec& b) {
    if (a.kind != b.kind || a.isSigned != b.isSigned)
        return false;
    switch (a.kind) {
    case FormatKind::Integer:
        return a.integerBits == b.integerBits && a.scale == b.scale;
    case FormatKind::Lookup:
        return a.table == b.table && a.scale == b.scale;
    case FormatKind::Posit:
        return a.positBits == b.positBits && a.positExponentBits == b.positExponentBits;
    case FormatKind::BinaryFloat:
        break;
    }
    return a.exponentBits == b.exponentBits && a.fractionBits == b.fractionBits &&
           a.explicitIntegerBit == b.explicitIntegerBit && a.bias == b.bias &&
           a.specials == b.specials && a.exponentZeroIsSubnormal == b.exponentZeroIsSubnormal &&
           a.infinityAtTop == b.infinityAtTop && a.evenCodeTies == b.evenCodeTies;
}

std::string fieldsName(const FormatSpec& spec) {
    if (spec.kind == FormatKind::Posit)
        return "posit n=" + std::to_string(spec.positBits) +
               " es=" + std::to_string(spec.positExponentBits);
    if (spec.kind != FormatKind::BinaryFloat)
        return spec.kind == FormatKind::Integer ? specString(spec) : spec.id;
    const std::string_view suffix = specialsSuffix(spec);
    return "e" + std::to_string(spec.exponentBits) + "m" + std::to_string(spec.fractionBits) +
           " b=" + std::to_string(spec.bias) + " " +
           (suffix.empty() ? std::string("ieee") : std::string(suffix)) +
           (spec.infinityAtTop ? " ∞" : "");
}

FormatListLookup findFormats(std::string_view commaSeparated) {
    FormatListLookup result;
    std::size_t start = 0;
    while (start <= commaSeparated.size()) {
        // A comma inside <…> belongs to the name (posit<12,1>).
        std::size_t end = start;
        for (int depth = 0; end < commaSeparated.size(); ++end) {
            const char c = commaSeparated[end];
            depth += c == '<' ? 1 : (c == '>' && depth > 0 ? -1 : 0);
            if (c == ',' && depth == 0)
                break;
        }
        const std::string_view item = trim(commaSeparated.substr(start, end - start));
        if (!item.empty()) {
            FormatLookup lookup = findFormat(item);
            if (!lookup) {
                result.error = lookup.error;
                result.specs.clear();
                return result;
            }
            result.specs.push_back(std::move(*lookup.spec));
        }
        start = end + 1;
    }
    if (result.specs.empty())
        result.error = "no format named in '" + std::string(commaSeparated) + "'";
    return result;
}

} // namespace fpx
