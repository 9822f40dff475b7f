// libFuzzer harness for edgeocr::ctc_greedy_decode (csrc/postprocess/ctc.cpp)
// on arbitrary probability matrices (NaN/inf included) and charsets.
//
// Checks, beyond "no crash, no sanitizer report": errors are
// kInvalidArgument only; the text is a concatenation of charset entries, at
// most T of them; the score is 0 for an empty text and, for a matrix of
// finite values, lies within the range of those values.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "edgeocr/status.h"
#include "fuzz_input.h"
#include "postprocess/ctc.h"

namespace {

[[noreturn]] void die(const char* what) {
  std::fprintf(stderr, "fuzz_ctc_decode: %s\n", what);
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  edgeocr_fuzz::Input in(data, size);
  const int T = in.range(-1, 200);
  const int C = in.range(0, 300);
  // Usually a matching charset; sometimes one entry off (must be refused).
  const std::uint8_t mode = in.byte();
  int n_chars = C;
  if (mode % 16 == 0) n_chars = C + 1;
  if (mode % 16 == 1 && C > 0) n_chars = C - 1;
  static const char* kPieces[] = {"a", "b", "\xe4\xb8\xad", "  ", "\xf0\x9f\x98\x80", "\n", "ab"};
  std::vector<std::string> charset;
  size_t longest = 0;
  for (int i = 0; i < n_chars; ++i) {
    charset.emplace_back(i == 0 ? "" : kPieces[(i * 7 + mode) % 7]);
    longest = std::max(longest, charset.back().size());
  }
  std::vector<float> probs;
  const bool null_probs = (mode & 0x80) && T > 0 && (mode & 0x40);
  if (T > 0 && C > 0) probs.resize(static_cast<size_t>(T) * static_cast<size_t>(C));
  bool finite = true;
  float lo = 0, hi = 0;
  for (size_t i = 0; i < probs.size(); ++i) {
    probs[i] = (mode & 0x20) ? in.special_float() : in.map_value();
    if (!std::isfinite(probs[i])) finite = false;
    lo = i == 0 ? probs[i] : std::min(lo, probs[i]);
    hi = i == 0 ? probs[i] : std::max(hi, probs[i]);
  }

  edgeocr::CtcResult r;
  try {
    r = edgeocr::ctc_greedy_decode(null_probs ? nullptr : probs.data(), T, C, charset);
  } catch (const edgeocr::Error& e) {
    if (e.code() != edgeocr::StatusCode::kInvalidArgument)
      die("an error other than kInvalidArgument");
    return 0;
  }
  if (T < 0 || C < 1 || n_chars != C || null_probs) die("invalid arguments were accepted");
  if (r.text.size() > static_cast<size_t>(T) * longest) die("text longer than T characters");
  if (r.text.empty() && r.score != 0.f) die("non-zero score for an empty text");
  if (finite && !r.text.empty() &&
      (r.score < lo - 1e-3f * std::fabs(lo) - 1e-6f ||
       r.score > hi + 1e-3f * std::fabs(hi) + 1e-6f))
    die("score outside the range of the probabilities");
  return 0;
}
