// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/bench/cpu_conversion_bench.h"

#include "fpx/conversion.h"
#include "fpx/format_catalogue.h"
#include "fpx/fp32_kernel.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <thread>

namespace fpx::bench {

std::vector<float> randomInputs(std::size_t count, InputDistribution distribution,
                                std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> values(count);
    for (float& v : values) {
        switch (distribution) {
        case InputDistribution::Normal:
            v = normal(random);
            break;
        case InputDistribution::Subnormal:
            v = normal(random) * 1e-40f; // FP32 subnormals, and FP16/FP8 underflow
            break;
        case InputDistribution::Overflowing:
            v = normal(random) * 1e6f; // past FP16 and FP8 maxima
            break;
        case InputDistribution::WithNaN:
            v = (random() % 8 == 0) ? std::nanf("") : normal(random);
            break;
        }
    }
    return values;
}

namespace {

// Splits [0, count) over `threads` and runs `work(begin, end)` on each part.
void parallelFor(std::size_t count, int threads,
                 const std::function<void(std::size_t, std::size_t)>& work) {
    if (threads <= 1) {
        work(0, count);
        return;
    }
    std::vector<std::thread> pool;
    const std::size_t chunk =
        (count + static_cast<std::size_t>(threads) - 1) / static_cast<std::size_t>(threads);
    for (int t = 0; t < threads; ++t) {
        const std::size_t begin = std::min(count, chunk * static_cast<std::size_t>(t));
        const std::size_t end = std::min(count, begin + chunk);
        pool.emplace_back(work, begin, end);
    }
    for (std::thread& th : pool)
        th.join();
}

std::size_t storageBytes(int bits) {
    for (std::size_t bytes : {1u, 2u, 4u, 8u, 10u, 16u})
        if (static_cast<int>(bytes * 8) >= bits)
            return bytes;
    return 16;
}

} // namespace

std::vector<CpuResult> runCpuConversionBench(const CpuBenchRequest& request,
                                             const std::atomic<bool>* cancel,
                                             const std::function<void(double)>& progress) {
    std::vector<CpuResult> results;
    const FormatSpec fp32 = *findFormat("fp32").spec;
    const std::size_t total = request.sizes.size() * (request.targets.size() + 1);
    std::size_t done = 0;
    auto step = [&](double fraction) {
        if (progress)
            progress((static_cast<double>(done) + fraction) / static_cast<double>(total));
    };
    for (std::size_t size : request.sizes) {
        const std::vector<float> input = randomInputs(size, request.distribution, size * 7919 + 1);
        std::vector<std::uint32_t> bits(size);
        std::memcpy(bits.data(), input.data(), size * sizeof(float));

        // The ceiling: copying the same bytes.
        {
            std::vector<std::uint32_t> copy(size);
            CpuResult r;
            r.name = "memcpy";
            r.path = "memcpy";
            r.verified = true;
            r.elements = size;
            r.threads = request.threads;
            r.time = measure(
                [&] {
                    parallelFor(size, request.threads, [&](std::size_t b, std::size_t e) {
                        std::memcpy(copy.data() + b, bits.data() + b,
                                    (e - b) * sizeof(std::uint32_t));
                    });
                },
                request.plan, cancel, step);
            r.elementsPerSecond = r.time.median > 0 ? static_cast<double>(size) / r.time.median : 0;
            r.bytesPerSecond = r.elementsPerSecond * 8;
            results.push_back(r);
            ++done;
        }
        for (const FormatSpec& target : request.targets) {
            if (cancel && cancel->load())
                return results;
            CpuResult r;
            r.name = "fp32->" + target.id;
            r.elements = size;
            r.threads = request.threads;
            const auto kernel = Fp32Kernel::create(target, {});
            r.path = kernel ? "integer kernel" : "exact core";
            // Verify the path on a sample of this very input before timing it.
            r.verified = true;
            for (std::size_t i = 0; i < std::min<std::size_t>(size, 4096) && kernel; ++i)
                r.verified =
                    r.verified && kernel->convert(bits[i]) ==
                                      roundToFormat(decodeCode(fp32, bits[i]).value, target).code;
            const std::size_t outBytes = storageBytes(target.totalBits());
            std::vector<std::uint8_t> out(size * outBytes);
            auto convertRange = [&](std::size_t b, std::size_t e) {
                if (kernel && outBytes == 1)
                    kernel->convert(bits.data() + b, out.data() + b, e - b);
                else if (kernel && outBytes == 2)
                    kernel->convert(bits.data() + b,
                                    reinterpret_cast<std::uint16_t*>(out.data()) + b, e - b);
                else if (kernel && outBytes == 4)
                    kernel->convert(bits.data() + b,
                                    reinterpret_cast<std::uint32_t*>(out.data()) + b, e - b);
                else
                    for (std::size_t i = b; i < e; ++i) {
                        Code code = roundToFormat(decodeCode(fp32, bits[i]).value, target).code;
                        for (std::size_t k = 0; k < outBytes; ++k, code >>= 8)
                            out[i * outBytes + k] = static_cast<std::uint8_t>(code);
                    }
            };
            r.time = measure([&] { parallelFor(size, request.threads, convertRange); },
                             request.plan, cancel, step);
            r.elementsPerSecond = r.time.median > 0 ? static_cast<double>(size) / r.time.median : 0;
            r.bytesPerSecond =
                r.elementsPerSecond * static_cast<double>(4 + storageBytes(target.totalBits()));
            results.push_back(r);
            ++done;
        }
    }
    return results;
}

} // namespace fpx::bench
