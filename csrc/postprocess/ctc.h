// CTC greedy (best-path) decoding of a recognition model's output.
#pragma once

#include <string>
#include <vector>

namespace edgeocr {

struct CtcResult {
  std::string text;   // UTF-8
  float score = 0.f;  // mean of the max probability of each emitted character; 0 when empty
};

// Spaces a greedy path misses. A recogniser trained on text with spaces
// often gives the space class a clear but losing probability on the blank
// frames between two words when the gap is narrow (digit groups, "Phone:
// (263)", a squeezed long line): blank wins every frame and the words run
// together. With space >= 0 and gap_prob > 0, a space is written between two
// emitted characters (neither a space) when the space class reaches gap_prob
// on a frame between them. Greedy frames and the score are unchanged, so the
// text differs from plain greedy decoding only by such spaces.
struct CtcSpaces {
  int space = -1;        // class index of " " (-1: none)
  float gap_prob = 0.f;  // 0: plain greedy
};

// probs: T x C row-major softmax output of one sample (not owned, only read).
// charset[0] is the CTC blank (its text is ignored), charset[i] the UTF-8 text
// of class i. Greedy: argmax per step (first index on ties, NaN never wins),
// merge repeats, drop blanks; as PaddleOCR's CTCLabelDecode. T == 0 gives an
// empty result. Throws Error(kInvalidArgument) if C != charset.size(), T < 0,
// C < 1, or probs is null with T > 0.
CtcResult ctc_greedy_decode(const float* probs, int T, int C,
                            const std::vector<std::string>& charset,
                            const CtcSpaces& spaces = CtcSpaces{});

// Index of the class whose text is a single space, or -1.
int ctc_space_class(const std::vector<std::string>& charset);

}  // namespace edgeocr
