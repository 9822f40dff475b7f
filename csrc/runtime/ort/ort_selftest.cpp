// A behavioural check of every ONNX Runtime entry edgeocr declares
// (ort_api.h): slot numbers and signatures are hand-written, so a wrong one
// must show up here as a failed check, not later as a crash in the field.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "edgeocr/runtime.h"
#include "edgeocr/status.h"
#include "runtime/ort/ort_api.h"

namespace edgeocr {
namespace {

// Just enough protobuf to write a tiny ONNX model.
struct Pb {
  std::string b;
  void varint(std::uint64_t v) {
    while (v >= 0x80) {
      b.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    b.push_back(static_cast<char>(v));
  }
  void tag(int field, int wire) { varint(static_cast<std::uint64_t>(field) << 3 | wire); }
  Pb& i64(int field, std::int64_t v) {
    tag(field, 0);
    varint(static_cast<std::uint64_t>(v));
    return *this;
  }
  Pb& bytes(int field, const std::string& s) {
    tag(field, 2);
    varint(s.size());
    b += s;
    return *this;
  }
  Pb& msg(int field, const Pb& m) { return bytes(field, m.b); }
};

Pb float_tensor_type(const std::vector<std::pair<std::int64_t, std::string>>& dims) {
  Pb shape;
  for (const auto& [value, param] : dims) {
    Pb d;
    if (param.empty())
      d.i64(1, value);
    else
      d.bytes(2, param);
    shape.msg(1, d);
  }
  Pb tensor;
  tensor.i64(1, 1).msg(2, shape);  // elem_type FLOAT, shape
  Pb type;
  type.msg(1, tensor);
  return type;
}

Pb value_info(const std::string& name, const Pb& type) {
  Pb v;
  v.bytes(1, name).msg(2, type);
  return v;
}

Pb scalar_initializer(const std::string& name, float value) {
  Pb t;
  t.i64(1, 1);  // dims [1]
  t.i64(2, 1);  // data_type FLOAT
  t.bytes(8, name);
  std::string raw(4, '\0');
  std::memcpy(&raw[0], &value, 4);
  t.bytes(9, raw);  // raw_data
  return t;
}

Pb node(const std::string& op, const std::vector<std::string>& in, const std::string& out) {
  Pb n;
  for (const auto& i : in) n.bytes(1, i);
  n.bytes(2, out).bytes(3, op + "_node").bytes(4, op);
  return n;
}

}  // namespace

// Y = X * 2 + 1, X: float [batch, 3], metadata edgeocr.selftest = "ok".
std::string ort_selftest_model() {
  Pb graph;
  graph.msg(1, node("Mul", {"X", "two"}, "T"));
  graph.msg(1, node("Add", {"T", "one"}, "Y"));
  graph.bytes(2, "selftest");
  graph.msg(5, scalar_initializer("two", 2.f));
  graph.msg(5, scalar_initializer("one", 1.f));
  graph.msg(11, value_info("X", float_tensor_type({{0, "batch"}, {3, ""}})));
  graph.msg(12, value_info("Y", float_tensor_type({{0, "batch"}, {3, ""}})));
  Pb opset;
  opset.bytes(1, "").i64(2, 17);
  Pb meta;
  meta.bytes(1, "edgeocr.selftest").bytes(2, "ok");
  Pb model;
  model.i64(1, 8);            // ir_version
  model.bytes(2, "edgeocr");  // producer_name
  model.msg(7, graph);
  model.msg(8, opset);
  model.msg(14, meta);
  return model.b;
}

SelfTestReport ort_selftest() {
  SelfTestReport r;
  auto expect = [&](bool ok, const std::string& what) {
    ++r.checks;
    if (!ok) r.failures += what + "\n";
  };
  try {
    const ort::Runtime& rt = ort::runtime();
    const ort::Api& api = rt.api;
    auto ok = [&](ort::OrtStatus* st, const std::string& what) {
      ++r.checks;
      if (!st) return true;
      r.failures += what + ": " + api.GetErrorMessage()(st) + "\n";
      api.ReleaseStatus()(st);
      return false;
    };

    // Status round trip: CreateStatus / GetErrorCode / GetErrorMessage / ReleaseStatus.
    ort::OrtStatus* s = api.CreateStatus()(2, "edgeocr probe");
    expect(s != nullptr && api.GetErrorCode()(s) == 2 &&
               std::strcmp(api.GetErrorMessage()(s), "edgeocr probe") == 0,
           "CreateStatus/GetErrorCode/GetErrorMessage round trip");
    if (s) api.ReleaseStatus()(s);
    expect(rt.env != nullptr && rt.allocator != nullptr && rt.cpu_memory != nullptr,
           "CreateEnv/GetAllocatorWithDefaultOptions/CreateCpuMemoryInfo");

    const std::string model = ort_selftest_model();
    char tmpl[] = "/tmp/edgeocr-selftest-XXXXXX";
    int fd = mkstemp(tmpl);
    std::string model_path = std::string(tmpl) + ".onnx";
    std::string opt_path = std::string(tmpl) + ".opt.onnx";
    if (fd >= 0) {
      close(fd);
      unlink(tmpl);
      if (FILE* f = std::fopen(model_path.c_str(), "wb")) {
        std::fwrite(model.data(), 1, model.size(), f);
        std::fclose(f);
      }
    }

    ort::OrtSessionOptions* so = nullptr;
    if (!ok(api.CreateSessionOptions()(&so), "CreateSessionOptions")) return r;
    ok(api.SetIntraOpNumThreads()(so, 1), "SetIntraOpNumThreads");
    ok(api.SetInterOpNumThreads()(so, 1), "SetInterOpNumThreads");
    ok(api.SetSessionExecutionMode()(so, ort::kSequential), "SetSessionExecutionMode");
    ok(api.SetSessionGraphOptimizationLevel()(so, ort::kOptAll),
       "SetSessionGraphOptimizationLevel");
    ok(api.EnableCpuMemArena()(so), "EnableCpuMemArena");
    ok(api.DisableCpuMemArena()(so), "DisableCpuMemArena");
    ok(api.EnableMemPattern()(so), "EnableMemPattern");
    ok(api.DisableMemPattern()(so), "DisableMemPattern");
    ok(api.AddSessionConfigEntry()(so, "session.intra_op.allow_spinning", "0"),
       "AddSessionConfigEntry");
    ok(api.SetOptimizedModelFilePath()(so, opt_path.c_str()), "SetOptimizedModelFilePath");
    // An invalid config value must be rejected: proves the entry really parses arguments.
    ort::OrtStatus* bad = api.SetSessionExecutionMode()(so, 12345);
    expect(bad != nullptr, "SetSessionExecutionMode rejects an invalid mode");
    if (bad) api.ReleaseStatus()(bad);

    ort::OrtSession* sess = nullptr;
    ort::OrtSession* sess2 = nullptr;
    ok(api.CreateSession()(rt.env, model_path.c_str(), so, &sess), "CreateSession (from file)");
    api.ReleaseSessionOptions()(so);
    ort::OrtSessionOptions* so2 = nullptr;
    ok(api.CreateSessionOptions()(&so2), "CreateSessionOptions");
    // The second session runs on the shared arena (CreateArenaCfgV2, CreateAndRegisterAllocator,
    // ReleaseArenaCfg); an unknown arena key must be refused.
    {
      const char* bad_keys[] = {"edgeocr_not_a_key"};
      const std::size_t bad_values[] = {1};
      ort::OrtArenaCfg* cfg = nullptr;
      ort::OrtStatus* st = api.CreateArenaCfgV2()(bad_keys, bad_values, 1, &cfg);
      expect(st != nullptr, "CreateArenaCfgV2 rejects an unknown key");
      if (st) api.ReleaseStatus()(st);
      if (cfg) api.ReleaseArenaCfg()(cfg);
      try {
        ort::ensure_shared_arena(rt);
        expect(true, "shared arena");
      } catch (const Error& e) {
        expect(false, std::string("shared arena: ") + e.what());
      }
      ok(api.AddSessionConfigEntry()(so2, "session.use_env_allocators", "1"),
         "AddSessionConfigEntry");
    }
    ok(api.CreateSessionFromArray()(rt.env, model.data(), model.size(), so2, &sess2),
       "CreateSessionFromArray");
    // Bytes that are not a model must fail cleanly.
    ort::OrtSession* junk = nullptr;
    ort::OrtStatus* js = api.CreateSessionFromArray()(rt.env, "not a model", 11, so2, &junk);
    expect(js != nullptr && junk == nullptr, "CreateSessionFromArray rejects junk bytes");
    if (js) api.ReleaseStatus()(js);
    api.ReleaseSessionOptions()(so2);
    struct stat_probe {
      bool exists;
    } probe{access(opt_path.c_str(), F_OK) == 0};
    expect(probe.exists, "SetOptimizedModelFilePath wrote the optimised model");
    unlink(opt_path.c_str());
    unlink(model_path.c_str());
    if (!sess || !sess2) return r;

    for (ort::OrtSession* ss : {sess, sess2}) {
      std::size_t n_in = 0, n_out = 0;
      ok(api.SessionGetInputCount()(ss, &n_in), "SessionGetInputCount");
      ok(api.SessionGetOutputCount()(ss, &n_out), "SessionGetOutputCount");
      expect(n_in == 1 && n_out == 1, "one input and one output");
      char* in_name = nullptr;
      char* out_name = nullptr;
      ok(api.SessionGetInputName()(ss, 0, rt.allocator, &in_name), "SessionGetInputName");
      ok(api.SessionGetOutputName()(ss, 0, rt.allocator, &out_name), "SessionGetOutputName");
      expect(in_name && std::strcmp(in_name, "X") == 0, "input name is X");
      expect(out_name && std::strcmp(out_name, "Y") == 0, "output name is Y");
      if (in_name) ok(api.AllocatorFree()(rt.allocator, in_name), "AllocatorFree");
      if (out_name) ok(api.AllocatorFree()(rt.allocator, out_name), "AllocatorFree");

      for (int which = 0; which < 2; ++which) {
        ort::OrtTypeInfo* ti = nullptr;
        ok((which ? api.SessionGetOutputTypeInfo() : api.SessionGetInputTypeInfo())(ss, 0, &ti),
           "SessionGet*TypeInfo");
        if (!ti) continue;
        int onnx_type = -1;
        ok(api.GetOnnxTypeFromTypeInfo()(ti, &onnx_type), "GetOnnxTypeFromTypeInfo");
        expect(onnx_type == ort::kOnnxTypeTensor, "type is a tensor");
        const ort::OrtTensorTypeAndShapeInfo* tsi = nullptr;
        ok(api.CastTypeInfoToTensorInfo()(ti, &tsi), "CastTypeInfoToTensorInfo");
        int et = -1;
        std::size_t rank = 0;
        std::int64_t dims[2] = {0, 0};
        const char* names[2] = {nullptr, nullptr};
        ok(api.GetTensorElementType()(tsi, &et), "GetTensorElementType");
        ok(api.GetDimensionsCount()(tsi, &rank), "GetDimensionsCount");
        expect(et == 1 && rank == 2, "float32 of rank 2");
        if (rank == 2) {
          ok(api.GetDimensions()(tsi, dims, 2), "GetDimensions");
          ok(api.GetSymbolicDimensions()(tsi, names, 2), "GetSymbolicDimensions");
          expect(dims[0] == -1 && dims[1] == 3, "dims [-1, 3]");
          expect(names[0] && std::strcmp(names[0], "batch") == 0, "symbolic dim 'batch'");
        }
        api.ReleaseTypeInfo()(ti);
      }

      ort::OrtModelMetadata* md = nullptr;
      ok(api.SessionGetModelMetadata()(ss, &md), "SessionGetModelMetadata");
      if (md) {
        char* producer = nullptr;
        ok(api.ModelMetadataGetProducerName()(md, rt.allocator, &producer),
           "ModelMetadataGetProducerName");
        expect(producer && std::strcmp(producer, "edgeocr") == 0, "producer name");
        if (producer) api.AllocatorFree()(rt.allocator, producer);
        char** keys = nullptr;
        std::int64_t n_keys = 0;
        ok(api.ModelMetadataGetCustomMetadataMapKeys()(md, rt.allocator, &keys, &n_keys),
           "ModelMetadataGetCustomMetadataMapKeys");
        expect(n_keys == 1 && keys && std::strcmp(keys[0], "edgeocr.selftest") == 0,
               "metadata keys");
        for (std::int64_t k = 0; k < n_keys; ++k) api.AllocatorFree()(rt.allocator, keys[k]);
        if (keys) api.AllocatorFree()(rt.allocator, keys);
        char* value = nullptr;
        ok(api.ModelMetadataLookupCustomMetadataMap()(md, rt.allocator, "edgeocr.selftest", &value),
           "ModelMetadataLookupCustomMetadataMap");
        expect(value && std::strcmp(value, "ok") == 0, "metadata value");
        if (value) api.AllocatorFree()(rt.allocator, value);
        api.ReleaseModelMetadata()(md);
      }

      // Run twice: output allocated by ORT (CreateTensorAsOrtValue-free path), then into our
      // memory.
      float x[6] = {1, 2, 3, -4, 0.5f, 10};
      std::int64_t shape[2] = {2, 3};
      ort::OrtValue* xv = nullptr;
      ok(api.CreateTensorWithDataAsOrtValue()(rt.cpu_memory, x, sizeof(x), shape, 2, 1, &xv),
         "CreateTensorWithDataAsOrtValue");
      int is_tensor = 0;
      ok(api.IsTensor()(xv, &is_tensor), "IsTensor");
      expect(is_tensor == 1, "IsTensor says 1");
      const char* in_names[] = {"X"};
      const char* out_names[] = {"Y"};
      ort::OrtRunOptions* ro = nullptr;
      ok(api.CreateRunOptions()(&ro), "CreateRunOptions");
      ort::OrtValue* yv = nullptr;
      ok(api.Run()(ss, ro, in_names, &xv, 1, out_names, 1, &yv), "Run (ORT-allocated output)");
      if (yv) {
        ort::OrtTensorTypeAndShapeInfo* tsi = nullptr;
        ok(api.GetTensorTypeAndShape()(yv, &tsi), "GetTensorTypeAndShape");
        std::size_t count = 0;
        ok(api.GetTensorShapeElementCount()(tsi, &count), "GetTensorShapeElementCount");
        expect(count == 6, "output element count 6");
        api.ReleaseTensorTypeAndShapeInfo()(tsi);
        ort::OrtTypeInfo* vti = nullptr;
        ok(api.GetTypeInfo()(yv, &vti), "GetTypeInfo");
        if (vti) api.ReleaseTypeInfo()(vti);
        void* data = nullptr;
        ok(api.GetTensorMutableData()(yv, &data), "GetTensorMutableData");
        bool right = data != nullptr;
        for (int i = 0; right && i < 6; ++i) right = static_cast<float*>(data)[i] == x[i] * 2 + 1;
        expect(right, "Y = 2X + 1 (ORT-allocated)");
        api.ReleaseValue()(yv);
      }
      float y[6] = {0};
      ort::OrtValue* yv2 = nullptr;
      ok(api.CreateTensorWithDataAsOrtValue()(rt.cpu_memory, y, sizeof(y), shape, 2, 1, &yv2),
         "CreateTensorWithDataAsOrtValue (output)");
      ok(api.Run()(ss, nullptr, in_names, &xv, 1, out_names, 1, &yv2), "Run (preallocated output)");
      bool right = true;
      for (int i = 0; i < 6; ++i) right = right && y[i] == x[i] * 2 + 1;
      expect(right, "Y = 2X + 1 (preallocated)");
      if (yv2) api.ReleaseValue()(yv2);

      // A terminated run must fail; un-terminated it must work again.
      ok(api.RunOptionsSetTerminate()(ro), "RunOptionsSetTerminate");
      ort::OrtValue* yv3 = nullptr;
      ort::OrtStatus* ts = api.Run()(ss, ro, in_names, &xv, 1, out_names, 1, &yv3);
      expect(ts != nullptr, "Run with terminate set fails");
      if (ts) api.ReleaseStatus()(ts);
      if (yv3) api.ReleaseValue()(yv3);
      ok(api.RunOptionsUnsetTerminate()(ro), "RunOptionsUnsetTerminate");
      ok(api.Run()(ss, ro, in_names, &xv, 1, out_names, 1, &yv3), "Run after unset terminate");
      if (yv3) api.ReleaseValue()(yv3);
      api.ReleaseRunOptions()(ro);

      // Arena shrinkage after a run (AddRunConfigEntry), as budgeted predictors run: accepted on
      // the session with the shared arena; a malformed device list must fail the run.
      if (ss == sess2) {
        ort::OrtRunOptions* shrink = nullptr;
        ok(api.CreateRunOptions()(&shrink), "CreateRunOptions");
        ok(api.AddRunConfigEntry()(shrink, "memory.enable_memory_arena_shrinkage", "cpu:0"),
           "AddRunConfigEntry");
        ort::OrtValue* yv4 = nullptr;
        ok(api.Run()(ss, shrink, in_names, &xv, 1, out_names, 1, &yv4), "Run with arena shrinkage");
        if (yv4) api.ReleaseValue()(yv4);
        yv4 = nullptr;
        ok(api.AddRunConfigEntry()(shrink, "memory.enable_memory_arena_shrinkage",
                                   "edgeocr-no-device"),
           "AddRunConfigEntry (malformed value)");
        ort::OrtStatus* bs = api.Run()(ss, shrink, in_names, &xv, 1, out_names, 1, &yv4);
        expect(bs != nullptr, "Run refuses a malformed arena shrinkage list");
        if (bs) api.ReleaseStatus()(bs);
        if (yv4) api.ReleaseValue()(yv4);
        api.ReleaseRunOptions()(shrink);
      }

      // A wrong shape must be refused with an error, not a crash.
      std::int64_t bad_shape[2] = {3, 2};
      ort::OrtValue* bv = nullptr;
      ok(api.CreateTensorWithDataAsOrtValue()(rt.cpu_memory, x, sizeof(x), bad_shape, 2, 1, &bv),
         "CreateTensorWithDataAsOrtValue");
      ort::OrtValue* bo = nullptr;
      ort::OrtStatus* bs = api.Run()(ss, nullptr, in_names, &bv, 1, out_names, 1, &bo);
      expect(bs != nullptr && api.GetErrorCode()(bs) != 0 &&
                 std::strlen(api.GetErrorMessage()(bs)) > 0,
             "Run rejects a wrong shape with a message");
      if (bs) api.ReleaseStatus()(bs);
      if (bo) api.ReleaseValue()(bo);
      if (bv) api.ReleaseValue()(bv);

      // An ORT-allocated tensor from CreateTensorAsOrtValue.
      ort::OrtValue* av = nullptr;
      ok(api.CreateTensorAsOrtValue()(rt.allocator, shape, 2, 1, &av), "CreateTensorAsOrtValue");
      void* ad = nullptr;
      if (av) ok(api.GetTensorMutableData()(av, &ad), "GetTensorMutableData");
      expect(ad != nullptr, "CreateTensorAsOrtValue gives memory");
      if (av) api.ReleaseValue()(av);
      api.ReleaseValue()(xv);
    }
    api.ReleaseSession()(sess);
    api.ReleaseSession()(sess2);
    // ReleaseEnv and ReleaseMemoryInfo run only at process exit in real use;
    // check them on objects of their own.
    ort::OrtMemoryInfo* mi = nullptr;
    ok(api.CreateCpuMemoryInfo()(ort::kArenaAllocator, ort::kMemTypeDefault, &mi),
       "CreateCpuMemoryInfo");
    if (mi) api.ReleaseMemoryInfo()(mi);
    (void)&ort::Api::ReleaseEnv;  // the process env is never released (ORT allows only one)
  } catch (const std::exception& e) {
    expect(false, std::string("runtime unavailable: ") + e.what());
  }
  r.ok = r.failures.empty();
  return r;
}

}  // namespace edgeocr
