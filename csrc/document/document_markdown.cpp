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

// Whether region `r` (continuing) may be written with region `last` (the block before it).
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
  // The last body block written: its entry, page and region.
  int last = -1;
  const DocumentResult* last_page = nullptr;
  const Region* last_region = nullptr;
  for (std::size_t i = 0; i < pages.size(); ++i) {
    const int number = i < page_numbers.size() ? page_numbers[i] : static_cast<int>(i) + 1;
    if (i > 0) entries.push_back({"<!-- page " + std::to_string(number) + " -->"});
    const DocumentResult* page = pages[i];
    if (!page) {  // nothing continues across a page that failed
      last = -1;
      continue;
    }
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
      bool cue = false;
      for (int c : cues) cue = cue || c == b.region;
      if (cue) continue;
      const Region& r = page->regions[static_cast<std::size_t>(b.region)];
      if (r.furniture) {  // written (options.furniture), but no body block to join
        entries.push_back({std::move(b.text)});
        continue;
      }
      if (last >= 0 && last_region != &r && joins(*last_region, r)) {
        Entry& e = entries[static_cast<std::size_t>(last)];
        if (e.joined < 0) {
          e.joined = static_cast<int>(joined.size());
          joined.push_back(start(*last_page, *last_region));
          e.text.clear();
        }
        add(joined[static_cast<std::size_t>(e.joined)], *page, r);
        last_page = page;
        last_region = &r;
        continue;
      }
      entries.push_back({std::move(b.text)});
      last = static_cast<int>(entries.size()) - 1;
      last_page = page;
      last_region = &r;
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
