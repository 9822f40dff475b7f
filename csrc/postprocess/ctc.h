// CTC greedy (best-path) decoding of a recognition model's output.
#pragma once

#include <string>
#include <vector>

namespace edgeocr {

struct CtcResult {
  std::string text;   // UTF-8
  float score = 0.f;  // mean of the max probability of each emitted character; 0 when empty
};

// probs: T x C row-major softmax output of one sample (not owned, only read).
// charset[0] is the CTC blank (its text is ignored), charset[i] the UTF-8 text
// of class i. Greedy: argmax per step (first index on ties, NaN never wins),
// merge repeats, drop blanks; as PaddleOCR's CTCLabelDecode. T == 0 gives an
// empty result. Throws Error(kInvalidArgument) if C != charset.size(), T < 0,
// C < 1, or probs is null with T > 0.
CtcResult ctc_greedy_decode(const float* probs, int T, int C,
                            const std::vector<std::string>& charset);

}  // namespace edgeocr
