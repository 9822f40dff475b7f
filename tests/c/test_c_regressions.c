/* Regression tests of defects a hostile-caller sweep of the C API found (issue 28), compiled as
 * C99. One process per mode, so that each starts with no ONNX Runtime loaded:
 *
 *   test_c_regressions dictionary  a dictionary of NUL (or other control) characters is refused
 *                                  with INVALID_MODEL, from keys_path and keys_data alike
 *   test_c_regressions messages    edgeocr_last_error() is valid UTF-8 when the caller's key,
 *                                  value or path is not (options_set, get_setting, create)
 *   test_c_regressions runtime     a create with an ort_library_path that fails to load does not
 *                                  stop later creates with NULL from finding the default runtime
 *   test_c_regressions recheck     the deferred recheck model (API version 7): 8 threads' first
 *                                  recheck at once read as a predictor that loaded it at create
 *                                  (recheck_at_create); a first load that fails (the file gone)
 *                                  is retried by the next call; no_disk_cache writes no entry.
 *                                  Run under ThreadSanitizer by tools/sanitize.sh. Reads
 *                                  EDGEOCR_TEST_RECHECK_{DET,CLS,REC,RECHECK}_MODEL (a known
 *                                  recheck set; its dictionary EDGEOCR_TEST_RECHECK_KEYS) and
 *                                  EDGEOCR_TEST_BLUR_PNG; 77 without them
 *   test_c_regressions structs     every output struct refuses a struct_size below its smallest
 *                                  version or ending inside a field (edgeocr_line_t's word_count
 *                                  was accepted cut: issue 35), and writes nothing past it;
 *                                  the document's structs (API version 9) too
 *
 * "dictionary" and "runtime" read EDGEOCR_TEST_DET_MODEL, EDGEOCR_TEST_REC_MODEL and
 * EDGEOCR_TEST_ORT_LIBRARY (and the runtime's default search EDGEOCR_ORT_LIBRARY) and exit with
 * 77 (skipped) when they are missing; "messages" checks what needs a model only when it has one.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "edgeocr_c.h"

#define SKIP 77

static int g_failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++g_failures;                                                            \
    }                                                                          \
  } while (0)

static const char* env(const char* name) {
  const char* v = getenv(name);
  return v && *v ? v : NULL;
}

/* Whether the NUL-terminated `s` is well-formed UTF-8 (RFC 3629: no overlong forms, no
   surrogates, nothing past U+10FFFF). */
static int valid_utf8(const char* s) {
  const unsigned char* p = (const unsigned char*)s;
  while (*p) {
    unsigned c = *p, lo = 0x80, hi = 0xBF;
    int len, k;
    if (c < 0x80) {
      ++p;
      continue;
    }
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return 0;
    }
    if (p[1] < lo || p[1] > hi) return 0;
    for (k = 2; k < len; ++k)
      if (p[k] < 0x80 || p[k] > 0xBF) return 0;
    p += len;
  }
  return 1;
}

/* The last error after a call that must fail with `code`: present, valid UTF-8, and holding
   `needle` when given. */
static void expect_error(edgeocr_status_t st, edgeocr_status_t code, const char* needle,
                         const char* what) {
  const char* msg = edgeocr_last_error();
  if (st != code) {
    fprintf(stderr, "%s: got %s, expected %s (last error: %s)\n", what, edgeocr_status_name(st),
            edgeocr_status_name(code), msg);
    ++g_failures;
    return;
  }
  if (msg[0] == '\0' || !valid_utf8(msg)) {
    fprintf(stderr, "%s: the message is empty or not valid UTF-8: %s\n", what, msg);
    ++g_failures;
  }
  if (needle && !strstr(msg, needle)) {
    fprintf(stderr, "%s: the message does not say '%s': %s\n", what, needle, msg);
    ++g_failures;
  }
}

typedef struct {
  const char *det, *rec, *ort;
} inputs;

static int get_inputs(inputs* in) {
  in->det = env("EDGEOCR_TEST_DET_MODEL");
  in->rec = env("EDGEOCR_TEST_REC_MODEL");
  in->ort = env("EDGEOCR_TEST_ORT_LIBRARY");
  if (!in->det || !in->rec) {
    fprintf(stderr,
            "SKIP: set EDGEOCR_TEST_DET_MODEL and EDGEOCR_TEST_REC_MODEL (and "
            "EDGEOCR_TEST_ORT_LIBRARY unless ONNX Runtime is found by default)\n");
    return SKIP;
  }
  return 0;
}

/* A rec-only predictor over `keys_size` bytes of keys (keys_data, or a file when `as_file`). */
static edgeocr_status_t create_with_keys(const inputs* in, const char* keys, size_t keys_size,
                                         int as_file, edgeocr_predictor_t* p) {
  edgeocr_options_t opt;
  char path[] = "/tmp/edgeocr_keys_XXXXXX";
  edgeocr_status_t st;
  edgeocr_options_init(&opt, sizeof opt);
  opt.rec_model_path = in->rec;
  opt.ort_library_path = in->ort;
  opt.threads = 1;
  if (as_file) {
    int fd = mkstemp(path);
    FILE* f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!f || fwrite(keys, 1, keys_size, f) != keys_size) {
      fprintf(stderr, "cannot write %s\n", path);
      ++g_failures;
      if (f) fclose(f);
      return EDGEOCR_STATUS_INTERNAL;
    }
    fclose(f);
    opt.keys_path = path;
  } else {
    opt.keys_data = keys;
    opt.keys_size = keys_size;
  }
  st = edgeocr_predictor_create(&opt, p);
  if (as_file) unlink(path);
  return st;
}

/* `n` lines, each `line` (`line_size` bytes) followed by '\n'. */
static char* repeat_lines(const char* line, size_t line_size, long n, size_t* size) {
  char* out = (char*)malloc((size_t)n * (line_size + 1));
  long i;
  if (!out) abort();
  for (i = 0; i < n; ++i) {
    memcpy(out + (size_t)i * (line_size + 1), line, line_size);
    out[(size_t)i * (line_size + 1) + line_size] = '\n';
  }
  *size = (size_t)n * (line_size + 1);
  return out;
}

/* ---- dictionary ---------------------------------------------------------------------------- */

static int test_dictionary(void) {
  inputs in;
  edgeocr_predictor_t p = NULL;
  edgeocr_status_t st;
  const char* msg;
  const char* at;
  long classes = 0, n;
  size_t size;
  char* keys;
  int as_file;
  int rc = get_inputs(&in);
  if (rc) return rc;
  /* The rec model's class count, from the message that refuses a dictionary of the wrong size:
     the dictionaries below fit the model, so that only their characters can be refused. */
  st = create_with_keys(&in, "a\n", 2, 0, &p);
  if (st == EDGEOCR_STATUS_RUNTIME_UNAVAILABLE) {
    fprintf(stderr, "SKIP: ONNX Runtime unavailable: %s\n", edgeocr_last_error());
    return SKIP;
  }
  msg = edgeocr_last_error();
  at = strstr(msg, "the model has ");
  if (st != EDGEOCR_STATUS_INVALID_MODEL || !at ||
      sscanf(at, "the model has %ld classes", &classes) != 1 || classes < 3) {
    fprintf(stderr, "cannot tell the rec model's class count: %s: %s\n", edgeocr_status_name(st),
            msg);
    return 1;
  }
  n = classes - 1; /* characters = classes - 1 (the CTC blank) */

  for (as_file = 0; as_file <= 1; ++as_file) {
    const char* how = as_file ? "keys_path" : "keys_data";
    char what[96];
    /* A printable dictionary of that size loads: the control run below fails for its characters. */
    keys = repeat_lines("a", 1, n, &size);
    st = create_with_keys(&in, keys, size, as_file, &p);
    snprintf(what, sizeof what, "%s of %ld lines 'a'", how, n);
    if (st != EDGEOCR_STATUS_OK) {
      fprintf(stderr, "%s: %s: %s\n", what, edgeocr_status_name(st), edgeocr_last_error());
      ++g_failures;
    }
    edgeocr_predictor_destroy(p);
    p = NULL;
    free(keys);

    /* Every line a NUL: predict used to return lines whose text starts with '\0'. */
    keys = repeat_lines("\0", 1, n, &size);
    snprintf(what, sizeof what, "%s of %ld NUL lines", how, n);
    st = create_with_keys(&in, keys, size, as_file, &p);
    expect_error(st, EDGEOCR_STATUS_INVALID_MODEL, "U+0000", what);
    CHECK(p == NULL);
    free(keys);

    /* One tab among printable lines; then one escape (U+001B), one DEL, one C1 control (U+0085). */
    {
      static const struct {
        const char* bytes;
        size_t size;
        const char* code;
      } controls[] = {{"\t", 1, "U+0009"},
                      {"x\x1b[2J", 5, "U+001B"},
                      {"\x7f", 1, "U+007F"},
                      {"\xc2\x85", 2, "U+0085"},
                      {"a\rb", 3, NULL}};
      size_t k;
      for (k = 0; k < sizeof controls / sizeof controls[0]; ++k) {
        size_t i, pos = 0;
        keys = (char*)malloc((size_t)n * 2 + controls[k].size + 1);
        if (!keys) abort();
        for (i = 0; i + 1 < (size_t)n; ++i) {
          keys[pos++] = 'a';
          keys[pos++] = '\n';
        }
        memcpy(keys + pos, controls[k].bytes, controls[k].size);
        pos += controls[k].size;
        keys[pos++] = '\n';
        st = create_with_keys(&in, keys, pos, as_file, &p);
        snprintf(what, sizeof what, "%s with a line of control character %s", how,
                 controls[k].code ? controls[k].code : "CR");
        if (controls[k].code) {
          expect_error(st, EDGEOCR_STATUS_INVALID_MODEL, controls[k].code, what);
          /* Line n: the message says which. */
          {
            char line[32];
            snprintf(line, sizeof line, "line %ld", n);
            expect_error(st, EDGEOCR_STATUS_INVALID_MODEL, line, what);
          }
        } else {
          /* "a\rb" is two lines (CR is a line break): one line too many for the model. */
          expect_error(st, EDGEOCR_STATUS_INVALID_MODEL, "classes", what);
        }
        CHECK(p == NULL);
        free(keys);
      }
    }
  }
  return g_failures ? 1 : 0;
}

/* ---- messages ------------------------------------------------------------------------------ */

static int test_messages(void) {
  edgeocr_options_t opt;
  edgeocr_predictor_t p = NULL;
  inputs in;
  edgeocr_status_t st;
  char buf[64];
  edgeocr_options_init(&opt, sizeof opt);
  /* A value, a key, both; a key cut inside a character; control characters. */
  expect_error(edgeocr_options_set(&opt, "det_thresh", "\xff"), EDGEOCR_STATUS_INVALID_ARGUMENT,
               "'\\xFF'", "options_set(det_thresh, \\xff)");
  expect_error(edgeocr_options_set(&opt, "\xff\xfe", "0.3"), EDGEOCR_STATUS_INVALID_ARGUMENT,
               "'\\xFF\\xFE'", "options_set(\\xff\\xfe, 0.3)");
  expect_error(edgeocr_options_set(&opt, "det_\xe4\xb8", "0.3"), EDGEOCR_STATUS_INVALID_ARGUMENT,
               "'det_\\xE4\\xB8'", "options_set(a key cut inside a character)");
  expect_error(edgeocr_options_set(&opt, "det_limit_type", "m\xc3\xa4x\n\x1b"),
               EDGEOCR_STATUS_INVALID_ARGUMENT, "'m\xc3\xa4x\\n\\x1B'",
               "options_set(det_limit_type, a value with a newline and an escape)");
  expect_error(edgeocr_options_set(&opt, "use_cls", "\xc0\xaf"), EDGEOCR_STATUS_INVALID_ARGUMENT,
               "\\xC0\\xAF", "options_set(use_cls, an overlong '/')");
  /* A value that is valid UTF-8 is quoted as it is. */
  expect_error(edgeocr_options_set(&opt, "det_limit_type", "\xe6\x9c\x80\xe5\xa4\xa7"),
               EDGEOCR_STATUS_INVALID_ARGUMENT, "'\xe6\x9c\x80\xe5\xa4\xa7'",
               "options_set(det_limit_type, CJK text)");
  edgeocr_options_release(&opt);

  /* A path of any bytes, quoted by the loader. */
  edgeocr_options_init(&opt, sizeof opt);
  opt.bundle_path = "/nonexistent-\xff\xfe/model.eocr";
  st = edgeocr_predictor_create(&opt, &p);
  CHECK(st != EDGEOCR_STATUS_OK && p == NULL);
  CHECK(valid_utf8(edgeocr_last_error()));
  if (!valid_utf8(edgeocr_last_error())) fprintf(stderr, "create: %s\n", edgeocr_last_error());

  /* get_setting on a predictor: needs a model. */
  if (get_inputs(&in) == 0) {
    edgeocr_options_init(&opt, sizeof opt);
    opt.rec_model_path = in.rec;
    opt.ort_library_path = in.ort;
    opt.threads = 1;
    st = edgeocr_predictor_create(&opt, &p);
    if (st == EDGEOCR_STATUS_OK) {
      size_t needed = 0;
      expect_error(edgeocr_predictor_get_setting(p, "\xff\xfe", buf, sizeof buf, &needed),
                   EDGEOCR_STATUS_INVALID_ARGUMENT, "'\\xFF\\xFE'", "get_setting(\\xff\\xfe)");
      CHECK(buf[0] == '\0' && needed == 0);
      edgeocr_predictor_destroy(p);
    } else if (st != EDGEOCR_STATUS_RUNTIME_UNAVAILABLE) {
      fprintf(stderr, "creating a rec predictor: %s: %s\n", edgeocr_status_name(st),
              edgeocr_last_error());
      ++g_failures;
    }
  }
  return g_failures ? 1 : 0;
}

/* ---- runtime ------------------------------------------------------------------------------- */

static int test_runtime(void) {
  inputs in;
  edgeocr_options_t opt;
  edgeocr_predictor_t p = NULL;
  edgeocr_status_t st;
  const char* bad = "/nonexistent/libonnxruntime-edgeocr-test.so";
  const char* lib = NULL;
  int rc = get_inputs(&in);
  if (rc) return rc;
  if (!env("EDGEOCR_ORT_LIBRARY") && !in.ort) {
    fprintf(stderr,
            "SKIP: the default search needs EDGEOCR_ORT_LIBRARY (or the runtime next to "
            "libedgeocr)\n");
    return SKIP;
  }
  edgeocr_options_init(&opt, sizeof opt);
  opt.rec_model_path = in.rec;
  opt.threads = 1;

  /* Twice: each create with the bad path fails on it, and is not remembered. */
  opt.ort_library_path = bad;
  expect_error(edgeocr_predictor_create(&opt, &p), EDGEOCR_STATUS_RUNTIME_UNAVAILABLE, bad,
               "create with a bad ort_library_path");
  CHECK(p == NULL);
  /* The same through edgeocr_set_ort_library_path: the next create fails on it, once. */
  CHECK(edgeocr_set_ort_library_path(bad) == EDGEOCR_STATUS_OK);
  opt.ort_library_path = NULL;
  expect_error(edgeocr_predictor_create(&opt, &p), EDGEOCR_STATUS_RUNTIME_UNAVAILABLE, bad,
               "create after edgeocr_set_ort_library_path(bad)");
  CHECK(p == NULL);

  /* NULL: the default search, which finds the runtime (EDGEOCR_ORT_LIBRARY in the test's env). */
  st = edgeocr_predictor_create(&opt, &p);
  if (st != EDGEOCR_STATUS_OK) {
    fprintf(stderr, "create with ort_library_path = NULL after a bad path: %s: %s\n",
            edgeocr_status_name(st), edgeocr_last_error());
    ++g_failures;
  } else {
    CHECK(strstr(edgeocr_last_error(), bad) == NULL);
    CHECK(edgeocr_runtime_info(&lib, NULL) == EDGEOCR_STATUS_OK && lib && !strstr(lib, bad));
    edgeocr_predictor_destroy(p);
  }
  return g_failures ? 1 : 0;
}

/* ---- recheck ------------------------------------------------------------------------------- */

#define RECHECK_THREADS 8

typedef struct {
  edgeocr_predictor_t p;
  const void* png;
  size_t png_size;
  edgeocr_result_t result;
  edgeocr_status_t status;
} recheck_job;

static void* recheck_worker(void* arg) {
  recheck_job* j = (recheck_job*)arg;
  j->status = edgeocr_predictor_predict_encoded(j->p, j->png, j->png_size, 0, &j->result);
  return NULL;
}

static char* read_whole(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  char* data = NULL;
  long n;
  if (!f) return NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
    data = (char*)malloc((size_t)n);
    if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
      free(data);
      data = NULL;
    }
    *size = (size_t)n;
  }
  fclose(f);
  return data;
}

static int write_whole(const char* path, const char* data, size_t size) {
  FILE* f = fopen(path, "wb");
  int ok = f && fwrite(data, 1, size, f) == size;
  if (f) ok = fclose(f) == 0 && ok;
  return ok;
}

/* Lines a and b alike: texts, scores and boxes. */
static int same_lines(edgeocr_result_t a, edgeocr_result_t b) {
  size_t na = 0, nb = 0, i;
  if (edgeocr_result_line_count(a, &na) != EDGEOCR_STATUS_OK ||
      edgeocr_result_line_count(b, &nb) != EDGEOCR_STATUS_OK || na != nb || na == 0)
    return 0;
  for (i = 0; i < na; ++i) {
    edgeocr_line_t la, lb;
    la.struct_size = lb.struct_size = sizeof la;
    if (edgeocr_result_get_line(a, i, &la) != EDGEOCR_STATUS_OK ||
        edgeocr_result_get_line(b, i, &lb) != EDGEOCR_STATUS_OK)
      return 0;
    if (strcmp(la.text, lb.text) != 0 || la.score != lb.score ||
        memcmp(la.box, lb.box, sizeof la.box) != 0)
      return 0;
  }
  return 1;
}

static size_t count_files(const char* dir) {
  char cmd[1200];
  FILE* f;
  size_t n = 0;
  int c;
  snprintf(cmd, sizeof cmd, "find '%s' -type f 2>/dev/null", dir);
  f = popen(cmd, "r");
  if (!f) return (size_t)-1;
  while ((c = fgetc(f)) != EOF) n += c == '\n';
  pclose(f);
  return n;
}

static int test_recheck(void) {
  const char *det = env("EDGEOCR_TEST_RECHECK_DET_MODEL"),
             *cls = env("EDGEOCR_TEST_RECHECK_CLS_MODEL");
  const char* rec = env("EDGEOCR_TEST_RECHECK_REC_MODEL");
  const char *recheck = env("EDGEOCR_TEST_RECHECK_RECHECK_MODEL"),
             *blur = env("EDGEOCR_TEST_BLUR_PNG");
  const char* ort = env("EDGEOCR_TEST_ORT_LIBRARY");
  const char* keys = env("EDGEOCR_TEST_RECHECK_KEYS");
  char dir[] = "/tmp/edgeocr_recheck_XXXXXX";
  char copy[256], cache[256], cmd[600];
  edgeocr_options_t opt;
  edgeocr_predictor_t lazy = NULL, eager = NULL, plain = NULL;
  edgeocr_result_t want = NULL, r = NULL;
  recheck_job jobs[RECHECK_THREADS];
  pthread_t th[RECHECK_THREADS];
  char *png, *model;
  size_t png_size = 0, model_size = 0;
  int i;
  if (!det || !cls || !rec || !recheck || !blur) {
    fprintf(stderr,
            "SKIP: set EDGEOCR_TEST_RECHECK_{DET,CLS,REC,RECHECK}_MODEL (a known recheck "
            "set, e.g. ppocr-v6-tiny-recheck) and EDGEOCR_TEST_BLUR_PNG\n");
    return SKIP;
  }
  png = read_whole(blur, &png_size);
  model = read_whole(recheck, &model_size);
  if (!png || !model || !mkdtemp(dir)) {
    fprintf(stderr, "cannot read %s or %s, or make a temporary folder\n", blur, recheck);
    return 1;
  }
  snprintf(copy, sizeof copy, "%s/recheck.onnx", dir);
  snprintf(cache, sizeof cache, "%s/cache", dir);
  CHECK(write_whole(copy, model, model_size));

  edgeocr_options_init(&opt, sizeof opt);
  opt.det_model_path = det;
  opt.cls_model_path = cls;
  opt.rec_model_path = rec;
  opt.recheck_model_path = copy;
  opt.keys_path = keys;
  opt.ort_library_path = ort;
  opt.threads = 1;
  /* Values other than 0 and 1 are refused. */
  opt.recheck_at_create = 2;
  expect_error(edgeocr_predictor_create(&opt, &lazy), EDGEOCR_STATUS_INVALID_ARGUMENT,
               "recheck_at_create", "recheck_at_create = 2");
  opt.recheck_at_create = 0;
  opt.no_disk_cache = -1;
  expect_error(edgeocr_predictor_create(&opt, &lazy), EDGEOCR_STATUS_INVALID_ARGUMENT,
               "no_disk_cache", "no_disk_cache = -1");
  opt.no_disk_cache = 0;

  /* Loaded at create, as a reference. */
  opt.recheck_at_create = 1;
  if (edgeocr_predictor_create(&opt, &eager) != EDGEOCR_STATUS_OK) {
    fprintf(stderr, "create (recheck_at_create): %s\n", edgeocr_last_error());
    return 1;
  }
  CHECK(edgeocr_predictor_predict_encoded(eager, png, png_size, 0, &want) == EDGEOCR_STATUS_OK);

  /* Deferred: the first load fails while the file is gone, and the next call tries again. */
  opt.recheck_at_create = 0;
  CHECK(edgeocr_predictor_create(&opt, &lazy) == EDGEOCR_STATUS_OK);
  CHECK(unlink(copy) == 0);
  for (i = 0; i < 2; ++i) {
    expect_error(edgeocr_predictor_predict_encoded(lazy, png, png_size, 0, &r),
                 EDGEOCR_STATUS_INVALID_MODEL, "recheck.onnx", "first recheck, file removed");
    CHECK(r == NULL);
  }
  CHECK(write_whole(copy, model, model_size));
  CHECK(edgeocr_predictor_predict_encoded(lazy, png, png_size, 0, &r) == EDGEOCR_STATUS_OK);
  CHECK(r && want && same_lines(r, want));
  edgeocr_result_destroy(r);
  r = NULL;
  edgeocr_predictor_destroy(lazy);
  lazy = NULL;

  /* 8 threads' first recheck at once, on a new predictor: one loads, the others wait. */
  CHECK(edgeocr_predictor_create(&opt, &lazy) == EDGEOCR_STATUS_OK);
  for (i = 0; i < RECHECK_THREADS; ++i) {
    jobs[i].p = lazy;
    jobs[i].png = png;
    jobs[i].png_size = png_size;
    jobs[i].result = NULL;
    jobs[i].status = EDGEOCR_STATUS_INTERNAL;
    CHECK(pthread_create(&th[i], NULL, recheck_worker, &jobs[i]) == 0);
  }
  for (i = 0; i < RECHECK_THREADS; ++i) {
    pthread_join(th[i], NULL);
    if (jobs[i].status != EDGEOCR_STATUS_OK)
      fprintf(stderr, "thread %d: %s\n", i, edgeocr_status_name(jobs[i].status));
    CHECK(jobs[i].status == EDGEOCR_STATUS_OK && same_lines(jobs[i].result, want));
    edgeocr_result_destroy(jobs[i].result);
  }
  edgeocr_predictor_destroy(lazy);

  /* no_disk_cache: a create writes no cache entry, where one without it does. */
  setenv("EDGEOCR_CACHE_DIR", cache, 1);
  opt.no_disk_cache = 1;
  CHECK(edgeocr_predictor_create(&opt, &plain) == EDGEOCR_STATUS_OK);
  edgeocr_predictor_destroy(plain);
  CHECK(count_files(cache) == 0);
  opt.no_disk_cache = 0;
  CHECK(edgeocr_predictor_create(&opt, &plain) == EDGEOCR_STATUS_OK);
  edgeocr_predictor_destroy(plain);
  CHECK(count_files(cache) > 0 && count_files(cache) != (size_t)-1);
  unsetenv("EDGEOCR_CACHE_DIR");

  edgeocr_result_destroy(want);
  edgeocr_predictor_destroy(eager);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK(system(cmd) == 0);
  free(png);
  free(model);
  return g_failures ? 1 : 0;
}

/* ---- structs ------------------------------------------------------------------------------- */

#define FILL 0xAB

/* One output struct, `size` bytes of it given (struct_size = `size`, the bytes after it FILL):
   with `accepted` the call must get past the size check (so it fails on `then`, the NULL handle
   it was given, or succeeds when `then` is NULL) and write at most min(size, full) bytes, zeroed
   or set; without, it must refuse the size, naming struct_size, and write nothing but leave
   struct_size. `call` runs the function on `buf`. */
typedef edgeocr_status_t (*struct_call)(void* buf);

static void check_size(const char* what, struct_call call, size_t size, size_t full, int accepted,
                       const char* then) {
  union { /* aligned as the structs are */
    unsigned char bytes[512];
    double d;
    uint64_t u;
    void* p;
  } u;
  unsigned char* buf = u.bytes;
  size_t i, written = size < full ? size : full;
  edgeocr_status_t st;
  const char* msg;
  memset(buf, FILL, sizeof u.bytes);
  memcpy(buf, &size, sizeof size);
  st = call(buf);
  msg = edgeocr_last_error();
  if (accepted) {
    if (then ? st != EDGEOCR_STATUS_INVALID_ARGUMENT || !strstr(msg, then)
             : st != EDGEOCR_STATUS_OK) {
      fprintf(stderr, "%s: struct_size %zu (of %zu) should be accepted: %s: %s\n", what, size, full,
              edgeocr_status_name(st), msg);
      ++g_failures;
    }
  } else if (st != EDGEOCR_STATUS_INVALID_ARGUMENT || !strstr(msg, "struct_size")) {
    fprintf(stderr, "%s: struct_size %zu (of %zu) should be refused: %s: %s\n", what, size, full,
            edgeocr_status_name(st), msg);
    ++g_failures;
  }
  if (!accepted) written = sizeof(size_t);
  for (i = sizeof(size_t) > written ? sizeof(size_t) : written; i < sizeof u.bytes; ++i)
    if (buf[i] != FILL) {
      fprintf(stderr, "%s: struct_size %zu: byte %zu written\n", what, size, i);
      ++g_failures;
      break;
    }
  CHECK(memcmp(buf, &size, sizeof size) == 0); /* struct_size kept */
}

static edgeocr_status_t call_line(void* b) {
  return edgeocr_result_get_line(NULL, 0, (edgeocr_line_t*)b);
}
static edgeocr_status_t call_word(void* b) {
  return edgeocr_result_get_word(NULL, 0, 0, (edgeocr_word_t*)b);
}
static edgeocr_status_t call_timings(void* b) {
  return edgeocr_result_timings(NULL, (edgeocr_timings_t*)b);
}
static edgeocr_status_t call_stats(void* b) {
  return edgeocr_predictor_memory_stats(NULL, (edgeocr_memory_stats_t*)b);
}
static edgeocr_status_t call_setting(void* b) {
  return edgeocr_setting_info(0, (edgeocr_setting_info_t*)b);
}

static edgeocr_status_t call_region(void* b) {
  return edgeocr_document_get_region(NULL, 0, (edgeocr_region_t*)b);
}
static edgeocr_status_t call_cell(void* b) {
  return edgeocr_document_get_cell(NULL, 0, 0, (edgeocr_table_cell_t*)b);
}
static edgeocr_status_t call_document_timings(void* b) {
  return edgeocr_document_timings(NULL, (edgeocr_document_timings_t*)b);
}
static edgeocr_status_t call_document_line(void* b) {
  return edgeocr_document_get_line(NULL, 0, (edgeocr_line_t*)b);
}
static edgeocr_status_t call_document_word(void* b) {
  return edgeocr_document_get_word(NULL, 0, 0, (edgeocr_word_t*)b);
}

static int test_structs(void) {
  /* edgeocr_line_t: version 2 ends before word_count (version 4), version 4 after it, version
     8 after turns; a size inside word_count, or inside turns and its padding, is none of them.
     The other output structs have one version: nothing below their size. */
  const size_t line_v2 = offsetof(edgeocr_line_t, word_count);
  const size_t line_wc_end = line_v2 + sizeof(size_t);
  size_t size;
  CHECK(offsetof(edgeocr_line_t, turns) == line_wc_end);
  for (size = 0; size <= sizeof(edgeocr_line_t) + 16; ++size)
    check_size("edgeocr_line_t", call_line, size, sizeof(edgeocr_line_t),
               size == line_v2 || size == line_wc_end || size >= sizeof(edgeocr_line_t),
               "result is NULL");
  /* The case issue 35 found: one byte short of the current line (inside its last field). */
  check_size("edgeocr_line_t", call_line, sizeof(edgeocr_line_t) - 1, sizeof(edgeocr_line_t), 0,
             NULL);
  for (size = 0; size <= sizeof(edgeocr_word_t) + 16; ++size)
    check_size("edgeocr_word_t", call_word, size, sizeof(edgeocr_word_t),
               size >= sizeof(edgeocr_word_t), "result is NULL");
  for (size = 0; size <= sizeof(edgeocr_timings_t) + 16; ++size)
    check_size("edgeocr_timings_t", call_timings, size, sizeof(edgeocr_timings_t),
               size >= sizeof(edgeocr_timings_t), "result is NULL");
  for (size = 0; size <= sizeof(edgeocr_memory_stats_t) + 16; ++size)
    check_size("edgeocr_memory_stats_t", call_stats, size, sizeof(edgeocr_memory_stats_t),
               size >= sizeof(edgeocr_memory_stats_t), "predictor is NULL");
  for (size = 0; size <= sizeof(edgeocr_setting_info_t) + 16; ++size)
    check_size("edgeocr_setting_info_t", call_setting, size, sizeof(edgeocr_setting_info_t),
               size >= sizeof(edgeocr_setting_info_t), NULL);
  /* The document's (API version 9): one version each but the region (version 10 appends the
     document pass's fields, 11 text_source); its lines and words as a result's. */
  for (size = 0; size <= sizeof(edgeocr_region_t) + 16; ++size)
    check_size("edgeocr_region_t", call_region, size, sizeof(edgeocr_region_t),
               size == offsetof(edgeocr_region_t, continues) ||
                   size == offsetof(edgeocr_region_t, text_source) ||
                   size >= sizeof(edgeocr_region_t),
               "document is NULL");
  for (size = 0; size <= sizeof(edgeocr_table_cell_t) + 16; ++size)
    check_size("edgeocr_table_cell_t", call_cell, size, sizeof(edgeocr_table_cell_t),
               size >= sizeof(edgeocr_table_cell_t), "document is NULL");
  for (size = 0; size <= sizeof(edgeocr_document_timings_t) + 16; ++size)
    check_size("edgeocr_document_timings_t", call_document_timings, size,
               sizeof(edgeocr_document_timings_t), size >= sizeof(edgeocr_document_timings_t),
               "document is NULL");
  for (size = 0; size <= sizeof(edgeocr_line_t) + 16; ++size)
    check_size("edgeocr_line_t (document)", call_document_line, size, sizeof(edgeocr_line_t),
               size == line_v2 || size == line_wc_end || size >= sizeof(edgeocr_line_t),
               "document is NULL");
  for (size = 0; size <= sizeof(edgeocr_word_t) + 16; ++size)
    check_size("edgeocr_word_t (document)", call_document_word, size, sizeof(edgeocr_word_t),
               size >= sizeof(edgeocr_word_t), "document is NULL");
  return g_failures ? 1 : 0;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "messages";
  int rc;
  if (strcmp(mode, "dictionary") == 0)
    rc = test_dictionary();
  else if (strcmp(mode, "messages") == 0)
    rc = test_messages();
  else if (strcmp(mode, "runtime") == 0)
    rc = test_runtime();
  else if (strcmp(mode, "structs") == 0)
    rc = test_structs();
  else if (strcmp(mode, "recheck") == 0)
    rc = test_recheck();
  else {
    fprintf(stderr, "usage: %s dictionary|messages|runtime|structs|recheck\n", argv[0]);
    return 2;
  }
  if (rc == SKIP) return SKIP;
  if (g_failures) fprintf(stderr, "%d failure(s)\n", g_failures);
  return g_failures ? 1 : rc;
}
