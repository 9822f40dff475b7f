// A document's Markdown (document_markdown in edgeocr/document.h): each page's blocks from the one
// writer (markdown_blocks), a paragraph or table that continues the block before it written
// with it. A joined block is written by the same writer, from a page of one region that holds
// both parts (the paragraph's lines, or the table with the second's rows appended).
#include <string>
#include <vector>

#include "document/document_pass.h"
#include "edgeocr/document.h"

namespace edgeocr {
namespace {

// Blocks joined across a break: a page of one region (a paragraph's lines, or one table).
struct Joined {
  DocumentResult page;
};

// `r` of `from` added to the joined block (the region's lines' texts, or its table's rows).
void add(Joined& j, const DocumentResult& from, const Region& r) {
  Region& into = j.page.regions.front();
  if (into.type == RegionType::kTable) {
    into.table = docpass::appended_table(into.table, r.table);
    return;
  }
  for (int i : r.lines) {
    if (i < 0 || static_cast<std::size_t>(i) >= from.ocr.lines.size()) continue;
    OcrLine line;
    line.text = from.ocr.lines[static_cast<std::size_t>(i)].text;
    into.lines.push_back(static_cast<int>(j.page.ocr.lines.size()));
    j.page.ocr.lines.push_back(std::move(line));
  }
}

Joined start(const DocumentResult& from, const Region& r) {
  Joined j;
  Region into;
  into.type = r.has_table ? RegionType::kTable : RegionType::kText;
  if (r.has_table) {
    into.has_table = true;
    into.table = docpass::appended_table(r.table, TableStructure{});
  }
  j.page.regions.push_back(std::move(into));
  if (!r.has_table) add(j, from, r);
  return j;
}

// Whether region `r` (continuing) may be written with region `last` (the one it continues).
bool joins(const Region& last, const Region& r) {
  if (!r.continues) return false;
  if (r.joined == "paragraph") return docpass::paragraph_like(last) && docpass::paragraph_like(r);
  if (r.joined == "table")
    return last.has_table && !last.table.cells.empty() && r.has_table && !r.table.cells.empty();
  return false;
}

}  // namespace

std::string document_markdown(const std::vector<const DocumentResult*>& pages,
                              const MarkdownOptions& options,
                              const std::vector<int>& page_numbers) {
  struct Entry {
    std::string text;
    int joined = -1;  // an index into `joined`: the text is written from it at the end
  };
  std::vector<Entry> entries;
  std::vector<Joined> joined;
  // The entry each body region of the previous and this page was written to (-1: none).
  std::vector<int> entry_before, entry_here;
  for (std::size_t i = 0; i < pages.size(); ++i) {
    const int number = i < page_numbers.size() ? page_numbers[i] : static_cast<int>(i) + 1;
    if (i > 0) entries.push_back({"<!-- page " + std::to_string(number) + " -->"});
    const DocumentResult* page = pages[i];
    entry_before.swap(entry_here);
    entry_here.clear();
    if (!page) {  // nothing continues across a page that failed
      entry_before.clear();
      continue;
    }
    entry_here.assign(page->regions.size(), -1);
    MarkdownOptions o = options;
    if (number > 1)
      o.figure_prefix = "page-" + std::to_string(number) + "-" + options.figure_prefix;
    // "(continued)" captions before a table that continues the last page's are left out.
    std::vector<int> cues;
    const int f = docpass::first_body(*page, &cues);
    if (f < 0 || !page->regions[static_cast<std::size_t>(f)].continues ||
        page->regions[static_cast<std::size_t>(f)].joined != "table")
      cues.clear();
    for (MarkdownBlock& b : markdown_blocks(*page, o)) {
      if (b.region < 0 || static_cast<std::size_t>(b.region) >= page->regions.size()) continue;
      const std::size_t k = static_cast<std::size_t>(b.region);
      bool cue = false;
      for (int c : cues) cue = cue || c == b.region;
      if (cue) continue;
      const Region& r = page->regions[k];
      if (r.continues && r.continues_region >= 0 && !r.furniture) {
        const DocumentResult* from = r.from_previous_page ? (i > 0 ? pages[i - 1] : nullptr) : page;
        const std::vector<int>& at = r.from_previous_page ? entry_before : entry_here;
        const std::size_t c = static_cast<std::size_t>(r.continues_region);
        const int e = from && c < at.size() && c < from->regions.size() ? at[c] : -1;
        if (e >= 0 && joins(from->regions[c], r)) {
          Entry& into = entries[static_cast<std::size_t>(e)];
          if (into.joined < 0) {
            into.joined = static_cast<int>(joined.size());
            joined.push_back(start(*from, from->regions[c]));
            into.text.clear();
          }
          add(joined[static_cast<std::size_t>(into.joined)], *page, r);
          entry_here[k] = e;
          continue;
        }
      }
      entries.push_back({std::move(b.text)});
      if (!r.furniture) entry_here[k] = static_cast<int>(entries.size()) - 1;
    }
  }
  std::string out;
  for (Entry& e : entries) {
    if (e.joined >= 0) {
      MarkdownOptions o = options;
      o.furniture = true;
      for (const MarkdownBlock& b :
           markdown_blocks(joined[static_cast<std::size_t>(e.joined)].page, o))
        e.text += (e.text.empty() ? "" : "\n\n") + b.text;
    }
    if (e.text.empty()) continue;
    out += e.text;
    out += "\n\n";
  }
  if (!out.empty()) out.pop_back();  // one newline at the end, as to_markdown
  return out;
}

}  // namespace edgeocr
