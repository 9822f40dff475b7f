// The converters' errors, Paddle op attributes read with Python-like conversions, and ONNX
// node attribute builders.
#include <cmath>

#include "loader/nb/translate.h"

namespace edgeocr {
namespace nb {

void unsupported(const std::string& msg) {
  throw ConvertError(msg, false);
}
void corrupt(const std::string& msg) {
  throw ConvertError(msg, true);
}

namespace {
int64_t to_int(double v, const std::string& name) {
  if (!std::isfinite(v) || v >= 9.2e18 || v <= -9.2e18)
    corrupt("has a non-integral value for '" + name + "'");
  return static_cast<int64_t>(v);  // truncation, like Python's int()
}
}  // namespace

bool has_attr(const NbOp& op, const std::string& name) {
  return op.attr(name) != nullptr;
}

int64_t a_int(const NbOp& op, const std::string& name, int64_t def) {
  const Attr* a = op.attr(name);
  if (!a) return def;
  switch (a->kind) {
    case Attr::kInt:
    case Attr::kLong:
    case Attr::kBool:
    case Attr::kBlock:
      return a->i;
    case Attr::kFloat:
    case Attr::kDouble:
      return to_int(a->f, name);
    default:
      corrupt("has attribute '" + name + "' of the wrong type (expected a number)");
  }
}

double a_float(const NbOp& op, const std::string& name, double def) {
  const Attr* a = op.attr(name);
  if (!a) return def;
  switch (a->kind) {
    case Attr::kInt:
    case Attr::kLong:
    case Attr::kBool:
    case Attr::kBlock:
      return static_cast<double>(a->i);
    case Attr::kFloat:
    case Attr::kDouble:
      return a->f;
    case Attr::kString: {
      char* end = nullptr;
      double v = std::strtod(a->s.c_str(), &end);
      if (a->s.empty() || (end && *end))
        corrupt("has attribute '" + name + "' that is not a number");
      return v;
    }
    default:
      corrupt("has attribute '" + name + "' of the wrong type (expected a number)");
  }
}

bool a_bool(const NbOp& op, const std::string& name, bool def) {
  const Attr* a = op.attr(name);
  if (!a) return def;
  switch (a->kind) {
    case Attr::kInt:
    case Attr::kLong:
    case Attr::kBool:
    case Attr::kBlock:
      return a->i != 0;
    case Attr::kFloat:
    case Attr::kDouble:
      return a->f != 0.0;
    case Attr::kString:
      return !a->s.empty();
    case Attr::kInts:
    case Attr::kBools:
    case Attr::kLongs:
    case Attr::kBlocks:
      return !a->ints.empty();
    case Attr::kFloats:
    case Attr::kDoubles:
      return !a->floats.empty();
    case Attr::kStrings:
      return !a->strings.empty();
    default:
      return def;
  }
}

std::string a_str(const NbOp& op, const std::string& name, const std::string& def) {
  const Attr* a = op.attr(name);
  if (!a) return def;
  switch (a->kind) {
    case Attr::kString:
      return a->s;
    case Attr::kInt:
    case Attr::kLong:
    case Attr::kBlock:
      return std::to_string(a->i);
    case Attr::kBool:
      return a->i ? "True" : "False";
    default:
      return "<" + name + ">";
  }
}

Dims a_ints(const NbOp& op, const std::string& name, const Dims& def) {
  const Attr* a = op.attr(name);
  if (!a) return def;
  switch (a->kind) {
    case Attr::kInts:
    case Attr::kBools:
    case Attr::kLongs:
    case Attr::kBlocks:
      return a->ints;
    case Attr::kFloats:
    case Attr::kDoubles: {
      Dims out;
      out.reserve(a->floats.size());
      for (double f : a->floats) out.push_back(to_int(f, name));
      return out;
    }
    case Attr::kInt:
    case Attr::kLong:
    case Attr::kBool:
    case Attr::kBlock:
      return {a->i};
    case Attr::kFloat:
    case Attr::kDouble:
      return {to_int(a->f, name)};
    default:
      corrupt("has attribute '" + name + "' of the wrong type (expected integers)");
  }
}

std::vector<double> a_floats(const NbOp& op, const std::string& name) {
  const Attr* a = op.attr(name);
  if (!a) return {};
  switch (a->kind) {
    case Attr::kFloats:
    case Attr::kDoubles:
      return a->floats;
    case Attr::kInts:
    case Attr::kBools:
    case Attr::kLongs:
    case Attr::kBlocks:
      return std::vector<double>(a->ints.begin(), a->ints.end());
    case Attr::kFloat:
    case Attr::kDouble:
      return {a->f};
    case Attr::kInt:
    case Attr::kLong:
    case Attr::kBool:
      return {static_cast<double>(a->i)};
    default:
      corrupt("has attribute '" + name + "' of the wrong type (expected numbers)");
  }
}

OnnxAttr ai(const std::string& n, int64_t v) {
  OnnxAttr a;
  a.name = n;
  a.type = OnnxAttr::kInt;
  a.i = v;
  return a;
}
OnnxAttr af(const std::string& n, double v) {
  OnnxAttr a;
  a.name = n;
  a.type = OnnxAttr::kFloat;
  a.f = static_cast<float>(v);
  return a;
}
OnnxAttr as(const std::string& n, const std::string& v) {
  OnnxAttr a;
  a.name = n;
  a.type = OnnxAttr::kString;
  a.s = v;
  return a;
}
OnnxAttr ais(const std::string& n, const Dims& v) {
  OnnxAttr a;
  a.name = n;
  a.type = OnnxAttr::kInts;
  a.ints = v;
  return a;
}

}  // namespace nb
}  // namespace edgeocr
