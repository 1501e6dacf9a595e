//===- EmbeddedConstants.h - Size of the constants section ------*- C++ -*-===//
//
// Read with LLVM's libObject from the model's symbol tables; Model.cpp
// decides from it where a model's weights are.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_BACKEND_LIB_EMBEDDEDCONSTANTS_H
#define AOTI_BACKEND_LIB_EMBEDDEDCONSTANTS_H

#include <cstdint>
#include <optional>
#include <string>

namespace aoti::backend {

/// The bytes between the model's _binary_constants_bin_start and
/// _binary_constants_bin_end symbols: the constants section AOTInductor
/// links into every model .so (model_base.h). It holds the weights when they
/// were exported into the .so; 8 bytes (the external blob's size) with
/// package_constants_on_disk_format="binary_blob"; 16 (size and magic) for
/// weights appended to the .so and mmap'd; 1 or 0 bytes when the weights
/// were left out. nullopt when the file defines neither symbol in either
/// symbol table (not a model AOTInductor generated, or stripped).
std::optional<uint64_t> embeddedConstantsSize(const std::string &SoPath);

} // namespace aoti::backend

#endif
