// Reader for Paddle Lite .nb files (meta_version 1 and 2). Layout: see
// ../shared/fixtures/paddle_lite/NB_FORMAT.md; Paddle Lite's
// lite/model_parser/flatbuffers/*.fbs are the source of truth.
//
// The FlatBuffers access is minimal and defensive: every offset and length is
// checked against its buffer before use, and what the reader decodes (tables,
// vector elements, strings) is charged to a budget proportional to the file
// size, so a hostile file ends in an Error, never in a crash or a huge
// allocation. Parameter data is not copied: arrays view the caller's bytes.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "edgeocr/status.h"
#include "loader/nb/program.h"

namespace edgeocr {
namespace nb {
namespace {

constexpr std::size_t kHeaderSize = 26;
constexpr std::size_t kMaxBlocks = 64;
constexpr std::size_t kMaxParams = 65535;
const char* const kKernelAttr = "__@kernel_type_attr@__";

[[noreturn]] void bad(const std::string& what, const std::string& msg) {
  fail(StatusCode::kInvalidModel, what + ": " + msg);
}

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));  // the formats are little-endian, as are edgeocr's targets
  return v;
}

class Fb;

struct Table {
  const Fb* fb = nullptr;
  std::size_t pos = 0, vt = 0, vt_size = 0, tsize = 0;
  std::size_t off(int field) const;
  template <typename T>
  T scalar(int field, T def) const;
  bool ref(int field, std::size_t* out) const;
  std::string string(int field) const;
  bool table(int field, Table* out) const;
  std::vector<Table> tables(int field) const;
  std::vector<std::string> strings(int field) const;
  template <typename T>
  std::vector<T> scalars(int field) const;
  bool bytes(int field, const uint8_t** p, std::size_t* n) const;
};

class Fb {
 public:
  Fb(const uint8_t* data, std::size_t base, std::size_t end, const std::string& what,
     int64_t* budget)
      : data_(data), base_(base), end_(end), what_(what), budget_(budget) {}

  [[noreturn]] void fail_msg(const std::string& m) const { bad(what_, m); }
  void check(std::size_t pos, std::size_t size) const {
    if (pos < base_ || pos > end_ || size > end_ - pos)
      fail_msg("offset " + std::to_string(pos) + " (+" + std::to_string(size) +
               " bytes) lies outside the buffer [" + std::to_string(base_) + ", " +
               std::to_string(end_) + "); the file is truncated or corrupted");
  }
  void spend(uint64_t n) const {
    if (n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ||
        static_cast<int64_t>(n) > *budget_)
      fail_msg("the program asks for far more data than the file holds; the file is corrupted");
    *budget_ -= static_cast<int64_t>(n);
  }
  uint16_t u16(std::size_t pos) const {
    check(pos, 2);
    return load<uint16_t>(data_ + pos);
  }
  int32_t i32(std::size_t pos) const {
    check(pos, 4);
    return load<int32_t>(data_ + pos);
  }
  uint32_t u32(std::size_t pos) const {
    check(pos, 4);
    return load<uint32_t>(data_ + pos);
  }
  const uint8_t* at(std::size_t pos) const { return data_ + pos; }

  Table root() const { return table(add(base_, u32(base_))); }
  std::size_t add(std::size_t a, uint64_t b) const {
    uint64_t r = static_cast<uint64_t>(a) + b;  // a < 2^63, b < 2^32: no wrap
    if (r > end_)
      fail_msg("offset " + std::to_string(r) + " lies outside the buffer [" +
               std::to_string(base_) + ", " + std::to_string(end_) +
               "); the file is truncated or corrupted");
    return static_cast<std::size_t>(r);
  }
  Table table(std::size_t pos) const {
    int64_t vt = static_cast<int64_t>(pos) - static_cast<int64_t>(i32(pos));
    if (vt < 0) fail_msg("bad FlatBuffers vtable offset at " + std::to_string(pos));
    std::size_t v = static_cast<std::size_t>(vt);
    std::size_t vt_size = u16(v);
    if (vt_size < 4 || (vt_size & 1))
      fail_msg("bad FlatBuffers vtable size " + std::to_string(vt_size) + " at offset " +
               std::to_string(v));
    check(v, vt_size);
    std::size_t tsize = u16(v + 2);
    check(pos, std::max<std::size_t>(tsize, 4));
    spend(64);
    Table t;
    t.fb = this;
    t.pos = pos;
    t.vt = v;
    t.vt_size = vt_size;
    t.tsize = tsize;
    return t;
  }
  // (start, count) of a vector of `elem`-byte elements; charges `cost` per element.
  std::pair<std::size_t, std::size_t> vector(std::size_t pos, std::size_t elem,
                                             std::size_t cost) const {
    std::size_t n = u32(pos);
    if (elem && n > (end_ - base_) / elem) check(pos + 4, end_);  // cannot fit: report
    check(pos + 4, n * elem);
    spend(static_cast<uint64_t>(n) * cost);
    return {pos + 4, n};
  }
  std::string string(std::size_t pos) const {
    auto sn = vector(pos, 1, 1);
    spend(32);
    return std::string(reinterpret_cast<const char*>(data_ + sn.first), sn.second);
  }

 private:
  const uint8_t* data_;
  std::size_t base_, end_;
  const std::string& what_;
  int64_t* budget_;
};

std::size_t Table::off(int field) const {
  std::size_t o = 4 + 2 * static_cast<std::size_t>(field);
  if (o + 2 > vt_size) return 0;
  std::size_t v = load<uint16_t>(fb->at(vt + o));
  if (v && v >= tsize)
    fb->fail_msg("field " + std::to_string(field) + " of the table at offset " +
                 std::to_string(pos) + " lies outside the table");
  return v;
}
template <typename T>
T Table::scalar(int field, T def) const {
  std::size_t o = off(field);
  if (!o) return def;
  fb->check(pos + o, sizeof(T));
  return load<T>(fb->at(pos + o));
}
bool Table::ref(int field, std::size_t* out) const {
  std::size_t o = off(field);
  if (!o) return false;
  std::size_t p = pos + o;
  *out = fb->add(p, fb->u32(p));
  return true;
}
std::string Table::string(int field) const {
  std::size_t p;
  return ref(field, &p) ? fb->string(p) : std::string();
}
bool Table::table(int field, Table* out) const {
  std::size_t p;
  if (!ref(field, &p)) return false;
  *out = fb->table(p);
  return true;
}
std::vector<Table> Table::tables(int field) const {
  std::vector<Table> out;
  std::size_t p;
  if (!ref(field, &p)) return out;
  auto sn = fb->vector(p, 4, sizeof(Table));
  out.reserve(sn.second);
  for (std::size_t i = 0; i < sn.second; ++i) {
    std::size_t e = sn.first + 4 * i;
    out.push_back(fb->table(fb->add(e, fb->u32(e))));
  }
  return out;
}
std::vector<std::string> Table::strings(int field) const {
  std::vector<std::string> out;
  std::size_t p;
  if (!ref(field, &p)) return out;
  auto sn = fb->vector(p, 4, sizeof(std::string));
  out.reserve(sn.second);
  for (std::size_t i = 0; i < sn.second; ++i) {
    std::size_t e = sn.first + 4 * i;
    out.push_back(fb->string(fb->add(e, fb->u32(e))));
  }
  return out;
}
template <typename T>
std::vector<T> Table::scalars(int field) const {
  std::vector<T> out;
  std::size_t p;
  if (!ref(field, &p)) return out;
  auto sn = fb->vector(p, sizeof(T), 8);
  out.resize(sn.second);
  if (sn.second) std::memcpy(out.data(), fb->at(sn.first), sn.second * sizeof(T));
  return out;
}
bool Table::bytes(int field, const uint8_t** ptr, std::size_t* n) const {
  std::size_t p;
  if (!ref(field, &p)) {
    *ptr = nullptr;
    *n = 0;
    return false;
  }
  auto sn = fb->vector(p, 1, 0);  // raw data is viewed, not decoded: free
  *ptr = fb->at(sn.first);
  *n = sn.second;
  return true;
}

Attr parse_attr(const Table& t) {
  Attr a;
  int32_t type = t.scalar<int32_t>(1, 0);
  switch (type) {
    case 0:
      a.kind = Attr::kInt;
      a.i = t.scalar<int32_t>(2, 0);
      break;
    case 1:
      a.kind = Attr::kFloat;
      a.f = t.scalar<float>(3, 0.f);
      break;
    case 2:
      a.kind = Attr::kString;
      a.s = t.string(4);
      break;
    case 3: {
      a.kind = Attr::kInts;
      for (int32_t v : t.scalars<int32_t>(5)) a.ints.push_back(v);
      break;
    }
    case 4: {
      a.kind = Attr::kFloats;
      for (float v : t.scalars<float>(6)) a.floats.push_back(v);
      break;
    }
    case 5:
      a.kind = Attr::kStrings;
      a.strings = t.strings(7);
      break;
    case 6:
      a.kind = Attr::kBool;
      a.i = t.scalar<uint8_t>(8, 0) != 0;
      break;
    case 7: {
      a.kind = Attr::kBools;
      for (uint8_t v : t.scalars<uint8_t>(9)) a.ints.push_back(v != 0);
      break;
    }
    case 8:
      a.kind = Attr::kBlock;
      a.i = t.scalar<int32_t>(10, 0);
      break;
    case 9:
      a.kind = Attr::kLong;
      a.i = t.scalar<int64_t>(11, 0);
      break;
    case 10: {
      a.kind = Attr::kBlocks;
      for (int32_t v : t.scalars<int32_t>(12)) a.ints.push_back(v);
      break;
    }
    case 11:
      a.kind = Attr::kLongs;
      a.ints = t.scalars<int64_t>(13);
      break;
    case 12:
      a.kind = Attr::kDoubles;
      a.floats = t.scalars<double>(15);
      break;
    case 15:
      a.kind = Attr::kDouble;
      a.f = t.scalar<double>(14, 0.0);
      break;
    default:
      a.kind = Attr::kNone;  // VAR / VARS (v2.13): nothing in PP-OCR uses them
  }
  return a;
}

Slots parse_slots(const std::vector<Table>& ts) {
  Slots out;
  for (const Table& v : ts) out[v.string(0)] = v.strings(1);
  return out;
}

NbVar parse_var(const Table& t) {
  NbVar v;
  v.name = t.string(0);
  v.persistable = t.scalar<uint8_t>(2, 0) != 0;
  Table vt;
  if (t.table(1, &vt)) {
    Table lod, tensor;
    bool have = false;
    if (vt.table(2, &lod) && lod.table(0, &tensor))
      have = true;
    else if (vt.table(1, &tensor))
      have = true;
    if (have) {
      v.has_dtype = true;
      v.dtype = tensor.scalar<int32_t>(0, 0);
      v.shape = tensor.scalars<int64_t>(1);
    }
  }
  return v;
}

void parse_program(const Fb& fb, NbProgram* prog) {
  Table root = fb.root();
  std::vector<Table> blocks = root.tables(0);
  if (blocks.empty()) fb.fail_msg("the program has no block");
  if (blocks.size() > kMaxBlocks)
    fb.fail_msg("the program claims " + std::to_string(blocks.size()) + " blocks");
  Table ver;
  if (root.table(1, &ver)) {
    prog->has_framework_version = true;
    prog->framework_version = ver.scalar<int64_t>(0, 0);
  }
  // PP-OCR models have one block; sub-blocks (control flow) are read for
  // their variables only, and the translator refuses ops that use them.
  for (const Table& b : blocks)
    for (const Table& v : b.tables(2)) {
      NbVar nv = parse_var(v);
      prog->vars.emplace(nv.name, std::move(nv));
    }
  std::vector<Table> ops = blocks[0].tables(3);
  prog->ops.reserve(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    NbOp op;
    op.index = i;
    op.type = ops[i].string(0);
    op.inputs = parse_slots(ops[i].tables(1));
    op.outputs = parse_slots(ops[i].tables(2));
    for (const Table& a : ops[i].tables(3)) {
      std::string name = a.string(0);
      op.attrs[name] = parse_attr(a);
    }
    prog->ops.push_back(std::move(op));
  }
}

std::string dims_str(const std::vector<int64_t>& d) {
  std::string s = "[";
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

void parse_param(const Fb& fb, const Table& root, NbProgram* prog) {
  std::string name = root.string(1);
  uint8_t vtype = root.scalar<uint8_t>(2, 0);
  if (vtype != 1)
    fb.fail_msg("parameter '" + name + "' has variable type " + std::to_string(vtype) +
                ", expected a LoDTensor (1)");
  Table t;
  if (!root.table(3, &t)) fb.fail_msg("parameter '" + name + "' has no tensor");
  std::vector<int64_t> dims = t.scalars<int64_t>(2);
  int32_t dtype_id = t.scalar<int32_t>(3, 0);
  const uint8_t* data;
  std::size_t n;
  t.bytes(4, &data, &n);
  int ot = paddle_to_onnx_type(dtype_id);
  if (ot == kUndefined)
    fb.fail_msg("parameter '" + name + "' has unsupported data type id " +
                std::to_string(dtype_id));
  std::size_t item = onnx_itemsize(ot);
  uint64_t count = 1;
  bool over = false;
  for (int64_t d : dims) {
    if (d < 0) fb.fail_msg("parameter '" + name + "' has negative dims " + dims_str(dims));
    if (d != 0 && count > n / static_cast<uint64_t>(d) + 1) over = true;
    count = over ? count : count * static_cast<uint64_t>(d);
  }
  bool zero = std::find(dims.begin(), dims.end(), int64_t{0}) != dims.end();
  if (zero) {
    count = 0;
    over = false;
  }
  if (over || count * item != n)
    fb.fail_msg("parameter '" + name + "' has dims " + dims_str(dims) + " (" +
                (over ? std::string("too many") : std::to_string(count)) + " x " +
                std::to_string(item) + " bytes) but " + std::to_string(n) + " bytes of data");
  NbParam p;
  p.paddle_dtype = dtype_id;
  p.array.dtype = ot;
  p.array.shape = dims;
  p.array.ptr = data;
  p.array.nbytes = n;
  prog->param_bytes += n;
  prog->params[name] = std::move(p);
}

void parse_params_v2(const uint8_t* data, std::size_t size, std::size_t pos,
                     const std::string& what, int64_t* budget, NbProgram* prog) {
  auto need = [&](std::size_t p, std::size_t n, const std::string& m) {
    if (p > size || n > size - p)
      bad(what, "truncated parameter section (" + m + " at offset " + std::to_string(p) +
                    " needs " + std::to_string(n) + " bytes, file has " + std::to_string(size) +
                    ")");
  };
  need(pos, 2, "format version");
  uint16_t pver = load<uint16_t>(data + pos);
  if (pver != 0)
    bad(what, "unknown parameter-section version " + std::to_string(pver) +
                  " (expected 0); the file is corrupted or written by an unknown Paddle Lite");
  pos += 2;
  need(pos, 2, "meta size");
  std::size_t msize = load<uint16_t>(data + pos);
  pos += 2;
  need(pos, msize, "reserved meta");
  pos += msize;
  need(pos, 2, "header size");
  std::size_t hsize = load<uint16_t>(data + pos);
  pos += 2;
  if (hsize < 2) bad(what, "parameter header size " + std::to_string(hsize) + " is too small");
  need(pos, hsize, "parameter header");
  std::size_t count = load<uint16_t>(data + pos);
  pos += hsize;
  for (std::size_t i = 0; i < count; ++i) {
    std::string rec = "parameter record " + std::to_string(i);
    need(pos, 8, rec);
    std::size_t total = load<uint32_t>(data + pos);
    std::size_t off = load<uint32_t>(data + pos + 4);
    if (off < 4 || off > total)
      bad(what, rec + " has bad offset " + std::to_string(off) + " (total size " +
                    std::to_string(total) + "); the file is corrupted");
    need(pos + 4, total, rec);
    std::size_t fb_start = pos + 4 + off, fb_end = pos + 4 + total;
    Fb fb(data, fb_start, fb_end, what, budget);
    parse_param(fb, fb.root(), prog);
    pos = fb_end;
  }
}

void parse_params_v1(const uint8_t* data, std::size_t size, std::size_t pos,
                     const std::string& what, int64_t* budget, NbProgram* prog) {
  Fb fb(data, pos, size, what, budget);
  std::vector<Table> plist = fb.root().tables(0);
  if (plist.size() > kMaxParams)
    fb.fail_msg(std::to_string(plist.size()) + " parameters is more than a .nb file can hold");
  for (const Table& t : plist) parse_param(fb, t, prog);
}

}  // namespace

std::size_t onnx_itemsize(int t) {
  switch (t) {
    case kFloat:
    case kInt32:
      return 4;
    case kUint8:
    case kInt8:
    case kBool:
      return 1;
    case kInt16:
    case kFloat16:
      return 2;
    case kInt64:
    case kDouble:
      return 8;
    default:
      return 0;
  }
}

const char* onnx_type_name(int t) {
  switch (t) {
    case kFloat:
      return "float32";
    case kUint8:
      return "uint8";
    case kInt8:
      return "int8";
    case kInt16:
      return "int16";
    case kInt32:
      return "int32";
    case kInt64:
      return "int64";
    case kBool:
      return "bool";
    case kFloat16:
      return "float16";
    case kDouble:
      return "float64";
    default:
      return "undefined";
  }
}

int paddle_to_onnx_type(int64_t p) {
  switch (p) {
    case 0:
      return kBool;
    case 1:
      return kInt16;
    case 2:
      return kInt32;
    case 3:
      return kInt64;
    case 4:
      return kFloat16;
    case 5:
      return kFloat;
    case 6:
      return kDouble;
    case 20:
      return kUint8;
    case 21:
      return kInt8;
    default:
      return kUndefined;
  }
}

// ---- NbOp -------------------------------------------------------------------

namespace {
const std::vector<std::string>& empty_list() {
  static const std::vector<std::string> e;
  return e;
}
const char* lookup(const char* const* table, std::size_t n, const std::string& s) {
  if (s.empty() || s.size() > 3 ||
      !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return nullptr;
  std::size_t v = std::stoul(s);
  return v < n ? table[v] : nullptr;
}
const char* const kTargets[] = {"unk",
                                "host",
                                "x86",
                                "cuda",
                                "arm",
                                "opencl",
                                "any",
                                "fpga",
                                "npu",
                                "xpu",
                                "bm",
                                "mlu",
                                "rknpu",
                                "apu",
                                "huawei_ascend_npu",
                                "imagination_nna",
                                "intel_fpga",
                                "metal",
                                "nnadapter"};
const char* const kPrecisions[] = {"unk",  "float", "int8",  "int32", "any", "fp16",
                                   "bool", "int64", "int16", "uint8", "fp64"};
const char* const kLayouts[] = {"unk",
                                "nchw",
                                "any",
                                "nhwc",
                                "imagedefault",
                                "imagefolder",
                                "imagenw",
                                "metaltexturearray",
                                "metaltexture2darray"};
}  // namespace

const Attr* NbOp::attr(const std::string& name) const {
  auto it = attrs.find(name);
  if (it == attrs.end() || it->second.kind == Attr::kNone) return nullptr;
  return &it->second;
}
const std::vector<std::string>& NbOp::inputs_of(const std::string& slot) const {
  auto it = inputs.find(slot);
  return it == inputs.end() ? empty_list() : it->second;
}
const std::vector<std::string>& NbOp::outputs_of(const std::string& slot) const {
  auto it = outputs.find(slot);
  return it == outputs.end() ? empty_list() : it->second;
}
std::string NbOp::input(const std::string& slot) const {
  const auto& v = inputs_of(slot);
  return v.empty() ? std::string() : v[0];
}
std::string NbOp::output(const std::string& slot) const {
  const auto& v = outputs_of(slot);
  return v.empty() ? std::string() : v[0];
}
std::string NbOp::kernel_key() const {
  const Attr* a = attr(kKernelAttr);
  return a && a->kind == Attr::kString ? a->s : std::string();
}
std::vector<std::string> NbOp::kernel() const {
  std::string key = kernel_key();
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    std::size_t p = key.find('/', start);
    parts.push_back(key.substr(start, p == std::string::npos ? std::string::npos : p - start));
    if (p == std::string::npos) break;
    start = p + 1;
  }
  if (parts.size() != 5) return {};
  const char* const* tables[] = {kTargets, kPrecisions, kLayouts};
  const std::size_t sizes[] = {sizeof(kTargets) / sizeof(*kTargets),
                               sizeof(kPrecisions) / sizeof(*kPrecisions),
                               sizeof(kLayouts) / sizeof(*kLayouts)};
  for (int i = 0; i < 3; ++i) {
    const char* n = lookup(tables[i], sizes[i], parts[2 + i]);
    if (n) parts[2 + i] = n;
  }
  return parts;
}
std::string NbOp::target() const {
  auto k = kernel();
  return k.empty() ? std::string() : k[2];
}
std::string NbOp::describe() const {
  std::string key = kernel_key();
  auto k = kernel();
  std::string pretty = "none";
  if (!k.empty()) {
    pretty.clear();
    for (std::size_t i = 0; i < k.size(); ++i) pretty += (i ? "/" : "") + k[i];
  }
  return "op #" + std::to_string(index) + " '" + type + "' (kernel key " +
         (key.empty() ? "absent" : key) + " = " + pretty + ")";
}

std::vector<std::string> NbProgram::targets() const {
  std::set<std::string> ts;
  for (const NbOp& op : ops) {
    std::string t = op.target();
    if (!t.empty() && t != "host" && t != "any") ts.insert(t);
  }
  return {ts.begin(), ts.end()};
}
std::string NbProgram::target() const {
  auto ts = targets();
  if (ts.empty()) return "host";
  std::string s;
  for (std::size_t i = 0; i < ts.size(); ++i) s += (i ? "+" : "") + ts[i];
  return s;
}

// ---- read_program -------------------------------------------------------------

NbProgram read_program(const uint8_t* data, std::size_t size, const std::string& what,
                       const std::string& sha256) {
  if (size < kHeaderSize)
    bad(what, std::to_string(size) +
                  " bytes is too short for a Paddle Lite .nb file (the header alone is " +
                  std::to_string(kHeaderSize) + " bytes)");
  NbProgram prog;
  prog.source = what;
  prog.meta_version = load<uint16_t>(data);
  const char* pv = reinterpret_cast<const char*>(data + 2);
  std::size_t plen = 0;
  while (plen < 16 && pv[plen]) ++plen;
  for (std::size_t i = 0; i < plen; ++i) {
    unsigned char c = static_cast<unsigned char>(pv[i]);
    prog.producer += (c >= 0x20 && c < 0x7f) ? static_cast<char>(c) : '?';
  }
  if (prog.meta_version == 0)
    fail(StatusCode::kUnsupported,
         what +
             ": this .nb file uses the legacy NaiveBuffer format (meta_version 0), written by "
             "Paddle Lite opt " +
             (prog.producer.empty() ? std::string("< v2.7") : prog.producer) +
             " (before v2.7). edgeocr reads only the FlatBuffers formats; re-export the model with "
             "paddle_lite_opt >= 2.7 (e.g. `pip install paddlelite==2.10` and run paddle_lite_opt "
             "on the Paddle "
             "inference model).");
  if (prog.meta_version != 1 && prog.meta_version != 2)
    bad(what, "unknown .nb meta_version " + std::to_string(prog.meta_version) +
                  " (edgeocr reads 1 and 2, written by Paddle Lite 2.7 to 2.13); the file is "
                  "corrupted or not a "
                  "Paddle Lite model");
  uint64_t topo = load<uint64_t>(data + 18);
  if (topo > size - kHeaderSize || topo < 8)
    bad(what, "program size " + std::to_string(topo) + " in the header does not fit the " +
                  std::to_string(size) + "-byte file; the file is truncated or corrupted");
  // Bytes of decoded structure (tables, vector elements, strings) a file may
  // ask for: generous for real files, bounded for hostile ones.
  int64_t budget = 16 * static_cast<int64_t>(size) + (1 << 20);
  std::size_t topo_end = kHeaderSize + static_cast<std::size_t>(topo);
  try {
    Fb fb(data, kHeaderSize, topo_end, what, &budget);
    parse_program(fb, &prog);
    if (prog.meta_version == 2)
      parse_params_v2(data, size, topo_end, what, &budget, &prog);
    else
      parse_params_v1(data, size, topo_end, what, &budget, &prog);
  } catch (const std::bad_alloc&) {
    bad(what, "corrupted .nb file: the reader ran out of memory (std::bad_alloc)");
  } catch (const std::length_error&) {
    bad(what, "corrupted .nb file (a length is out of range)");
  }
  prog.sha256 = sha256.empty() ? sha256_hex(data, size) : sha256;
  return prog;
}

}  // namespace nb
}  // namespace edgeocr
