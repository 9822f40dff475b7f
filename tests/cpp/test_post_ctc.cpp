// CTC greedy decoding.
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
  const auto probs = steps({{0, .9f}, {1, .8f}, {1, .6f}, {0, .9f}, {2, .7f}, {2, .9f}, {3, .5f}, {0, .9f}}, 4);
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
  const std::vector<std::string> cs = {"", "\xE4\xB8\xAD", "\xE6\x96\x87", "\xC3\xA9", "\xF0\x9F\x98\x80", " "};
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
