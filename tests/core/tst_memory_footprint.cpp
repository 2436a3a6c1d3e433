// SPDX-License-Identifier: GPL-3.0-or-later
// Memory footprints against byte counts worked by hand from the formats' definitions (MXFP4:
// 4-bit elements and one 8-bit E8M0 scale per 32; NVFP4: one E4M3 per 16 and one FP32 per
// tensor; NF4: one FP32 absmax per 64; mixed-precision training with Adam: weights, gradients,
// FP32 master weights and two FP32 moments), and the parameter-count parser.
#include "fpx/quantization/memory_footprint.h"

#include <QTest>

using namespace fpx;

namespace {

std::uint64_t bytes(const char* id, std::uint64_t parameters,
                    FootprintMode mode = FootprintMode::Inference) {
    std::string error;
    const auto f = memoryFootprint(id, parameters, mode, error);
    if (!f)
        qFatal("memoryFootprint(%s): %s", id, error.c_str());
    return f->totalBytes();
}

} // namespace

class TestMemoryFootprint : public QObject {
    Q_OBJECT

  private slots:
    void inferenceBytesByHand() {
        const std::uint64_t n70 = 70'000'000'000;
        // 70e9 × 4.25 bits / 8: 35e9 bytes of elements + 70e9 / 32 one-byte scales.
        QCOMPARE(bytes("mxfp4", n70), std::uint64_t{37'187'500'000});
        // 70e9 / 16 E4M3 scales, plus the FP32 tensor scale.
        QCOMPARE(bytes("nvfp4", n70), std::uint64_t{35'000'000'000 + 4'375'000'000 + 4});
        // 70e9 / 64 = 1,093,750,000 FP32 absmaxes.
        QCOMPARE(bytes("nf4", n70), std::uint64_t{35'000'000'000 + 4'375'000'000});
        // nf4_dq: 8-bit absmax codes, ⌈1,093,750,000 / 256⌉ = 4,272,461 FP32 group scales and
        // one FP32 offset.
        QCOMPARE(bytes("nf4_dq", n70),
                 std::uint64_t{35'000'000'000 + 1'093'750'000 + 4'272'461 * 4 + 4});
        QCOMPARE(bytes("mxfp8_e4m3", n70), std::uint64_t{70'000'000'000 + 2'187'500'000});
        QCOMPARE(bytes("fp16", n70), std::uint64_t{140'000'000'000});
        QCOMPARE(bytes("bf16", n70), std::uint64_t{140'000'000'000});
        QCOMPARE(bytes("fp32", n70), std::uint64_t{280'000'000'000});
        QCOMPARE(bytes("fp8_e4m3", n70), n70);
        // Integer absmax: the levels and one FP32 scale for the tensor.
        QCOMPARE(bytes("int4", 7'000'000'000), std::uint64_t{3'500'000'004});
        QCOMPARE(bytes("int8", 7'000'000'000), std::uint64_t{7'000'000'004});
        // Containers and packing.
        QCOMPARE(bytes("tf32", 1'000'000'000), std::uint64_t{4'000'000'000});
        QCOMPARE(bytes("fp80", 1'000'000'000), std::uint64_t{16'000'000'000});
        QCOMPARE(bytes("fp6_e3m2", 1'000'000'000), std::uint64_t{750'000'000});
        QCOMPARE(bytes("fp4_e2m1", 405'000'000'000), std::uint64_t{202'500'000'000});
        // Partial blocks and bytes: 3 × 6 bits = 18 bits → 3 bytes; MXFP4 of 33 elements:
        // 132 bits → 17 bytes, and two scales.
        QCOMPARE(bytes("fp6_e3m2", 3), std::uint64_t{3});
        QCOMPARE(bytes("mxfp4", 33), std::uint64_t{19});
        QCOMPARE(bytes("fp4_e2m1", 1), std::uint64_t{1});
    }

    void trainingBytesByHand() {
        const std::uint64_t n70 = 70'000'000'000;
        // BF16 weights + BF16 gradients + FP32 master + FP32 m + FP32 v = 2+2+4+4+4 = 16 B.
        QCOMPARE(bytes("bf16", n70, FootprintMode::Training), 16 * n70);
        QCOMPARE(bytes("fp16", 7'000'000'000, FootprintMode::Training),
                 std::uint64_t{112'000'000'000});
        // FP32 training: the weights are the master copy, 4+4+4+4 = 16 B.
        QCOMPARE(bytes("fp32", n70, FootprintMode::Training), 16 * n70);
        // FP8 weights and gradients: 1+1+4+4+4 = 14 B.
        QCOMPARE(bytes("fp8_e4m3", 1'000'000'000, FootprintMode::Training),
                 std::uint64_t{14'000'000'000});
        std::string error;
        const auto f = memoryFootprint("bf16", 1000, FootprintMode::Training, error);
        QVERIFY(f);
        QCOMPARE(f->parts.size(), std::size_t{5});
        const char* names[] = {"weights", "gradients", "master weights", "Adam m", "Adam v"};
        const std::uint64_t each[] = {2000, 2000, 4000, 4000, 4000};
        for (std::size_t i = 0; i < 5; ++i) {
            QCOMPARE(QString::fromStdString(f->parts[i].name), QString(names[i]));
            QCOMPARE(f->parts[i].bytes, each[i]);
        }
        const auto pure = memoryFootprint("fp32", 1000, FootprintMode::Training, error);
        QVERIFY(pure);
        QCOMPARE(pure->parts.size(), std::size_t{4}); // no master copy
    }

    void unknownIdsAreErrors() {
        std::string error;
        QVERIFY(!memoryFootprint("fp9_nonsense", 1000, FootprintMode::Inference, error));
        QVERIFY(QString::fromStdString(error).contains("fp9_nonsense"));
        error.clear();
        QVERIFY(!memoryFootprint("bf16", 0, FootprintMode::Inference, error));
        QVERIFY(!error.empty());
    }

    void parameterCounts_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qulonglong>("expected");
        QTest::newRow("70B") << "70B" << 70'000'000'000ULL;
        QTest::newRow("13b") << "13b" << 13'000'000'000ULL;
        QTest::newRow("350M") << "350M" << 350'000'000ULL;
        QTest::newRow("405 B") << "405 B" << 405'000'000'000ULL;
        QTest::newRow("1.5T") << "1.5T" << 1'500'000'000'000ULL;
        QTest::newRow("1.3B") << "1.3B" << 1'300'000'000ULL;
        QTest::newRow("7e9") << "7e9" << 7'000'000'000ULL;
        QTest::newRow("2.5e3K") << "2.5e3K" << 2'500'000ULL;
        QTest::newRow("0.5K") << "0.5K" << 500ULL;
        QTest::newRow("1,000") << "1,000" << 1000ULL;
        QTest::newRow("7_000_000_000") << "7_000_000_000" << 7'000'000'000ULL;
        QTest::newRow("1,234.5K") << "1,234.5K" << 1'234'500ULL;
        QTest::newRow("trailing zeros") << "1.00000000000000000000000000B" << 1'000'000'000ULL;
        QTest::newRow("1.050B") << "1.050B" << 1'050'000'000ULL;
        QTest::newRow("plain") << "124439808" << 124'439'808ULL;
        QTest::newRow("largest") << "1e15" << 1'000'000'000'000'000ULL;
    }
    void parameterCounts() {
        QFETCH(QString, text);
        QFETCH(qulonglong, expected);
        std::string error;
        const auto n = parseParameterCount(text.toStdString(), error);
        QVERIFY2(n, error.c_str());
        QCOMPARE(qulonglong(*n), expected);
        // Written back, it reads the same.
        const auto again = parseParameterCount(parameterCountText(*n), error);
        QVERIFY(again);
        QCOMPARE(*again, *n);
    }

    void badParameterCounts_data() {
        QTest::addColumn<QString>("text");
        for (const char* bad : {"", "abc", "1.5", "70X", "0", "2e15", "-5", "70BB", "e9", "1e",
                                "1,5B", "1,50B", "12,34", "1,0000", ",100", "1,000,00"})
            QTest::newRow(bad) << bad;
    }
    void badParameterCounts() {
        QFETCH(QString, text);
        std::string error;
        QVERIFY(!parseParameterCount(text.toStdString(), error));
        QVERIFY(QString::fromStdString(error).startsWith("parameter count"));
    }

    void countTexts() {
        QCOMPARE(QString::fromStdString(parameterCountText(70'000'000'000)), QString("70B"));
        QCOMPARE(QString::fromStdString(parameterCountText(1'500'000'000)), QString("1.5B"));
        QCOMPARE(QString::fromStdString(parameterCountText(350'000'000)), QString("350M"));
        QCOMPARE(QString::fromStdString(parameterCountText(1'234'567)), QString("1234567"));
        QCOMPARE(QString::fromStdString(parameterCountText(999)), QString("999"));
    }

    void unitTexts() {
        QCOMPARE(QString::fromStdString(bytesInUnit(37'187'500'000, 1'000'000'000, 2)),
                 QString("37.19"));
        // 37,187,500,000 / 2^30 = 34.6336…
        QCOMPARE(QString::fromStdString(bytesInUnit(37'187'500'000, 1u << 30, 2)),
                 QString("34.63"));
        QCOMPARE(QString::fromStdString(bytesInUnit(1u << 30, 1u << 30, 2)), QString("1.00"));
        QCOMPARE(QString::fromStdString(bytesInUnit(5, 10, 0)), QString("1")); // half away
        QCOMPARE(QString::fromStdString(bytesInUnit(4, 10, 0)), QString("0"));
    }

    void idsForFormats() {
        const std::vector<std::string> ids =
            memoryIdsForFormats({"fp16", "fp4_e2m1", "int4", "fp16"});
        const std::vector<std::string> expected = {"fp16", "fp4_e2m1", "int4", "mxfp4", "nvfp4"};
        QCOMPARE(ids, expected);
    }
};

QTEST_APPLESS_MAIN(TestMemoryFootprint)
#include "tst_memory_footprint.moc"
