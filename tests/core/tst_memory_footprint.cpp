// SPDX-License-Identifier: GPL-3.0-or-later
// Memory footprints against byte counts worked by hand from the formats' definitions (MXFP4:
// 4-bit elements and one 8-bit E8M0 scale per 32; NVFP4: one E4M3 per 16 and one FP32 per
// tensor; NF4: one FP32 absmax per 64), training recipes against bytes per parameter counted
// from their arrays (BF16 mixed: 2 + 2 + 4 + 4 + 4; FP8: the same plus a 1-byte copy and a
// 4-byte scale; QLoRA: nf4_dq's bytes plus 2 + 2 + 4 + 4 per adapter parameter), and the
// parameter-count parser.
#include "fpx/quantization/memory_footprint.h"
#include "fpx/quantization/training_recipe.h"

#include <QTest>

using namespace fpx;

namespace {

std::uint64_t bytes(const char* id, std::uint64_t parameters) {
    std::string error;
    const auto f = memoryFootprint(id, parameters, error);
    if (!f)
        qFatal("memoryFootprint(%s): %s", id, error.c_str());
    return f->totalBytes();
}

MemoryFootprint recipe(TrainingRecipe r, std::uint64_t parameters, const char* adapters = "0.5%") {
    std::string error;
    const auto size = parseAdapterSize(adapters, error);
    if (!size)
        qFatal("parseAdapterSize(%s): %s", adapters, error.c_str());
    const auto f = trainingFootprint(r, parameters, *size, error);
    if (!f)
        qFatal("trainingFootprint: %s", error.c_str());
    return *f;
}

// The bytes of the part called `name`, 0 when there is none.
std::uint64_t part(const MemoryFootprint& f, const char* name) {
    for (const FootprintPart& p : f.parts)
        if (p.name == name)
            return p.bytes;
    return 0;
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

    void bf16MixedByHand() {
        // 2 + 2 + 4 + 4 + 4 = 16 bytes per parameter: 7e9 × 16.
        const MemoryFootprint f = recipe(TrainingRecipe::Bf16Mixed, 7'000'000'000);
        QCOMPARE(f.totalBytes(), std::uint64_t{112'000'000'000});
        QVERIFY(f.training);
        const char* names[] = {"weights", "gradients", "master weights", "Adam m", "Adam v"};
        const char* formats[] = {"BF16", "BF16", "FP32", "FP32", "FP32"};
        const std::uint64_t each[] = {14'000'000'000, 14'000'000'000, 28'000'000'000,
                                      28'000'000'000, 28'000'000'000};
        QCOMPARE(f.parts.size(), std::size_t{5});
        for (std::size_t i = 0; i < 5; ++i) {
            QCOMPARE(QString::fromStdString(f.parts[i].name), QString(names[i]));
            QCOMPARE(QString::fromStdString(f.parts[i].format), QString(formats[i]));
            QCOMPARE(f.parts[i].bytes, each[i]);
        }
        QCOMPARE(recipe(TrainingRecipe::Bf16Mixed, 70'000'000'000).totalBytes(),
                 std::uint64_t{1'120'000'000'000});
    }

    void fp8ByHand() {
        // BF16 weights 2 + E4M3 copy 1 + BF16 gradients 2 + FP32 master 4 + m 4 + v 4 = 17
        // bytes per parameter, and one 4-byte FP32 scale: 7e9 × 17 + 4.
        const MemoryFootprint f = recipe(TrainingRecipe::Fp8, 7'000'000'000);
        QCOMPARE(f.totalBytes(), std::uint64_t{119'000'000'004});
        QCOMPARE(part(f, "FP8 weight copy"), std::uint64_t{7'000'000'004});
        QCOMPARE(part(f, "gradients"), std::uint64_t{14'000'000'000});
        QCOMPARE(part(f, "master weights"), std::uint64_t{28'000'000'000});
        // Only the weight copy is FP8: the gradients stay BF16, the rest FP32.
        for (const FootprintPart& p : f.parts) {
            const bool fp8 = QString::fromStdString(p.format).startsWith("FP8");
            QCOMPARE(fp8, p.name == "FP8 weight copy");
        }
    }

    void qloraByHand() {
        // 7e9 NF4 codes: 3.5e9 bytes; 7e9 / 64 = 109,375,000 one-byte absmax codes;
        // ⌈109,375,000 / 256⌉ = 427,247 FP32 group scales; one FP32 offset.
        const std::uint64_t base = 3'500'000'000 + 109'375'000 + 427'247 * 4 + 4;
        // 0.5 % of 7e9 = 35,000,000 adapter parameters, 2 + 2 + 4 + 4 bytes each.
        const MemoryFootprint f = recipe(TrainingRecipe::QLora, 7'000'000'000);
        QCOMPARE(part(f, "frozen weights"), base);
        QCOMPARE(part(f, "adapters"), std::uint64_t{70'000'000});
        QCOMPARE(part(f, "adapter gradients"), std::uint64_t{70'000'000});
        QCOMPARE(part(f, "Adam m"), std::uint64_t{140'000'000});
        QCOMPARE(f.totalBytes(), base + 35'000'000 * 12);
        // No gradient and no master copy of the frozen weights; nothing stored in 4 bits but
        // them.
        QCOMPARE(part(f, "gradients"), std::uint64_t{0});
        QCOMPARE(part(f, "master weights"), std::uint64_t{0});
        for (const FootprintPart& p : f.parts)
            QCOMPARE(p.format == "NF4", p.name == "frozen weights");
        // An adapter count given outright: 40M × 12 bytes.
        QCOMPARE(recipe(TrainingRecipe::QLora, 7'000'000'000, "40M").totalBytes(),
                 base + 480'000'000);
    }

    void noRecipeStoresGradientsInFewBits() {
        for (TrainingRecipe r : trainingRecipes())
            for (const FootprintPart& p : recipe(r, 1000).parts)
                if (p.name.find("gradients") != std::string::npos)
                    QCOMPARE(QString::fromStdString(p.format), QString("BF16"));
    }

    void adapterSizes_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qulonglong>("parameters");
        QTest::addColumn<qulonglong>("expected");
        QTest::addColumn<QString>("written");
        QTest::newRow("0.5%") << "0.5%" << 7'000'000'000ULL << 35'000'000ULL << "0.5%";
        QTest::newRow("1 %") << "1 %" << 70'000'000'000ULL << 700'000'000ULL << "1%";
        QTest::newRow("0.0001%") << "0.0001%" << 1'000'000ULL << 1ULL << "0.0001%";
        // 0.3 % of 999: 2.997, rounded half up to 3; 0.05 % of 1000 = 0.5 → 1.
        QTest::newRow("0.3% of 999") << "0.3%" << 999ULL << 3ULL << "0.3%";
        QTest::newRow("half up") << "0.05%" << 1000ULL << 1ULL << "0.05%";
        QTest::newRow("100%") << "100%" << 5ULL << 5ULL << "100%";
        QTest::newRow("0%") << "0%" << 5ULL << 0ULL << "0%";
        QTest::newRow("40M") << "40M" << 7'000'000'000ULL << 40'000'000ULL << "40M";
    }
    void adapterSizes() {
        QFETCH(QString, text);
        QFETCH(qulonglong, parameters);
        QFETCH(qulonglong, expected);
        QFETCH(QString, written);
        std::string error;
        const auto size = parseAdapterSize(text.toStdString(), error);
        QVERIFY2(size, error.c_str());
        QCOMPARE(qulonglong(size->of(parameters)), expected);
        QCOMPARE(QString::fromStdString(adapterSizeText(*size)), written);
    }

    void badAdapterSizes() {
        for (const char* bad : {"", "%", "101%", "0.00001%", "1.2.3%", "abc", "-1%", "5X"}) {
            std::string error;
            QVERIFY2(!parseAdapterSize(bad, error), bad);
            QVERIFY(!error.empty());
        }
    }

    void recipeNames() {
        std::string error;
        QCOMPARE(parseMemoryRecipes("inference", error)->size(), std::size_t{0});
        QCOMPARE(parseMemoryRecipes("training", error)->size(), std::size_t{3});
        const auto one = parseMemoryRecipes("QLoRA", error);
        QVERIFY(one && one->size() == 1 && one->front() == TrainingRecipe::QLora);
        for (const char* text : {"inference", "bf16-mixed", "fp8", "qlora", "training"}) {
            const auto recipes = parseMemoryRecipes(text, error);
            QVERIFY2(recipes, text);
            QCOMPARE(QString::fromStdString(memoryRecipesText(*recipes)), QString(text));
        }
        QVERIFY(!parseMemoryRecipes("fp4", error));
        QVERIFY(QString::fromStdString(error).contains("bf16-mixed"));
        QVERIFY(!trainingFootprint(TrainingRecipe::Bf16Mixed, 0, AdapterSize{}, error));
    }

    void unknownIdsAreErrors() {
        std::string error;
        QVERIFY(!memoryFootprint("fp9_nonsense", 1000, error));
        QVERIFY(QString::fromStdString(error).contains("fp9_nonsense"));
        error.clear();
        QVERIFY(!memoryFootprint("bf16", 0, error));
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
