// SPDX-License-Identifier: GPL-3.0-or-later
#include "fpx/quantization/block_size_sweep.h"

namespace fpx {

std::vector<BlockSizePoint> sweepBlockSizes(const BlockFormat& format, const TensorView& input,
                                            const std::vector<std::size_t>& sizes,
                                            std::string& error, const QuantizeRun& run) {
    if (format.scheme == BlockScheme::Direct) {
        error = format.id + ": a direct cast has no blocks to sweep";
        return {};
    }
    std::vector<BlockSizePoint> points;
    const std::size_t total = input.size() * sizes.size();
    for (std::size_t s = 0; s < sizes.size(); ++s) {
        if (sizes[s] == 0) {
            error = format.id + ": a block holds at least one element";
            return {};
        }
        BlockFormat sized = format;
        sized.blocks = BlockLayout{BlockLayout::Kind::Elements, sizes[s]};
        QuantizeRun step;
        step.threads = run.threads;
        if (run.progress) {
            const std::size_t before = input.size() * s;
            step.progress = [&run, before, total](std::size_t done, std::size_t) {
                return run.progress(before + done, total);
            };
        }
        const std::optional<QuantizedTensor> quantized = quantizeTensor(sized, input, error, step);
        if (!quantized)
            return {};
        points.push_back({sizes[s], measureQuantization(input, *quantized)});
    }
    return points;
}

} // namespace fpx
