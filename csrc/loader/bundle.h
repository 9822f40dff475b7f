// The .eocr bundle reader (format: docs/bundle-format.md). A bundle is opened
// from a file (memory-mapped, members used in place) or from caller memory;
// the manifest is parsed with a nesting limit and validated against one
// declared schema before any value is used; member sizes and sha256 are checked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "edgeocr/pipeline.h"
#include "loader/bundle_error.h"
#include "loader/mapped_file.h"

namespace edgeocr {
namespace loader {

constexpr int kBundleFormatVersion = 1;
constexpr std::size_t kMaxManifestBytes = 8u << 20;
constexpr int kMaxManifestDepth = 24;

struct BundleModel {
  std::string role;  // det, cls, rec, recheck
  std::string file;  // member name
  std::string format;
  std::string sha256;         // as the manifest says (checked unless verification was skipped)
  std::string source_sha256;  // of the model it was made from ("" if not recorded)
  const std::uint8_t* data = nullptr;  // in the mapped file / the caller's buffer
  std::size_t size = 0;
};

// Thread-safe after construction (read-only).
class Bundle {
 public:
  // Maps the file. Throws NotFound, or BundleError naming the file, the member
  // and the value found against the value expected.
  static std::shared_ptr<const Bundle> open(const std::string& path, bool verify_checksums = true);
  // Over caller memory, which must outlive the Bundle (no copy is made).
  static std::shared_ptr<const Bundle> view(const void* data, std::size_t size,
                                            const std::string& name, bool verify_checksums = true);

  const std::string& name() const { return name_; }
  const nlohmann::json& manifest() const { return manifest_; }
  const std::vector<BundleModel>& models() const { return models_; }
  const BundleModel* model(const std::string& role) const;
  // The rec model's class list (blank first); empty without a rec model.
  const std::vector<std::string>& charset() const { return charset_; }
  // The recheck model's class list (blank first); empty without a recheck model.
  const std::vector<std::string>& recheck_charset() const { return recheck_charset_; }
  // edgeocr's defaults with the manifest's "pipeline" settings applied.
  const PipelineConfig& config() const { return config_; }
  // runtime.graph_optimization: 0, 1, 2 or 99 (GraphOptimization), -1 if absent.
  int graph_optimization() const { return graph_optimization_; }
  std::size_t file_size() const { return size_; }

 private:
  Bundle() = default;
  void init(bool verify_checksums);

  std::unique_ptr<MappedFile> map_;
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  std::string name_;
  nlohmann::json manifest_;
  std::vector<BundleModel> models_;
  std::vector<std::string> charset_, recheck_charset_;
  PipelineConfig config_;
  int graph_optimization_ = -1;
};

// Parses and validates manifest text (exposed for tests and `edgeocr info`).
// `file_size` bounds every declared member size.
nlohmann::json parse_manifest(const char* text, std::size_t size, std::uint64_t file_size,
                              const std::string& name);

}  // namespace loader
}  // namespace edgeocr
