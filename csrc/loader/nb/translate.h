// Translation state and the helpers the op converters share. Internal to
// csrc/loader/nb: the converters (ops_*.cpp) see only this header.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "loader/nb/onnx_writer.h"
#include "loader/nb/program.h"

namespace edgeocr {
namespace nb {

// Largest tensor rank the translator handles: bounds every loop over axes.
constexpr std::size_t kMaxRank = 64;

// Thrown by a converter; the one error boundary in translate.cpp adds the
// file, the op and its kernel key. `corrupt`: the attributes or inputs make
// no sense (kInvalidModel); otherwise a form edgeocr does not translate
// (kUnsupported).
struct ConvertError : std::runtime_error {
  ConvertError(const std::string& m, bool c) : std::runtime_error(m), corrupt(c) {}
  bool corrupt;
};
[[noreturn]] void unsupported(const std::string& msg);
[[noreturn]] void corrupt(const std::string& msg);

using Dims = std::vector<int64_t>;
using Shape = std::optional<Dims>;  // nullopt: rank unknown; -1 entries: dim unknown

// Attribute access with Python-like conversions (int(), float(), bool()).
bool has_attr(const NbOp& op, const std::string& name);
int64_t a_int(const NbOp& op, const std::string& name, int64_t def);
double a_float(const NbOp& op, const std::string& name, double def);
bool a_bool(const NbOp& op, const std::string& name, bool def);
std::string a_str(const NbOp& op, const std::string& name, const std::string& def);
Dims a_ints(const NbOp& op, const std::string& name, const Dims& def);
std::vector<double> a_floats(const NbOp& op, const std::string& name);

// Overflow-checked arithmetic on sizes from the file.
int64_t sadd(int64_t a, int64_t b);
int64_t smul(int64_t a, int64_t b);
int64_t prod(const Dims& d);  // product; throws when it overflows
bool all_known(const Dims& d, std::size_t from = 0, std::size_t to = SIZE_MAX);
std::string dims_str(const Dims& d);
int64_t norm_axis(int64_t axis, std::size_t rank, const char* what);
Shape bcast(const Shape& a, const Shape& b);

// Node attribute builders.
OnnxAttr ai(const std::string& n, int64_t v);
OnnxAttr af(const std::string& n, double v);
OnnxAttr as(const std::string& n, const std::string& v);
OnnxAttr ais(const std::string& n, const Dims& v);

// A shape-like operand: absent, constant ints, or an int64 ONNX value.
struct IntsArg {
  enum Kind { kNone, kList, kName } kind = kNone;
  Dims v;
  std::string name;
};

class Ctx {
 public:
  explicit Ctx(const NbProgram& p);

  const NbProgram& prog;
  const NbOp* op = nullptr;
  std::vector<OnnxNode> nodes;
  std::map<std::string, Array> consts;  // ONNX name -> value known at translation time
  std::vector<std::string> init_order;  // materialized constants, in order
  std::set<std::string> inits;
  std::map<std::string, Shape> shapes;
  std::map<std::string, int> dtypes;
  std::map<std::string, std::string> cur;  // Paddle variable -> current ONNX name (SSA)
  struct Input {
    int64_t col;
    std::string name;
    Shape shape;
    int dtype;
  };
  std::vector<Input> inputs;
  std::vector<std::pair<int64_t, std::string>> outputs;
  std::map<std::string, Array> dequantized;

  std::string fresh(const std::string& base);
  bool has(const std::string& var) const;
  std::string get(const std::string& var);  // ONNX name holding var (materialized)
  std::string materialize(const std::string& name);
  const Array* cval(const std::string& var);          // value of var if constant
  const Array* cname(const std::string& name) const;  // value of an ONNX name if constant
  Shape shape(const std::string& name) const;
  std::size_t rank(const std::string& name) const;
  int dtype(const std::string& name) const;
  void bind(const std::string& var, const std::string& name) { cur[var] = name; }

  // Allocates a constant after checking the translation's constant budget.
  Array alloc(int dtype, const Dims& shape);
  std::string new_const(Array a, const std::string& base = "const");
  std::string iconst(const Dims& v, const std::string& base = "shape");  // 1-D int64
  std::string iconst_empty();                                            // int64[0]
  std::string fconst(double v, const std::string& base = "c");           // float32 scalar
  std::string fconst_arr(const std::vector<float>& v, const Dims& shape, const std::string& base);
  std::string typed_scalar(double v, int dtype);
  void set_const_out(const std::string& var, Array a);

  std::vector<std::string> node(const std::string& op_type, const std::vector<std::string>& ins,
                                int n_out, const Shape& shape, int dtype = kFloat,
                                std::vector<OnnxAttr> attrs = {});
  std::string node1(const std::string& op_type, const std::vector<std::string>& ins,
                    const Shape& shape, int dtype = kFloat, std::vector<OnnxAttr> attrs = {}) {
    return node(op_type, ins, 1, shape, dtype, std::move(attrs))[0];
  }
  void out(const NbOp& op, const std::string& slot, const std::string& name);

 private:
  std::string param_name(const std::string& var);
  std::set<std::string> used_names_;
  int64_t n_ = 0;
  std::size_t const_bytes_ = 0, const_limit_ = 0;
};

// Helpers shared by converters (activations.cpp, operands.cpp, const_arrays.cpp).
std::string apply_act(Ctx& ctx, const std::string& x, const std::string& act, const NbOp& op,
                      const Shape& shape, bool fused);
std::string prelu(Ctx& ctx, const std::string& x, const std::string& alpha_var,
                  const std::string& mode, const Shape& shape);
struct ConvPads {
  bool explicit_pads = true;
  Dims pads;
  Dims dilations;
  std::string auto_pad;
};
ConvPads conv_pads(const NbOp& op, const Dims& in_hw, const Dims& ksize, const Dims& strides,
                   const Dims& dil);
std::string dequant(Ctx& ctx, const NbOp& op, const std::string& slot, std::size_t axis);
IntsArg shape_input(Ctx& ctx, const NbOp& op, const std::string& tensor_slot,
                    const std::string& list_slot);
// A constant as float32 with a new shape (numel must agree).
std::string float_const_as(Ctx& ctx, const Array& a, const Dims& shape, const std::string& base);
Array to_float(Ctx& ctx, const Array& a);
Array transpose_array(Ctx& ctx, const Array& a, const Dims& perm);

}  // namespace nb
}  // namespace edgeocr
