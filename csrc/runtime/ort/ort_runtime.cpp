#include <dirent.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "edgeocr/runtime.h"
#include "edgeocr/status.h"
#include "runtime/ort/ort_api.h"

namespace edgeocr {
namespace ort {
namespace {

std::mutex g_mu;
std::string g_requested_path;  // from set_ort_library_path
Runtime* g_runtime = nullptr;  // never freed: ORT must outlive every session

std::string dir_of_this_library() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&dir_of_this_library), &info) == 0 || !info.dli_fname)
    return {};
  std::string p(info.dli_fname);
  auto slash = p.rfind('/');
  return slash == std::string::npos ? std::string(".") : p.substr(0, slash);
}

// The newest libonnxruntime.so* in `dir` ("" if none).
std::string find_in_dir(const std::string& dir) {
  DIR* d = opendir(dir.c_str());
  if (!d) return {};
  std::string best;
  while (dirent* e = readdir(d)) {
    std::string name(e->d_name);
    if (name.rfind("libonnxruntime.so", 0) == 0 && name.find("providers") == std::string::npos) {
      if (best.empty() || name.size() > best.size() || (name.size() == best.size() && name > best))
        best = name;
    }
  }
  closedir(d);
  return best.empty() ? best : dir + "/" + best;
}

bool parse_version(const std::string& v, int* major, int* minor) {
  return std::sscanf(v.c_str(), "%d.%d", major, minor) == 2;
}

Runtime* load(const std::string& path, std::string* why) {
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    *why = path + ": " + (e ? e : "dlopen failed");
    return nullptr;
  }
  auto get_base = reinterpret_cast<GetApiBaseFn>(dlsym(h, "OrtGetApiBase"));
  if (!get_base) {
    *why = path + ": has no OrtGetApiBase symbol (not an ONNX Runtime library)";
    dlclose(h);
    return nullptr;
  }
  const OrtApiBase* base = get_base();
  std::string version = base && base->GetVersionString ? base->GetVersionString() : "";
  int major = 0, minor = 0;
  if (!parse_version(version, &major, &minor) || major < kMinMajor ||
      (major == kMinMajor && minor < kMinMinor)) {
    *why = path + ": ONNX Runtime " + (version.empty() ? "of unknown version" : version) +
           " is too old; edgeocr needs >= " + std::to_string(kMinMajor) + "." +
           std::to_string(kMinMinor) + " (pip install -U 'onnxruntime>=1.20')";
    dlclose(h);
    return nullptr;
  }
  const void* table = base->GetApi(kOrtApiVersion);
  if (!table) {
    *why = path + ": ONNX Runtime " + version + " does not provide C API version " +
           std::to_string(kOrtApiVersion);
    dlclose(h);
    return nullptr;
  }
  auto* rt = new Runtime(Api(table));
  rt->version = version;
  rt->library_path = path;
  const Api& api = rt->api;
  auto ok = [&](OrtStatus* st, const char* what) {
    if (!st) return true;
    *why = path + ": " + what + " failed: " + api.GetErrorMessage()(st);
    api.ReleaseStatus()(st);
    return false;
  };
  if (!ok(api.CreateEnv()(kLogError, "edgeocr", &rt->env), "CreateEnv") ||
      !ok(api.GetAllocatorWithDefaultOptions()(&rt->allocator), "GetAllocatorWithDefaultOptions") ||
      !ok(api.CreateCpuMemoryInfo()(kDeviceAllocator, kMemTypeDefault, &rt->cpu_memory),
          "CreateCpuMemoryInfo")) {
    delete rt;  // the library stays loaded; an env, if created, is leaked deliberately
    return nullptr;
  }
  return rt;
}

}  // namespace

void ensure_shared_arena(const Runtime& rt) {
  static std::mutex mu;
  static bool done = false;
  std::lock_guard<std::mutex> lock(mu);
  if (done) return;
  const Api& api = rt.api;
  // arena_extend_strategy 1 = kSameAsRequested: measured on dev pages, one shared arena
  // growing by what is asked holds less than per-session arenas growing by powers of two.
  const char* keys[] = {"arena_extend_strategy"};
  const std::size_t values[] = {1};
  OrtArenaCfg* cfg = nullptr;
  check(api.CreateArenaCfgV2()(keys, values, 1, &cfg), "CreateArenaCfgV2");
  OrtMemoryInfo* info = nullptr;
  OrtStatus* st = api.CreateCpuMemoryInfo()(kArenaAllocator, kMemTypeDefault, &info);
  if (!st) {
    st = api.CreateAndRegisterAllocator()(rt.env, info, cfg);
    api.ReleaseMemoryInfo()(info);
  }
  api.ReleaseArenaCfg()(cfg);
  check(st, "registering the shared CPU arena (CreateAndRegisterAllocator)");
  done = true;
}

const Runtime& runtime() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_runtime) return *g_runtime;
  std::vector<std::pair<std::string, std::string>> candidates;  // (path, source)
  if (!g_requested_path.empty()) candidates.emplace_back(g_requested_path, "set_ort_library_path");
  if (const char* env = std::getenv("EDGEOCR_ORT_LIBRARY"); env && *env)
    candidates.emplace_back(env, "EDGEOCR_ORT_LIBRARY");
  const std::string here = dir_of_this_library();
  if (!here.empty()) {
    for (const std::string& dir :
         {here, here + "/../onnxruntime/capi", here + "/../../onnxruntime/capi"}) {
      std::string p = find_in_dir(dir);
      if (!p.empty()) candidates.emplace_back(p, "next to edgeocr");
    }
  }
  candidates.emplace_back("libonnxruntime.so", "system library");
  candidates.emplace_back("libonnxruntime.so.1", "system library");

  std::string tried;
  for (const auto& [path, source] : candidates) {
    std::string why;
    Runtime* rt = load(path, &why);
    if (rt) {
      g_runtime = rt;
      return *g_runtime;
    }
    tried += "\n  " + source + ": " + why;
    // An explicitly chosen library that fails is an error, not a reason to try others. The
    // choice is then forgotten: it was for this load, which failed (the caller hears why), and a
    // later load without a path searches as if none had been set instead of failing on it again.
    if (source == "set_ort_library_path") {
      g_requested_path.clear();
      break;
    }
    if (source == "EDGEOCR_ORT_LIBRARY") break;
  }
  fail(StatusCode::kRuntimeUnavailable,
       "could not load the ONNX Runtime library; tried:" + tried +
           "\ninstall it with: pip install 'onnxruntime>=1.20', or set EDGEOCR_ORT_LIBRARY to "
           "the path of libonnxruntime.so");
}

void check(OrtStatus* st, const std::string& context, int code) {
  if (!st) return;
  const Api& api = runtime().api;
  std::string msg = context + ": " + api.GetErrorMessage()(st);
  api.ReleaseStatus()(st);
  fail(static_cast<StatusCode>(code), msg);
}

}  // namespace ort

void set_ort_library_path(const std::string& path) {
  std::lock_guard<std::mutex> lock(ort::g_mu);
  if (ort::g_runtime && ort::g_runtime->library_path != path) {
    fail(StatusCode::kInvalidArgument, "ONNX Runtime is already loaded from " +
                                           ort::g_runtime->library_path + "; cannot switch to " +
                                           path + " in the same process");
  }
  ort::g_requested_path = path;
}

RuntimeInfo runtime_info() {
  const auto& rt = ort::runtime();
  return RuntimeInfo{rt.library_path, rt.version};
}

}  // namespace edgeocr
