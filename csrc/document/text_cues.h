// What a line's text says about its role, in the common forms of English and Chinese documents:
// captions ("Figure 3", "表 2"), equation numbers ("(3)"), page numbers ("- 3 -", "Page 3 of 10",
// "第3页", "iv"), heading numbering ("2.1", "IV.", "A.", "(a)", "一、", "（一）", "第一章"), and
// the shape of a text (words, capitals, sentence end). Pure functions of UTF-8 text, thread-safe.
#pragma once

#include <cstddef>
#include <string>

#include "edgeocr/document.h"

namespace edgeocr {

// The code points of UTF-8 text (a broken sequence is U+FFFD).
std::u32string to_u32(const std::string& s);

// Scripts written without spaces between words: CJK ideographs, kana, Hangul, CJK punctuation
// and full-width forms.
bool is_cjk(char32_t c);

// Letters and digits (ASCII, Latin-1 and Latin Extended letters, Greek, Cyrillic, CJK).
bool is_alnum(char32_t c);

struct TextShape {
  int words = 0;    // runs of letters/digits between spaces or punctuation (CJK: see units)
  int cjk = 0;      // CJK characters
  int letters = 0;  // non-CJK letters
  int upper = 0;    // of which upper case
  int digits = 0;
  // Words a reader counts: the words, a CJK character counting half a word.
  float units() const { return static_cast<float>(words) + 0.5f * static_cast<float>(cjk); }
  bool ends_sentence = false;  // the last non-space character is . 。 ! ? ！ ？ ; ；
  bool ends_comma = false;     // , ， 、 : the text goes on
  bool all_caps = false;       // >= 3 letters, none lower case
};
TextShape text_shape(const std::string& text);

// True when the text holds a word: two letters in a row, or a CJK character (a grid of numbers
// and symbols, a matrix, holds none).
bool has_word(const std::string& text);

// The caption a text opens: "Figure 3", "Fig. 3", "Table 2", "Tab. 2", "图 3", "表 2" (any case,
// roman numerals too) followed by the caption's punctuation, its end, or a capital (or CJK) word
// ("Table 2 shows ..." is a sentence). False for any other text.
bool caption_cue(const std::string& text, RegionType* kind);

// "(3)", "(12)", "(2.1)", "(4a)": an equation's number.
bool equation_number(const std::string& text);

// A page number as printed, alone on its line: "3", "- 3 -", "– 3 –", "Page 3", "p. 3",
// "Page 3 of 10", "3 / 12", "iv", "XII", "第3页", "第 1 页 共 6 页", "共6页 第1页" (full-width
// digits too).
bool page_number_text(const std::string& text);

// How a heading's text opens, and its depth in the document's outline by the conventions of the
// scheme: "1" 1, "2.1" 2, "2.1.3" 3; "IV." 1; "A." 2; "(a)" 3; "一、" 1, "（一）" 2, "1、" 3 (a
// Chinese report's outline); "第一章" 1, "第一节" 2; "Chapter 3", "Part II", "Appendix A" 1.
// depth 0: no numbering (or one that reads as a year or a quantity: "2018 results", "3 mm").
struct Numbering {
  enum Scheme : int {
    kNone = 0,
    kDigits,      // 1 / 1.2 / 1.2.3 (with or without a final dot)
    kRoman,       // I. II. IV.
    kLetter,      // A. B.
    kParen,       // (a) (1) a)
    kCjk,         // 一、
    kCjkParen,    // （一） (一)
    kDigitComma,  // 1、
    kChapter,     // 第一章 / Chapter 1 / Part I / Appendix A
    kSection      // 第一节
  };
  Scheme scheme = kNone;
  int depth = 0;
  std::size_t skip = 0;  // bytes the numbering (and the spaces after it) takes
};
Numbering heading_numbering(const std::string& text);

// A running header's or footer's line that carries a page number at its start or end: "206 Law
// Enforcement", "Methodology 9", "12 | Annual report", "第3页 年度报告" (1-4 digits, or a
// page_number_text form, as the first or last word).
bool numbered_at_end(const std::string& text);

// A text that is nothing but a list or heading marker: "1.", "2.1", "IV.", "A.", "(a)", "a)",
// "一、", "（一）", "1、", or a bullet ("•", "·", "▪", "●", "-", "*", "–").
bool marker_only(const std::string& text);

// -- what the document pass (document_pass.h) reads across pages

// The number a page number's text carries: page_number_text's forms ("- 3 -" 3, "Page 3 of 10"
// 3, "第3页共6页" 3, "共6页第1页" 1, "iv" 4, "Page XII" 12), and a number of 5 or 6 digits alone
// (a gazette's running page numbers, "47699"); -1 for any other text.
int page_number_value(const std::string& text);

// The page number a header's or footer's line carries as its last or first word ("Methodology
// 9" 9, "206 Law Enforcement" 206, "Rules 47699" 47699); -1 when neither is one, or the text is
// one word.
int edge_page_number(const std::string& text);

// A caption that says a table goes on from the page before: "(continued)", "Table 3
// (continued)", "(cont.)", "cont'd", "续表", "续上表", "接上表", "(续)". At most 80 characters.
bool continued_cue(const std::string& text);

// A text as a running header's or footer's key: spaces dropped, ASCII letters lower-cased, each
// run of digits and each roman numeral (a word of them) one '#', so "Page 3" and "Page 4",
// "Methodology 9" and "Methodology 11", "- iv -" and "- v -" have one key.
std::string repeat_key(const std::string& text);

}  // namespace edgeocr
