// SPDX-License-Identifier: GPL-3.0-or-later
// The bulk conversion kernels against the exact core: every path this CPU has (each loop set
// — scalar, baseline, AVX2, AVX-512 — and the F16C / AVX512-FP16 instructions), every rounding
// mode and overflow policy, on inputs chosen where rounding decides (every FP32 exponent with
// the bit patterns just below, at and above each possible rounding position, ties with odd and
// even kept parts, specials) plus random patterns. Decoding is checked on every code of every
// format of at most 16 bits. The all-2^32 version is tst_bulk_exhaustive (label exhaustive).
#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/packed_codes.h"
#include "fpx/exact/value_parser.h"
#include "fpx/kernels/bulk_conversion.h"

#include "fpx/kernels/x86_hardware.h"
#include "interleaved_blocks.h"
#include "loop_set.h"
#include "test_support.h"

#include <QTest>

#include <algorithm>
#include <climits>
#include <cstring>
#include <functional>
#include <random>

using namespace fpx;
using namespace fpx::test;

namespace {

// The formats the issue names, some custom ones and edge cases of the kernels' conditions.
const char* const kFormats[] = {
    "fp16",         "bf16",      "tf32",        "fp8_e4m3", "fp8_e5m2",  "fp8_e4m3fnuz",
    "fp8_e5m2fnuz", "fp6_e3m2",  "fp6_e2m3",    "fp4_e2m1", "int8",      "int4",
    "nf4",          "e3m4",      "e4m3b11fnuz", "e2m1fn",   "e8m3",      "e5m6f",
    "int6",         "e1m2f",     "e8m7b126",    "e8m7fn",   "e4m3b-120", "e8m7b100",
    "e5m23",        "e8m22b126", "e3m3",        "uint8",    "fp8_e8m0",  "e5m2fn",
    "e5m2b16",      "e5m2b16fn", "e5m2b15fnuz", "e2m2",     "uint5"};

// Integer formats with scales of other shapes than the default 1/K: 2^k/K with k ≠ 0, from
// far below to far above 1 (the kernels multiply by K·2^−k and clamp in units of the scale).
const char* const kScaledIntegers[][2] = {{"int8", "4/127"},  {"int8", "2^-7"},
                                          {"int8", "2^60/3"}, {"int4", "1/5120"},
                                          {"int4", "2^-60"},  {"int6", "1048576"}};

// The format a test row names: "int8 scale 4/127" is INT8 with that scale.
FormatSpec rowFormat(const QString& row) {
    const QStringList parts = row.split(" scale ");
    FormatSpec spec = lookUp(parts.front());
    if (parts.size() == 2)
        spec.scale = *parseValue(parts.back().toStdString()).value;
    return spec;
}

// FP32 inputs where every rounding decision of a target with `fractionBits` happens.
std::vector<std::uint32_t> decisiveInputs(std::uint64_t seed) {
    std::vector<std::uint32_t> inputs;
    std::mt19937_64 random(seed);
    for (std::uint32_t sign : {0u, 0x80000000u}) {
        for (std::uint32_t exponent = 0; exponent < 256; ++exponent) {
            for (std::uint32_t shift = 1; shift <= 23; ++shift) {
                const std::uint32_t half = 1u << (shift - 1);
                const std::uint32_t lsb = shift < 23 ? (1u << shift) : 0u;
                const std::uint32_t low = static_cast<std::uint32_t>(random()) & (half - 1);
                for (std::uint32_t fraction :
                     {half, half | lsb, half - 1, half + 1, half | lsb | 1u, (half - 1) | lsb,
                      lsb | low, half | low}) {
                    inputs.push_back(sign | (exponent << 23) | (fraction & 0x7fffffu));
                }
            }
            inputs.push_back(sign | (exponent << 23));
            inputs.push_back(sign | (exponent << 23) | 0x7fffffu);
        }
    }
    for (int i = 0; i < 20000; ++i)
        inputs.push_back(static_cast<std::uint32_t>(random()));
    for (std::uint32_t special :
         {0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xffbfffffu, 0x7fffffffu,
          0xffffffffu, 0x00000001u, 0x80000001u, 0x7f7fffffu, 0xff7fffffu})
        inputs.push_back(special);
    return inputs;
}

// The loop sets of this CPU, for calling the loops directly (white box).
std::vector<const kernels::LoopSet*> loopSets() {
    std::vector<const kernels::LoopSet*> sets = {&kernels::scalarLoops(),
                                                 &kernels::baselineLoops()};
    if (kernels::hasAvx2() && kernels::avx2Loops())
        sets.push_back(kernels::avx2Loops());
    if (kernels::hasAvx512() && kernels::avx512Loops())
        sets.push_back(kernels::avx512Loops());
    return sets;
}

// check(id, options, name, encode) for every bit-exact fast path of every kFormats format in
// both overflow policies (nearest-even), and with LoopSets::Too for the bit-trick encode loops
// of every loop set of this CPU (the AVX2 ones too where AVX-512 is there), until a check fails.
using EncodeFunction = std::function<void(const std::uint32_t*, void*, std::size_t)>;
enum class LoopSets { Too, Not };
template <typename Check> void forEveryFastEncoder(LoopSets loopSetsToo, const Check& check) {
    for (const char* id : kFormats) {
        const FormatSpec target = lookUp(id);
        for (OverflowPolicy policy : kPolicies) {
            RoundingOptions options;
            options.overflow = policy;
            for (const BulkEncoder& path : BulkEncoder::allPaths(target, options)) {
                if (!path.path().bitExact || path.path().name == "scalar reference")
                    continue;
                check(id, options, QString::fromStdString(path.path().name),
                      [&](const std::uint32_t* in, void* out, std::size_t n) {
                          path.encode(in, out, n, 0);
                      });
                if (QTest::currentTestFailed())
                    return;
            }
            const auto params = encodeParams(target, options);
            if (!params || loopSetsToo == LoopSets::Not)
                continue;
            const int mode = static_cast<int>(options.mode);
            const int w = kernels::widthIndex(packedBytes(target));
            constexpr int kCached = static_cast<int>(kernels::OutputStores::Cached);
            const auto checkLoop = [&](const QString& name, kernels::LoopSet::EncodeLoop loop) {
                check(id, options, name, [&](const std::uint32_t* in, void* out, std::size_t n) {
                    loop(*params, in, out, n, 0, 0);
                });
                return !QTest::currentTestFailed();
            };
            for (const kernels::LoopSet* set : loopSets()) {
                if (!checkLoop(QString("bit trick (%1)").arg(set->isaName),
                               set->encode[kCached][mode][static_cast<int>(params->kind)][w]))
                    return;
                if (kernels::symmetricSpecials(*params, options.mode) &&
                    !checkLoop(QString("bit trick, symmetric specials (%1)").arg(set->isaName),
                               set->encodeSymmetric[kCached][mode][w]))
                    return;
            }
        }
    }
}

std::uint32_t packedAt(const std::vector<std::uint8_t>& bytes, std::size_t i, int width) {
    return readPackedCode(bytes.data(), width, i);
}

QString describe(const char* id, RoundingMode mode, OverflowPolicy policy) {
    return QString("%1 %2/%3")
        .arg(id, QString::fromStdString(std::string(roundingModeId(mode))),
             QString::fromStdString(std::string(overflowPolicyId(policy))));
}

} // namespace

class TestBulkConversion : public QObject {
    Q_OBJECT

  private slots:
    void encodeMatchesCore_data();
    void encodeMatchesCore();
    void decodeMatchesCore_data();
    void decodeMatchesCore();
    void everyIssueFormatHasAFastPath();
    void breakpointsComeFirstWhereNoHandWrittenEncoderApplies();
    void everyNaNAndInfinity();
    void aLoneSpecialAmongFiniteInputs();
    void byteEncodersMatchElementCodeForMadeUpAnswers();
    void signRuleFormsMatchTheGeneralForm();
    void bucketLookupMatchesLookupElement();
    void lookupLoopsMatchLookupElement();
    void interleavedBlocksVisitEveryBlockOnce();
    void hardwareUseIsRespected();
    void bf16HardwareDiffersOnlyOnSubnormals();
    void stochasticRoundingIsReproducibleAcrossBatches();
    void outputWidthsAndOffsets();
    void largeOutputsStreamTheSameCodes();
};

void TestBulkConversion::encodeMatchesCore_data() {
    QTest::addColumn<QString>("id");
    for (const char* id : kFormats)
        QTest::newRow(id) << id;
    for (const auto& [id, scale] : kScaledIntegers) {
        const QString row = QString("%1 scale %2").arg(id, scale);
        QTest::newRow(qPrintable(row)) << row;
    }
}

void TestBulkConversion::encodeMatchesCore() {
    QFETCH(QString, id);
    const FormatSpec target = rowFormat(id);
    if (id.contains(" scale ")) { // the scaled rows are there for the integer bit trick
        const auto encoder = BulkEncoder::create(target, RoundingOptions{});
        QVERIFY2(encoder && encoder->path().name.rfind("bit trick", 0) == 0,
                 qPrintable(id + ": not by the bit trick"));
    }
    const std::vector<std::uint32_t> inputs = decisiveInputs(std::hash<QString>{}(id));
    const int width = packedBytes(target);
    std::vector<std::uint8_t> expected(inputs.size() * static_cast<std::size_t>(width));
    std::vector<std::uint8_t> got(expected.size());
    const std::uint64_t seed = 1234;
    std::size_t comparisons = 0;
    for (const ModeCase& modeCase : kModes) {
        if (modeCase.randomBits != 0)
            continue; // one stochastic row: the kernels draw their own bits from the seed
        for (OverflowPolicy policy : kPolicies) {
            RoundingOptions options;
            options.mode = modeCase.mode;
            options.overflow = policy;
            const QString what = describe(qPrintable(id), options.mode, policy);
            encodeWithExactCore(target, options, inputs.data(), expected.data(), inputs.size(),
                                seed, 0);
            auto check = [&](const QString& path) {
                for (std::size_t i = 0; i < inputs.size(); ++i)
                    if (packedAt(got, i, width) != packedAt(expected, i, width))
                        QFAIL(qPrintable(QString("%1 %2: fp32 0x%3 gave 0x%4, exact core 0x%5")
                                             .arg(what, path)
                                             .arg(inputs[i], 8, 16, QChar('0'))
                                             .arg(packedAt(got, i, width), 0, 16)
                                             .arg(packedAt(expected, i, width), 0, 16)));
                comparisons += inputs.size();
            };
            // Every public path (hardware included) that claims to be exact.
            const std::vector<BulkEncoder> paths = BulkEncoder::allPaths(target, options, seed);
            for (const BulkEncoder& path : paths) {
                if (!path.path().bitExact)
                    continue;
                std::fill(got.begin(), got.end(), 0xa5);
                path.encode(inputs.data(), got.data(), inputs.size(), 0);
                check(QString::fromStdString(path.path().name));
            }
            // Every loop set, called directly, with ordinary stores and with streaming stores;
            // the streaming loops write 0–60 bytes past a 64-byte boundary, so that their
            // head, whole lines and tail all run, and nothing may be written outside.
            const std::size_t bytes = got.size();
            std::vector<std::uint8_t> padded(bytes + 192);
            const std::size_t toBoundary =
                (64 - reinterpret_cast<std::uintptr_t>(padded.data()) % 64) % 64;
            // `loop(destination)` runs one loop over all inputs.
            const auto runLoop = [&](const std::function<void(void*)>& loop, const QString& name,
                                     kernels::OutputStores stores) {
                if (stores == kernels::OutputStores::Cached) {
                    std::fill(got.begin(), got.end(), 0x5a);
                    loop(got.data());
                    check(name);
                    return;
                }
                // One offset per mode (0, 4 or 60 bytes past a boundary) keeps the default
                // suite short; across the modes all three run.
                constexpr std::size_t kOffsets[] = {0, 4, 60};
                const std::size_t offset = kOffsets[static_cast<std::size_t>(options.mode) % 3];
                std::fill(padded.begin(), padded.end(), 0x5a);
                std::uint8_t* const destination = padded.data() + toBoundary + 64 + offset;
                loop(destination);
                kernels::streamingFence();
                QVERIFY2(destination[-1] == 0x5a && destination[bytes] == 0x5a,
                         qPrintable(name + ": wrote outside the output"));
                std::copy(destination, destination + bytes, got.begin());
                check(QString("%1, streaming stores at line offset %2").arg(name).arg(offset));
            };
            const int mode = static_cast<int>(options.mode);
            const int w = kernels::widthIndex(width);
            constexpr kernels::OutputStores kBothStores[] = {kernels::OutputStores::Cached,
                                                             kernels::OutputStores::Streaming};
            if (const auto params = encodeParams(target, options)) {
                for (const kernels::LoopSet* set : loopSets()) {
                    for (const kernels::OutputStores stores : kBothStores) {
                        const int s = static_cast<int>(stores);
                        const auto run = [&](kernels::LoopSet::EncodeLoop loop) {
                            return [&, loop](void* destination) {
                                loop(*params, inputs.data(), destination, inputs.size(), seed, 0);
                            };
                        };
                        runLoop(run(set->encode[s][mode][static_cast<int>(params->kind)][w]),
                                QString("bit trick (%1)").arg(set->isaName), stores);
                        if (kernels::symmetricSpecials(*params, options.mode))
                            runLoop(run(set->encodeSymmetric[s][mode][w]),
                                    QString("bit trick, symmetric specials (%1)").arg(set->isaName),
                                    stores);
                    }
                }
            } else if (const auto params = lookupParams(target, options)) {
                for (const kernels::LoopSet* set : loopSets())
                    for (const kernels::OutputStores stores : kBothStores)
                        runLoop(
                            [&](void* destination) {
                                set->lookup[static_cast<int>(stores)][w](
                                    *params, inputs.data(), destination, inputs.size());
                            },
                            QString("breakpoints (%1)").arg(set->isaName), stores);
            } else {
                QVERIFY2(paths.empty() || options.mode == RoundingMode::Stochastic,
                         qPrintable(what + ": a path without parameters"));
            }
        }
    }
    qInfo("%s: %zu comparisons agree", qPrintable(id), comparisons);
}

void TestBulkConversion::decodeMatchesCore_data() {
    encodeMatchesCore_data();
}

void TestBulkConversion::decodeMatchesCore() {
    QFETCH(QString, id);
    const FormatSpec source = rowFormat(id);
    const int width = packedBytes(source);
    std::vector<std::uint8_t> codes;
    std::mt19937_64 random(7);
    // Every code of a format up to 16 bits, repeated to at least 1024 elements so that the
    // vector loops run whole blocks even for FP4; a random sample of wider formats.
    const std::size_t count =
        source.totalBits() <= 16 ? std::max(std::size_t{1} << source.totalBits(), std::size_t{1024})
                                 : std::size_t{1} << 18;
    codes.resize(count * static_cast<std::size_t>(width));
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint64_t code = source.totalBits() <= 16
                                       ? i % (std::size_t{1} << source.totalBits())
                                       : (random() & static_cast<std::uint64_t>(source.codeMask()));
        writePackedCode(codes.data(), width, i, code);
    }
    const std::pair<RoundingMode, OverflowPolicy> cases[] = {
        {RoundingMode::NearestEven, OverflowPolicy::Ieee},
        {RoundingMode::NearestEven, OverflowPolicy::Saturate},
        {RoundingMode::TowardZero, OverflowPolicy::Ieee},
        {RoundingMode::TowardPositive, OverflowPolicy::Saturate}};
    for (const auto& [mode, policy] : cases) {
        RoundingOptions options;
        options.mode = mode;
        options.overflow = policy;
        std::vector<std::uint32_t> expected(count), got(count);
        decodeWithExactCore(source, options, codes.data(), expected.data(), count);
        const std::vector<BulkDecoder> paths = BulkDecoder::allPaths(source, options);
        QVERIFY2(!paths.empty() || source.totalBits() > 16, "no decode path"); // a table at least
        const auto check = [&](const QString& path, const std::uint32_t* decoded) {
            for (std::size_t i = 0; i < count; ++i)
                if (decoded[i] != expected[i])
                    QFAIL(qPrintable(
                        QString("%1 %2: code 0x%3 gave 0x%4, exact core 0x%5")
                            .arg(describe(qPrintable(id), options.mode, options.overflow), path)
                            .arg(packedAt(codes, i, width), 0, 16)
                            .arg(decoded[i], 8, 16, QChar('0'))
                            .arg(expected[i], 8, 16, QChar('0'))));
        };
        for (const BulkDecoder& path : paths) {
            std::fill(got.begin(), got.end(), 0xdeadbeef);
            path.decode(codes.data(), got.data(), count);
            check(QString::fromStdString(path.path().name), got.data());
        }
        // Every loop set's bit-trick and table loops, called directly, with ordinary and with
        // streaming stores; the destination starts 0–15 elements past a 64-byte boundary, so the
        // streaming loop's head, whole lines and tail all run.
        const auto floatParams = floatDecodeParams(source, options);
        const auto widen = widenParams(source, options);
        const std::vector<std::uint32_t> table =
            width <= 2 ? decodeTable(source, options) : std::vector<std::uint32_t>{};
        const auto mask = static_cast<std::uint32_t>(source.codeMask());
        // A guard element before and after; the first 64-byte boundary at least one element in.
        std::vector<std::uint32_t> padded(count + 48);
        const std::size_t toBoundary =
            (16 - (reinterpret_cast<std::uintptr_t>(padded.data()) % 64) / 4) % 16;
        std::uint32_t* const aligned = padded.data() + toBoundary + 16;
        for (const kernels::LoopSet* set : loopSets()) {
            // (name, loop for the stores index)
            std::vector<std::pair<QString, std::function<void(int, std::uint32_t*)>>> loops;
            if (floatParams)
                loops.emplace_back("bit trick", [&](int s, std::uint32_t* destination) {
                    set->floatDecode[s][kernels::widthIndex(width)](*floatParams, codes.data(),
                                                                    destination, count);
                });
            if (widen)
                loops.emplace_back("shift", [&](int s, std::uint32_t* destination) {
                    set->widen[s][width == 2 ? 0 : 1](*widen, codes.data(), destination, count);
                });
            if (!table.empty())
                loops.emplace_back("table", [&](int s, std::uint32_t* destination) {
                    set->table[s][width - 1](table.data(), mask, codes.data(), destination, count);
                });
            for (const auto& [name, loop] : loops) {
                for (const kernels::OutputStores stores :
                     {kernels::OutputStores::Cached, kernels::OutputStores::Streaming}) {
                    for (std::size_t offset : {0, 1, 7, 15}) {
                        std::fill(padded.begin(), padded.end(), 0xdeadbeef);
                        std::uint32_t* const destination = aligned + offset;
                        const QString what =
                            QString("%1 (%2, %3 stores, offset %4)")
                                .arg(name, set->isaName,
                                     stores == kernels::OutputStores::Streaming ? "streaming"
                                                                                : "cached")
                                .arg(offset);
                        loop(static_cast<int>(stores), destination);
                        kernels::streamingFence();
                        check(what, destination);
                        QVERIFY2(destination[count] == 0xdeadbeef && destination[-1] == 0xdeadbeef,
                                 qPrintable(what + ": wrote outside the output"));
                    }
                }
            }
        }
    }
}

void TestBulkConversion::everyNaNAndInfinity() {
    // NaNs (every third payload, and the extremes) and ±∞ through every path, both policies, in
    // nearest-even: the byte encoders let the overflow test catch NaN and ∞ where their answers
    // are the overflow answer, which holds only if the normal formula overflows for all of them.
    std::vector<std::uint32_t> inputs;
    for (std::uint32_t m = 0x7f800000u; m < 0x7fffffffu; m += 3)
        for (std::uint32_t sign : {0u, 0x80000000u})
            inputs.push_back(m | sign);
    for (std::uint32_t bits : {0x7fffffffu, 0xffffffffu, 0x7f800001u, 0xff800001u})
        inputs.push_back(bits);
    std::vector<std::uint8_t> got;
    // Public paths only: running every loop set over millions of inputs as well would
    // multiply the test's time by their number (the lone specials below reach the loop sets).
    forEveryFastEncoder(LoopSets::Not, [&](const char* id, const RoundingOptions& options,
                                           const QString& name, const EncodeFunction& encode) {
        const FormatSpec target = lookUp(id);
        const int width = packedBytes(target);
        // The exact core's answers: one per class and sign, whatever the payload.
        const std::uint32_t classes[4] = {0x7fc00000u, 0xffc00000u, 0x7f800000u, 0xff800000u};
        std::vector<std::uint8_t> answers(4 * static_cast<std::size_t>(width));
        encodeWithExactCore(target, options, classes, answers.data(), 4, 0, 0);
        got.assign(inputs.size() * static_cast<std::size_t>(width), 0);
        encode(inputs.data(), got.data(), inputs.size());
        for (std::size_t i = 0; i < inputs.size(); ++i) {
            const int kind = ((inputs[i] & 0x7fffffffu) == 0x7f800000u ? 2 : 0) +
                             static_cast<int>(inputs[i] >> 31);
            const std::uint32_t expected = packedAt(answers, static_cast<std::size_t>(kind), width);
            if (packedAt(got, i, width) != expected)
                QFAIL(qPrintable(QString("%1 %2: fp32 0x%3 gave 0x%4, exact core 0x%5")
                                     .arg(describe(id, options.mode, options.overflow), name)
                                     .arg(inputs[i], 8, 16, QChar('0'))
                                     .arg(packedAt(got, i, width), 0, 16)
                                     .arg(expected, 0, 16)));
        }
    });
}

void TestBulkConversion::aLoneSpecialAmongFiniteInputs() {
    // One NaN or ±∞ among 63 finite inputs, at every position of a 64-input block: the vector
    // encoders test a block's largest magnitude once and give NaN and ±∞ their own answers only
    // in blocks that hold one; a block with ∞ but no NaN (or NaN but no ∞) must still get both
    // right. (Cached stores: the streaming loops share the block code, and encodeMatchesCore
    // runs them.)
    const std::uint32_t specials[] = {0x7f800000u, 0xff800000u, 0x7fc00000u,
                                      0xffc00001u, 0x7f800001u, 0xffffffffu};
    std::vector<std::uint32_t> inputs;
    std::mt19937 random(5);
    std::normal_distribution<float> finite(0.0f, 2.0f);
    for (std::size_t position = 0; position < 64; ++position)
        for (std::size_t i = 0; i < 64; ++i) {
            std::uint32_t bits;
            const float value = finite(random);
            std::memcpy(&bits, &value, sizeof bits);
            inputs.push_back(i == position ? specials[position % std::size(specials)] : bits);
        }
    std::vector<std::uint8_t> got, expected;
    std::string expectedFor;
    forEveryFastEncoder(LoopSets::Too, [&](const char* id, const RoundingOptions& options,
                                           const QString& name, const EncodeFunction& encode) {
        const FormatSpec target = lookUp(id);
        const int width = packedBytes(target);
        // The exact core's answers, once per format and policy.
        const std::string key = std::string(id) + std::string(overflowPolicyId(options.overflow));
        if (key != expectedFor) {
            expected.assign(inputs.size() * static_cast<std::size_t>(width), 0);
            encodeWithExactCore(target, options, inputs.data(), expected.data(), inputs.size(), 0,
                                0);
            expectedFor = key;
        }
        got.assign(expected.size(), 0);
        encode(inputs.data(), got.data(), inputs.size());
        for (std::size_t i = 0; i < inputs.size(); ++i)
            if (packedAt(got, i, width) != packedAt(expected, i, width))
                QFAIL(qPrintable(QString("%1 %2: fp32 0x%3 (position %4 of its block) gave 0x%5, "
                                         "exact core 0x%6")
                                     .arg(describe(id, options.mode, options.overflow), name)
                                     .arg(inputs[i], 8, 16, QChar('0'))
                                     .arg(i % 64)
                                     .arg(packedAt(got, i, width), 0, 16)
                                     .arg(packedAt(expected, i, width), 0, 16)));
    });
}

void TestBulkConversion::bucketLookupMatchesLookupElement() {
    // The bucketed breakpoints (AVX-512) against the one-element definition, on made-up tables
    // shaped like NF4's (levels spread over [−a, a], breakpoints at their midpoints) with 1 to
    // 31 breakpoints, a NaN code per sign; inputs at and next to every breakpoint, random bit
    // patterns and the specials. Tables no bucket layout fits must be refused, never wrong.
    // The bisection form (lookupElementBisect) is checked on every table and the buckets'
    // one-element form (bucketLookupElement) on every bucketed one, with or without AVX-512,
    // up to the full 32 breakpoints.
    std::mt19937_64 random(11);
    std::uniform_real_distribution<float> jitter(-0.3f, 0.3f);
    int bucketed = 0, bisected = 0;
    // The AVX-512 loop clamps bucket indices by words where the units fit 16 bits (shift ≥ 15)
    // and by dwords otherwise: both must be reached.
    int wordClamped = 0, dwordClamped = 0;
    // Tables 200 … 239 crowd their levels into 2^−10 … 2^−9 of one binade, of either sign:
    // their buckets are narrower than 2^−8 binade (shift < 15).
    constexpr int kSpreadTables = 200, kTables = 240;
    for (int table = 0; table < kTables; ++table) {
        kernels::LookupParams p;
        const bool crowded = table >= kSpreadTables;
        p.count = 1 + static_cast<std::uint32_t>(random() % (crowded ? 12 : 32));
        const float span = std::ldexp(1.0f, static_cast<int>(random() % 40) - 20);
        const float step = std::ldexp(1.0f, -9 - static_cast<int>(random() % 2));
        const float sign = random() % 2 ? 1.0f : -1.0f;
        std::vector<float> levels(p.count + 1);
        for (std::size_t i = 0; i < levels.size(); ++i)
            levels[i] = crowded
                            ? sign * span * (1.0f + (static_cast<float>(i) + jitter(random)) * step)
                            : span * ((static_cast<float>(i) + jitter(random)) /
                                          static_cast<float>(levels.size() - 1) * 2.0f -
                                      1.0f);
        std::sort(levels.begin(), levels.end());
        std::vector<std::uint32_t> inputs = {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u,
                                             0x7fc00000u, 0xffc00001u, 0x7f800001u, 0xff800001u};
        for (std::uint32_t b = 0; b < kernels::LookupParams::kMaxBreakpoints; ++b) {
            std::int32_t key = INT32_MAX;
            if (b < p.count) {
                const float midpoint = (levels[b] + levels[b + 1]) / 2;
                std::uint32_t bits;
                std::memcpy(&bits, &midpoint, sizeof bits);
                key = std::max(kernels::orderedKey(bits),
                               b == 0 ? INT32_MIN : p.breakpoints[b - 1] + 1);
                for (std::int32_t d = -2; d <= 2; ++d) {
                    const std::int64_t k = std::int64_t{key} + d;
                    // Back from the ordered key to FP32 bits (negative keys: −m − 1).
                    inputs.push_back(k < 0 ? static_cast<std::uint32_t>(-k - 1) | 0x80000000u
                                           : static_cast<std::uint32_t>(k));
                }
            }
            p.breakpoints[b] = key;
        }
        for (std::uint32_t& code : p.codes)
            code = static_cast<std::uint32_t>(random() % 64);
        p.nanCode[0] = 0x11;
        p.nanCode[1] = 0x22;
        for (int i = 0; i < 2000; ++i)
            inputs.push_back(static_cast<std::uint32_t>(random()));
        // The bisection form (the CUDA kernel's) against the linear one, every table.
        for (std::uint32_t bits : inputs)
            QVERIFY2(kernels::lookupElementBisect(p, bits) == kernels::lookupElement(p, bits),
                     qPrintable(QString("table %1 (%2 breakpoints): fp32 0x%3: bisection 0x%4, "
                                        "linear 0x%5")
                                    .arg(table)
                                    .arg(p.count)
                                    .arg(bits, 8, 16, QChar('0'))
                                    .arg(kernels::lookupElementBisect(p, bits), 0, 16)
                                    .arg(kernels::lookupElement(p, bits), 0, 16)));
        ++bisected;
        const auto buckets = kernels::bucketBreakpoints(p);
        if (!buckets)
            continue;
        ++bucketed;
        ++(buckets->shift >= 15 ? wordClamped : dwordClamped);
        // The one-element form of the buckets (the CUDA kernel's), every bucketed table.
        for (std::uint32_t bits : inputs)
            QVERIFY2(kernels::bucketLookupElement(*buckets, bits) ==
                         kernels::lookupElement(p, bits),
                     qPrintable(QString("table %1 (%2 breakpoints): fp32 0x%3: buckets 0x%4, "
                                        "linear 0x%5")
                                    .arg(table)
                                    .arg(p.count)
                                    .arg(bits, 8, 16, QChar('0'))
                                    .arg(kernels::bucketLookupElement(*buckets, bits), 0, 16)
                                    .arg(kernels::lookupElement(p, bits), 0, 16)));
        if (!kernels::hasAvx512())
            continue;
        for (const kernels::OutputStores stores :
             {kernels::OutputStores::Cached, kernels::OutputStores::Streaming}) {
            std::vector<std::uint8_t> got(inputs.size() + 64, 0xee);
            kernels::avx512BucketLookup(*buckets, inputs.data(), got.data() + 1, inputs.size(),
                                        stores);
            kernels::streamingFence();
            for (std::size_t i = 0; i < inputs.size(); ++i)
                QVERIFY2(got[i + 1] == kernels::lookupElement(p, inputs[i]),
                         qPrintable(QString("table %1 (%2 breakpoints), %3 stores: fp32 0x%4 gave "
                                            "0x%5, lookupElement 0x%6")
                                        .arg(table)
                                        .arg(p.count)
                                        .arg(stores == kernels::OutputStores::Cached ? "cached"
                                                                                     : "streaming")
                                        .arg(inputs[i], 8, 16, QChar('0'))
                                        .arg(got[i + 1], 0, 16)
                                        .arg(kernels::lookupElement(p, inputs[i]), 0, 16)));
            QVERIFY(got[0] == 0xee && got[inputs.size() + 1] == 0xee);
        }
    }
    QCOMPARE(bisected, kTables);
    qInfo("%d of %d tables fit the buckets (%d with units of 16 bits, %d wider)", bucketed, kTables,
          wordClamped, dwordClamped);
    QVERIFY(bucketed >= 20);
    QVERIFY(wordClamped > 0 && dwordClamped > 0);
    if (!kernels::hasAvx512())
        QSKIP("no AVX-512 on this CPU: the AVX-512 bucket loop was not run");
}

void TestBulkConversion::signRuleFormsMatchTheGeneralForm() {
    // encodeElementOf's symmetric form (and, nearest-even, its unsigned-zero form for fnuz)
    // chooses among magnitudes and puts the sign in once; where symmetricSpecials or
    // unsignedZeroApplies says it may, it must give the general form's answer for every input.
    // The CPU's vector encoders use them for their last elements, the CUDA kernels for all.
    const std::vector<std::uint32_t> inputs = decisiveInputs(23);
    // {general form, sign-rule form} of one input.
    const auto bothForms = []<RoundingMode Mode, bool UnsignedZero>(const kernels::EncodeParams& p,
                                                                    std::uint32_t bits) {
        using kernels::EncodeKind;
        return std::pair{
            kernels::encodeElementOf<Mode, EncodeKind::BinaryFloat>(p, bits, 0),
            kernels::encodeElementOf<Mode, EncodeKind::BinaryFloat, true, UnsignedZero>(p, bits,
                                                                                        0)};
    };
    int symmetricRuns = 0, unsignedZeroRuns = 0;
    for (const FormatSpec& format : builtinFormats()) {
        for (OverflowPolicy overflow : {OverflowPolicy::Ieee, OverflowPolicy::Saturate}) {
            for (RoundingMode mode : {RoundingMode::NearestEven, RoundingMode::TowardZero,
                                      RoundingMode::TowardPositive, RoundingMode::TowardNegative}) {
                const auto p = encodeParams(format, {mode, overflow, 0});
                if (!p || p->kind != kernels::EncodeKind::BinaryFloat)
                    continue;
                const bool symmetric = kernels::symmetricSpecials(*p, mode);
                const bool unsignedZero =
                    mode == RoundingMode::NearestEven && kernels::unsignedZeroApplies(*p);
                symmetricRuns += symmetric;
                unsignedZeroRuns += unsignedZero;
                for (std::uint32_t bits : inputs) {
                    std::pair<std::uint32_t, std::uint32_t> forms;
                    switch (mode) {
                    case RoundingMode::NearestEven:
                        forms =
                            unsignedZero
                                ? bothForms.operator()<RoundingMode::NearestEven, true>(*p, bits)
                                : bothForms.operator()<RoundingMode::NearestEven, false>(*p, bits);
                        break;
                    case RoundingMode::TowardZero:
                        forms = bothForms.operator()<RoundingMode::TowardZero, false>(*p, bits);
                        break;
                    case RoundingMode::TowardPositive:
                        forms = bothForms.operator()<RoundingMode::TowardPositive, false>(*p, bits);
                        break;
                    default:
                        forms = bothForms.operator()<RoundingMode::TowardNegative, false>(*p, bits);
                        break;
                    }
                    const auto [general, signRule] = forms;
                    if ((symmetric || unsignedZero) && signRule != general)
                        QFAIL(qPrintable(
                            QString("%1 %2 %3: fp32 0x%4 gave 0x%5, general form 0x%6")
                                .arg(QString::fromStdString(format.id))
                                .arg(QString::fromUtf8(roundingModeId(mode)))
                                .arg(overflow == OverflowPolicy::Ieee ? "ieee" : "saturate")
                                .arg(bits, 8, 16, QChar('0'))
                                .arg(signRule, 0, 16)
                                .arg(general, 0, 16)));
                }
            }
        }
    }
    qInfo("symmetric form checked for %d, unsigned-zero form for %d parameter sets", symmetricRuns,
          unsignedZeroRuns);
    QVERIFY(symmetricRuns >= 20);
    QVERIFY(unsignedZeroRuns >= 4); // the fnuz formats, both policies
}

void TestBulkConversion::byteEncodersMatchElementCodeForMadeUpAnswers() {
    // The nearest-even float encoders (AVX-512 and AVX2; codes of 1 and 2 bytes) decide per
    // parameter set how they find overflow, NaN and ±∞ (vpminud where the overflow code is
    // maxMagnitude or the next code; NaN and ∞ folded into overflow where their answers agree).
    // Every catalogue format takes the same choices, so here the answers are made up: each of a few
    // codes for each of the three, against the one-element definition.
    const std::vector<std::uint32_t> inputs = decisiveInputs(11);
    for (const char* id :
         {"fp8_e4m3", "fp8_e5m2", "fp8_e4m3fnuz", "fp6_e2m3", "fp4_e2m1", "fp16", "bf16", "tf32"}) {
        const int width = packedBytes(lookUp(id));
        const auto base = encodeParams(lookUp(id), {});
        QVERIFY(base);
        const std::uint32_t max = base->maxMagnitude;
        const std::uint32_t magnitudeBits = base->codeMask & ~base->signBit;
        const bool symmetric = kernels::symmetricSpecials(*base, RoundingMode::NearestEven);
        const int w = kernels::widthIndex(width);
        // The answer pair for a positive answer: the negative one by the format's sign rule.
        const auto pair = [&](std::uint32_t(&answers)[2], std::uint32_t positive) {
            answers[0] = positive;
            answers[1] =
                symmetric || (positive & magnitudeBits) != 0u ? positive ^ base->signBit : positive;
        };
        const std::uint32_t candidates[] = {max, (max + 1u) & base->codeMask, max - 1u, 3u, 0u};
        int runs = 0;
        for (std::uint32_t overflow : candidates) {
            for (std::uint32_t nan : candidates) {
                for (std::uint32_t infinity : candidates) {
                    kernels::EncodeParams p = *base;
                    pair(p.overflowCode, overflow);
                    pair(p.nanCode, nan);
                    pair(p.infinityCode, infinity);
                    for (const kernels::LoopSet* set : loopSets()) {
                        for (int stores = 0; stores < 2; ++stores) {
                            const int mode = static_cast<int>(RoundingMode::NearestEven);
                            const auto loop = symmetric
                                                  ? set->encodeSymmetric[stores][mode][w]
                                                  : set->encode[stores][mode][static_cast<int>(
                                                        kernels::EncodeKind::BinaryFloat)][w];
                            std::vector<std::uint8_t> got(inputs.size() *
                                                          static_cast<std::size_t>(width));
                            loop(p, inputs.data(), got.data(), inputs.size(), 0, 0);
                            kernels::streamingFence();
                            ++runs;
                            for (std::size_t i = 0; i < inputs.size(); ++i) {
                                const std::uint32_t expected =
                                    symmetric
                                        ? kernels::encodeElementOf<RoundingMode::NearestEven,
                                                                   kernels::EncodeKind::BinaryFloat,
                                                                   true>(p, inputs[i], 0)
                                        : kernels::encodeElementOf<RoundingMode::NearestEven,
                                                                   kernels::EncodeKind::BinaryFloat,
                                                                   false>(p, inputs[i], 0);
                                if (packedAt(got, i, width) != expected)
                                    QFAIL(qPrintable(
                                        QString("%1 (%2, %3 stores), overflow 0x%4, NaN 0x%5, "
                                                "inf 0x%6: fp32 0x%7 gave 0x%8, element code 0x%9")
                                            .arg(id, set->isaName,
                                                 stores == 0 ? "cached" : "streaming")
                                            .arg(overflow, 0, 16)
                                            .arg(nan, 0, 16)
                                            .arg(infinity, 0, 16)
                                            .arg(inputs[i], 8, 16, QChar('0'))
                                            .arg(packedAt(got, i, width), 0, 16)
                                            .arg(expected, 0, 16)));
                            }
                        }
                    }
                }
            }
        }
        QVERIFY(runs > 0);
    }
}

void TestBulkConversion::lookupLoopsMatchLookupElement() {
    // The breakpoint loops (AVX-512's picks codes from registers and blends NaNs by sign)
    // against the one-element definition, on made-up tables with every breakpoint count and
    // different NaN codes for each sign, which no catalogue format has.
    std::mt19937_64 random(5);
    std::vector<std::uint32_t> randomInputs(4096);
    for (std::uint32_t& x : randomInputs)
        x = static_cast<std::uint32_t>(random());
    for (std::uint32_t special : {0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                  0xffc00001u, 0x7f800001u, 0xff800001u})
        randomInputs.push_back(special);
    for (std::uint32_t count = 0; count <= kernels::LookupParams::kMaxBreakpoints; ++count) {
        kernels::LookupParams p;
        p.count = count;
        std::vector<std::int32_t> keys(count);
        for (std::int32_t& key : keys)
            key = static_cast<std::int32_t>(random());
        std::sort(keys.begin(), keys.end());
        for (std::uint32_t b = 0; b < kernels::LookupParams::kMaxBreakpoints; ++b)
            p.breakpoints[b] = b < count ? keys[b] : INT32_MAX;
        for (std::uint32_t& code : p.codes)
            code = static_cast<std::uint32_t>(random() & 0xff);
        p.nanCode[0] = 0x11;
        p.nanCode[1] = 0x22;
        // The inputs whose ordered keys are each breakpoint and its two neighbours, where a
        // bisection that probes the wrong breakpoint or compares the wrong way goes astray.
        std::vector<std::uint32_t> inputs = randomInputs;
        for (std::int32_t key : keys)
            for (std::int64_t near = std::int64_t{key} - 1; near <= std::int64_t{key} + 1; ++near)
                if (near >= INT32_MIN && near <= INT32_MAX) {
                    const std::uint32_t bits =
                        near >= 0 ? static_cast<std::uint32_t>(near)
                                  : 0x80000000u | ~static_cast<std::uint32_t>(near);
                    QCOMPARE(std::int64_t{kernels::orderedKey(bits)}, near);
                    inputs.push_back(bits);
                }
        for (const kernels::LoopSet* set : loopSets()) {
            for (int width : {1, 2, 4}) {
                for (int stores = 0; stores < 2; ++stores) {
                    std::vector<std::uint8_t> got(inputs.size() * static_cast<std::size_t>(width));
                    set->lookup[stores][kernels::widthIndex(width)](p, inputs.data(), got.data(),
                                                                    inputs.size());
                    kernels::streamingFence();
                    for (std::size_t i = 0; i < inputs.size(); ++i)
                        QVERIFY2(
                            packedAt(got, i, width) == kernels::lookupElement(p, inputs[i]),
                            qPrintable(
                                QString("%1, %2 breakpoints, %3-byte codes, %4 stores: fp32 0x%5")
                                    .arg(set->isaName)
                                    .arg(count)
                                    .arg(width)
                                    .arg(stores == 0 ? "cached" : "streaming")
                                    .arg(inputs[i], 8, 16, QChar('0'))));
                }
            }
        }
    }
}

void TestBulkConversion::interleavedBlocksVisitEveryBlockOnce() {
    constexpr std::size_t kRuns = kernels::kInterleavedRuns;
    for (std::size_t blocks : {std::size_t{0}, std::size_t{1}, kRuns - 1, kRuns, kRuns + 1,
                               3 * kRuns + 5, std::size_t{1000}, std::size_t{4099}}) {
        const kernels::InterleavedBlocks order(blocks);
        QCOMPARE(order.size(), blocks);
        std::vector<int> visits(blocks, 0);
        for (std::size_t k = 0; k < blocks; ++k) {
            QVERIFY(order[k] < blocks);
            ++visits[order[k]];
        }
        QVERIFY2(std::all_of(visits.begin(), visits.end(), [](int n) { return n == 1; }),
                 qPrintable(QString("%1 blocks: a block missed or visited twice").arg(blocks)));
        // One block of each run in turn: the first kRuns visits start the runs, blocks / kRuns
        // apart; the leftover blocks come last, in order.
        const std::size_t perRun = blocks / kRuns;
        if (perRun > 0)
            for (std::size_t run = 0; run < kRuns; ++run) {
                QCOMPARE(order[run], run * perRun);
                QCOMPARE(order[kRuns + run], perRun > 1 ? run * perRun + 1 : kRuns * perRun + run);
            }
        for (std::size_t k = perRun * kRuns; k < blocks; ++k)
            QCOMPARE(order[k], k);
    }
}

void TestBulkConversion::everyIssueFormatHasAFastPath() {
    for (const char* id :
         {"fp16", "bf16", "tf32", "fp8_e4m3", "fp8_e5m2", "fp8_e4m3fnuz", "fp8_e5m2fnuz",
          "fp6_e3m2", "fp6_e2m3", "fp4_e2m1", "int8", "int4", "nf4"}) {
        const FormatSpec format = lookUp(id);
        for (RoundingMode mode :
             {RoundingMode::NearestEven, RoundingMode::NearestAway, RoundingMode::TowardZero,
              RoundingMode::TowardPositive, RoundingMode::TowardNegative, RoundingMode::ToOdd}) {
            for (OverflowPolicy policy : kPolicies) {
                RoundingOptions options;
                options.mode = mode;
                options.overflow = policy;
                const auto encoder = BulkEncoder::create(format, options);
                QVERIFY2(encoder, qPrintable(describe(id, mode, policy)));
                QVERIFY(encoder->path().name != "scalar reference");
            }
        }
        QVERIFY2(BulkDecoder::create(format), id);
    }
    // Too wide for the kernels: the callers fall back to the exact core.
    QVERIFY(!BulkEncoder::create(lookUp("fp64"), {}));
    QVERIFY(!BulkEncoder::create(lookUp("fp80"), {}));
    QVERIFY(!BulkDecoder::create(lookUp("fp128")));
}

void TestBulkConversion::breakpointsComeFirstWhereNoHandWrittenEncoderApplies() {
    // With AVX-512 the breakpoints beat the bit tricks as GCC vectorises them, but not the
    // hand-written nearest-even byte encoders (`fpx bench` ranks them on the machine at hand).
    if (!kernels::hasAvx512() || !kernels::avx512Loops())
        QSKIP("the order holds where the AVX-512 loop set runs");
    const auto firstPath = [](const char* id, RoundingMode mode) {
        RoundingOptions options;
        options.mode = mode;
        const auto encoder = BulkEncoder::create(lookUp(id), options);
        return encoder ? encoder->path().name : std::string("none");
    };
    // (NF4 rounded to odd does not fit the buckets: its bisection.)
    for (const char* id : {"fp4_e2m1", "int4", "nf4"})
        for (RoundingMode mode : {RoundingMode::TowardZero, RoundingMode::TowardNegative,
                                  RoundingMode::NearestAway, RoundingMode::ToOdd}) {
            const std::string path = firstPath(id, mode);
            QVERIFY2(path == "breakpoints in buckets (AVX-512)" || path == "breakpoints (AVX-512)",
                     qPrintable(describe(id, mode, OverflowPolicy::Ieee) + ": " +
                                QString::fromStdString(path)));
        }
    QCOMPARE(firstPath("fp4_e2m1", RoundingMode::NearestEven), std::string("bit trick (AVX-512)"));
    QCOMPARE(firstPath("int4", RoundingMode::NearestEven), std::string("bit trick (AVX-512)"));
    QCOMPARE(firstPath("nf4", RoundingMode::NearestEven),
             std::string("breakpoints in buckets (AVX-512)"));
    // No breakpoints for 256 codes: the bit trick.
    QCOMPARE(firstPath("fp8_e4m3", RoundingMode::TowardZero), std::string("bit trick (AVX-512)"));
}

void TestBulkConversion::hardwareUseIsRespected() {
    const FormatSpec fp16 = lookUp("fp16");
    const FormatSpec bf16 = lookUp("bf16");
    QVERIFY(!BulkEncoder::create(fp16, {}, HardwareUse::Never)->path().hardware);
    QVERIFY(!BulkDecoder::create(fp16, {}, HardwareUse::Never)->path().hardware);
    // fpx convert must never get a path that differs from the exact core.
    QVERIFY(BulkEncoder::create(bf16, {}, HardwareUse::BitExact)->path().bitExact);
    if (kernels::hasF16c()) {
        QVERIFY(BulkEncoder::create(fp16, {}, HardwareUse::BitExact)->path().hardware);
        // F16C cannot saturate: the software path takes over.
        RoundingOptions saturate;
        saturate.overflow = OverflowPolicy::Saturate;
        QVERIFY(!BulkEncoder::create(fp16, saturate, HardwareUse::BitExact)->path().hardware);
    } else {
        qInfo("no F16C on this CPU: hardware selection only checked as absent");
        QVERIFY(!BulkEncoder::create(fp16, {}, HardwareUse::Any)->path().hardware);
    }
}

void TestBulkConversion::bf16HardwareDiffersOnlyOnSubnormals() {
    if (!kernels::hasAvx512Bf16())
        QSKIP("this CPU has no AVX512-BF16");
    const FormatSpec bf16 = lookUp("bf16");
    const auto encoder = BulkEncoder::create(bf16, {}, HardwareUse::Any);
    QVERIFY(encoder && encoder->path().hardware && !encoder->path().bitExact);
    QVERIFY(QString::fromStdString(encoder->path().note).contains("subnormal"));
    const std::vector<std::uint32_t> inputs = decisiveInputs(99);
    std::vector<std::uint16_t> got(inputs.size()), expected(inputs.size());
    encoder->encode(inputs.data(), got.data(), inputs.size());
    encodeWithExactCore(bf16, {}, inputs.data(), expected.data(), inputs.size());
    std::size_t differ = 0;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        const bool subnormal = (inputs[i] & 0x7f800000u) == 0 && (inputs[i] & 0x7fffffu) != 0;
        if (got[i] != expected[i]) {
            ++differ;
            QVERIFY2(subnormal, qPrintable(QString("0x%1").arg(inputs[i], 8, 16, QChar('0'))));
            QCOMPARE(got[i] & 0x7fff, 0); // flushed to a zero of the same sign
        }
    }
    QVERIFY(differ > 0); // the decisive inputs include subnormals that do not round to zero
    qInfo("AVX512-BF16: %zu of %zu inputs differ, all FP32 subnormals", differ, inputs.size());
}

void TestBulkConversion::stochasticRoundingIsReproducibleAcrossBatches() {
    const FormatSpec target = lookUp("fp8_e4m3");
    RoundingOptions options;
    options.mode = RoundingMode::Stochastic;
    const auto encoder = BulkEncoder::create(target, options, HardwareUse::BitExact, 77);
    QVERIFY(encoder);
    std::vector<std::uint32_t> inputs(10000);
    std::mt19937 random(3);
    for (std::uint32_t& x : inputs)
        x = 0x3e000000u | (random() & 0x7fffffu); // [0.125, 0.25): every input is inexact
    std::vector<std::uint8_t> whole(inputs.size()), pieces(inputs.size());
    encoder->encode(inputs.data(), whole.data(), inputs.size(), 0);
    for (std::size_t start = 0; start < inputs.size(); start += 777)
        encoder->encode(inputs.data() + start, pieces.data() + start,
                        std::min<std::size_t>(777, inputs.size() - start), start);
    QVERIFY(whole == pieces);
    // Not all the same direction: stochastic rounding does round both ways.
    std::vector<std::uint8_t> down(inputs.size());
    RoundingOptions truncate;
    truncate.mode = RoundingMode::TowardZero;
    BulkEncoder::create(target, truncate)->encode(inputs.data(), down.data(), inputs.size());
    std::size_t up = 0;
    for (std::size_t i = 0; i < inputs.size(); ++i)
        up += whole[i] != down[i];
    QVERIFY(up > inputs.size() / 10 && up < inputs.size() * 9 / 10);
}

void TestBulkConversion::outputWidthsAndOffsets() {
    // Unaligned starts and odd lengths (vector loops' heads and tails) give the same codes.
    const std::vector<std::uint32_t> inputs = decisiveInputs(5);
    for (const char* id : {"fp16", "fp8_e5m2", "int4", "nf4", "tf32"}) {
        const FormatSpec target = lookUp(id);
        for (const BulkEncoder& path : BulkEncoder::allPaths(target, {})) {
            const int width = path.bytesPerElement();
            QCOMPARE(width, packedBytes(target));
            std::vector<std::uint8_t> all(inputs.size() * static_cast<std::size_t>(width));
            path.encode(inputs.data(), all.data(), inputs.size());
            for (std::size_t offset : {1u, 3u, 17u}) {
                for (std::size_t length : {0u, 1u, 7u, 15u, 33u, 1001u}) {
                    std::vector<std::uint8_t> part(length * static_cast<std::size_t>(width) + 1,
                                                   0xee);
                    path.encode(inputs.data() + offset, part.data(), length, offset);
                    QCOMPARE(part.back(), std::uint8_t(0xee)); // nothing written past the end
                    QVERIFY(std::equal(part.begin(), part.end() - 1,
                                       all.begin() + static_cast<std::ptrdiff_t>(offset) * width));
                }
            }
        }
    }
}

void TestBulkConversion::largeOutputsStreamTheSameCodes() {
    // Outputs of 8 MiB and more are written with streaming stores (by the loops themselves, or
    // in pieces where the output is not aligned to the code size): the same codes as small
    // calls, at odd offsets and lengths, and nothing written outside the output. Every path
    // but the slow scalar reference, hardware included (BF16's flushes subnormals either way).
    const std::size_t count = (std::size_t{9} << 20) + 13; // > 8 MiB of 1-byte codes
    std::vector<std::uint32_t> inputs(count);
    std::mt19937_64 random(11);
    for (std::uint32_t& x : inputs)
        x = static_cast<std::uint32_t>(random());
    const std::pair<const char*, RoundingMode> cases[] = {
        {"fp8_e4m3", RoundingMode::TowardPositive},
        {"fp16", RoundingMode::TowardPositive},
        {"bf16", RoundingMode::NearestEven},
        {"nf4", RoundingMode::TowardPositive}};
    for (const auto& [id, mode] : cases) {
        const FormatSpec target = lookUp(id);
        RoundingOptions options;
        options.mode = mode;
        const std::vector<BulkEncoder> encoders = BulkEncoder::allPaths(target, options);
        QVERIFY(!encoders.empty());
        const std::size_t width = static_cast<std::size_t>(encoders.front().bytesPerElement());
        std::vector<std::uint8_t> pieces(count * width);
        for (const BulkEncoder& encoder : encoders) {
            if (encoder.path().name == "scalar reference")
                continue;
            const QString what = QString("%1 %2").arg(id, encoder.path().name.c_str());
            for (std::size_t start = 0; start < count; start += 100000)
                encoder.encode(inputs.data() + start, pieces.data() + start * width,
                               std::min<std::size_t>(100000, count - start), start);
            // Aligned to the code size (streamed by the loop) and at an odd address (pieces).
            for (const std::size_t offset : {width, std::size_t{1}}) {
                std::vector<std::uint8_t> streamed(count * width + 2 * width + 1, 0xee);
                encoder.encode(inputs.data(), streamed.data() + offset, count);
                QVERIFY2(std::equal(pieces.begin(), pieces.end(), streamed.begin() + offset),
                         qPrintable(QString("%1 at offset %2").arg(what).arg(offset)));
                QCOMPARE(streamed[offset - 1], std::uint8_t(0xee));
                QCOMPARE(streamed[offset + count * width], std::uint8_t(0xee));
            }
        }
        // And back: 4-byte outputs of more than 8 MiB, by every decoder (bit trick, table,
        // F16C, AVX512-FP16 where the CPU has them), starting 1 element past the allocation.
        const std::vector<BulkDecoder> decoders = BulkDecoder::allPaths(target, options);
        QVERIFY(!decoders.empty());
        for (const BulkDecoder& decoder : decoders) {
            std::vector<std::uint32_t> wide(count + 2, 0xeeeeeeee), narrow(count);
            decoder.decode(pieces.data(), wide.data() + 1, count);
            for (std::size_t start = 0; start < count; start += 100000)
                decoder.decode(pieces.data() + start * width, narrow.data() + start,
                               std::min<std::size_t>(100000, count - start));
            QVERIFY2(std::equal(narrow.begin(), narrow.end(), wide.begin() + 1),
                     qPrintable(QString("%1 %2").arg(id, decoder.path().name.c_str())));
            QCOMPARE(wide[0], 0xeeeeeeeeu);
            QCOMPARE(wide[count + 1], 0xeeeeeeeeu);
        }
    }
}

QTEST_APPLESS_MAIN(TestBulkConversion)
#include "tst_bulkconversion.moc"
