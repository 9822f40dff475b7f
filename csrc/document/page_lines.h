// A page's lines before the reading order reads them: which way the page's text is turned, the
// page turned upright (and boxes mapped back), lines the detector ran across a column gutter
// cut in two, and OCR lines' typography measured on the pixels. DocumentParser runs these.
#pragma once

#include <cstdint>
#include <vector>

#include "edgeocr/document.h"

namespace edgeocr {

// Quarter turns (1..3, clockwise) by which the page's text is turned, from its lines' own
// `turns` (OcrLine::turns: 1 for text read after a quarter turn, 2 upside down), weighed by their
// characters: the turn most of the text (>= 60% of >= 40 characters in lines of >= 3) shares;
// 0 for an upright page or no clear majority.
int text_turns(const std::vector<OcrLine>& lines);

// The skew of a scan, degrees (positive: text running down to the right): the median slope of
// its long horizontal lines (>= 8 of their heights wide), when >= 5 lines agree within 1 degree
// of it; 0 otherwise.
float text_skew(const std::vector<OcrLine>& lines);

// `image` rotated by `degrees` about its centre (positive: clockwise on the page), its size
// kept, what comes from outside the page white; owned pixels. rotate_point maps a point the same
// way (back: the inverse).
Point2f rotate_point(Point2f p, float degrees, int width, int height, bool back);
// Lines and a parsed page's boxes mapped through rotate_point (regions and cells: the bounds
// of their rotated corners).
void rotate_lines(std::vector<OcrLine>& lines, float degrees, int width, int height, bool back);
void rotate_result_back(DocumentResult& doc, float degrees, int width, int height);

// An image turned `turns` quarter turns counter-clockwise (undoing a clockwise turn of its
// text), its pixels owned.
struct TurnedImage {
  std::vector<std::uint8_t> pixels;
  ImageView view;
};
TurnedImage turn_image(const ImageView& image, int turns);
// `image` rotated by `degrees` (text_skew's sign) the other way, levelling its text.
TurnedImage rotate_image(const ImageView& image, float degrees);

// Maps a point of the page turned `turns` quarter turns counter-clockwise (of `width` x `height`
// pixels before turning) back to the page as given (back = true), or the other way.
Point2f turn_point(Point2f p, int turns, int width, int height, bool back);

// Maps lines (boxes, words) between the two frames as turn_point does; the corners start again
// at the top-left one in the new frame and `turns` says where the text's top-left corner is.
void turn_lines(std::vector<OcrLine>& lines, int turns, int width, int height, bool back);
// Maps a parsed page's boxes (lines, regions, cells) back from the turned frame.
void turn_result_back(DocumentResult& doc, int turns, int width, int height);
BoxF turn_box(const BoxF& b, int turns, int width, int height, bool back);

// Cuts each horizontal line that runs across two body regions side by side (a column gutter
// the detector bridged) at the word gap between them, when each side holds >= split_share of
// the line's width; `styles` (one per line, or empty) follows. Lines without words (or written
// without spaces between words) stay whole. Returns the number of lines cut.
int split_at_columns(std::vector<OcrLine>& lines, std::vector<LineStyle>& styles,
                     const std::vector<Region>& layout, const DocumentRules& rules);

// A line that is only a list or heading marker (marker_only: "1.", "2.1", "(a)", "一、", "•")
// joins the nearest line right of it on its row, within 4 of its heights, in the same layout
// region (a tab after a section number splits them; a number ending a table's row is not joined
// to the next column's text); `styles` follows (the text's style is kept). At most 4096 markers
// are looked at. Returns the number of lines joined.
int join_markers(std::vector<OcrLine>& lines, std::vector<LineStyle>& styles,
                 const std::vector<Region>& layout);

// OCR lines' typography (source kOcr): size = the line's height across its text, stroke = the
// median width of its ink's horizontal runs over that height (at most 48 rows x 1024 columns of
// each line sampled); then bold where the stroke is >= bold_stroke x the median stroke of the
// page's OCR lines. Lines of another source are left as they are.
void measure_styles(const ImageView& page, const std::vector<OcrLine>& lines,
                    std::vector<LineStyle>& styles, const DocumentRules& rules);

}  // namespace edgeocr
