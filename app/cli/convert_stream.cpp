// SPDX-License-Identifier: GPL-3.0-or-later
// What fpx convert's text and raw loops share: the error log and the code-to-code converter.
#include "convert_stream.h"

#include "fpx/exact/conversion.h"

#include <ostream>

namespace fpx::cli {

std::size_t rawElementBytes(int bits) {
    for (std::size_t bytes : {1u, 2u, 4u, 8u, 10u, 16u})
        if (static_cast<int>(bytes * 8) >= bits)
            return bytes;
    return 16;
}

void ErrorLog::report(const std::string& message) {
    if (++count_ <= kMaxReportedErrors)
        err_ << "fpx convert: " << message << '\n';
}

void ErrorLog::fatal(const std::string& message) {
    ++count_;
    err_ << "fpx convert: " << message << '\n';
}

void ErrorLog::summarize() const {
    if (count_ > kMaxReportedErrors)
        err_ << "fpx convert: " << count_ << " errors in all (" << count_ - kMaxReportedErrors
             << " not shown)\n";
}

CodeConverter::CodeConverter(const FormatSpec& from, const FormatSpec& to,
                             const ConversionSetup& setup)
    : from_(from), to_(to), setup_(setup) {
    if (from.totalBits() <= 16 && setup.rounding.mode != RoundingMode::Stochastic)
        cache_.resize(std::size_t{1} << from.totalBits());
    if (from.id == "fp32" && to.id != "fp32")
        encoder_ = BulkEncoder::create(to, setup.rounding, HardwareUse::BitExact, setup.seed);
    if (to.id == "fp32" && from.id != "fp32")
        decoder_ = BulkDecoder::create(from, setup.rounding, HardwareUse::BitExact);
    // A kernel whose elements are not the raw layout's width would misread the stream.
    if (encoder_ &&
        static_cast<std::size_t>(encoder_->bytesPerElement()) != rawElementBytes(to.totalBits()))
        encoder_.reset();
    if (decoder_ &&
        static_cast<std::size_t>(decoder_->bytesPerElement()) != rawElementBytes(from.totalBits()))
        decoder_.reset();
}

Code CodeConverter::convert(Code code, std::uint64_t index) {
    if (!cache_.empty()) {
        auto& slot = cache_[static_cast<std::size_t>(code)];
        if (!slot)
            slot = roundToFormat(decodeCode(from_, code).value, to_, setup_.rounding).code;
        return *slot;
    }
    return roundToFormat(decodeCode(from_, code).value, to_, setup_.forElement(index)).code;
}

} // namespace fpx::cli
