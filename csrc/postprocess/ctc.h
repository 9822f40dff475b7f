// CTC greedy (best-path) decoding of a recognition model's output.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace edgeocr {

// One emitted character: the run of timesteps greedy decoding took it from.
struct CtcChar {
  int t_begin = 0, t_end = 0;      // its run of frames, [t_begin, t_end] (inclusive)
  std::size_t begin = 0, end = 0;  // its bytes in CtcResult::text, [begin, end)
  float prob = 0.f;                // its max probability (the first frame of the run)
  bool space = false;              // the space class
  bool space_before = false;       // CtcSpaces wrote a space just before it
};

struct CtcResult {
  std::string text;   // UTF-8
  float score = 0.f;  // mean of the max probability of each emitted character; 0 when empty
  std::vector<CtcChar> chars;  // in text order (spaces CtcSpaces writes are not characters)
};

// A word of a decoded line: a run of characters between spaces (Chinese or Japanese text without
// spaces is one word per run between spaces), with where the recogniser read it.
struct CtcWord {
  std::size_t begin = 0, end = 0;  // its bytes in CtcResult::text, [begin, end)
  float x0 = 0.f, x1 = 0.f;        // its extent in timesteps, 0 <= x0 < x1 <= T
  float score = 0.f;               // mean of its characters' max probabilities
};

// The words of `r` (decoded from T timesteps), in text order. A character's frames sit near its
// centre (the centre of a run [a, b] is (a + b + 1) / 2 timesteps), a little after it, so a word
// spans from 0.8 of the line's character pitch before its first character's centre to 0.45 after
// its last one's (pitch: centre of the first character to centre of the last, over the
// characters between; a line of one character: its run plus one timestep before and two after).
// A word never reaches past the boundary to the neighbouring character: a space's centre (its
// frames sit in the middle of the gap), else (the next word after a space CtcSpaces wrote) 0.45 /
// 1.25 of the way from one centre to the next; so words do not overlap. It stays within [0, T].
std::vector<CtcWord> ctc_words(const CtcResult& r, int T);

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
