/* Tests of the C API's document parsing (API version 9), compiled as C99:
 *
 *   test_c_document args     no model: the layout/table options' checks and struct versions,
 *                            parse without a predictor, every document getter's NULL checks,
 *                            destroy(NULL) (the output structs' struct_size rules:
 *                            test_c_regressions structs)
 *   test_c_document parse    the two-column page with a table (EDGEOCR_TEST_DOC_PNG) through
 *                            edgeocr_predictor_parse_encoded: regions in reading order, every
 *                            line in exactly one region, the table and its cells, captions,
 *                            furniture, Markdown; the pixel path (edgeocr_predictor_parse) on
 *                            tests/c/data/sample.ppm; a layout model that is not one (deferred:
 *                            refused at each parse; from bytes: at create); a missing file
 *   test_c_document threads  one predictor parsing the page on 4 threads: the same Markdown
 *
 * "parse" and "threads" read EDGEOCR_TEST_DET_MODEL, EDGEOCR_TEST_CLS_MODEL,
 * EDGEOCR_TEST_REC_MODEL, EDGEOCR_TEST_LAYOUT_MODEL, EDGEOCR_TEST_TABLE_MODEL,
 * EDGEOCR_TEST_ORT_LIBRARY, EDGEOCR_TEST_DOC_PNG and EDGEOCR_TEST_IMAGE, and exit with 77
 * (skipped) when they are missing. tests/python/test_c_parity.py checks that the Markdown equals
 * Python's Predictor.parse(...).to_markdown() on the same models.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edgeocr_c.h"

#define SKIP 77
#define OK EDGEOCR_STATUS_OK
#define INVALID EDGEOCR_STATUS_INVALID_ARGUMENT

static int g_failures = 0;
static size_t g_tables = 0;     /* regions with has_table seen by the last check_document */
static size_t g_cell_texts = 0; /* cells with text in them, likewise */
static int g_model_tables = 0;  /* tables whose method is "model", likewise */

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++g_failures;                                                            \
    }                                                                          \
  } while (0)

/* A call that must return `code`; a failure must leave a message holding `needle` (if given). */
#define CHECK_STATUS(call, code, needle)                                                           \
  do {                                                                                             \
    edgeocr_status_t st_ = (call);                                                                 \
    const char* msg_ = edgeocr_last_error();                                                       \
    const char* needle_ = (needle);                                                                \
    if (st_ != (code)) {                                                                           \
      fprintf(stderr, "%s:%d: %s returned %s, expected %s (last error: %s)\n", __FILE__, __LINE__, \
              #call, edgeocr_status_name(st_), edgeocr_status_name(code), msg_);                   \
      ++g_failures;                                                                                \
    } else if ((code) != OK && (msg_[0] == '\0' || (needle_ && !strstr(msg_, needle_)))) {         \
      fprintf(stderr, "%s:%d: %s: the message does not say '%s': %s\n", __FILE__, __LINE__, #call, \
              needle_ ? needle_ : "anything", msg_);                                               \
      ++g_failures;                                                                                \
    } else if ((code) == OK && msg_[0] != '\0') {                                                  \
      fprintf(stderr, "%s:%d: %s succeeded but left a message: %s\n", __FILE__, __LINE__, #call,   \
              msg_);                                                                               \
      ++g_failures;                                                                                \
    }                                                                                              \
  } while (0)

static const char* env(const char* name) {
  const char* v = getenv(name);
  return v && *v ? v : NULL;
}

static int all_bytes(const void* p, size_t n, unsigned char v) {
  const unsigned char* b = (const unsigned char*)p;
  size_t i;
  for (i = 0; i < n; ++i)
    if (b[i] != v) return 0;
  return 1;
}

static char* read_whole(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  long end;
  char* data;
  *size = 0;
  if (!f) return NULL;
  if (fseek(f, 0, SEEK_END) != 0 || (end = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    return NULL;
  }
  data = (char*)malloc((size_t)end + 1);
  if (data && fread(data, 1, (size_t)end, f) != (size_t)end) {
    free(data);
    data = NULL;
  }
  fclose(f);
  if (data) *size = (size_t)end;
  return data;
}

/* ---- args: no model ------------------------------------------------------------------------ */

static void test_options(void) {
  edgeocr_options_t opt;
  edgeocr_predictor_t p = (edgeocr_predictor_t)&opt; /* must be set to NULL on failure */
  const size_t v8 = offsetof(edgeocr_options_t, layout_model_path);
  union {
    edgeocr_options_t o;
    unsigned char bytes[sizeof(edgeocr_options_t) + 64];
  } box;

  CHECK(edgeocr_api_version() >= 9 && EDGEOCR_C_API_VERSION >= 9);
  /* Version 8's options end where the layout fields begin: such a struct still works (no layout
     model), and one ending inside a layout field is no version's. */
  CHECK(v8 == offsetof(edgeocr_options_t, no_disk_cache) + sizeof(int));
  memset(&box, 0xAB, sizeof box);
  CHECK_STATUS(edgeocr_options_init(&box.o, v8), OK, NULL);
  CHECK(all_bytes(box.bytes + v8, sizeof box - v8, 0xAB));
  CHECK_STATUS(edgeocr_options_init(&box.o, v8 + 1), INVALID, "layout_model_path");
  CHECK_STATUS(edgeocr_options_init(&box.o, offsetof(edgeocr_options_t, table_model_size) + 2),
               INVALID, "table_model_size");
  CHECK_STATUS(edgeocr_options_init(&box.o, sizeof box.o), OK, NULL);
  CHECK(box.o.layout_model_path == NULL && box.o.layout_model_data == NULL &&
        box.o.layout_model_size == 0 && box.o.table_model_path == NULL &&
        box.o.table_model_data == NULL && box.o.table_model_size == 0);

  edgeocr_options_init(&opt, sizeof opt);
  opt.det_model_path = "/nonexistent/det.onnx";
  opt.table_model_path = "/nonexistent/table.onnx";
  CHECK_STATUS(edgeocr_predictor_create(&opt, &p), INVALID, "layout_model_path");
  CHECK(p == NULL);
  opt.table_model_path = NULL;
  opt.layout_model_path = "";
  CHECK_STATUS(edgeocr_predictor_create(&opt, &p), INVALID, "layout_model_path is empty");
  opt.layout_model_path = "/nonexistent/layout.onnx";
  opt.layout_model_data = "x";
  opt.layout_model_size = 1;
  CHECK_STATUS(edgeocr_predictor_create(&opt, &p), INVALID, "layout_model_data");
  opt.layout_model_path = NULL;
  opt.layout_model_size = 0;
  CHECK_STATUS(edgeocr_predictor_create(&opt, &p), INVALID, "layout_model_size is 0");
  opt.layout_model_data = NULL;
  opt.table_model_size = 5;
  CHECK_STATUS(edgeocr_predictor_create(&opt, &p), INVALID, "table_model_data is NULL");
  opt.table_model_size = 0;
  /* A bundle holds its own det/cls/rec, but a layout model may come beside it (the bundle is
     then read first: here it is missing). */
  opt.det_model_path = NULL;
  opt.bundle_path = "/nonexistent/ppocr.eocr";
  opt.layout_model_path = "/nonexistent/layout.onnx";
  CHECK_STATUS(edgeocr_predictor_create(&opt, &p), EDGEOCR_STATUS_NOT_FOUND, "ppocr.eocr");
  CHECK(p == NULL);
}

static void test_handles(void) {
  edgeocr_options_t opt;
  edgeocr_document_t d = (edgeocr_document_t)&opt;
  edgeocr_region_t region;
  edgeocr_table_cell_t cell;
  edgeocr_line_t line;
  edgeocr_word_t word;
  const char* md = "x";
  size_t n = 7, md_size = 7;
  int w = 5, h = 5;
  static const unsigned char png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  unsigned char pixel[3] = {0, 0, 0};
  edgeocr_image_t img;

  img.data = pixel;
  img.data_size = 3;
  img.width = img.height = 1;
  img.stride = 3;
  img.format = EDGEOCR_PIXEL_RGB;
  CHECK_STATUS(edgeocr_predictor_parse(NULL, &img, &d), INVALID, "predictor is NULL");
  CHECK(d == NULL);
  CHECK_STATUS(edgeocr_predictor_parse(NULL, &img, NULL), INVALID, "document (the output)");
  d = (edgeocr_document_t)&opt;
  CHECK_STATUS(edgeocr_predictor_parse_encoded(NULL, png_sig, sizeof png_sig, 0, &d), INVALID,
               "predictor is NULL");
  CHECK(d == NULL);

  CHECK_STATUS(edgeocr_document_page_size(NULL, &w, &h), INVALID, "document is NULL");
  CHECK(w == 0 && h == 0);
  CHECK_STATUS(edgeocr_document_page_size(NULL, NULL, &h), INVALID, "NULL");
  CHECK_STATUS(edgeocr_document_region_count(NULL, &n), INVALID, "document is NULL");
  CHECK(n == 0);
  CHECK_STATUS(edgeocr_document_region_count(NULL, NULL), INVALID, "count is NULL");
  region.struct_size = sizeof region;
  CHECK_STATUS(edgeocr_document_get_region(NULL, 0, &region), INVALID, "document is NULL");
  CHECK_STATUS(edgeocr_document_get_region(NULL, 0, NULL), INVALID, "region is NULL");
  n = 7;
  CHECK_STATUS(edgeocr_document_region_line(NULL, 0, 0, &n), INVALID, "document is NULL");
  CHECK(n == 0);
  cell.struct_size = sizeof cell;
  CHECK_STATUS(edgeocr_document_get_cell(NULL, 0, 0, &cell), INVALID, "document is NULL");
  CHECK_STATUS(edgeocr_document_cell_line(NULL, 0, 0, 0, &n), INVALID, "document is NULL");
  CHECK_STATUS(edgeocr_document_line_count(NULL, &n), INVALID, "document is NULL");
  line.struct_size = sizeof line;
  CHECK_STATUS(edgeocr_document_get_line(NULL, 0, &line), INVALID, "document is NULL");
  line.struct_size = 3;
  CHECK_STATUS(edgeocr_document_get_line(NULL, 0, &line), INVALID, "struct_size");
  word.struct_size = sizeof word;
  CHECK_STATUS(edgeocr_document_get_word(NULL, 0, 0, &word), INVALID, "document is NULL");
  CHECK_STATUS(edgeocr_document_markdown(NULL, NULL, 0, &md, &md_size), INVALID,
               "document is NULL");
  CHECK(md == NULL && md_size == 0);
  CHECK_STATUS(edgeocr_document_markdown(NULL, NULL, 0, NULL, NULL), INVALID, "markdown");
  edgeocr_document_destroy(NULL); /* a no-op */
  /* The output structs' struct_size rules: test_c_regressions structs. */

  /* The whole-document pass and the document's Markdown (API version 10). */
  {
    edgeocr_document_t finished[1];
    edgeocr_document_t failed[2] = {NULL, NULL};
    char buf[32] = "xyz";
    size_t needed = 7;
    finished[0] = (edgeocr_document_t)&opt;
    CHECK_STATUS(edgeocr_documents_finish(NULL, NULL, 0, NULL), OK, NULL);
    CHECK_STATUS(edgeocr_documents_finish(NULL, NULL, 1, finished), INVALID, "NULL");
    CHECK(finished[0] == NULL);
    {
      edgeocr_document_t two[2];
      two[0] = two[1] = (edgeocr_document_t)&opt;
      CHECK_STATUS(edgeocr_documents_finish(NULL, failed, 2, two), OK, NULL);
      CHECK(two[0] == NULL && two[1] == NULL);
    }
    CHECK_STATUS(edgeocr_documents_finish(NULL, failed, (size_t)-1, NULL), INVALID, "pages");
    CHECK_STATUS(edgeocr_documents_markdown(NULL, 0, NULL, 0, buf, sizeof buf, &needed), OK, NULL);
    CHECK(buf[0] == '\0' && needed == 1);
    CHECK_STATUS(edgeocr_documents_markdown(NULL, 1, NULL, 0, buf, sizeof buf, &needed), INVALID,
                 "documents is NULL");
    CHECK_STATUS(edgeocr_documents_markdown(failed, 2, NULL, 2, buf, sizeof buf, NULL), INVALID,
                 "furniture");
    CHECK_STATUS(edgeocr_documents_markdown(failed, 2, NULL, 0, NULL, 4, NULL), INVALID,
                 "buffer is NULL");
    /* Two failed pages: the second page's line alone; too small a buffer says its size. */
    CHECK_STATUS(edgeocr_documents_markdown(failed, 2, NULL, 0, buf, 4, &needed), INVALID,
                 "needs a buffer of 17 bytes");
    CHECK(buf[0] == '\0' && needed == 17);
    CHECK_STATUS(edgeocr_documents_markdown(failed, 2, NULL, 0, buf, sizeof buf, &needed), OK,
                 NULL);
    CHECK(strcmp(buf, "<!-- page 2 -->\n") == 0);
  }
}

static int test_args(void) {
  test_options();
  test_handles();
  return g_failures ? 1 : 0;
}

/* ---- parse: with models --------------------------------------------------------------------- */

typedef struct {
  const char *det, *cls, *rec, *layout, *table, *ort, *page, *image;
} inputs;

static int get_inputs(inputs* in) {
  in->det = env("EDGEOCR_TEST_DET_MODEL");
  in->cls = env("EDGEOCR_TEST_CLS_MODEL");
  in->rec = env("EDGEOCR_TEST_REC_MODEL");
  in->layout = env("EDGEOCR_TEST_LAYOUT_MODEL");
  in->table = env("EDGEOCR_TEST_TABLE_MODEL");
  in->ort = env("EDGEOCR_TEST_ORT_LIBRARY");
  in->page = env("EDGEOCR_TEST_DOC_PNG");
  in->image = env("EDGEOCR_TEST_IMAGE");
  if (!in->det || !in->rec || !in->layout || !in->page) {
    fprintf(stderr,
            "SKIP: set EDGEOCR_TEST_DET_MODEL, EDGEOCR_TEST_REC_MODEL, EDGEOCR_TEST_LAYOUT_MODEL "
            "and EDGEOCR_TEST_DOC_PNG (pip install 'edgeocr[test]' brings the models)\n");
    return SKIP;
  }
  return 0;
}

static edgeocr_status_t create(const inputs* in, int with_layout, int with_table,
                               edgeocr_predictor_t* p) {
  edgeocr_options_t opt;
  edgeocr_options_init(&opt, sizeof opt);
  opt.det_model_path = in->det;
  opt.cls_model_path = in->cls;
  opt.rec_model_path = in->rec;
  opt.ort_library_path = in->ort;
  opt.threads = 1;
  if (with_layout) opt.layout_model_path = in->layout;
  if (with_table) opt.table_model_path = in->table;
  return edgeocr_predictor_create(&opt, p);
}

static const char* const kTypeNames[12] = {
    "text",          "title",  "list",   "figure",      "figure_caption", "table",
    "table_caption", "header", "footer", "page_number", "reference",      "equation"};

/* Checks one parsed page; returns the number of regions of each type in counts[12]. */
static void check_document(edgeocr_document_t d, int width, int height, size_t counts[12]) {
  size_t n_regions = 0, n_lines = 0, r, k, next_line = 0;
  int w = 0, h = 0, body_started = 0, bottom_started = 0;
  memset(counts, 0, 12 * sizeof counts[0]);
  g_tables = 0;
  g_cell_texts = 0;
  g_model_tables = 0;
  CHECK_STATUS(edgeocr_document_page_size(d, &w, &h), OK, NULL);
  CHECK(w == width && h == height);
  CHECK_STATUS(edgeocr_document_region_count(d, &n_regions), OK, NULL);
  CHECK_STATUS(edgeocr_document_line_count(d, &n_lines), OK, NULL);
  CHECK(n_regions > 0 && n_lines > 0);
  for (r = 0; r < n_regions; ++r) {
    edgeocr_region_t g;
    memset(&g, 0, sizeof g);
    g.struct_size = sizeof g;
    CHECK_STATUS(edgeocr_document_get_region(d, r, &g), OK, NULL);
    CHECK(g.type >= 0 && g.type < 12);
    if (g.type < 0 || g.type >= 12) continue;
    ++counts[g.type];
    CHECK(strcmp(g.type_name, kTypeNames[g.type]) == 0);
    CHECK(g.label != NULL && g.table_method != NULL);
    CHECK(g.order == r);
    CHECK(g.score >= 0.f && g.score <= 1.f);
    CHECK(g.from_layout ? g.label[0] != '\0' : g.label[0] == '\0');
    CHECK(g.box[0] >= 0.f && g.box[1] >= 0.f && g.box[0] <= g.box[2] && g.box[1] <= g.box[3] &&
          g.box[2] <= (float)width && g.box[3] <= (float)height);
    CHECK(g.heading_level >= 0 && g.heading_level <= 3);
    CHECK(g.heading_level == 0 || g.type == EDGEOCR_REGION_TITLE);
    CHECK(g.caption_of >= -1 && g.caption_of < (int)n_regions);
    if (g.caption_of >= 0) {
      edgeocr_region_t of;
      of.struct_size = sizeof of;
      CHECK(g.type == EDGEOCR_REGION_FIGURE_CAPTION || g.type == EDGEOCR_REGION_TABLE_CAPTION);
      CHECK_STATUS(edgeocr_document_get_region(d, (size_t)g.caption_of, &of), OK, NULL);
      CHECK(of.type == EDGEOCR_REGION_FIGURE || of.type == EDGEOCR_REGION_TABLE);
    }
    /* Furniture: the top ones first, then the body, then the bottom ones. */
    if (!g.furniture) {
      CHECK(!bottom_started);
      body_started = 1;
    } else if (body_started) {
      bottom_started = 1;
    }
    CHECK(!g.furniture || g.type == EDGEOCR_REGION_HEADER || g.type == EDGEOCR_REGION_FOOTER ||
          g.type == EDGEOCR_REGION_PAGE_NUMBER);
    /* Every line in exactly one region: the regions' lines are the page's, in order. */
    for (k = 0; k < g.line_count; ++k) {
      size_t li = 99999;
      CHECK_STATUS(edgeocr_document_region_line(d, r, k, &li), OK, NULL);
      CHECK(li == next_line);
      ++next_line;
    }
    {
      size_t li = 5;
      CHECK_STATUS(edgeocr_document_region_line(d, r, g.line_count, &li), INVALID, "out of range");
      CHECK(li == 0);
    }
    if (g.has_table) {
      size_t c, total_slots = 0;
      ++g_tables;
      CHECK(g.type == EDGEOCR_REGION_TABLE);
      CHECK(g.table_rows > 0 && g.table_cols > 0 && g.table_cell_count > 0);
      CHECK(strcmp(g.table_method, "model") == 0 || strcmp(g.table_method, "grid") == 0);
      g_model_tables += strcmp(g.table_method, "model") == 0;
      for (c = 0; c < g.table_cell_count; ++c) {
        edgeocr_table_cell_t cell;
        cell.struct_size = sizeof cell;
        CHECK_STATUS(edgeocr_document_get_cell(d, r, c, &cell), OK, NULL);
        CHECK(cell.row >= 0 && cell.col >= 0 && cell.row_span >= 1 && cell.col_span >= 1);
        CHECK(cell.row + cell.row_span <= g.table_rows && cell.col + cell.col_span <= g.table_cols);
        CHECK(cell.text != NULL && strlen(cell.text) == cell.text_size);
        g_cell_texts += cell.text_size > 0;
        CHECK(cell.header == 0 || cell.header == 1);
        total_slots += (size_t)cell.row_span * (size_t)cell.col_span;
        for (k = 0; k < cell.line_count; ++k) {
          size_t li = 99999;
          CHECK_STATUS(edgeocr_document_cell_line(d, r, c, k, &li), OK, NULL);
          CHECK(li < n_lines);
        }
      }
      CHECK(total_slots <= (size_t)g.table_rows * (size_t)g.table_cols);
      {
        edgeocr_table_cell_t cell;
        cell.struct_size = sizeof cell;
        CHECK_STATUS(edgeocr_document_get_cell(d, r, g.table_cell_count, &cell), INVALID,
                     "out of range");
      }
    } else {
      edgeocr_table_cell_t cell;
      cell.struct_size = sizeof cell;
      CHECK(g.table_rows == 0 && g.table_cols == 0 && g.table_cell_count == 0 &&
            g.table_method[0] == '\0');
      CHECK_STATUS(edgeocr_document_get_cell(d, r, 0, &cell), INVALID, "holds no table");
    }
  }
  CHECK(next_line == n_lines);
  {
    edgeocr_region_t g;
    g.struct_size = sizeof g;
    CHECK_STATUS(edgeocr_document_get_region(d, n_regions, &g), INVALID, "out of range");
  }
  /* The lines as a result's lines: texts, words. */
  for (k = 0; k < n_lines; ++k) {
    edgeocr_line_t line;
    line.struct_size = sizeof line;
    CHECK_STATUS(edgeocr_document_get_line(d, k, &line), OK, NULL);
    CHECK(line.text != NULL && strlen(line.text) == line.text_size);
    if (line.word_count > 0) {
      edgeocr_word_t word;
      word.struct_size = sizeof word;
      CHECK_STATUS(edgeocr_document_get_word(d, k, 0, &word), OK, NULL);
      CHECK(word.text != NULL && word.text_size > 0);
      CHECK_STATUS(edgeocr_document_get_word(d, k, line.word_count, &word), INVALID,
                   "out of range");
    }
  }
  {
    edgeocr_line_t line;
    line.struct_size = sizeof line;
    CHECK_STATUS(edgeocr_document_get_line(d, n_lines, &line), INVALID, "out of range");
  }
}

/* edgeocr_predictor_parse_text (API version 11): the lines OCR read on the page given back as
   the caller's text (as a device's PDF renderer would give its text layer's) make the same
   lines, every one in the body of the Markdown, from the source "pdf"; bad text is refused. */
static void check_parse_text(edgeocr_predictor_t p, const edgeocr_image_t* img,
                             edgeocr_document_t ocr) {
  size_t n = 0, k, j, n2 = 0, md_size = 0, regions = 0, with_lines = 0;
  edgeocr_text_line_t* lines;
  edgeocr_text_word_t* words;
  edgeocr_page_text_t t;
  edgeocr_document_t d = NULL;
  const char* md = NULL;
  float rule[4] = {0.f, 0.f, 10.f, 1.f};
  CHECK_STATUS(edgeocr_document_line_count(ocr, &n), OK, NULL);
  CHECK(n >= 2);
  lines = (edgeocr_text_line_t*)calloc(n + 1, sizeof *lines);
  words = (edgeocr_text_word_t*)calloc(n * 64 + 1, sizeof *words);
  if (!lines || !words) {
    free(lines);
    free(words);
    CHECK(0 && "out of memory");
    return;
  }
  for (k = 0; k < n; ++k) {
    edgeocr_line_t line;
    line.struct_size = sizeof line;
    CHECK_STATUS(edgeocr_document_get_line(ocr, k, &line), OK, NULL);
    lines[k].text = line.text;
    lines[k].text_size = line.text_size;
    memcpy(lines[k].box, line.box, sizeof line.box);
    lines[k].words = words + k * 64;
    for (j = 0; j < line.word_count && j < 64; ++j) {
      edgeocr_word_t word;
      word.struct_size = sizeof word;
      CHECK_STATUS(edgeocr_document_get_word(ocr, k, j, &word), OK, NULL);
      words[k * 64 + j].text = word.text;
      words[k * 64 + j].text_size = word.text_size;
      memcpy(words[k * 64 + j].box, word.box, sizeof word.box);
      lines[k].word_count = j + 1;
    }
    lines[k].size = 20.f;
    lines[k].weight = 400;
    lines[k].font = "Helvetica";
  }
  memset(&t, 0, sizeof t);
  t.struct_size = sizeof t;
  t.lines = lines;
  t.line_count = n;
  t.rules = rule;
  t.rule_count = 1;
  t.has_style = 1;
  CHECK_STATUS(edgeocr_predictor_parse_text(p, img, &t, &d), OK, NULL);
  if (d) {
    CHECK_STATUS(edgeocr_document_line_count(d, &n2), OK, NULL);
    CHECK(n2 == n);
    CHECK_STATUS(edgeocr_document_region_count(d, &regions), OK, NULL);
    for (k = 0; k < regions; ++k) {
      edgeocr_region_t r;
      r.struct_size = sizeof r;
      CHECK_STATUS(edgeocr_document_get_region(d, k, &r), OK, NULL);
      if (r.line_count == 0) continue;
      ++with_lines;
      CHECK(strcmp(r.text_source, "pdf") == 0);
    }
    CHECK(with_lines >= 1);
    CHECK_STATUS(edgeocr_document_markdown(d, NULL, 0, &md, &md_size), OK, NULL);
    for (k = 0; md && k < n; ++k) {
      char word[256];
      size_t m = lines[k].word_count ? words[k * 64].text_size : 0;
      if (m == 0 || m >= sizeof word) continue;
      memcpy(word, words[k * 64].text, m);
      word[m] = '\0';
      CHECK(strstr(md, word) != NULL);
    }
    edgeocr_document_destroy(d);
    d = NULL;
  }
  /* Bad text: each refused with its reason, nothing made. */
  CHECK_STATUS(edgeocr_predictor_parse_text(p, img, NULL, &d), INVALID, "text is NULL");
  t.struct_size = 8;
  CHECK_STATUS(edgeocr_predictor_parse_text(p, img, &t, &d), INVALID, "struct_size");
  t.struct_size = sizeof t;
  t.line_count = 1000000;
  CHECK_STATUS(edgeocr_predictor_parse_text(p, img, &t, &d), INVALID, "line_count");
  t.line_count = n;
  t.lines = NULL;
  CHECK_STATUS(edgeocr_predictor_parse_text(p, img, &t, &d), INVALID, "lines is NULL");
  t.lines = lines;
  t.rule_count = 5;
  t.rules = NULL;
  CHECK_STATUS(edgeocr_predictor_parse_text(p, img, &t, &d), INVALID, "rules is NULL");
  t.rule_count = 0;
  lines[1].word_count = (size_t)-1;
  CHECK_STATUS(edgeocr_predictor_parse_text(p, img, &t, &d), INVALID, "words");
  lines[1].word_count = 0;
  lines[0].box[3] = 1e30f;
  CHECK_STATUS(edgeocr_predictor_parse_text(p, img, &t, &d), INVALID, "line 0");
  lines[0].text = NULL;
  CHECK_STATUS(edgeocr_predictor_parse_text(p, img, &t, &d), INVALID, "text is NULL");
  CHECK(d == NULL);
  free(lines);
  free(words);
}

static int test_parse(void) {
  inputs in;
  edgeocr_predictor_t p = NULL, q = NULL;
  edgeocr_document_t d = NULL;
  edgeocr_document_timings_t t;
  char* png;
  size_t png_size = 0, counts[12], md_size = 0, md2_size = 0;
  const char *md = NULL, *md2 = NULL, *md_furniture = NULL, *md_prefix = NULL;
  int rc = get_inputs(&in);
  if (rc) return rc;
  png = read_whole(in.page, &png_size);
  if (!png) {
    fprintf(stderr, "cannot read %s\n", in.page);
    return 1;
  }

  /* Without a layout model, parse says which option to set; predict is unaffected. */
  CHECK_STATUS(create(&in, 0, 0, &q), OK, NULL);
  CHECK_STATUS(edgeocr_predictor_parse_encoded(q, png, png_size, 0, &d), INVALID,
               "layout_model_path");
  CHECK(d == NULL);
  edgeocr_predictor_destroy(q);
  q = NULL;

  CHECK_STATUS(create(&in, 1, in.table != NULL, &p), OK, NULL);
  if (!p) {
    free(png);
    return 1;
  }
  CHECK_STATUS(edgeocr_predictor_parse_encoded(p, png, png_size, 0, &d), OK, NULL);
  if (d) {
    int w = 0, h = 0;
    edgeocr_region_t first;
    edgeocr_predictor_destroy(p); /* a document outlives its predictor */
    p = NULL;
    CHECK_STATUS(edgeocr_document_page_size(d, &w, &h), OK, NULL);
    check_document(d, w, h, counts);
    /* The two-column page: a title, several paragraphs, a table, a figure with its caption, a
       running header kept apart. */
    CHECK(counts[EDGEOCR_REGION_TITLE] >= 2);
    CHECK(counts[EDGEOCR_REGION_TEXT] >= 4);
    CHECK(counts[EDGEOCR_REGION_TABLE] >= 1);
    /* Its table as cells (4 x 4 with their texts). It is ruled both ways, so the grid method
       reads it as drawn even with a table model (docs/tables.md); without one, never the model. */
    CHECK(g_tables >= 1 && g_cell_texts >= 12);
    if (in.table == NULL) CHECK(g_model_tables == 0);
    CHECK(counts[EDGEOCR_REGION_FIGURE] >= 1);
    CHECK(counts[EDGEOCR_REGION_FIGURE_CAPTION] + counts[EDGEOCR_REGION_TABLE_CAPTION] >= 1);
    first.struct_size = sizeof first;
    CHECK_STATUS(edgeocr_document_get_region(d, 0, &first), OK, NULL);
    CHECK(first.furniture == 1);

    CHECK_STATUS(edgeocr_document_markdown(d, NULL, 0, &md, &md_size), OK, NULL);
    CHECK(md != NULL && strlen(md) == md_size && md_size > 200);
    if (md) {
      CHECK(strncmp(md, "# ", 2) == 0); /* the furniture left out, the title first */
      CHECK(strstr(md, "](figure-1)") != NULL);
      /* The table is a pipe table or HTML. */
      CHECK(strstr(md, "\n|") != NULL || strstr(md, "<table>") != NULL);
    }
    /* The same text, at the same address, when asked again; other options, other strings. */
    CHECK_STATUS(edgeocr_document_markdown(d, "figure-", 0, &md2, &md2_size), OK, NULL);
    CHECK(md2 == md && md2_size == md_size);
    CHECK_STATUS(edgeocr_document_markdown(d, NULL, 1, &md_furniture, NULL), OK, NULL);
    CHECK(md_furniture && md && strlen(md_furniture) > md_size && md_furniture != md);
    CHECK_STATUS(edgeocr_document_markdown(d, "page-2-figure-", 0, &md_prefix, NULL), OK, NULL);
    CHECK(md_prefix && strstr(md_prefix, "](page-2-figure-1)") != NULL);
    CHECK(md && strstr(md, "](figure-1)") != NULL); /* the first string is unchanged */
    CHECK_STATUS(edgeocr_document_markdown(d, NULL, 2, &md2, NULL), INVALID, "furniture");

    memset(&t, 0xAB, sizeof t);
    t.struct_size = sizeof t;
    CHECK_STATUS(edgeocr_document_timings(d, &t), OK, NULL);
    CHECK(t.layout > 0 && t.layout_model > 0 && t.layout_model <= t.layout && t.det > 0 &&
          t.rec > 0 && t.total >= t.layout && t.order >= 0 && t.table >= 0 && t.table_model >= 0);

    /* The whole-document pass (version 10): the page twice with a failed page between. The
       pages given stay as they were; the finished ones are new documents. */
    {
      edgeocr_document_t pages[3], done[3] = {NULL, NULL, NULL};
      edgeocr_region_t r;
      size_t count = 0, needed = 0, k;
      char* doc_md;
      pages[0] = d;
      pages[1] = NULL;
      pages[2] = d;
      CHECK_STATUS(edgeocr_documents_finish(NULL, pages, 3, done), OK, NULL);
      CHECK(done[0] != NULL && done[1] == NULL && done[2] != NULL && done[0] != d);
      if (done[0]) {
        CHECK_STATUS(edgeocr_document_region_count(done[0], &count), OK, NULL);
        for (k = 0; k < count; ++k) {
          memset(&r, 0xAB, sizeof r);
          r.struct_size = sizeof r;
          CHECK_STATUS(edgeocr_document_get_region(done[0], k, &r), OK, NULL);
          CHECK(r.joined != NULL && (r.continues == 0) == (r.joined[0] == '\0'));
          CHECK(r.continues ? r.continues_region >= 0 && (size_t)r.continues_region < count &&
                                  r.from_previous_page == 0
                            : r.continues_region == -1 && r.from_previous_page == 0);
        }
        /* API version 9's region (without the version 10 fields) is still served; a size that
           ends inside them is no version's. */
        r.struct_size = offsetof(edgeocr_region_t, continues);
        CHECK_STATUS(edgeocr_document_get_region(done[0], 0, &r), OK, NULL);
        r.struct_size = offsetof(edgeocr_region_t, continues) + 1;
        CHECK_STATUS(edgeocr_document_get_region(done[0], 0, &r), INVALID, "continues");
      }
      CHECK_STATUS(edgeocr_documents_markdown(done, 3, NULL, 0, NULL, 0, &needed), INVALID,
                   "needs a buffer");
      CHECK(needed > 200);
      doc_md = (char*)malloc(needed);
      if (doc_md) {
        CHECK_STATUS(edgeocr_documents_markdown(done, 3, NULL, 0, doc_md, needed, NULL), OK, NULL);
        CHECK(strstr(doc_md, "\n\n<!-- page 2 -->\n\n<!-- page 3 -->\n\n") != NULL);
        CHECK(strstr(doc_md, "](page-3-figure-1)") != NULL);
        /* One page the pass has not seen: that page's own Markdown. */
        CHECK_STATUS(edgeocr_documents_markdown(pages, 1, NULL, 0, doc_md, needed, NULL), OK, NULL);
        CHECK(md != NULL && strcmp(doc_md, md) == 0);
      }
      free(doc_md);
      edgeocr_document_destroy(done[0]);
      edgeocr_document_destroy(done[2]);
    }
  }
  edgeocr_document_destroy(d);
  d = NULL;
  free(png);

  /* Pixels: the C tests' sample image (a few lines of text), whatever the layout model finds in
     it; every line still in exactly one region. */
  if (in.image) {
    size_t sz = 0, counts2[12];
    char* ppm = read_whole(in.image, &sz);
    int w = 0, h = 0, maxval = 0, off = 0;
    CHECK(ppm != NULL);
    if (ppm && sscanf(ppm, "P6 %d %d %d%n", &w, &h, &maxval, &off) == 3 && maxval == 255) {
      edgeocr_image_t img;
      ++off; /* the one white space after maxval */
      img.data = ppm + off;
      img.data_size = sz - (size_t)off;
      img.width = w;
      img.height = h;
      img.stride = (ptrdiff_t)w * 3;
      img.format = EDGEOCR_PIXEL_RGB;
      CHECK_STATUS(create(&in, 1, 0, &p), OK, NULL);
      CHECK_STATUS(edgeocr_predictor_parse(p, &img, &d), OK, NULL);
      if (d) check_document(d, w, h, counts2);
      if (d) check_parse_text(p, &img, d);
      edgeocr_document_destroy(d);
      d = NULL;
      img.stride = 2; /* a bad image is refused as predict refuses it */
      CHECK_STATUS(edgeocr_predictor_parse(p, &img, &d), INVALID, "stride");
      CHECK_STATUS(edgeocr_predictor_parse_encoded(p, "GIF89a", 6, 0, &d),
                   EDGEOCR_STATUS_UNSUPPORTED, "edgeocr_predictor_parse");
      CHECK_STATUS(edgeocr_predictor_parse_encoded(p, NULL, 0, 0, &d), INVALID, "no image bytes");
      edgeocr_predictor_destroy(p);
      p = NULL;
    } else {
      CHECK(0 && "EDGEOCR_TEST_IMAGE is not a binary PPM");
    }
    free(ppm);
  }

  /* A layout model that is not one. By path it loads on the first parse, which refuses it (as
     does the next: the load is retried); as bytes, at create. */
  {
    edgeocr_options_t opt;
    size_t det_size = 0;
    char* det = read_whole(in.det, &det_size);
    unsigned char pixel[3] = {255, 255, 255};
    edgeocr_image_t img;
    img.data = pixel;
    img.data_size = 3;
    img.width = img.height = 1;
    img.stride = 3;
    img.format = EDGEOCR_PIXEL_RGB;
    edgeocr_options_init(&opt, sizeof opt);
    opt.det_model_path = in.det;
    opt.rec_model_path = in.rec;
    opt.layout_model_path = in.det;
    CHECK_STATUS(edgeocr_predictor_create(&opt, &q), OK, NULL);
    CHECK_STATUS(edgeocr_predictor_parse(q, &img, &d), EDGEOCR_STATUS_INVALID_MODEL,
                 "as the layout model");
    CHECK_STATUS(edgeocr_predictor_parse(q, &img, &d), EDGEOCR_STATUS_INVALID_MODEL,
                 "as the layout model");
    CHECK(d == NULL);
    edgeocr_predictor_destroy(q);
    q = NULL;
    opt.layout_model_path = NULL;
    opt.layout_model_data = det;
    opt.layout_model_size = det_size;
    CHECK_STATUS(edgeocr_predictor_create(&opt, &q), EDGEOCR_STATUS_INVALID_MODEL,
                 "as the layout model");
    CHECK(q == NULL);
    opt.layout_model_data = NULL;
    opt.layout_model_size = 0;
    opt.layout_model_path = "/nonexistent/layout_cdla.onnx";
    CHECK_STATUS(edgeocr_predictor_create(&opt, &q), EDGEOCR_STATUS_NOT_FOUND, "layout_cdla");
    free(det);
  }
  return g_failures ? 1 : 0;
}

/* ---- threads -------------------------------------------------------------------------------- */

typedef struct {
  edgeocr_predictor_t p;
  const char* png;
  size_t png_size;
  char* markdown; /* malloc'ed copy */
  edgeocr_status_t st;
} job;

static void* parse_job(void* arg) {
  job* j = (job*)arg;
  edgeocr_document_t d = NULL;
  const char* md = NULL;
  size_t size = 0;
  j->st = edgeocr_predictor_parse_encoded(j->p, j->png, j->png_size, 0, &d);
  if (j->st == OK) j->st = edgeocr_document_markdown(d, NULL, 0, &md, &size);
  if (j->st == OK) {
    j->markdown = (char*)malloc(size + 1);
    if (j->markdown) memcpy(j->markdown, md, size + 1);
  }
  edgeocr_document_destroy(d);
  return NULL;
}

static int test_threads(void) {
  enum { kThreads = 4 };
  inputs in;
  edgeocr_predictor_t p = NULL;
  pthread_t th[kThreads];
  job jobs[kThreads];
  char* png;
  size_t png_size = 0;
  int i, rc = get_inputs(&in);
  if (rc) return rc;
  png = read_whole(in.page, &png_size);
  CHECK(png != NULL);
  CHECK_STATUS(create(&in, 1, in.table != NULL, &p), OK, NULL);
  if (!png || !p) {
    free(png);
    edgeocr_predictor_destroy(p);
    return 1;
  }
  /* The first parse of all loads the deferred models: the threads race for it. */
  for (i = 0; i < kThreads; ++i) {
    jobs[i].p = p;
    jobs[i].png = png;
    jobs[i].png_size = png_size;
    jobs[i].markdown = NULL;
    jobs[i].st = EDGEOCR_STATUS_INTERNAL;
    CHECK(pthread_create(&th[i], NULL, parse_job, &jobs[i]) == 0);
  }
  for (i = 0; i < kThreads; ++i) pthread_join(th[i], NULL);
  for (i = 0; i < kThreads; ++i) {
    CHECK(jobs[i].st == OK && jobs[i].markdown != NULL);
    if (jobs[i].markdown && jobs[0].markdown)
      CHECK(strcmp(jobs[i].markdown, jobs[0].markdown) == 0);
  }
  for (i = 0; i < kThreads; ++i) free(jobs[i].markdown);
  edgeocr_predictor_destroy(p);
  free(png);
  return g_failures ? 1 : 0;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "args";
  int rc;
  if (strcmp(mode, "args") == 0)
    rc = test_args();
  else if (strcmp(mode, "parse") == 0)
    rc = test_parse();
  else if (strcmp(mode, "threads") == 0)
    rc = test_threads();
  else {
    fprintf(stderr, "usage: %s args|parse|threads\n", argv[0]);
    return 2;
  }
  if (rc == SKIP) return SKIP;
  if (g_failures) fprintf(stderr, "%d failure(s)\n", g_failures);
  return g_failures ? 1 : rc;
}
