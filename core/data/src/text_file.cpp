// SPDX-License-Identifier: GPL-3.0-or-later
// Text tensors: one value per line, as fpx parses values everywhere (value_parser.h).
#include "tensor_file_kinds.h"

#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/value_parser.h"

#include <bit>
#include <cmath>

namespace fpx::tensor_file {

namespace {

// The values are parsed exactly and rounded once (nearest, ties to even) to the double nearest
// them: the one rounding a decimal text must go through to become a tensor of doubles.
class TextTensorFile : public TensorFile {
  public:
    TextTensorFile(std::string path, std::shared_ptr<const std::vector<double>> values)
        : path_(std::move(path)), values_(std::move(values)) {
        TensorInfo info;
        info.name = fileNameOf(path_);
        info.dtype = "text";
        info.elementCount = values_->size();
        info.shape = {info.elementCount};
        tensors_.push_back(std::move(info));
    }
    TensorFileKind kind() const override { return TensorFileKind::Text; }
    const std::string& path() const override { return path_; }
    const std::vector<TensorInfo>& tensors() const override { return tensors_; }
    std::optional<Loaded> load(const std::string& name, std::string& error) const override {
        if (name != tensors_.front().name) {
            error = path_ + ": no tensor named '" + name + "'";
            return std::nullopt;
        }
        Loaded loaded;
        loaded.view.name = name;
        loaded.view.shape = tensors_.front().shape;
        loaded.view.doubles = *values_;
        loaded.keepAlive = values_;
        return loaded;
    }

  private:
    std::string path_;
    std::shared_ptr<const std::vector<double>> values_;
    std::vector<TensorInfo> tensors_;
};

} // namespace

TensorFileOpen openText(const std::string& path, const MappedFile& mapping) {
    const FormatSpec& fp64 = fp64Spec();
    auto values = std::make_shared<std::vector<double>>();
    const std::string_view text = mapping.bytes();
    // A UTF-8 byte order mark, as some editors write, is not part of the first value.
    std::size_t lineStart = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
    for (std::size_t lineNumber = 1; lineStart < text.size(); ++lineNumber) {
        std::size_t lineEnd = text.find('\n', lineStart);
        if (lineEnd == std::string_view::npos)
            lineEnd = text.size();
        std::string_view line = text.substr(lineStart, lineEnd - lineStart);
        const std::size_t column0 = line.find_first_not_of(" \t\r");
        lineStart = lineEnd + 1;
        if (column0 == std::string_view::npos || line[column0] == '#')
            continue;
        const std::size_t last = line.find_last_not_of(" \t\r");
        line = line.substr(column0, last + 1 - column0);
        const auto where = [&](std::size_t column) {
            return path + ":" + std::to_string(lineNumber) + ":" + std::to_string(column) + ": ";
        };
        const ParsedValue parsed = parseValue(line);
        if (!parsed)
            return {nullptr, where(column0 + parsed.error.position + 1) + parsed.error.message +
                                 " in '" + std::string(line) + "'"};
        // fp64's code is the double's bit pattern.
        const Code code = roundToFormat(*parsed.value, fp64).code;
        const double value = std::bit_cast<double>(static_cast<std::uint64_t>(code));
        if (parsed.value->isFinite() && !std::isfinite(value))
            return {nullptr, where(column0 + 1) + "'" + std::string(line) +
                                 "' is beyond the range of a double"};
        values->push_back(value);
    }
    return {std::make_unique<TextTensorFile>(path, std::move(values)), {}};
}

} // namespace fpx::tensor_file
