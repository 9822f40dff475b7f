#include <sys/stat.h>

#include <cstring>
#include <fstream>

#include "common/checked.h"
#include "edgeocr/model.h"
#include "edgeocr/status.h"
#include "runtime/malloc_tuning.h"
#include "runtime/ort/ort_api.h"

namespace edgeocr {

using ort::check;

namespace {

constexpr int kBackend = static_cast<int>(StatusCode::kBackendError);
constexpr int kBadModel = static_cast<int>(StatusCode::kInvalidModel);

// Releases an ORT object at scope exit.
template <typename T, typename F>
struct Guard {
  T* p;
  F release;
  ~Guard() {
    if (p) release(p);
  }
};
template <typename T, typename F>
Guard<T, F> guard(T* p, F f) {
  return Guard<T, F>{p, f};
}

std::string take_string(const ort::Runtime& rt, char* s) {
  std::string out = s ? s : "";
  if (s) check(rt.api.AllocatorFree()(rt.allocator, s), "AllocatorFree", kBackend);
  return out;
}

TensorInfo tensor_info(const ort::Runtime& rt, ort::OrtTypeInfo* ti, std::string name) {
  const auto& api = rt.api;
  auto g = guard(ti, api.ReleaseTypeInfo());
  TensorInfo info;
  info.name = std::move(name);
  int onnx_type = 0;
  check(api.GetOnnxTypeFromTypeInfo()(ti, &onnx_type), "GetOnnxTypeFromTypeInfo", kBackend);
  if (onnx_type != ort::kOnnxTypeTensor) {
    fail(StatusCode::kInvalidModel, "input/output '" + info.name + "' is not a tensor (ONNX type " +
                                        std::to_string(onnx_type) +
                                        "); edgeocr runs tensor-in, tensor-out models");
  }
  const ort::OrtTensorTypeAndShapeInfo* tsi = nullptr;
  check(api.CastTypeInfoToTensorInfo()(ti, &tsi), "CastTypeInfoToTensorInfo", kBackend);
  int et = 0;
  check(api.GetTensorElementType()(tsi, &et), "GetTensorElementType", kBackend);
  info.dtype = static_cast<DType>(et);
  std::size_t rank = 0;
  check(api.GetDimensionsCount()(tsi, &rank), "GetDimensionsCount", kBackend);
  info.shape.assign(rank, 0);
  std::vector<const char*> names(rank, nullptr);
  if (rank) {
    check(api.GetDimensions()(tsi, info.shape.data(), rank), "GetDimensions", kBackend);
    check(api.GetSymbolicDimensions()(tsi, names.data(), rank), "GetSymbolicDimensions", kBackend);
  }
  for (std::size_t i = 0; i < rank; ++i) {
    if (info.shape[i] < 0) info.shape[i] = -1;
    info.dim_names.emplace_back(names[i] ? names[i] : "");
  }
  return info;
}

ort::OrtSessionOptions* make_options(const ort::Runtime& rt, const SessionOptions& o) {
  const auto& api = rt.api;
  ort::OrtSessionOptions* so = nullptr;
  limit_malloc_arenas();  // before the session starts its threads (runtime/malloc_tuning.h)
  check(api.CreateSessionOptions()(&so), "CreateSessionOptions", kBackend);
  auto g = guard(so, api.ReleaseSessionOptions());
  if (o.intra_threads < 0 || o.inter_threads < 0 || o.intra_threads > kMaxSessionThreads ||
      o.inter_threads > kMaxSessionThreads)
    fail(StatusCode::kInvalidArgument,
         "threads must be in [0, " + std::to_string(kMaxSessionThreads) +
             "] (0 = runtime default), got " + std::to_string(o.intra_threads) + " intra-op, " +
             std::to_string(o.inter_threads) + " inter-op");
  check(api.SetIntraOpNumThreads()(so, o.intra_threads), "SetIntraOpNumThreads", kBackend);
  check(api.SetInterOpNumThreads()(so, o.inter_threads), "SetInterOpNumThreads", kBackend);
  check(api.SetSessionExecutionMode()(so, o.parallel ? ort::kParallel : ort::kSequential),
        "SetSessionExecutionMode", kBackend);
  check(api.SetSessionGraphOptimizationLevel()(so, static_cast<int>(o.optimization)),
        "SetSessionGraphOptimizationLevel", kBackend);
  check((o.memory_arena ? api.EnableCpuMemArena() : api.DisableCpuMemArena())(so), "CpuMemArena",
        kBackend);
  check((o.memory_pattern ? api.EnableMemPattern() : api.DisableMemPattern())(so), "MemPattern",
        kBackend);
  if (o.shared_arena) {
    ort::ensure_shared_arena(rt);
    check(api.AddSessionConfigEntry()(so, "session.use_env_allocators", "1"),
          "AddSessionConfigEntry", kBackend);
  }
  const char* spin = o.allow_spinning ? "1" : "0";
  check(api.AddSessionConfigEntry()(so, "session.intra_op.allow_spinning", spin),
        "AddSessionConfigEntry", kBackend);
  check(api.AddSessionConfigEntry()(so, "session.inter_op.allow_spinning", spin),
        "AddSessionConfigEntry", kBackend);
  if (o.arm64_bf16_fastmath)
    check(api.AddSessionConfigEntry()(so, "mlas.enable_gemm_fastmath_arm64_bfloat16", "1"),
          "AddSessionConfigEntry", kBackend);
  if (!o.optimized_model_path.empty())
    check(api.SetOptimizedModelFilePath()(so, o.optimized_model_path.c_str()),
          "SetOptimizedModelFilePath", kBackend);
  g.p = nullptr;
  return so;
}

}  // namespace

std::shared_ptr<Model> Model::from_file(const std::string& path, const SessionOptions& opts,
                                        std::shared_ptr<MemoryPool> pool, const std::string& name) {
  const std::string& shown = name.empty() ? path : name;
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) fail(StatusCode::kNotFound, "model file not found: " + shown);
  if (S_ISDIR(st.st_mode))
    fail(StatusCode::kInvalidArgument, "model path is a directory, not a file: " + shown);
  if (st.st_size == 0) fail(StatusCode::kInvalidModel, shown + ": model file is empty (0 bytes)");
  const auto& rt = ort::runtime();
  std::shared_ptr<Model> m(new Model());
  m->name_ = shown;
  ort::OrtSessionOptions* so = make_options(rt, opts);
  auto g = guard(so, rt.api.ReleaseSessionOptions());
  check(rt.api.CreateSession()(rt.env, path.c_str(), so, &m->session_),
        shown + ": not a loadable ONNX model", kBadModel);
  m->init(opts, std::move(pool));
  return m;
}

std::shared_ptr<Model> Model::from_bytes(const void* data, std::size_t size,
                                         const SessionOptions& opts,
                                         std::shared_ptr<MemoryPool> pool,
                                         const std::string& name) {
  if (data == nullptr || size == 0)
    fail(StatusCode::kInvalidModel, name + ": model bytes are empty");
  const auto& rt = ort::runtime();
  std::shared_ptr<Model> m(new Model());
  m->name_ = name;
  ort::OrtSessionOptions* so = make_options(rt, opts);
  auto g = guard(so, rt.api.ReleaseSessionOptions());
  check(rt.api.CreateSessionFromArray()(rt.env, data, size, so, &m->session_),
        name + ": not a loadable ONNX model", kBadModel);
  m->init(opts, std::move(pool));
  return m;
}

Model::~Model() {
  if (session_) ort::runtime().api.ReleaseSession()(session_);
  if (run_options_) ort::runtime().api.ReleaseRunOptions()(run_options_);
}

void Model::init(const SessionOptions& opts, std::shared_ptr<MemoryPool> pool) {
  const auto& rt = ort::runtime();
  const auto& api = rt.api;
  pool_ = pool ? std::move(pool) : MemoryPool::create();
  if (opts.shrink_arena) {
    if (!opts.memory_arena && !opts.shared_arena)
      fail(StatusCode::kInvalidArgument,
           "shrink_arena needs an arena (memory_arena or shared_arena)");
    check(api.CreateRunOptions()(&run_options_), "CreateRunOptions", kBackend);
    check(api.AddRunConfigEntry()(run_options_, "memory.enable_memory_arena_shrinkage", "cpu:0"),
          "AddRunConfigEntry", kBackend);
  }
  std::size_t n_in = 0, n_out = 0;
  check(api.SessionGetInputCount()(session_, &n_in), "SessionGetInputCount", kBackend);
  check(api.SessionGetOutputCount()(session_, &n_out), "SessionGetOutputCount", kBackend);
  for (std::size_t i = 0; i < n_in; ++i) {
    char* nm = nullptr;
    check(api.SessionGetInputName()(session_, i, rt.allocator, &nm), "SessionGetInputName",
          kBackend);
    std::string name = take_string(rt, nm);
    ort::OrtTypeInfo* ti = nullptr;
    check(api.SessionGetInputTypeInfo()(session_, i, &ti), "SessionGetInputTypeInfo", kBackend);
    inputs_.push_back(tensor_info(rt, ti, name));
  }
  for (std::size_t i = 0; i < n_out; ++i) {
    char* nm = nullptr;
    check(api.SessionGetOutputName()(session_, i, rt.allocator, &nm), "SessionGetOutputName",
          kBackend);
    std::string name = take_string(rt, nm);
    ort::OrtTypeInfo* ti = nullptr;
    check(api.SessionGetOutputTypeInfo()(session_, i, &ti), "SessionGetOutputTypeInfo", kBackend);
    outputs_.push_back(tensor_info(rt, ti, name));
  }
  for (const auto& t : outputs_) {
    if (dtype_size(t.dtype) == 0)
      fail(StatusCode::kUnsupported, name_ + ": output '" + t.name + "' has type " +
                                         dtype_name(t.dtype) + ", which edgeocr cannot return");
  }
  for (auto& t : inputs_) input_names_.push_back(t.name.c_str());
  for (auto& t : outputs_) output_names_.push_back(t.name.c_str());

  ort::OrtModelMetadata* md = nullptr;
  check(api.SessionGetModelMetadata()(session_, &md), "SessionGetModelMetadata", kBackend);
  auto g = guard(md, api.ReleaseModelMetadata());
  char** keys = nullptr;
  std::int64_t n_keys = 0;
  check(api.ModelMetadataGetCustomMetadataMapKeys()(md, rt.allocator, &keys, &n_keys),
        "ModelMetadataGetCustomMetadataMapKeys", kBackend);
  for (std::int64_t i = 0; i < n_keys; ++i) {
    char* value = nullptr;
    check(api.ModelMetadataLookupCustomMetadataMap()(md, rt.allocator, keys[i], &value),
          "ModelMetadataLookupCustomMetadataMap", kBackend);
    std::string v = take_string(rt, value);
    metadata_[take_string(rt, keys[i])] = std::move(v);
  }
  if (keys) check(api.AllocatorFree()(rt.allocator, keys), "AllocatorFree", kBackend);
}

void Model::check_inputs(const std::vector<TensorView>& in) const {
  if (in.size() != inputs_.size())
    fail(StatusCode::kInvalidArgument, name_ + ": expected " + std::to_string(inputs_.size()) +
                                           " input(s), got " + std::to_string(in.size()));
  for (std::size_t i = 0; i < in.size(); ++i) {
    const TensorInfo& decl = inputs_[i];
    const TensorView& v = in[i];
    if (v.dtype != decl.dtype)
      fail(StatusCode::kInvalidArgument, name_ + ": input '" + decl.name + "' must be " +
                                             dtype_name(decl.dtype) + ", got " +
                                             dtype_name(v.dtype));
    if (v.shape.size() != decl.shape.size())
      fail(StatusCode::kInvalidArgument, name_ + ": input '" + decl.name + "' must have rank " +
                                             std::to_string(decl.shape.size()) + " (shape " +
                                             shape_str(decl.shape) + "), got shape " +
                                             shape_str(v.shape));
    for (std::size_t d = 0; d < v.shape.size(); ++d) {
      if (v.shape[d] <= 0)
        fail(StatusCode::kInvalidArgument,
             name_ + ": input '" + decl.name + "' has an empty shape " + shape_str(v.shape));
      if (decl.shape[d] >= 0 && decl.shape[d] != v.shape[d])
        fail(StatusCode::kInvalidArgument,
             name_ + ": input '" + decl.name + "' dimension " + std::to_string(d) + " must be " +
                 std::to_string(decl.shape[d]) + " (shape " + shape_str(decl.shape) +
                 ", -1 = any), got shape " + shape_str(v.shape));
    }
    if (!v.data)
      fail(StatusCode::kInvalidArgument, name_ + ": input '" + decl.name + "' has no data");
  }
}

std::vector<Tensor> Model::run(const std::vector<TensorView>& in) const {
  check_inputs(in);
  const auto& rt = ort::runtime();
  const auto& api = rt.api;
  const std::size_t n_in = in.size(), n_out = outputs_.size();

  // Input values wrap caller memory (no copy).
  std::vector<ort::OrtValue*> in_vals(n_in, nullptr);
  std::vector<ort::OrtValue*> out_vals(n_out, nullptr);
  struct Cleanup {
    const ort::Api& api;
    std::vector<ort::OrtValue*>& a;
    std::vector<ort::OrtValue*>& b;
    ~Cleanup() {
      for (auto* v : a)
        if (v) api.ReleaseValue()(v);
      for (auto* v : b)
        if (v) api.ReleaseValue()(v);
    }
  } cleanup{api, in_vals, out_vals};

  std::vector<std::int64_t> key;
  for (std::size_t i = 0; i < n_in; ++i) {
    const TensorView& v = in[i];
    std::size_t bytes =
        checked_mul(static_cast<std::size_t>(element_count(v.shape)), dtype_size(v.dtype),
                    "model input bytes", StatusCode::kInvalidArgument);
    check(api.CreateTensorWithDataAsOrtValue()(rt.cpu_memory, const_cast<void*>(v.data), bytes,
                                               v.shape.data(), v.shape.size(),
                                               static_cast<int>(v.dtype), &in_vals[i]),
          name_ + ": CreateTensorWithDataAsOrtValue", kBackend);
    key.push_back(static_cast<std::int64_t>(v.shape.size()));
    key.insert(key.end(), v.shape.begin(), v.shape.end());
  }

  std::vector<Tensor> outs(n_out);
  std::vector<std::vector<std::int64_t>> known_shapes;
  bool known = false;
  const bool value_dependent_model = value_dependent_outputs_.load();
  if (!value_dependent_model) {
    std::lock_guard<std::mutex> lock(shapes_mu_);
    auto it = out_shapes_.find(key);
    // An empty entry: this model's output shapes depend on the input values (SLANet's steps).
    if (it != out_shapes_.end() && !it->second.empty()) {
      known_shapes = it->second;
      known = true;
    }
  }
  if (known) {
    for (std::size_t i = 0; i < n_out; ++i) {
      Tensor& t = outs[i];
      t.dtype = outputs_[i].dtype;
      t.shape = known_shapes[i];
      t.block = pool_->acquire(t.bytes());
      check(api.CreateTensorWithDataAsOrtValue()(rt.cpu_memory, t.data(), t.bytes(), t.shape.data(),
                                                 t.shape.size(), static_cast<int>(t.dtype),
                                                 &out_vals[i]),
            name_ + ": CreateTensorWithDataAsOrtValue", kBackend);
    }
  }
  ort::OrtStatus* st = api.Run()(session_, run_options_, input_names_.data(), in_vals.data(), n_in,
                                 output_names_.data(), n_out, out_vals.data());
  bool value_dependent = false;
  if (st && known) {
    // Output shapes that depend on input values, not only on input shapes:
    // let ORT allocate this time.
    api.ReleaseStatus()(st);
    for (auto& v : out_vals) {
      if (v) api.ReleaseValue()(v);
      v = nullptr;
    }
    outs.clear();
    outs.resize(n_out);
    known = false;
    value_dependent = true;
    st = api.Run()(session_, run_options_, input_names_.data(), in_vals.data(), n_in,
                   output_names_.data(), n_out, out_vals.data());
  }
  check(st, name_ + ": inference failed", kBackend);
  if (known) return outs;

  // First call with these shapes: ORT allocated the outputs; move them into
  // the pool and remember their shapes.
  std::vector<std::vector<std::int64_t>> shapes(n_out);
  for (std::size_t i = 0; i < n_out; ++i) {
    ort::OrtTensorTypeAndShapeInfo* tsi = nullptr;
    check(api.GetTensorTypeAndShape()(out_vals[i], &tsi), "GetTensorTypeAndShape", kBackend);
    auto g = guard(tsi, api.ReleaseTensorTypeAndShapeInfo());
    std::size_t rank = 0;
    check(api.GetDimensionsCount()(tsi, &rank), "GetDimensionsCount", kBackend);
    Tensor& t = outs[i];
    t.dtype = outputs_[i].dtype;
    t.shape.assign(rank, 0);
    if (rank) check(api.GetDimensions()(tsi, t.shape.data(), rank), "GetDimensions", kBackend);
    std::size_t count = 0;
    check(api.GetTensorShapeElementCount()(tsi, &count), "GetTensorShapeElementCount", kBackend);
    void* src = nullptr;
    check(api.GetTensorMutableData()(out_vals[i], &src), "GetTensorMutableData", kBackend);
    t.block = pool_->acquire(t.bytes());
    if (t.bytes()) std::memcpy(t.data(), src, t.bytes());
    shapes[i] = t.shape;
  }
  if (!value_dependent_model) {
    std::lock_guard<std::mutex> lock(shapes_mu_);
    // Bounded: a workload with unbounded distinct shapes should not grow this forever.
    if (out_shapes_.size() >= 4096) out_shapes_.clear();
    if (value_dependent)
      out_shapes_[key].clear();  // never preallocated again (ORT logs each failed try)
    else
      out_shapes_.emplace(std::move(key), std::move(shapes));
  }
  return outs;
}

}  // namespace edgeocr
