// The driver: kernel checks, the converter loop with its one error boundary,
// and the assembly of the ONNX model.
#include <algorithm>
#include <cstring>
#include <new>

#include "edgeocr/status.h"
#include "loader/nb/nb.h"
#include "loader/nb/registry.h"

namespace edgeocr {
namespace nb {
namespace {

// Error messages quote names from the file, which may hold any bytes: keep
// valid UTF-8 (paths may be non-ASCII), replace everything else with '?'.
std::string printable(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    std::size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = n > 0 && i + n <= s.size();
    for (std::size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(s[i + k]) >> 6) == 2;
    if (ok && n == 1 && c < 0x20 && c != '\n' && c != '\t') ok = false;
    if (ok) {
      out.append(s, i, n);
      i += n;
    } else {
      out += '?';
      ++i;
    }
  }
  return out;
}

const std::set<std::string> kHonouredTargets = {"host", "x86", "arm", "any"};
const std::set<std::string> kHonouredPrecisions = {"float", "any", "int32", "int64", "bool"};

void check_kernel(const NbProgram& prog, const NbOp& op, bool target_check) {
  auto k = op.kernel();
  if (k.empty()) {
    if (target_check && !op.kernel_key().empty())
      fail(StatusCode::kInvalidModel,
           prog.source + ": " + op.describe() +
               " has a malformed kernel key; the file is corrupted or was not "
               "written by Paddle Lite's opt");
    return;
  }
  if (!target_check) return;
  if (!kHonouredTargets.count(k[2]))
    fail(StatusCode::kUnsupported, prog.source + ": " + op.describe() + " runs on target '" + k[2] +
                                       "', which edgeocr cannot honour. Re-export the model with "
                                       "paddle_lite_opt --valid_targets=arm (or "
                                       "x86)");
  if (!kHonouredPrecisions.count(k[3]))
    fail(StatusCode::kUnsupported, prog.source + ": " + op.describe() + " uses a '" + k[3] +
                                       "' kernel (a fully quantised or half-precision model); "
                                       "edgeocr translates fp32 and weight-only int8 "
                                       "models. Export the float model (or weight-only int8: "
                                       "--quant_model=true --quant_type=QUANT_INT8) "
                                       "with paddle_lite_opt");
}

std::string guess_role(const Shape& s) {
  if (!s) return "unknown";
  if (s->size() == 4 && (*s)[1] == 1) return "det";
  if (s->size() == 2 && ((*s)[1] == 2 || (*s)[1] == -1)) return "cls";
  if (s->size() == 3) return "rec";
  return "unknown";
}

std::string finish(const NbProgram& prog, Ctx& ctx) {
  if (ctx.inputs.empty())
    fail(StatusCode::kInvalidModel, prog.source + ": the program has no feed op, so no input");
  if (ctx.outputs.empty())
    fail(StatusCode::kInvalidModel, prog.source + ": the program has no fetch op, so no output");
  OnnxModel m;
  auto ins = ctx.inputs;
  std::stable_sort(ins.begin(), ins.end(), [](const Ctx::Input& a, const Ctx::Input& b) {
    return a.col != b.col ? a.col < b.col : a.name < b.name;
  });
  std::set<std::string> input_names;
  for (const auto& in : ins) {
    OnnxValueInfo v;
    v.name = in.name;
    v.elem_type = in.dtype;
    input_names.insert(in.name);
    if (in.shape) {
      v.has_shape = true;
      static const char* nchw[] = {"N", "C", "H", "W"};
      for (std::size_t i = 0; i < in.shape->size(); ++i) {
        OnnxDim d;
        if ((*in.shape)[i] >= 0)
          d.value = (*in.shape)[i];
        else
          d.param = in.shape->size() == 4 ? nchw[i] : "d" + std::to_string(i);
        v.dims.push_back(d);
      }
    }
    m.inputs.push_back(v);
  }
  auto outs = ctx.outputs;
  std::stable_sort(outs.begin(), outs.end());
  std::set<std::string> seen;
  ctx.op = nullptr;
  Shape first_shape;
  for (std::size_t k = 0; k < outs.size(); ++k) {
    int64_t col = outs[k].first;
    std::string name = outs[k].second;
    if (seen.count(name) || ctx.inits.count(name) || input_names.count(name))
      // an ONNX graph output must be produced by a node of its own
      name = ctx.node1("Identity", {name}, ctx.shape(name), ctx.dtype(name));
    seen.insert(name);
    Shape s = ctx.shape(name);
    if (k == 0) first_shape = s;
    OnnxValueInfo v;
    v.name = name;
    v.elem_type = ctx.dtype(name);
    if (s) {
      v.has_shape = true;
      for (std::size_t i = 0; i < s->size(); ++i) {
        OnnxDim d;
        if ((*s)[i] >= 0)
          d.value = (*s)[i];
        else if (i == 0)
          d.param = "N";
        else if (s->size() == 4 && i == 2)
          d.param = "H";
        else if (s->size() == 4 && i == 3)
          d.param = "W";
        else
          d.param = "out" + std::to_string(col) + "_d" + std::to_string(i);
        v.dims.push_back(d);
      }
    }
    m.outputs.push_back(v);
  }
  // constants folded away (e.g. weights reshaped at translation time) are dropped
  std::set<std::string> used;
  for (const auto& n : ctx.nodes) used.insert(n.inputs.begin(), n.inputs.end());
  for (const auto& o : m.outputs) used.insert(o.name);
  for (const auto& name : ctx.init_order)
    if (used.count(name)) m.initializers.emplace_back(name, &ctx.consts.at(name));
  m.nodes = std::move(ctx.nodes);
  m.graph_name = "paddle_lite_nb";
  m.producer_name = "edgeocr.paddle_lite";
  m.producer_version = prog.producer;
  m.metadata = {{"edgeocr.source", "paddle_lite_nb"},
                {"edgeocr.nb_target", printable(prog.target())},
                {"edgeocr.role", guess_role(first_shape)},
                {"edgeocr.nb_meta_version", std::to_string(prog.meta_version)},
                {"edgeocr.nb_producer", prog.producer},
                {"edgeocr.nb_sha256", prog.sha256},
                {"edgeocr.nb_translator", std::string("cpp-") + kTranslatorVersion}};
  if (prog.has_framework_version && prog.framework_version)
    m.metadata.emplace_back("edgeocr.paddle_version", std::to_string(prog.framework_version));
  return serialize_model(m);
}

}  // namespace

namespace {

std::string translate_checked(const void* data, std::size_t size, const std::string& name,
                              bool target_check, const std::string& sha256);

}  // namespace

std::string translate_to_onnx(const void* data, std::size_t size, const std::string& name,
                              bool target_check) {
  return translate_with_digest(data, size, name, target_check, std::string());
}

std::string translate_with_digest(const void* data, std::size_t size, const std::string& name,
                                  bool target_check, const std::string& sha256) {
  try {
    return translate_checked(data, size, name, target_check, sha256);
  } catch (const Error& e) {
    throw Error(e.code(), printable(e.what()));
  }
}

bool looks_like_nb(const void* data, std::size_t size) noexcept {
  if (!data || size < 26) return false;
  const uint8_t* p = static_cast<const uint8_t*>(data);
  uint16_t meta;
  uint64_t topo;
  std::memcpy(&meta, p, 2);
  std::memcpy(&topo, p + 18, 8);
  return (meta == 1 || meta == 2) && topo >= 8 && topo <= size - 26;
}

namespace {
std::string translate_checked(const void* data, std::size_t size, const std::string& name,
                              bool target_check, const std::string& sha256) {
  if (!data && size) fail(StatusCode::kInvalidArgument, name + ": null model data");
  NbProgram prog = read_program(static_cast<const uint8_t*>(data), size, name, sha256);
  auto targets = prog.targets();
  if (target_check && targets.size() > 1)
    fail(StatusCode::kUnsupported,
         prog.source + ": the file mixes kernels for targets " + prog.target() +
             "; edgeocr translates files made for one target (--valid_targets=arm or x86)");
  const Registry& reg = registry();
  Ctx ctx(prog);
  for (const NbOp& op : prog.ops) {
    check_kernel(prog, op, target_check);
    auto it = reg.find(op.type);
    if (it == reg.end())
      fail(StatusCode::kUnsupported, prog.source + ": " + op.describe() +
                                         " is not supported by edgeocr's .nb translator. Export "
                                         "the source model to ONNX instead "
                                         "(paddle2onnx) and use the .onnx file, or report the op "
                                         "type to the edgeocr developers");
    ctx.op = &op;
    // The one error boundary: whatever a converter throws becomes an error
    // naming the file, the op and its kernel key.
    try {
      it->second(ctx, op);
    } catch (const ConvertError& e) {
      if (e.corrupt)
        fail(StatusCode::kInvalidModel,
             prog.source + ": " + op.describe() + " " + e.what() +
                 "; the file is corrupted or uses a form of the op edgeocr does not know");
      fail(StatusCode::kUnsupported,
           prog.source + ": " + op.describe() + " " + e.what() +
               ". edgeocr cannot translate this op; export the source model to ONNX "
               "(paddle2onnx) instead");
    } catch (const Error&) {
      throw;
    } catch (const std::bad_alloc&) {
      fail(StatusCode::kInvalidModel,
           prog.source + ": " + op.describe() +
               " ran out of memory (std::bad_alloc); the file asks for more than it can justify");
    } catch (const std::exception& e) {
      fail(StatusCode::kInvalidModel,
           prog.source + ": " + op.describe() +
               " has attributes or inputs edgeocr cannot make sense of (" + e.what() +
               "); the file is corrupted or uses a form of the op edgeocr does not know");
    }
  }
  return finish(prog, ctx);
}
}  // namespace

std::string supported_ops_csv() {
  std::string s;
  for (const auto& kv : registry()) s += (s.empty() ? "" : ",") + kv.first;
  return s;
}

}  // namespace nb
}  // namespace edgeocr
