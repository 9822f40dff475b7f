// Model: one ONNX graph executed by ONNX Runtime through its C API.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "edgeocr/memory_pool.h"
#include "edgeocr/tensor.h"

namespace edgeocr {

enum class GraphOptimization : int { kDisabled = 0, kBasic = 1, kExtended = 2, kAll = 99 };

// The most intra-op or inter-op threads a session may ask for (more than any CPU has cores;
// ONNX Runtime would try to start them all).
constexpr int kMaxSessionThreads = 1024;

struct SessionOptions {
  int intra_threads = 0;  // 0: ONNX Runtime's default (one per physical core)
  int inter_threads = 0;  // used in parallel execution mode only
  bool parallel = false;  // execution mode: sequential (default) or parallel
  GraphOptimization optimization = GraphOptimization::kAll;
  // Busy-waiting worker threads cut latency a little on an idle machine but
  // made a 2-core run 4x slower when another process was busy: off by default.
  bool allow_spinning = false;
  // Arena on + pattern off: 221 MiB peak RSS on det 960x960 vs 343 MiB with
  // both on (pattern plans are per shape and OCR shapes vary).
  bool memory_arena = true;
  bool memory_pattern = false;
  // Use one process-wide CPU arena, shared by every session that asks for it, instead of an
  // arena per session (memory_arena is then not used): the det, cls and rec models of a
  // pipeline, run one after another, reuse the same memory. The arena grows by what is
  // asked and is kept until the process ends.
  bool shared_arena = false;
  // Give the arena's free memory back after every run (ORT's run option
  // memory.enable_memory_arena_shrinkage), so a session holds no activations between calls: what a
  // memory budget needs. Needs an arena (memory_arena or shared_arena); costs page faults per run.
  bool shrink_arena = false;
  std::string optimized_model_path;  // if set, ORT writes the optimised graph there
  // aarch64 only (ignored elsewhere): ONNX Runtime's fp32 GEMMs run as bf16
  // (session config "mlas.enable_gemm_fastmath_arm64_bfloat16"); faster on CPUs
  // with BF16 instructions, results differ from fp32 in the low bits. Opt-in.
  bool arm64_bf16_fastmath = false;
};

namespace ort {
struct OrtSession;
struct OrtRunOptions;
}  // namespace ort

// Thread-safe: run() may be called from several threads at once.
class Model {
 public:
  // Throws NotFound (no such file), InvalidModel (not a loadable ONNX model),
  // RuntimeUnavailable (no usable ONNX Runtime).
  // `name` (default: the path) names the model in errors and in name().
  static std::shared_ptr<Model> from_file(const std::string& path, const SessionOptions& opts,
                                          std::shared_ptr<MemoryPool> pool = nullptr,
                                          const std::string& name = std::string());
  // Does not keep `data` after returning.
  static std::shared_ptr<Model> from_bytes(const void* data, std::size_t size,
                                           const SessionOptions& opts,
                                           std::shared_ptr<MemoryPool> pool = nullptr,
                                           const std::string& name = "<bytes>");
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const std::vector<TensorInfo>& inputs() const { return inputs_; }
  const std::vector<TensorInfo>& outputs() const { return outputs_; }
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  const std::string& name() const { return name_; }
  const std::shared_ptr<MemoryPool>& pool() const { return pool_; }

  // Runs the graph on `inputs` (one per declared input, in order) and returns
  // every output in pooled memory. Inputs are checked against the declared
  // rank, fixed dimensions and dtype (InvalidArgument with the expectation).
  // After the first call with a given set of input shapes, outputs are
  // written straight into pool blocks: no tensor allocation in steady state.
  std::vector<Tensor> run(const std::vector<TensorView>& inputs) const;

  // The output shapes depend on the input values, not only on their shapes (a decoder's steps:
  // SLANet): outputs are never preallocated. Without it such a model's second run of a shape
  // fails inside ONNX Runtime (which logs it) and is run again.
  void set_outputs_depend_on_values() const { value_dependent_outputs_ = true; }

 private:
  Model() = default;
  void init(const SessionOptions& opts, std::shared_ptr<MemoryPool> pool);
  void check_inputs(const std::vector<TensorView>& inputs) const;

  ort::OrtSession* session_ = nullptr;
  ort::OrtRunOptions* run_options_ = nullptr;  // null: ORT's defaults
  std::string name_;
  std::vector<TensorInfo> inputs_, outputs_;
  std::vector<const char*> input_names_, output_names_;
  std::map<std::string, std::string> metadata_;
  std::shared_ptr<MemoryPool> pool_;

  // Output shapes seen per input-shape key, so later calls preallocate (an empty entry: shapes
  // that depend on the input values, never preallocated).
  mutable std::atomic<bool> value_dependent_outputs_{false};
  mutable std::mutex shapes_mu_;
  mutable std::map<std::vector<std::int64_t>, std::vector<std::vector<std::int64_t>>> out_shapes_;
};

}  // namespace edgeocr
