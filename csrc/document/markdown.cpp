// The one Markdown writer of a parsed page (Python's DocumentResult.to_markdown and the C API's
// edgeocr_document_markdown call it), and a table's HTML.
#include <string>
#include <vector>

#include "edgeocr/document.h"

namespace edgeocr {
namespace {

// The code point of the UTF-8 sequence starting at s[i] (0xFFFD for a broken one).
char32_t code_at(const std::string& s, std::size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) return c;
  const int n = (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
  if (n < 0) return 0xFFFD;
  char32_t v = c & (0x3F >> n);
  for (int k = 1; k <= n; ++k) {
    if (i + k >= s.size()) return 0xFFFD;
    v = (v << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  }
  return v;
}

char32_t first_code(const std::string& s) {
  return s.empty() ? 0 : code_at(s, 0);
}

char32_t last_code(const std::string& s) {
  if (s.empty()) return 0;
  std::size_t i = s.size() - 1;
  while (i > 0 && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) --i;
  return code_at(s, i);
}

// Scripts written without spaces between words (CJK, kana, Hangul, full-width forms).
bool no_space_script(char32_t c) {
  return (c >= 0x2E80 && c <= 0x9FFF) || (c >= 0xAC00 && c <= 0xD7AF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFF00 && c <= 0xFFEF);
}

bool ascii_letter(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// Characters that would start Markdown markup inside text. Brackets are left as printed but
// where "](" would make a link ("\[ ... \]" reads as display math to MathJax and to
// OmniDocBench-style scorers, which then drop everything between).
std::string escaped(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\\' || c == '*' || c == '`' || c == '_' || c == '<' ||
        (c == ']' && i + 1 < s.size() && s[i + 1] == '('))
      out.push_back('\\');
    out.push_back(c);
  }
  // A paragraph that would read as a heading, a quote, a list item or a rule.
  if (!out.empty() && (out[0] == '#' || out[0] == '>' || out[0] == '+' || out[0] == '-' ||
                       out[0] == '=' || out[0] == '|'))
    out.insert(out.begin(), '\\');
  std::size_t d = 0;
  while (d < out.size() && out[d] >= '0' && out[d] <= '9') ++d;
  if (d > 0 && d < out.size() && (out[d] == '.' || out[d] == ')') &&
      (d + 1 == out.size() || out[d + 1] == ' '))
    out.insert(d, "\\");
  return out;
}

// A region's lines as one paragraph: hyphenation at line ends undone ("docu-" + "ment"), no
// space between lines of scripts written without spaces.
std::string joined(const DocumentResult& doc, const std::vector<int>& lines) {
  std::string out;
  for (int i : lines) {
    if (i < 0 || static_cast<std::size_t>(i) >= doc.ocr.lines.size()) continue;
    std::string t = doc.ocr.lines[static_cast<std::size_t>(i)].text;
    while (!t.empty() && t.back() == ' ') t.pop_back();
    std::size_t lead = 0;
    while (lead < t.size() && t[lead] == ' ') ++lead;
    t.erase(0, lead);
    if (t.empty()) continue;
    if (out.empty()) {
      out = t;
      continue;
    }
    const char32_t next = first_code(t);
    if (out.size() >= 2 && out.back() == '-' &&
        ascii_letter(last_code(out.substr(0, out.size() - 1))) && next >= 'a' && next <= 'z') {
      out.pop_back();
      out += t;
    } else if (no_space_script(last_code(out)) || no_space_script(next)) {
      out += t;
    } else {
      out += ' ';
      out += t;
    }
  }
  return out;
}

// An item's text: its lines joined, the opening cut from its first line.
std::string item_text(const DocumentResult& doc, const Region& r, const ListItem& it) {
  std::vector<int> ls;
  for (int k = it.first; k < it.first + it.count && k < static_cast<int>(r.lines.size()); ++k)
    if (k >= 0) ls.push_back(r.lines[static_cast<std::size_t>(k)]);
  if (ls.empty()) return {};
  // The opening is cut from the first line's text before joining (joining trims spaces).
  std::string text = joined(doc, ls);
  const std::string& first = doc.ocr.lines[static_cast<std::size_t>(ls[0])].text;
  std::size_t lead = 0;
  while (lead < first.size() && first[lead] == ' ') ++lead;
  const std::size_t cut = std::min(it.skip - std::min(it.skip, lead), text.size());
  return text.substr(cut);
}

std::string html_escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '"')
      out += "&quot;";
    else
      out.push_back(c);
  }
  return out;
}

std::string cell_text(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n' || c == '\r') c = ' ';
    if (c == '|' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

bool spans(const TableStructure& t) {
  for (const TableCell& c : t.cells)
    if (c.row_span > 1 || c.col_span > 1) return true;
  return false;
}

// Rows x cols of a table's cells (a slot no cell covers is empty); false when a cell lies outside.
bool grid_of(const TableStructure& t, std::vector<std::vector<std::string>>* grid) {
  if (t.rows <= 0 || t.cols <= 0 || t.rows > 10000 || t.cols > 1000) return false;
  grid->assign(static_cast<std::size_t>(t.rows),
               std::vector<std::string>(static_cast<std::size_t>(t.cols)));
  for (const TableCell& c : t.cells) {
    if (c.row < 0 || c.col < 0 || c.row >= t.rows || c.col >= t.cols) return false;
    (*grid)[static_cast<std::size_t>(c.row)][static_cast<std::size_t>(c.col)] = c.text;
  }
  return true;
}

std::string pipe_table(const TableStructure& t) {
  std::vector<std::vector<std::string>> grid;
  if (!grid_of(t, &grid)) return table_html(t);
  std::string out;
  for (std::size_t r = 0; r < grid.size(); ++r) {
    out += "|";
    for (const std::string& cell : grid[r]) out += " " + cell_text(cell) + " |";
    out += "\n";
    if (r == 0) {
      out += "|";
      for (std::size_t c = 0; c < grid[r].size(); ++c) out += " --- |";
      out += "\n";
    }
  }
  return out;
}

}  // namespace

std::string table_html(const TableStructure& t) {
  std::string out = "<table>";
  bool in_head = false, in_body = false;
  int row = -1;
  for (const TableCell& c : t.cells) {
    if (c.row != row) {
      if (row >= 0) out += "</tr>";
      if (c.header && !in_head && !in_body) {
        out += "<thead>";
        in_head = true;
      } else if (!c.header && !in_body) {
        if (in_head) out += "</thead>";
        in_head = false;
        out += "<tbody>";
        in_body = true;
      }
      out += "<tr>";
      row = c.row;
    }
    out += "<td";
    if (c.row_span > 1) out += " rowspan=\"" + std::to_string(c.row_span) + "\"";
    if (c.col_span > 1) out += " colspan=\"" + std::to_string(c.col_span) + "\"";
    out += ">" + html_escaped(c.text) + "</td>";
  }
  if (row >= 0) out += "</tr>";
  if (in_head) out += "</thead>";
  if (in_body) out += "</tbody>";
  out += "</table>";
  return out;
}

std::vector<MarkdownBlock> markdown_blocks(const DocumentResult& doc, const MarkdownOptions& o) {
  std::vector<MarkdownBlock> blocks;
  int figures = 0;
  for (std::size_t k = 0; k < doc.regions.size(); ++k) {
    const Region& r = doc.regions[k];
    const int at = static_cast<int>(k);
    if (r.furniture && !o.furniture) continue;
    switch (r.type) {
      case RegionType::kTitle: {
        const std::string text = joined(doc, r.lines);
        if (text.empty()) break;
        const int level = r.heading_level >= 1 && r.heading_level <= 6 ? r.heading_level : 2;
        blocks.push_back(
            {at, std::string(static_cast<std::size_t>(level), '#') + " " + escaped(text)});
        break;
      }
      case RegionType::kFigure: {
        std::string caption;
        for (const Region& c : doc.regions)
          if (c.caption_of == at) {
            const std::string t = joined(doc, c.lines);
            if (!t.empty()) caption += (caption.empty() ? "" : " ") + t;
          }
        ++figures;
        blocks.push_back(
            {at, "![" + escaped(caption) + "](" + o.figure_prefix + std::to_string(figures) + ")"});
        break;
      }
      case RegionType::kTable: {
        if (r.has_table && !r.table.cells.empty()) {
          std::string t = spans(r.table) ? table_html(r.table) : pipe_table(r.table);
          while (!t.empty() && t.back() == '\n') t.pop_back();
          blocks.push_back({at, t});
        } else {
          const std::string text = joined(doc, r.lines);
          if (!text.empty()) blocks.push_back({at, escaped(text)});
        }
        break;
      }
      default: {
        if (!r.items.empty()) {
          if (r.items[0].kind == ListItem::kReference) {
            for (const ListItem& it : r.items)  // a paragraph per entry
              blocks.push_back(
                  {at, escaped("[" + std::to_string(it.number) + "] " + item_text(doc, r, it))});
            break;
          }
          std::string list;
          for (const ListItem& it : r.items) {
            const std::string text = item_text(doc, r, it);
            if (!list.empty() && it.kind == ListItem::kNumber && it.number == 1) {
              blocks.push_back({at, list});  // numbering starts again: a list of its own
              list.clear();
            }
            if (!list.empty()) list += "\n";
            if (it.kind == ListItem::kNumber)
              list += std::to_string(it.number) + ". " + escaped(text);
            else if (it.kind == ListItem::kMarker)
              list += "- " + escaped(it.marker + " " + text);
            else
              list += "- " + escaped(text);
          }
          blocks.push_back({at, list});
          break;
        }
        const std::string text = joined(doc, r.lines);
        if (!text.empty()) blocks.push_back({at, escaped(text)});
      }
    }
  }
  return blocks;
}

std::string to_markdown(const DocumentResult& doc, const MarkdownOptions& o) {
  std::string out;
  for (const MarkdownBlock& b : markdown_blocks(doc, o)) {
    out += b.text;
    out += "\n\n";
  }
  if (!out.empty()) out.pop_back();  // one newline at the end
  return out;
}

}  // namespace edgeocr
