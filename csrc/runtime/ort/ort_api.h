// edgeocr's own declarations of the part of the ONNX Runtime C API it uses.
//
// ONNX Runtime is loaded at run time (dlopen) from the installed onnxruntime
// wheel, so no ORT header or import library is needed at build time and no
// ORT version is pinned. The OrtApi table is an append-only array of
// function pointers; we request API version kOrtApiVersion (every supported
// runtime, >= 1.20, provides it) and call entries by their slot index.
// Slots and signatures below were checked against the released 1.20 header
// (the arena entries 144, 157, 164 and AddRunConfigEntry 165 against the API-29 header; the table
// only grows, so indices never change); ort_selftest.cpp exercises every one
// of them by behaviour, and CI runs it on 1.20 and on the newest release.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace edgeocr {
namespace ort {

constexpr std::uint32_t kOrtApiVersion = 20;
constexpr int kMinMajor = 1;
constexpr int kMinMinor = 20;

struct OrtStatus;
struct OrtEnv;
struct OrtSession;
struct OrtSessionOptions;
struct OrtRunOptions;
struct OrtValue;
struct OrtTypeInfo;
struct OrtTensorTypeAndShapeInfo;
struct OrtMemoryInfo;
struct OrtAllocator;
struct OrtModelMetadata;
struct OrtArenaCfg;

enum OrtLoggingLevel : int {
  kLogVerbose = 0,
  kLogInfo = 1,
  kLogWarning = 2,
  kLogError = 3,
  kLogFatal = 4
};
enum OrtErrorCode : int { kOrtOk = 0 };
enum GraphOptimizationLevel : int {
  kOptDisableAll = 0,
  kOptBasic = 1,
  kOptExtended = 2,
  kOptAll = 99
};
enum ExecutionMode : int { kSequential = 0, kParallel = 1 };
enum OrtAllocatorType : int { kDeviceAllocator = 0, kArenaAllocator = 1 };
enum OrtMemType : int { kMemTypeDefault = 0 };
enum ONNXType : int { kOnnxTypeTensor = 1 };
// ONNXTensorElementDataType uses the same numbers as edgeocr::DType.

struct OrtApiBase {
  const void* (*GetApi)(std::uint32_t version);
  const char* (*GetVersionString)();
};
using GetApiBaseFn = const OrtApiBase* (*)();

// Slot index and C signature of each entry used.
#define EDGEOCR_ORT_ENTRIES(X)                                                                  \
  X(CreateStatus, 0, OrtStatus*, (int code, const char* msg))                                   \
  X(GetErrorCode, 1, int, (const OrtStatus*))                                                   \
  X(GetErrorMessage, 2, const char*, (const OrtStatus*))                                        \
  X(CreateEnv, 3, OrtStatus*, (int level, const char* logid, OrtEnv** out))                     \
  X(CreateSession, 7, OrtStatus*,                                                               \
    (const OrtEnv*, const char* path, const OrtSessionOptions*, OrtSession** out))              \
  X(CreateSessionFromArray, 8, OrtStatus*,                                                      \
    (const OrtEnv*, const void* data, std::size_t len, const OrtSessionOptions*,                \
     OrtSession** out))                                                                         \
  X(Run, 9, OrtStatus*,                                                                         \
    (OrtSession*, const OrtRunOptions*, const char* const* in_names, const OrtValue* const* in, \
     std::size_t n_in, const char* const* out_names, std::size_t n_out, OrtValue** out))        \
  X(CreateSessionOptions, 10, OrtStatus*, (OrtSessionOptions * *out))                           \
  X(SetOptimizedModelFilePath, 11, OrtStatus*, (OrtSessionOptions*, const char* path))          \
  X(SetSessionExecutionMode, 13, OrtStatus*, (OrtSessionOptions*, int mode))                    \
  X(EnableMemPattern, 16, OrtStatus*, (OrtSessionOptions*))                                     \
  X(DisableMemPattern, 17, OrtStatus*, (OrtSessionOptions*))                                    \
  X(EnableCpuMemArena, 18, OrtStatus*, (OrtSessionOptions*))                                    \
  X(DisableCpuMemArena, 19, OrtStatus*, (OrtSessionOptions*))                                   \
  X(SetSessionGraphOptimizationLevel, 23, OrtStatus*, (OrtSessionOptions*, int level))          \
  X(SetIntraOpNumThreads, 24, OrtStatus*, (OrtSessionOptions*, int n))                          \
  X(SetInterOpNumThreads, 25, OrtStatus*, (OrtSessionOptions*, int n))                          \
  X(SessionGetInputCount, 30, OrtStatus*, (const OrtSession*, std::size_t* out))                \
  X(SessionGetOutputCount, 31, OrtStatus*, (const OrtSession*, std::size_t* out))               \
  X(SessionGetInputTypeInfo, 33, OrtStatus*,                                                    \
    (const OrtSession*, std::size_t i, OrtTypeInfo** out))                                      \
  X(SessionGetOutputTypeInfo, 34, OrtStatus*,                                                   \
    (const OrtSession*, std::size_t i, OrtTypeInfo** out))                                      \
  X(SessionGetInputName, 36, OrtStatus*,                                                        \
    (const OrtSession*, std::size_t i, OrtAllocator*, char** out))                              \
  X(SessionGetOutputName, 37, OrtStatus*,                                                       \
    (const OrtSession*, std::size_t i, OrtAllocator*, char** out))                              \
  X(CreateRunOptions, 39, OrtStatus*, (OrtRunOptions * *out))                                   \
  X(RunOptionsSetTerminate, 46, OrtStatus*, (OrtRunOptions*))                                   \
  X(RunOptionsUnsetTerminate, 47, OrtStatus*, (OrtRunOptions*))                                 \
  X(CreateTensorAsOrtValue, 48, OrtStatus*,                                                     \
    (OrtAllocator*, const std::int64_t* shape, std::size_t rank, int type, OrtValue** out))     \
  X(CreateTensorWithDataAsOrtValue, 49, OrtStatus*,                                             \
    (const OrtMemoryInfo*, void* data, std::size_t bytes, const std::int64_t* shape,            \
     std::size_t rank, int type, OrtValue** out))                                               \
  X(IsTensor, 50, OrtStatus*, (const OrtValue*, int* out))                                      \
  X(GetTensorMutableData, 51, OrtStatus*, (OrtValue*, void** out))                              \
  X(CastTypeInfoToTensorInfo, 55, OrtStatus*,                                                   \
    (const OrtTypeInfo*, const OrtTensorTypeAndShapeInfo** out))                                \
  X(GetOnnxTypeFromTypeInfo, 56, OrtStatus*, (const OrtTypeInfo*, int* out))                    \
  X(GetTensorElementType, 60, OrtStatus*, (const OrtTensorTypeAndShapeInfo*, int* out))         \
  X(GetDimensionsCount, 61, OrtStatus*, (const OrtTensorTypeAndShapeInfo*, std::size_t* out))   \
  X(GetDimensions, 62, OrtStatus*,                                                              \
    (const OrtTensorTypeAndShapeInfo*, std::int64_t* dims, std::size_t n))                      \
  X(GetSymbolicDimensions, 63, OrtStatus*,                                                      \
    (const OrtTensorTypeAndShapeInfo*, const char** names, std::size_t n))                      \
  X(GetTensorShapeElementCount, 64, OrtStatus*,                                                 \
    (const OrtTensorTypeAndShapeInfo*, std::size_t* out))                                       \
  X(GetTensorTypeAndShape, 65, OrtStatus*, (const OrtValue*, OrtTensorTypeAndShapeInfo** out))  \
  X(GetTypeInfo, 66, OrtStatus*, (const OrtValue*, OrtTypeInfo** out))                          \
  X(CreateCpuMemoryInfo, 69, OrtStatus*, (int alloc_type, int mem_type, OrtMemoryInfo** out))   \
  X(AllocatorFree, 76, OrtStatus*, (OrtAllocator*, void* p))                                    \
  X(GetAllocatorWithDefaultOptions, 78, OrtStatus*, (OrtAllocator * *out))                      \
  X(ReleaseEnv, 92, void, (OrtEnv*))                                                            \
  X(ReleaseStatus, 93, void, (OrtStatus*))                                                      \
  X(ReleaseMemoryInfo, 94, void, (OrtMemoryInfo*))                                              \
  X(ReleaseSession, 95, void, (OrtSession*))                                                    \
  X(ReleaseValue, 96, void, (OrtValue*))                                                        \
  X(ReleaseRunOptions, 97, void, (OrtRunOptions*))                                              \
  X(ReleaseTypeInfo, 98, void, (OrtTypeInfo*))                                                  \
  X(ReleaseTensorTypeAndShapeInfo, 99, void, (OrtTensorTypeAndShapeInfo*))                      \
  X(ReleaseSessionOptions, 100, void, (OrtSessionOptions*))                                     \
  X(SessionGetModelMetadata, 111, OrtStatus*, (const OrtSession*, OrtModelMetadata** out))      \
  X(ModelMetadataGetProducerName, 112, OrtStatus*,                                              \
    (const OrtModelMetadata*, OrtAllocator*, char** out))                                       \
  X(ModelMetadataLookupCustomMetadataMap, 116, OrtStatus*,                                      \
    (const OrtModelMetadata*, OrtAllocator*, const char* key, char** out))                      \
  X(ReleaseModelMetadata, 118, void, (OrtModelMetadata*))                                       \
  X(ModelMetadataGetCustomMetadataMapKeys, 123, OrtStatus*,                                     \
    (const OrtModelMetadata*, OrtAllocator*, char*** keys, std::int64_t* n))                    \
  X(AddSessionConfigEntry, 130, OrtStatus*,                                                     \
    (OrtSessionOptions*, const char* key, const char* value))                                   \
  X(CreateAndRegisterAllocator, 144, OrtStatus*,                                                \
    (OrtEnv*, const OrtMemoryInfo*, const OrtArenaCfg*))                                        \
  X(ReleaseArenaCfg, 157, void, (OrtArenaCfg*))                                                 \
  X(CreateArenaCfgV2, 164, OrtStatus*,                                                          \
    (const char* const* keys, const std::size_t* values, std::size_t n, OrtArenaCfg** out))     \
  X(AddRunConfigEntry, 165, OrtStatus*, (OrtRunOptions*, const char* key, const char* value))

// The loaded runtime: typed accessors to each entry above.
class Api {
 public:
#define EDGEOCR_ORT_ACCESSOR(name, slot, ret, params) \
  using name##_fn = ret(*) params;                    \
  name##_fn name() const { return reinterpret_cast<name##_fn>(slots_[slot]); }
  EDGEOCR_ORT_ENTRIES(EDGEOCR_ORT_ACCESSOR)
#undef EDGEOCR_ORT_ACCESSOR

  explicit Api(const void* table) : slots_(static_cast<void* const*>(table)) {}

 private:
  void* const* slots_;
};

// The process-wide runtime. Loaded once, on first use, and never unloaded.
struct Runtime {
  explicit Runtime(Api a) : api(a) {}
  Api api;
  OrtEnv* env = nullptr;
  OrtAllocator* allocator =
      nullptr;  // ORT's default CPU allocator (for names and metadata strings)
  OrtMemoryInfo* cpu_memory = nullptr;
  std::string version;  // e.g. "1.32.0"
  std::string library_path;
};

// Loads the runtime on first call (thread-safe), from, in order: the path
// given to set_library_path(), $EDGEOCR_ORT_LIBRARY, the onnxruntime wheel
// next to the library that contains edgeocr, then the system's
// libonnxruntime.so. Throws RuntimeUnavailable with every place tried.
const Runtime& runtime();

// Registers, once per process, the CPU arena that sessions created with
// SessionOptions::shared_arena use ("session.use_env_allocators"): one arena for
// every such model, growing by what is asked (not by powers of two). Thread-safe;
// throws BackendError if the runtime refuses it.
void ensure_shared_arena(const Runtime& rt);

// Throws edgeocr::Error(code) with `context` and ORT's message when `st` is
// an error; releases `st`.
void check(OrtStatus* st, const std::string& context, int code = 4 /* kBackendError */);

}  // namespace ort
}  // namespace edgeocr
