#include "postprocess/ctc.h"

#include <cstdint>
#include <cstring>
#include <limits>

#include "edgeocr/status.h"

namespace edgeocr {
namespace {

typedef float v4f __attribute__((vector_size(16)));
typedef std::int32_t v4i __attribute__((vector_size(16)));

// Index of the first maximum of row[0..C), NaN never winning over a number (0 if all are NaN).
// Two passes: a SIMD max over independent lanes (NaN fails every comparison, so never enters),
// then the first index holding that maximum. Measured faster than one pass that also tracks
// indices per lane. With C in the thousands this is what decoding the recogniser's output costs.
int argmax(const float* row, int C, float* best_p) {
  const float lo = -std::numeric_limits<float>::infinity();
  v4f m0 = {lo, lo, lo, lo}, m1 = m0, m2 = m0, m3 = m0;
  int c = 0;
  for (; c + 16 <= C; c += 16) {
    v4f v[4];
    std::memcpy(v, row + c, sizeof v);
    m0 = v[0] > m0 ? v[0] : m0;
    m1 = v[1] > m1 ? v[1] : m1;
    m2 = v[2] > m2 ? v[2] : m2;
    m3 = v[3] > m3 ? v[3] : m3;
  }
  m0 = m1 > m0 ? m1 : m0;
  m2 = m3 > m2 ? m3 : m2;
  m0 = m2 > m0 ? m2 : m0;
  float m = lo;
  for (int k = 0; k < 4; ++k) m = m0[k] > m ? m0[k] : m;
  for (; c < C; ++c) m = row[c] > m ? row[c] : m;
  // Second pass, 16 at a time: skip blocks that do not hold the maximum.
  const v4f mv = {m, m, m, m};
  int k = 0;
  for (; k + 16 <= C; k += 16) {
    v4f v[4];
    std::memcpy(v, row + k, sizeof v);
    const v4i hit = (v[0] == mv) | (v[1] == mv) | (v[2] == mv) | (v[3] == mv);
    if (hit[0] | hit[1] | hit[2] | hit[3]) break;
  }
  for (; k < C; ++k) {
    if (row[k] == m) {
      *best_p = m;
      return k;
    }
  }
  *best_p = row[0];  // every value is NaN
  return 0;
}

}  // namespace

int ctc_space_class(const std::vector<std::string>& charset) {
  // Dictionaries append the space last; search from the end.
  for (std::size_t i = charset.size(); i-- > 1;)
    if (charset[i] == " ") return static_cast<int>(i);
  return -1;
}

CtcResult ctc_greedy_decode(const float* probs, int T, int C,
                            const std::vector<std::string>& charset, const CtcSpaces& spaces) {
  if (T < 0)
    fail(StatusCode::kInvalidArgument,
         "ctc_greedy_decode: T must be >= 0, got " + std::to_string(T));
  if (C < 1)
    fail(StatusCode::kInvalidArgument,
         "ctc_greedy_decode: C must be >= 1, got " + std::to_string(C));
  if (static_cast<size_t>(C) != charset.size())
    fail(StatusCode::kInvalidArgument,
         "ctc_greedy_decode: C=" + std::to_string(C) + " classes but the charset has " +
             std::to_string(charset.size()) + " entries (blank included)");
  if (probs == nullptr && T > 0)
    fail(StatusCode::kInvalidArgument, "ctc_greedy_decode: probs is null");

  const int space =
      spaces.space > 0 && spaces.space < C && spaces.gap_prob > 0.f ? spaces.space : -1;
  CtcResult res;
  double conf_sum = 0.0;
  int emitted = 0;
  int prev = -1;
  int last = -1;        // the last class emitted
  float gap_max = 0.f;  // the space class's highest probability on blank frames since then
  for (int t = 0; t < T; ++t) {
    const float* row = probs + static_cast<size_t>(t) * static_cast<size_t>(C);
    float best_p = 0.f;
    const int best = argmax(row, C, &best_p);
    if (space >= 0) {
      if (best == 0) {
        const float ps = row[space];
        if (ps > gap_max) gap_max = ps;  // NaN never raises it
      } else if (best != prev) {
        if (best != space && last > 0 && last != space && gap_max >= spaces.gap_prob)
          res.text += ' ';
        gap_max = 0.f;
      } else {
        gap_max = 0.f;  // inside a character's run
      }
    }
    if (best != 0 && best != prev) {
      last = best;
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
