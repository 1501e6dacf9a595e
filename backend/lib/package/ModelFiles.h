//===- ModelFiles.h - A model's files: package or .so -----------*- C++ -*-===//
//
// Everything the loader reads from disk before dlopen, gathered in one
// ModelFiles: from a .pt2 package, whose model folder is extracted into a
// content-keyed temporary directory (TempDir.h), or from the files a bare
// .so has beside it.
//
//===----------------------------------------------------------------------===//
#ifndef AOTI_BACKEND_LIB_MODELFILES_H
#define AOTI_BACKEND_LIB_MODELFILES_H

#include "FileBytes.h"
#include "TempDir.h"

#include "aoti/backend/Error.h"

#include <optional>
#include <string>
#include <vector>

namespace aoti::backend {

/// Everything the loader takes from a model's files, whether they came from a
/// package or lie beside a .so.
struct ModelFiles {
  /// The package's model this is (its folder under data/aotinductor/);
  /// empty for a bare .so.
  std::string ModelName;
  std::string SoPath;
  std::string CubinDir;
  /// The metadata JSON text, empty when there is none.
  std::string Metadata;
  std::string WeightsPath; // for messages; empty when there is no blob
  std::optional<AlignedBytes> Weights;
  /// The generated <hash>.wrapper.cpp, empty when absent.
  std::string WrapperSource;
  /// kernelThreadCount() of the package's generated CPU kernel sources
  /// (<hash>.kernel.cpp); nullopt when there are none (a bare .so, a CUDA
  /// package).
  std::optional<int> KernelThreads;
  /// A package with files under <root>/data/weights/: weights exported with
  /// package_constants_on_disk_format="pickle_weights", which only torch's
  /// Python loader reads.
  bool PickledWeights = false;
  std::optional<TempDir> Extracted;
};

/// Extracts one model of a .pt2 package (its <root>/data/aotinductor/<name>/
/// folder) into a content-keyed temporary directory: ModelName, else torch's
/// default "model", else the package's only model. An unknown name is an
/// InvalidArgument error that names the models there.
Expected<ModelFiles> openPackage(const std::string &Path,
                                 const std::optional<std::string> &ModelName);
/// Where a bare .so's weights and cubins are when not beside it
/// (LoadOptions::WeightsPath and CubinDir).
struct SideFiles {
  std::optional<std::string> WeightsPath;
  std::optional<std::string> CubinDir;
};

/// A bare .so: metadata, weights and source are looked for beside it
/// (<stem>_metadata.json, <stem>_weights.blob, <stem>.cpp for <stem>.so),
/// the weights and cubins where Side says when it says.
Expected<ModelFiles> openSharedObject(const std::string &Path,
                                      const SideFiles &Side);

} // namespace aoti::backend

#endif
