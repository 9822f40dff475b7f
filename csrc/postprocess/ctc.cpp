#include "postprocess/ctc.h"

#include "edgeocr/status.h"

namespace edgeocr {

CtcResult ctc_greedy_decode(const float* probs, int T, int C, const std::vector<std::string>& charset) {
  if (T < 0) fail(StatusCode::kInvalidArgument, "ctc_greedy_decode: T must be >= 0, got " + std::to_string(T));
  if (C < 1) fail(StatusCode::kInvalidArgument, "ctc_greedy_decode: C must be >= 1, got " + std::to_string(C));
  if (static_cast<size_t>(C) != charset.size())
    fail(StatusCode::kInvalidArgument, "ctc_greedy_decode: C=" + std::to_string(C) +
                                           " classes but the charset has " + std::to_string(charset.size()) +
                                           " entries (blank included)");
  if (probs == nullptr && T > 0) fail(StatusCode::kInvalidArgument, "ctc_greedy_decode: probs is null");

  CtcResult res;
  double conf_sum = 0.0;
  int emitted = 0;
  int prev = -1;
  for (int t = 0; t < T; ++t) {
    const float* row = probs + static_cast<size_t>(t) * static_cast<size_t>(C);
    int best = 0;
    float best_p = row[0];
    for (int c = 1; c < C; ++c) {
      // A number replaces a NaN held in best_p, so NaN never wins over a number.
      if (row[c] > best_p || (best_p != best_p && row[c] == row[c])) {
        best = c;
        best_p = row[c];
      }
    }
    if (best != 0 && best != prev) {
      res.text += charset[static_cast<size_t>(best)];
      conf_sum += best_p;
      ++emitted;
    }
    prev = best;
  }
  res.score = emitted > 0 ? static_cast<float>(conf_sum / emitted) : 0.f;
  return res;
}

}  // namespace edgeocr
