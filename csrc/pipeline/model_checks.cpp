#include "pipeline/model_checks.h"

#include <string>

#include "common/checked.h"
#include "edgeocr/status.h"

namespace edgeocr {
namespace {

[[noreturn]] void bad_output(const Model& m, const char* role, const std::vector<Tensor>& out,
                             const std::string& expected, const std::string& why) {
  const std::string oname = m.outputs().empty() ? std::string("0") : m.outputs()[0].name;
  fail(StatusCode::kInvalidModel,
       m.name() + ": the " + role + " model's output '" + oname + "' has shape " +
           (out.empty() ? std::string("(none)") : shape_str(out[0].shape)) +
           "; the pipeline needs " + expected + " (" + why + ")");
}

// Output 0 exists, is float32 of the given rank, and holds as many bytes as
// its shape says (the pool block is at least that large).
void check_common(const Model& m, const char* role, const std::vector<Tensor>& out,
                  std::size_t rank, const std::string& expected) {
  if (out.empty()) bad_output(m, role, out, expected, "no output");
  const Tensor& t = out[0];
  if (t.dtype != DType::kFloat32)
    bad_output(m, role, out, expected,
               std::string("dtype ") + dtype_name(t.dtype) + ", not float32");
  if (t.shape.size() != rank)
    bad_output(m, role, out, expected, "rank " + std::to_string(t.shape.size()));
  for (std::int64_t d : t.shape)
    if (d <= 0) bad_output(m, role, out, expected, "an empty or negative dimension");
  std::size_t count = 1;
  for (std::int64_t d : t.shape)
    count =
        checked_mul(count, static_cast<std::size_t>(d), "model output", StatusCode::kInvalidModel);
  checked_mul(count, sizeof(float), "model output", StatusCode::kInvalidModel);
  if (!t.data()) bad_output(m, role, out, expected, "no data");
}

}  // namespace

DetMap checked_det_output(const Model& m, const std::vector<Tensor>& out, std::int64_t batch) {
  const std::string expected = "[" + std::to_string(batch) + ", >= 1, H > 0, W > 0]";
  check_common(m, "det", out, 4, expected);
  const auto& s = out[0].shape;
  if (s[0] != batch)
    bad_output(m, "det", out, expected,
               "batch " + std::to_string(s[0]) + " for an input batch of " + std::to_string(batch));
  if (s[2] > std::numeric_limits<int>::max() || s[3] > std::numeric_limits<int>::max())
    bad_output(m, "det", out, expected, "a map side beyond 2^31 - 1");
  return DetMap{out[0].ptr<float>(), static_cast<int>(s[3]), static_cast<int>(s[2])};
}

int checked_cls_output(const Model& m, const std::vector<Tensor>& out, std::int64_t n) {
  const std::string expected = "[" + std::to_string(n) + ", classes >= 2]";
  check_common(m, "cls", out, 2, expected);
  const auto& s = out[0].shape;
  if (s[0] != n)
    bad_output(m, "cls", out, expected,
               "batch " + std::to_string(s[0]) + " for an input batch of " + std::to_string(n));
  if (s[1] < 2) bad_output(m, "cls", out, expected, "fewer than 2 classes (0 and 180 degrees)");
  if (s[1] > std::numeric_limits<int>::max())
    bad_output(m, "cls", out, expected, "too many classes");
  return static_cast<int>(s[1]);
}

int checked_rec_output(const Model& m, const std::vector<Tensor>& out, std::int64_t n,
                       std::size_t classes) {
  const std::string expected =
      "[" + std::to_string(n) + ", T > 0, " + std::to_string(classes) + "]";
  check_common(m, "rec", out, 3, expected);
  const auto& s = out[0].shape;
  if (s[0] != n)
    bad_output(m, "rec", out, expected,
               "batch " + std::to_string(s[0]) + " for an input batch of " + std::to_string(n));
  if (static_cast<std::uint64_t>(s[2]) != classes)
    bad_output(m, "rec", out, expected,
               std::to_string(s[2]) + " classes but the dictionary gives " +
                   std::to_string(classes) + " (blank + characters [+ space])");
  if (s[1] > std::numeric_limits<int>::max())
    bad_output(m, "rec", out, expected, "T beyond 2^31 - 1");
  return static_cast<int>(s[1]);
}

}  // namespace edgeocr
