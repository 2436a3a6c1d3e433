// SPDX-License-Identifier: GPL-3.0-or-later
// The .npy reader: the header parser on the bytes in memory (parseNpy), and the tensor-file
// path that `fpx inspect` and `fpx quantize` take (TensorFile::open on a file, every tensor
// loaded, its statistics computed), which maps the file and checks every offset.
#include "fuzz_support.h"

#include "fpx/data/npy_reader.h"
#include "fpx/data/tensor_file.h"

#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    static fpx::fuzz::ScratchFile file(".npy");
    (void)fpx::parseNpy(fpx::fuzz::asText(data, size), "input.npy");
    const fpx::TensorFileOpen open = fpx::TensorFile::open(file.write(data, size));
    if (!open.file)
        return 0;
    for (const fpx::TensorInfo& info : open.file->tensors()) {
        std::string error;
        if (const auto loaded = open.file->load(info.name, error))
            (void)fpx::tensorStatistics(loaded->view);
    }
    return 0;
}
