// SPDX-License-Identifier: GPL-3.0-or-later
#include "common/tensor_input.h"

#include "fpx/data/value_distribution.h"

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
        auto floats = std::make_shared<std::vector<float>>(
            drawFloats(*distribution, source.count, source.seed));
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
    const TensorStatistics statistics = tensorStatistics(input->view);
    input->finite = statistics.elements - statistics.nans - statistics.infs;
    input->min = statistics.min;
    input->max = statistics.max;
    input->mean = statistics.mean;
    input->std = statistics.std;
    return input;
}

std::vector<TensorInfo> listTensors(const std::string& path, const std::optional<RawLayout>& raw,
                                    std::string& error) {
    // A text file holds one tensor, and listing it would parse every line: the picker runs on
    // the GUI thread, the parse belongs to the run.
    if (!raw) {
        std::string kindError;
        if (tensorFileKind(path, kindError) == TensorFileKind::Text) {
            TensorInfo info;
            const std::size_t slash = path.find_last_of('/');
            info.name = slash == std::string::npos ? path : path.substr(slash + 1);
            info.dtype = "text";
            return {info};
        }
    }
    TensorFileOpen opened = TensorFile::open(path, raw);
    if (!opened.file) {
        error = opened.error;
        return {};
    }
    return opened.file->tensors();
}

} // namespace fpx::gui
