// SPDX-License-Identifier: GPL-3.0-or-later
// The terms of a sum: where they come from and how they are rounded into the element format.
#include "fpx/accumulation/accumulation.h"

#include "fpx/data/tensor_file.h"
#include "fpx/data/value_distribution.h"
#include "fpx/exact/conversion.h"
#include "fpx/exact/format_catalogue.h"
#include "fpx/exact/format_limits.h"
#include "fpx/exact/text_util.h"
#include "fpx/exact/value_parser.h"
#include "fpx/exact/wide_rounding.h"
#include "fpx/exact/work_budget.h"

#include <cmath>
#include <filesystem>
#include <fstream>

namespace fpx {

namespace {

// Rounds drawn doubles into the element format (nearest even, IEEE overflow) and stores them.
class TermWriter {
  public:
    explicit TermWriter(const FormatSpec& element) {
        terms_.element = element;
        terms_.storage = termStorageFor(element);
        p_ = element.precision();
        if (terms_.storage != TermSequence::Storage::Exact && p_ < 53) {
            const FormatLimits limits = deriveLimits(element);
            rounder_.emplace(p_, doubleFromExact(*limits.minNormal), doubleFromExact(limits.max));
        }
    }

    void reserve(std::size_t n) {
        switch (terms_.storage) {
        case TermSequence::Storage::Float:
            terms_.floats.reserve(n);
            break;
        case TermSequence::Storage::Double:
            terms_.doubles.reserve(n);
            break;
        case TermSequence::Storage::Exact:
            terms_.exact.reserve(n);
            break;
        }
    }

    // The element value nearest x, as a double (only for Float and Double storage).
    double roundDouble(double x) const {
        double r = 0;
        if (rounder_ && rounder_->round(x, r))
            return r;
        if (!rounder_ && isBinary64(terms_.element))
            return x;
        return doubleFromExact(roundExact(exactFromDouble(x)));
    }

    ExactValue roundExact(const ExactValue& x) const { return roundedInto(x, terms_.element); }

    void addDouble(double x) {
        switch (terms_.storage) {
        case TermSequence::Storage::Float:
            terms_.floats.push_back(static_cast<float>(roundDouble(x)));
            break;
        case TermSequence::Storage::Double:
            terms_.doubles.push_back(roundDouble(x));
            break;
        case TermSequence::Storage::Exact:
            terms_.exact.push_back(roundExact(exactFromDouble(x)));
            break;
        }
    }

    void addExact(const ExactValue& x) {
        const ExactValue v = roundExact(x);
        switch (terms_.storage) {
        case TermSequence::Storage::Float:
            terms_.floats.push_back(static_cast<float>(doubleFromExact(v)));
            break;
        case TermSequence::Storage::Double:
            terms_.doubles.push_back(doubleFromExact(v));
            break;
        case TermSequence::Storage::Exact:
            terms_.exact.push_back(v);
            break;
        }
    }

    // n copies of one exact value.
    void fill(const ExactValue& x, std::size_t n) {
        const ExactValue v = roundExact(x);
        switch (terms_.storage) {
        case TermSequence::Storage::Float:
            terms_.floats.assign(n, static_cast<float>(doubleFromExact(v)));
            break;
        case TermSequence::Storage::Double:
            terms_.doubles.assign(n, doubleFromExact(v));
            break;
        case TermSequence::Storage::Exact:
            terms_.exact.assign(n, v);
            break;
        }
    }

    TermSequence take() { return std::move(terms_); }

  private:
    TermSequence terms_;
    int p_ = 0;
    std::optional<WideRounder<double>> rounder_;
};

bool readTextTerms(const std::string& path, std::istream& in, std::size_t count, TermWriter& writer,
                   std::size_t& written, std::string& error) {
    std::string line;
    std::size_t lineNumber = 0;
    StreamBudget budget;
    while ((count == 0 || written < count) && std::getline(in, line)) {
        ++lineNumber;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        const std::size_t start = line.find_first_not_of(" \t");
        if (start == std::string::npos || line[start] == '#')
            continue;
        const ParsedValue parsed = parseValue(line);
        if (!budget.charge(parsed)) {
            error = path + ":" + std::to_string(lineNumber) + ": " + StreamBudget::spentMessage();
            return false;
        }
        if (!parsed) {
            error = path + ":" + std::to_string(lineNumber) + ":" +
                    std::to_string(parsed.error.position + 1) + ": " + parsed.error.message;
            return false;
        }
        writer.addExact(*parsed.value);
        ++written;
    }
    return true;
}

} // namespace

std::optional<SumMethodSpec> parseSumMethod(std::string_view text) {
    if (text == "sequential")
        return SumMethodSpec{SumMethod::Sequential, 0};
    if (text == "pairwise")
        return SumMethodSpec{SumMethod::Pairwise, 0};
    if (text == "kahan")
        return SumMethodSpec{SumMethod::Kahan, 0};
    constexpr std::string_view prefix = "blocked:";
    if (text.substr(0, prefix.size()) != prefix || text.size() == prefix.size() ||
        text.size() > prefix.size() + 12)
        return std::nullopt;
    std::size_t k = 0;
    for (char c : text.substr(prefix.size())) {
        if (c < '0' || c > '9')
            return std::nullopt;
        k = k * 10 + static_cast<std::size_t>(c - '0');
    }
    if (k == 0)
        return std::nullopt;
    return SumMethodSpec{SumMethod::Blocked, k};
}

std::string sumMethodId(const SumMethodSpec& spec) {
    switch (spec.method) {
    case SumMethod::Sequential:
        return "sequential";
    case SumMethod::Pairwise:
        return "pairwise";
    case SumMethod::Kahan:
        return "kahan";
    case SumMethod::Blocked:
        return "blocked:" + std::to_string(spec.blockSize);
    }
    return "?";
}

std::optional<TermDistribution> parseTermDistribution(std::string_view text, std::string& error) {
    TermDistribution d;
    d.text = std::string(text);
    const std::vector<std::string_view> parts = splitAt(text, ':');
    const std::string_view kind = parts.front();
    auto expectParts = [&](std::size_t n, const char* form) {
        if (parts.size() == n)
            return true;
        error = "'" + std::string(text) + "': expected " + form;
        return false;
    };
    if (kind == "ones") {
        if (!expectParts(1, "ones"))
            return std::nullopt;
        d.kind = TermDistribution::Kind::Ones;
        return d;
    }
    if (kind == "const") {
        if (!expectParts(2, "const:V"))
            return std::nullopt;
        const auto v = parseFiniteParameter(parts[1], "const:V", error);
        if (!v)
            return std::nullopt;
        d.kind = TermDistribution::Kind::Constant;
        d.constant = *v;
        return d;
    }
    if (kind == "file") {
        const std::size_t colon = text.find(':');
        if (colon + 1 >= text.size()) {
            error = "file:PATH: the path is missing";
            return std::nullopt;
        }
        d.kind = TermDistribution::Kind::File;
        d.path = std::string(text.substr(colon + 1));
        return d;
    }
    // Anything else is a random distribution, in the one grammar of random values; its parser
    // names what is wrong with a distribution it knows.
    std::string randomError;
    if (const auto random = parseValueDistribution(text, randomError)) {
        d.kind = TermDistribution::Kind::Random;
        d.random = *random;
        return d;
    }
    if (isValueDistributionKind(kind))
        error = randomError;
    else
        error = "'" + std::string(text) +
                "': use ones, const:V, file:PATH or a distribution (uniform:A:B, "
                "normal:MU:SIGMA, lognormal:MU:SIGMA, laplace:B, student:NU)";
    return std::nullopt;
}

std::size_t TermSequence::size() const {
    switch (storage) {
    case Storage::Float:
        return floats.size();
    case Storage::Double:
        return doubles.size();
    case Storage::Exact:
        return exact.size();
    }
    return 0;
}

ExactValue TermSequence::at(std::size_t i) const {
    switch (storage) {
    case Storage::Float:
        return exactFromDouble(floats[i]);
    case Storage::Double:
        return exactFromDouble(doubles[i]);
    case Storage::Exact:
        return exact[i];
    }
    return ExactValue::nan();
}

TermSequence::Storage termStorageFor(const FormatSpec& element) {
    if (valuesFitFloat(element))
        return TermSequence::Storage::Float;
    if (valuesFitDouble(element))
        return TermSequence::Storage::Double;
    return TermSequence::Storage::Exact;
}

std::optional<TermSequence> makeTerms(const TermDistribution& distribution, std::size_t count,
                                      const FormatSpec& element, std::uint64_t seed,
                                      std::string& error) {
    TermWriter writer(element);
    switch (distribution.kind) {
    case TermDistribution::Kind::Ones:
        writer.fill(ExactValue::integer(1), count);
        break;
    case TermDistribution::Kind::Constant:
        writer.fill(distribution.constant, count);
        break;
    case TermDistribution::Kind::Random:
        writer.reserve(count);
        for (std::size_t i = 0; i < count; ++i)
            writer.addDouble(drawValue(distribution.random, seed, i));
        break;
    case TermDistribution::Kind::File: {
        // Text is read here, line by line and exactly (each value rounded once, into the
        // element format); a .npy or .safetensors file, or PATH:TENSOR, through the one tensor
        // file reader, whose values are exact FP32 or FP64 numbers. A pipe or device streams
        // as text.
        const std::string& path = distribution.path;
        std::error_code failure;
        const std::filesystem::file_status status = std::filesystem::status(path, failure);
        if (std::filesystem::is_directory(status)) {
            error = path + ": a directory, not a file of values";
            return std::nullopt;
        }
        bool tensorFile = !std::filesystem::exists(status); // PATH:TENSOR, or a missing file
        if (std::filesystem::is_regular_file(status)) {
            const std::optional<TensorFileKind> kind = tensorFileKind(path, error);
            if (!kind)
                return std::nullopt;
            tensorFile = kind != TensorFileKind::Text;
        }
        std::size_t written = 0;
        if (tensorFile) {
            const std::optional<TensorFile::Loaded> loaded =
                loadTensorArgument(path, std::nullopt, error);
            if (!loaded)
                return std::nullopt;
            const TensorView& view = loaded->view;
            written = count == 0 ? view.size() : std::min(count, view.size());
            writer.reserve(written);
            for (std::size_t i = 0; i < written; ++i)
                writer.addDouble(view.at(i));
        } else {
            std::ifstream in(path, std::ios::binary);
            if (!in) {
                error = path + ": cannot open the file";
                return std::nullopt;
            }
            if (!readTextTerms(path, in, count, writer, written, error))
                return std::nullopt;
        }
        if (count != 0 && written < count) {
            error = distribution.path + ": holds " + std::to_string(written) +
                    " values, fewer than the " + std::to_string(count) + " terms asked for";
            return std::nullopt;
        }
        break;
    }
    }
    return writer.take();
}

TermSequence termsFromValues(const std::vector<ExactValue>& values, const FormatSpec& element) {
    TermWriter writer(element);
    writer.reserve(values.size());
    for (const ExactValue& v : values)
        writer.addExact(v);
    return writer.take();
}

} // namespace fpx
