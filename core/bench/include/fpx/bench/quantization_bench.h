// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "fpx/bench/measurement.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace fpx::bench {

// The speed of the block quantizers (tensor_quantizer.h) on FP32 tensors far beyond the
// last-level cache, on every thread, each as a ratio to memcpy timed alongside it on as many
// threads (measureAlongside; docs/behaviour.md, "Benchmarks"). Bytes counted:
//   quantizer  the FP32 input read + the codes (one byte each, as QuantizedTensor holds them)
//              and the scale codes (four bytes each) written
//   memcpy     the FP32 input read + its copy written
// so a ratio of 1 means the quantizer moves its bytes as fast as memcpy moves its own. The
// quantizer writes into buffers kept from the previous run (quantizeTensorInto), as memcpy
// writes into its destination. Every row is verified first: on a sample of the tensor, every
// code, scale and count equals the exact core's (quantizeExactly).
struct QuantizationBenchRow {
    std::string format; // "mxfp4"
    std::string path;   // quantizerPath(): "MX blocks (AVX-512)"
    bool verified = false;
    std::uint64_t checked = 0; // elements of the sample compared with the exact core
    std::string note;          // why not verified
    Statistics time;
    Statistics referenceTime;
    double bytes = 0;          // per run, as above
    double referenceBytes = 0; // per memcpy
    double elementsPerSecond = 0;
    double bytesPerSecond = 0;
    double referenceBytesPerSecond = 0;
    double ratio = 0; // bytesPerSecond / referenceBytesPerSecond
    double goal = 0;  // the ratio the issue asks for
    // The bare loop of as many passes (bareQuantizerTraffic: the reads and the byte stores,
    // nothing worked out), credited with the quantizer's bytes and timed alongside its own
    // memcpy: what a quantizer reading the tensor `passes` times would reach here if its
    // arithmetic cost nothing.
    int passes = 1;
    Statistics bareTime;
    double bareRatio = 0;
};

// `fpx quantize --input FILE --formats …` against reading the file: a .safetensors of 8 FP32
// tensors (`fileBytes` in all) is written first, then each is timed alternately, the read as
// `cat FILE > /dev/null` does it (read() into a buffer of 1 MiB until the end), and the
// command's own path: the file opened as a TensorCollection, every tensor loaded through the
// mapping and quantized by runQuantizationPass with its full report (each format's default
// blocks), as `fpx quantize` runs it but for printing the rows. Both find the file in the page
// cache (it was just written and is read again and again); the ratio is quantize time / read
// time. One check for MXFP4 alone and one for six formats in one call.
struct QuantizationFileCheck {
    bool ran = false;
    std::string note; // why it did not run, or what it could not do
    std::string path;
    std::string format; // the --formats list
    std::size_t tensors = 0;
    std::uint64_t fileBytes = 0;
    std::string pageCache; // what the timings assume about the page cache
    Statistics readTime;
    Statistics loadAndQuantizeTime;
    double ratio = 0; // loadAndQuantizeTime / readTime
    double goal = 0;  // at most this
};

struct QuantizationBenchRequest {
    std::size_t elements = std::size_t{1} << 26; // 256 MiB of FP32
    std::size_t block = 128;
    int threads = 0; // 0: every hardware thread
    TimingPlan plan;
    std::uint64_t fileBytes = std::uint64_t{1} << 30; // 0: no file check
    std::string fileDirectory;                        // "": the system's temporary directory
};

struct QuantizationBenchReport {
    std::size_t elements = 0;
    std::size_t block = 0;
    int threads = 0;
    std::vector<QuantizationBenchRow> rows;
    std::vector<QuantizationFileCheck> files; // MXFP4, then six formats
};

// The --formats lists of the file checks and their goals (at most this many times the read).
struct QuantizationFileGoal {
    const char* formats;
    double goal;
};
std::vector<QuantizationFileGoal> quantizationFileGoals();

// The formats timed: MXFP8 (E4M3), MXFP4, NVFP4, NF4 and INT4, all with blocks of `block`.
std::vector<std::string> quantizationBenchFormats();

// `progress` gets the fraction done and what runs; `cancel` stops between measurements.
QuantizationBenchReport
runQuantizationBench(const QuantizationBenchRequest& request,
                     const std::function<void(double, const std::string&)>& progress = {},
                     const std::atomic<bool>* cancel = nullptr);

} // namespace fpx::bench
