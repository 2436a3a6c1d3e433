// SPDX-License-Identifier: GPL-3.0-or-later
// The NaN payload rule (docs/behaviour.md, "NaN payloads") against this
// CPU's own conversions: F16C's _mm_cvtps_ph / _mm_cvtph_ps, SSE's float <-> double casts and
// x87's double <-> long double, on every FP16 NaN and on many FP32 and FP64 payloads. The
// hardware is the reference; the core's rule never sees it.
#include "fpx/exact/code_details.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/nan_payload.h"
#include "fpx/kernels/cpu_has.h"

#include "test_support.h"

#include <QTest>

#include <cfenv>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define FPX_TEST_X86 1
#endif

using namespace fpx;
using fpx::test::lookUp;

namespace {

#ifdef FPX_TEST_X86
__attribute__((target("f16c"))) std::uint16_t hardwareFloatToHalf(std::uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, 4);
    const __m128i h = _mm_cvtps_ph(_mm_set1_ps(f), _MM_FROUND_TO_NEAREST_INT);
    return static_cast<std::uint16_t>(_mm_extract_epi16(h, 0));
}

__attribute__((target("f16c"))) std::uint32_t hardwareHalfToFloat(std::uint16_t bits) {
    const __m128 f = _mm_cvtph_ps(_mm_set1_epi16(static_cast<short>(bits)));
    const float x = _mm_cvtss_f32(f);
    std::uint32_t out;
    std::memcpy(&out, &x, 4);
    return out;
}
#endif

// Volatile loads and stores keep the compiler from folding the casts: the CPU converts.
std::uint64_t hardwareFloatToDouble(std::uint32_t bits) {
    volatile float f;
    float tmp;
    std::memcpy(&tmp, &bits, 4);
    f = tmp;
    volatile double d = f;
    const double out = d;
    std::uint64_t result;
    std::memcpy(&result, &out, 8);
    return result;
}

std::uint32_t hardwareDoubleToFloat(std::uint64_t bits) {
    double tmp;
    std::memcpy(&tmp, &bits, 8);
    volatile double d = tmp;
    volatile float f = static_cast<float>(d);
    const float out = f;
    std::uint32_t result;
    std::memcpy(&result, &out, 4);
    return result;
}

Code hardwareDoubleToLongDouble(std::uint64_t bits) {
    double tmp;
    std::memcpy(&tmp, &bits, 8);
    volatile double d = tmp;
    volatile long double x = d;
    const long double out = x;
    unsigned char bytes[sizeof(long double)] = {};
    std::memcpy(bytes, &out, sizeof(long double));
    Code code = 0;
    for (int i = 9; i >= 0; --i) // x87: 10 significant bytes, little-endian
        code = (code << 8) | bytes[i];
    return code;
}

std::uint64_t hardwareLongDoubleToDouble(Code code) {
    unsigned char bytes[sizeof(long double)] = {};
    for (int i = 0; i < 10; ++i)
        bytes[i] = static_cast<unsigned char>(code >> (8 * i));
    long double tmp;
    std::memcpy(&tmp, bytes, sizeof(long double));
    volatile long double x = tmp;
    volatile double d = static_cast<double>(x);
    const double out = d;
    std::uint64_t result;
    std::memcpy(&result, &out, 8);
    return result;
}

// Every kind of NaN payload: the edges (only the quiet bit, only the lowest bit, all ones,
// the top payload bits only, the bits that a narrower format drops only) and random ones,
// of both signs, quiet and signaling.
std::vector<Code> nanCodes(const FormatSpec& spec, int randomCount) {
    const int f = spec.fractionBits;
    const Code exponent = spec.exponentFieldMax() << spec.storedSignificandBits();
    const Code fractionMask = spec.fractionMask();
    std::vector<Code> fractions = {1,
                                   Code(1) << (f - 1),
                                   (Code(1) << (f - 1)) | 1,
                                   fractionMask,
                                   fractionMask >> 1,
                                   Code(0x123),
                                   (Code(1) << (f - 1)) | 0x123,
                                   Code(1) << (f - 2)};
    if (f > 11) { // the bits below and above FP16's ten
        fractions.push_back(lowBitsMask(f - 11));
        fractions.push_back((fractionMask >> (f - 11)) << (f - 11));
    }
    std::mt19937_64 random(20260222);
    for (int i = 0; i < randomCount; ++i)
        fractions.push_back(Code(random()) & fractionMask);
    std::vector<Code> codes;
    for (Code fraction : fractions) {
        if ((fraction & fractionMask) == 0)
            continue;
        codes.push_back(exponent | (fraction & fractionMask));
        codes.push_back(spec.signBit() | exponent | (fraction & fractionMask));
    }
    return codes;
}

} // namespace

class TestNaNPayload : public QObject {
    Q_OBJECT

  private slots:
    void kinds();
    void floatToDoubleAsHardware();
    void doubleToFloatAsHardware();
    void halfAndFloatAsF16C();
    void doubleAndX87AsHardware();
    void signalingRaisesInvalid();
    void formatsWithoutPayloadKeepTheOrdinaryRule();
    void roundToFormatIsUnchanged();
    void keepNaNPayloadDescribesTheNewCode();
};

void TestNaNPayload::kinds() {
    const FormatSpec fp32 = lookUp("fp32");
    QCOMPARE(nanKind(fp32, 0x7fc00123), NaNKind::Quiet);
    QCOMPARE(nanKind(fp32, 0x7f800123), NaNKind::Signaling);
    QCOMPARE(nanKind(fp32, 0xffc00000), NaNKind::Quiet);
    QCOMPARE(nanKind(fp32, 0x7f800000), NaNKind::NotNaN); // +∞
    QCOMPARE(nanKind(fp32, 0x3f800000), NaNKind::NotNaN);
    QCOMPARE(QString::fromStdString(codeClassName(fp32, 0x7fc00123)), QString("qNaN"));
    QCOMPARE(QString::fromStdString(codeClassName(fp32, 0x7f800001)), QString("sNaN"));
    QCOMPARE(QString::fromStdString(codeClassName(fp32, 0x3f800000)), QString("normal"));
    // One NaN code, no quiet bit: just NaN.
    QCOMPARE(nanKind(lookUp("fp8_e4m3"), 0x7f), NaNKind::Single);
    QCOMPARE(nanKind(lookUp("fp8_e4m3fnuz"), 0x80), NaNKind::Single);
    QCOMPARE(nanKind(lookUp("fp8_e8m0"), 0xff), NaNKind::Single);
    QCOMPARE(QString::fromStdString(codeClassName(lookUp("fp8_e4m3"), 0x7f)), QString("nan"));
    // x87: the quiet bit is the one below the explicit integer bit.
    const FormatSpec fp80 = lookUp("fp80");
    QCOMPARE(nanKind(fp80, (Code(0x7fff) << 64) | (Code(3) << 62)), NaNKind::Quiet);
    QCOMPARE(nanKind(fp80, (Code(0x7fff) << 64) | (Code(1) << 63) | 1), NaNKind::Signaling);
}

void TestNaNPayload::floatToDoubleAsHardware() {
    const FormatSpec fp32 = lookUp("fp32");
    const FormatSpec fp64 = lookUp("fp64");
    int checked = 0;
    for (Code code : nanCodes(fp32, 4000)) {
        const auto c = convertNaNCode(fp32, code, fp64);
        QVERIFY(c.has_value());
        const std::uint64_t hardware = hardwareFloatToDouble(static_cast<std::uint32_t>(code));
        QVERIFY2(c->code == hardware,
                 qPrintable(QString("fp32 %1 → fp64: rule %2, CPU %3")
                                .arg(fpx::test::hex(fp32, code), fpx::test::hex(fp64, c->code),
                                     fpx::test::hex(fp64, hardware))));
        ++checked;
    }
    QVERIFY(checked > 8000);
}

void TestNaNPayload::doubleToFloatAsHardware() {
    const FormatSpec fp32 = lookUp("fp32");
    const FormatSpec fp64 = lookUp("fp64");
    for (Code code : nanCodes(fp64, 4000)) {
        const auto c = convertNaNCode(fp64, code, fp32);
        QVERIFY(c.has_value());
        const std::uint32_t hardware = hardwareDoubleToFloat(static_cast<std::uint64_t>(code));
        QVERIFY2(c->code == hardware,
                 qPrintable(QString("fp64 %1 → fp32: rule %2, CPU %3")
                                .arg(fpx::test::hex(fp64, code), fpx::test::hex(fp32, c->code),
                                     fpx::test::hex(fp32, hardware))));
    }
    // The example: 0x7fc00123 keeps its payload, shifted to the top of FP64's field.
    QCOMPARE(convertNaNCode(fp32, 0x7fc00123, fp64)->code, Code(0x7ff8002460000000ull));
}

void TestNaNPayload::halfAndFloatAsF16C() {
#ifndef FPX_TEST_X86
    QSKIP("F16C is an x86 instruction set");
#else
    if (!fpx::kernels::cpuHasF16c())
        QSKIP("this CPU has no F16C");
    const FormatSpec fp16 = lookUp("fp16");
    const FormatSpec fp32 = lookUp("fp32");
    // Every FP16 NaN, both ways round.
    int nans = 0;
    for (std::uint32_t h = 0; h < 0x10000; ++h) {
        if (nanKind(fp16, h) == NaNKind::NotNaN)
            continue;
        ++nans;
        const auto widened = convertNaNCode(fp16, h, fp32);
        QVERIFY(widened.has_value());
        QCOMPARE(fpx::test::hex(fp32, widened->code),
                 fpx::test::hex(fp32, hardwareHalfToFloat(static_cast<std::uint16_t>(h))));
    }
    QCOMPARE(nans, 2 * 1023); // independent count: 2 signs × (2^10 − 1) fractions
    for (Code code : nanCodes(fp32, 20000)) {
        const auto narrowed = convertNaNCode(fp32, code, fp16);
        QVERIFY(narrowed.has_value());
        QCOMPARE(fpx::test::hex(fp16, narrowed->code),
                 fpx::test::hex(fp16, hardwareFloatToHalf(static_cast<std::uint32_t>(code))));
    }
#endif
}

void TestNaNPayload::doubleAndX87AsHardware() {
#ifndef FPX_TEST_X86
    QSKIP("x87 extended precision is x86's long double");
#else
    const FormatSpec fp64 = lookUp("fp64");
    const FormatSpec fp80 = lookUp("fp80");
    for (Code code : nanCodes(fp64, 2000)) {
        const auto widened = convertNaNCode(fp64, code, fp80);
        QVERIFY(widened.has_value());
        QCOMPARE(fpx::test::hex(fp80, widened->code),
                 fpx::test::hex(fp80, hardwareDoubleToLongDouble(std::uint64_t(code))));
    }
    for (Code code : nanCodes(fp80, 2000)) {
        const Code x87 = code | (Code(1) << 63); // a canonical x87 NaN has its integer bit
        const auto narrowed = convertNaNCode(fp80, x87, fp64);
        QVERIFY(narrowed.has_value());
        QCOMPARE(fpx::test::hex(fp64, narrowed->code),
                 fpx::test::hex(fp64, hardwareLongDoubleToDouble(x87)));
    }
#endif
}

void TestNaNPayload::signalingRaisesInvalid() {
    const FormatSpec fp32 = lookUp("fp32");
    const FormatSpec fp64 = lookUp("fp64");
    for (Code code : nanCodes(fp32, 200)) {
        std::feclearexcept(FE_INVALID);
        hardwareFloatToDouble(static_cast<std::uint32_t>(code));
        const bool hardwareInvalid = std::fetestexcept(FE_INVALID) != 0;
        QCOMPARE(convertNaNCode(fp32, code, fp64)->flags.invalid, hardwareInvalid);
        QCOMPARE(hardwareInvalid, nanKind(fp32, code) == NaNKind::Signaling);
    }
}

void TestNaNPayload::formatsWithoutPayloadKeepTheOrdinaryRule() {
    const FormatSpec fp32 = lookUp("fp32");
    for (const char* id :
         {"fp8_e4m3", "fp8_e4m3fnuz", "fp8_e8m0", "fp6_e3m2", "fp4_e2m1", "int8", "nf4"})
        QVERIFY2(!convertNaNCode(fp32, 0x7fc00123, lookUp(id)), id);
    // Not a NaN, or a NaN without payload as the source: nothing to keep.
    QVERIFY(!convertNaNCode(fp32, 0x3f800000, lookUp("fp16")));
    QVERIFY(!convertNaNCode(fp32, 0x7f800000, lookUp("fp16")));
    QVERIFY(!convertNaNCode(lookUp("fp8_e4m3"), 0x7f, lookUp("fp16")));
}

void TestNaNPayload::roundToFormatIsUnchanged() {
    // The bulk kernels are verified against roundToFormat: NaN still gives the canonical code.
    QCOMPARE(fpx::test::hex(lookUp("fp16"), roundToFormat(ExactValue::nan(), lookUp("fp16")).code),
             QString("0x7e00"));
    QCOMPARE(fpx::test::hex(lookUp("fp32"), roundToFormat(ExactValue::nan(), lookUp("fp32")).code),
             QString("0x7fc00000"));
}

void TestNaNPayload::keepNaNPayloadDescribesTheNewCode() {
    const FormatSpec fp32 = lookUp("fp32");
    const FormatSpec bf16 = lookUp("bf16");
    ConversionReport report = convertAndDescribe(ExactValue::nan(), bf16);
    QVERIFY(keepNaNPayload(report, fp32, 0x7fc12345, bf16));
    // BF16 is FP32's top half: the payload's top bits are the code's top half.
    QCOMPARE(fpx::test::hex(bf16, report.conversion.code), QString("0x7fc1"));
    QCOMPARE(report.details.decoded.code, report.conversion.code);
    QCOMPARE(report.details.decoded.valueClass, ValueClass::NaN);
    ConversionReport e4m3 = convertAndDescribe(ExactValue::nan(), lookUp("fp8_e4m3"));
    QVERIFY(!keepNaNPayload(e4m3, fp32, 0x7fc12345, lookUp("fp8_e4m3")));
    QCOMPARE(fpx::test::hex(lookUp("fp8_e4m3"), e4m3.conversion.code), QString("0x7f"));
    QVERIFY(!e4m3.conversion.flags.invalid);
    // A signaling NaN into a format without payload: the ordinary code, and invalid.
    QVERIFY(keepNaNPayload(e4m3, fp32, 0x7f800001, lookUp("fp8_e4m3")));
    QCOMPARE(fpx::test::hex(lookUp("fp8_e4m3"), e4m3.conversion.code), QString("0x7f"));
    QVERIFY(e4m3.conversion.flags.invalid);
}

QTEST_APPLESS_MAIN(TestNaNPayload)
#include "tst_nan_payload.moc"
