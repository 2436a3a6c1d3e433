// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/tensor_input.h"

#include "fpx/data/value_distribution.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace fpx::gui {

std::shared_ptr<TensorInput> loadTensorInput(const TensorSource& source, std::string& error) {
    auto input = std::make_shared<TensorInput>();
    if (source.kind == TensorSource::Kind::File) {
        if (source.argument.empty()) {
            error = "no tensor file chosen";
            return nullptr;
        }
        std::optional<TensorFile::Loaded> loaded =
            loadTensorArgument(source.argument, source.raw, error);
        if (!loaded)
            return nullptr;
        input->view = std::move(loaded->view);
        input->keepAlive = std::move(loaded->keepAlive);
        input->description = input->view.name + " " + shapeText(input->view.shape);
    } else {
        std::optional<ValueDistribution> distribution =
            parseValueDistribution(source.distribution, error);
        if (!distribution)
            return nullptr;
        if (!source.outliers.empty() && !parseOutliers(source.outliers, *distribution, error))
            return nullptr;
        if (source.count == 0) {
            error = "the count must be at least 1";
            return nullptr;
        }
        // Generated tensors are FP32: each double draw rounded once, to nearest-even.
        const std::vector<double> draws = drawValues(*distribution, source.count, source.seed);
        auto floats = std::make_shared<std::vector<float>>(draws.size());
        std::transform(draws.begin(), draws.end(), floats->begin(),
                       [](double x) { return static_cast<float>(x); });
        input->view.name =
            source.distribution + (source.outliers.empty() ? "" : " outliers " + source.outliers);
        input->view.shape = {floats->size()};
        input->view.floats = std::span<const float>(*floats);
        input->keepAlive = floats;
        input->description = input->view.name + ", seed " + std::to_string(source.seed);
    }
    if (input->view.size() == 0) {
        error = input->view.name + ": the tensor is empty";
        return nullptr;
    }
    double lo = std::numeric_limits<double>::infinity();
    double hi = -lo;
    double sum = 0;
    for (std::size_t i = 0; i < input->view.size(); ++i) {
        const double x = input->view.at(i);
        if (!std::isfinite(x))
            continue;
        lo = std::min(lo, x);
        hi = std::max(hi, x);
        sum += x;
        ++input->finite;
    }
    input->min = input->finite ? lo : 0;
    input->max = input->finite ? hi : 0;
    input->mean = input->finite ? sum / double(input->finite) : 0;
    double squares = 0; // about the mean: two passes, no cancellation
    for (std::size_t i = 0; i < input->view.size(); ++i)
        if (const double x = input->view.at(i); std::isfinite(x))
            squares += (x - input->mean) * (x - input->mean);
    input->std = input->finite ? std::sqrt(squares / double(input->finite)) : 0;
    return input;
}

std::vector<TensorInfo> listTensors(const std::string& path, const std::optional<RawLayout>& raw,
                                    std::string& error) {
    TensorFileOpen opened = TensorFile::open(path, raw);
    if (!opened.file) {
        error = opened.error;
        return {};
    }
    return opened.file->tensors();
}

} // namespace fpx::gui
