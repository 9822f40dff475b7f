#include "postprocess/ctc.h"

#include <algorithm>
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
      const bool gap_space = !res.chars.empty() && !res.text.empty() && res.text.back() == ' ' &&
                             res.chars.back().end < res.text.size();
      last = best;
      CtcChar ch;
      ch.t_begin = ch.t_end = t;
      ch.begin = res.text.size();
      res.text += charset[static_cast<size_t>(best)];
      ch.end = res.text.size();
      ch.prob = best_p;
      ch.space = charset[static_cast<size_t>(best)] == " ";
      ch.space_before = gap_space;
      res.chars.push_back(ch);
      conf_sum += best_p;
      ++emitted;
    } else if (best != 0 && !res.chars.empty()) {
      res.chars.back().t_end = t;  // the run of the character just emitted goes on
    }
    prev = best;
  }
  res.score = emitted > 0 ? static_cast<float>(conf_sum / emitted) : 0.f;
  return res;
}

std::vector<CtcWord> ctc_words(const CtcResult& r, int T) {
  std::vector<CtcWord> words;
  const auto& ch = r.chars;
  if (ch.empty() || T <= 0) return words;
  auto centre = [&](std::size_t i) {
    return 0.5f * static_cast<float>(ch[i].t_begin + ch[i].t_end + 1);
  };
  const std::size_t n = ch.size();
  const float pitch = n > 1 ? (centre(n - 1) - centre(0)) / static_cast<float>(n - 1) : 0.f;
  // A CTC recogniser emits a character a little after its centre (measured with PP-OCRv6 small
  // rec on lines rendered at 22, 30 and 40 px: with half a pitch each side, word boxes started
  // 0.3 pitch late and ended 0.05 pitch early), so a word reaches further before its first
  // character's frames than after its last one's, and the boundary between two neighbouring
  // characters lies at the same share of the way between their centres.
  constexpr float kBefore = 0.8f, kAfter = 0.45f;
  constexpr float kSplit = kAfter / (kBefore + kAfter);
  for (std::size_t i = 0; i < n;) {
    if (ch[i].space) {
      ++i;
      continue;
    }
    std::size_t j = i + 1;  // one past the word's last character
    while (j < n && !ch[j].space && !ch[j].space_before) ++j;
    CtcWord w;
    w.begin = ch[i].begin;
    w.end = ch[j - 1].end;
    double sum = 0.0;
    for (std::size_t k = i; k < j; ++k) sum += ch[k].prob;
    w.score = static_cast<float>(sum / static_cast<double>(j - i));
    float x0 = n > 1 ? centre(i) - kBefore * pitch : static_cast<float>(ch[i].t_begin) - 1.f;
    float x1 = n > 1 ? centre(j - 1) + kAfter * pitch : static_cast<float>(ch[j - 1].t_end) + 2.f;
    // The boundary between characters k and k + 1; a space's frames sit in the middle of the
    // gap it stands for, so next to a space the boundary is the space's centre.
    auto split = [&](std::size_t k) {
      if (ch[k].space) return centre(k);
      if (ch[k + 1].space) return centre(k + 1);
      return centre(k) + kSplit * (centre(k + 1) - centre(k));
    };
    if (i > 0) x0 = std::max(x0, split(i - 1));
    if (j < n) x1 = std::min(x1, split(j - 1));
    w.x0 = std::max(0.f, x0);
    w.x1 = std::min(static_cast<float>(T), x1);
    if (!(w.x1 > w.x0)) {  // a word squeezed to nothing keeps its own frames
      w.x0 = static_cast<float>(ch[i].t_begin);
      w.x1 = static_cast<float>(ch[j - 1].t_end + 1);
    }
    words.push_back(w);
    i = j;
  }
  return words;
}

}  // namespace edgeocr
