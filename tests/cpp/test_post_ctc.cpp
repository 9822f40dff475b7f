// CTC greedy decoding.
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "check.h"
#include "edgeocr/status.h"
#include "postprocess/ctc.h"

using namespace edgeocr;

namespace {

// One row per step: `cls` gets probability p, the rest share 1 - p.
std::vector<float> steps(const std::vector<std::pair<int, float>>& seq, int C) {
  std::vector<float> probs;
  for (const auto& [cls, p] : seq) {
    for (int c = 0; c < C; ++c) probs.push_back(c == cls ? p : (1.f - p) / (C - 1));
  }
  return probs;
}

const std::vector<std::string> kAbc = {"", "a", "b", "c"};

}  // namespace

TEST(repeats_merged_blanks_dropped) {
  const auto probs =
      steps({{0, .9f}, {1, .8f}, {1, .6f}, {0, .9f}, {2, .7f}, {2, .9f}, {3, .5f}, {0, .9f}}, 4);
  const CtcResult r = ctc_greedy_decode(probs.data(), 8, 4, kAbc);
  CHECK(r.text == "abc");
  // The first step of each repeat run counts: (0.8 + 0.7 + 0.5) / 3.
  CHECK_NEAR(r.score, (0.8 + 0.7 + 0.5) / 3, 1e-6);
}

TEST(blank_separates_a_repeated_char) {
  const auto probs = steps({{1, .9f}, {0, .9f}, {1, .7f}}, 4);
  const CtcResult r = ctc_greedy_decode(probs.data(), 3, 4, kAbc);
  CHECK(r.text == "aa");
  CHECK_NEAR(r.score, 0.8, 1e-6);
  const auto merged = steps({{1, .9f}, {1, .7f}}, 4);
  CHECK(ctc_greedy_decode(merged.data(), 2, 4, kAbc).text == "a");
}

TEST(multi_byte_utf8) {
  const std::vector<std::string> cs = {"",         "\xE4\xB8\xAD",     "\xE6\x96\x87",
                                       "\xC3\xA9", "\xF0\x9F\x98\x80", " "};
  const auto probs = steps({{1, .9f}, {2, .9f}, {5, .9f}, {3, .9f}, {0, .9f}, {4, .9f}}, 6);
  const CtcResult r = ctc_greedy_decode(probs.data(), 6, 6, cs);
  CHECK(r.text == "\xE4\xB8\xAD\xE6\x96\x87 \xC3\xA9\xF0\x9F\x98\x80");  // "中文 é😀"
  CHECK_NEAR(r.score, 0.9, 1e-6);
}

TEST(empty_output_scores_zero) {
  const auto blanks = steps({{0, .9f}, {0, .8f}}, 4);
  CtcResult r = ctc_greedy_decode(blanks.data(), 2, 4, kAbc);
  CHECK(r.text.empty());
  CHECK(r.score == 0.f);
  r = ctc_greedy_decode(nullptr, 0, 4, kAbc);  // T = 0
  CHECK(r.text.empty());
  CHECK(r.score == 0.f);
}

TEST(argmax_ties_take_the_first_class) {
  const std::vector<float> probs = {0.1f, 0.45f, 0.45f, 0.f};
  CHECK(ctc_greedy_decode(probs.data(), 1, 4, kAbc).text == "a");
  const std::vector<float> with_nan = {std::nanf(""), 0.2f, 0.7f, 0.1f};
  CHECK(ctc_greedy_decode(with_nan.data(), 1, 4, kAbc).text == "b");
}

TEST(argmax_matches_a_scalar_scan_with_nan_inf_and_ties) {
  // Rows wide enough for the SIMD lanes, with NaN, infinities and repeated maxima anywhere:
  // the decoded class must be the first maximum (NaN never winning), as a plain scan finds it.
  std::mt19937 rng(7);
  const float inf = std::numeric_limits<float>::infinity();
  for (int trial = 0; trial < 3000; ++trial) {
    const int C = 1 + static_cast<int>(rng() % 70);
    std::vector<float> row(C);
    for (float& v : row) {
      switch (rng() % 8) {
        case 0:
          v = std::nanf("");
          break;
        case 1:
          v = -inf;
          break;
        case 2:
          v = 0.5f;
          break;  // ties
        case 3:
          v = trial % 5 == 0 ? inf : 0.25f;
          break;
        default:
          v = std::uniform_real_distribution<float>(-1.f, 1.f)(rng);
      }
    }
    if (trial % 7 == 0) std::fill(row.begin(), row.end(), std::nanf(""));
    int want = 0;
    float best = row[0];
    for (int c = 1; c < C; ++c)
      if (row[c] > best || (best != best && row[c] == row[c])) best = row[c], want = c;
    std::vector<std::string> cs(C);
    for (int c = 1; c < C; ++c) cs[c] = "<" + std::to_string(c) + ">";
    const CtcResult r = ctc_greedy_decode(row.data(), 1, C, cs);
    CHECK(r.text == cs[want]);
    if (r.text != cs[want])
      std::fprintf(stderr, "  C=%d want %d got %s\n", C, want, r.text.c_str());
  }
}

TEST(bad_arguments_throw) {
  const auto probs = steps({{1, .9f}}, 4);
  auto code_of = [&](const float* p, int T, int C, const std::vector<std::string>& cs) {
    try {
      ctc_greedy_decode(p, T, C, cs);
    } catch (const Error& e) {
      return e.code();
    }
    return StatusCode::kOk;
  };
  CHECK(code_of(probs.data(), 1, 3, kAbc) == StatusCode::kInvalidArgument);  // C != charset size
  CHECK(code_of(probs.data(), 1, 5, kAbc) == StatusCode::kInvalidArgument);
  CHECK(code_of(probs.data(), -1, 4, kAbc) == StatusCode::kInvalidArgument);
  CHECK(code_of(probs.data(), 1, 0, {}) == StatusCode::kInvalidArgument);
  CHECK(code_of(nullptr, 1, 4, kAbc) == StatusCode::kInvalidArgument);
  CHECK(code_of(probs.data(), 1, 4, kAbc) == StatusCode::kOk);
}

TEST_MAIN()

// A space that loses to blank on the frames between two characters (rec_space_gap).
TEST(space_gap_writes_a_losing_space) {
  const std::vector<std::string> cs = {"", "1", "2", " "};
  auto row = [](float blank, float one, float two, float space) {
    return std::vector<float>{blank, one, two, space};
  };
  std::vector<float> probs;
  for (const auto& r : {row(.7f, 0, 0, .3f), row(.1f, .8f, 0, .1f), row(.95f, 0, 0, .05f),
                        row(.7f, 0, 0, .3f), row(.1f, 0, .8f, .1f), row(.7f, 0, 0, .3f)})
    probs.insert(probs.end(), r.begin(), r.end());
  CHECK(ctc_space_class(cs) == 3);
  CHECK(ctc_space_class(kAbc) == -1);
  CHECK(ctc_greedy_decode(probs.data(), 6, 4, cs).text == "12");
  const CtcResult r = ctc_greedy_decode(probs.data(), 6, 4, cs, CtcSpaces{3, .15f});
  CHECK(r.text == "1 2");  // not before the first character nor after the last
  CHECK_NEAR(r.score, 0.8, 1e-6);
  CHECK(ctc_greedy_decode(probs.data(), 6, 4, cs, CtcSpaces{3, .35f}).text == "12");
  CHECK(ctc_greedy_decode(probs.data(), 6, 4, cs, CtcSpaces{-1, .15f}).text == "12");
}

// Words: split at the space class and at spaces CtcSpaces writes; each spans its characters'
// centres widened by half the line's pitch, cut at the midpoint to the neighbouring character.
TEST(words_from_timesteps) {
  const std::vector<std::string> cs = {"", "a", "b", " "};
  // frames: a a _ b _ [space] _ a _ _ b b   (T = 11)
  const auto probs = steps({{1, .9f},
                            {1, .9f},
                            {0, .9f},
                            {2, .8f},
                            {0, .9f},
                            {3, .9f},
                            {0, .9f},
                            {1, .7f},
                            {0, .9f},
                            {0, .9f},
                            {2, .6f}},
                           4);
  const CtcResult r = ctc_greedy_decode(probs.data(), 11, 4, cs);
  CHECK(r.text == "ab ab");
  CHECK(r.chars.size() == 5);
  CHECK(r.chars[0].t_begin == 0 && r.chars[0].t_end == 1);
  CHECK(r.chars[2].space && !r.chars[1].space);
  const std::vector<CtcWord> w = ctc_words(r, 11);
  CHECK(w.size() == 2);
  CHECK(r.text.substr(w[0].begin, w[0].end - w[0].begin) == "ab");
  CHECK(r.text.substr(w[1].begin, w[1].end - w[1].begin) == "ab");
  CHECK_NEAR(w[0].score, 0.85, 1e-6);
  CHECK_NEAR(w[1].score, 0.65, 1e-6);
  // centres 1, 3.5, 5.5 (the space), 7.5, 10.5: pitch 2.375; 0.8 pitch before, 0.45 after,
  // never past the space's centre
  CHECK_NEAR(w[0].x0, 0.0, 1e-5);      // 1 - 1.9, clipped at 0
  CHECK_NEAR(w[0].x1, 4.56875, 1e-5);  // 3.5 + 1.06875
  CHECK_NEAR(w[1].x0, 5.6, 1e-5);      // 7.5 - 1.9
  CHECK_NEAR(w[1].x1, 11.0, 1e-5);     // 10.5 + 1.06875, clipped at T
  CHECK(ctc_words(CtcResult{}, 11).empty());
}

TEST(words_split_at_written_spaces) {
  const std::vector<std::string> cs = {"", "1", "2", " "};
  std::vector<float> probs = {.1f, .8f, 0, .1f, .7f, 0, 0, .3f, .1f, 0, .8f, .1f};
  const CtcResult r = ctc_greedy_decode(probs.data(), 3, 4, cs, CtcSpaces{3, .15f});
  CHECK(r.text == "1 2");
  const std::vector<CtcWord> w = ctc_words(r, 3);
  CHECK(w.size() == 2);
  CHECK(w[0].end == 1 && w[1].begin == 2);
  CHECK(w[0].x1 <= w[1].x0);
  CHECK_NEAR(w[0].x1, 1.22, 1e-5);  // 0.36 of the way between the centres 0.5 and 2.5
}
