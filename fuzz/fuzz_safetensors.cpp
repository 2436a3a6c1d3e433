// SPDX-License-Identifier: GPL-3.0-or-later
// The .safetensors reader: the 8-byte length, the JSON header and its checks, on the tensor-file
// path that `fpx inspect` and `fpx quantize` take (TensorFile::open on a file, the metadata,
// every tensor loaded, its statistics computed), which maps the file and checks every offset.
#include "fuzz_support.h"

#include "fpx/data/tensor_file.h"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static fpx::fuzz::ScratchFile file(".safetensors");
    const fpx::TensorFileOpen open = fpx::TensorFile::open(file.write(data, size));
    if (!open.file)
        return 0;
    for (const auto& [key, value] : open.file->metadata())
        (void)(key.size() + value.size());
    for (const fpx::TensorInfo& info : open.file->tensors()) {
        std::string error;
        if (const auto loaded = open.file->load(info.name, error))
            (void)fpx::tensorStatistics(loaded->view);
    }
    return 0;
}
