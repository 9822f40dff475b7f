/* Tests of the C API, compiled as C99 (the header must be valid C).
 *
 *   test_c_api args      every function's argument checks, struct versions, settings; no model
 *   test_c_api models    OCR on tests/c/data/sample.ppm, every error path
 *   test_c_api threads   one predictor shared by 8 threads
 *   test_c_api settings  every pipeline setting set by name reaches the predictor
 *
 * "models" and "threads" read EDGEOCR_TEST_DET_MODEL, EDGEOCR_TEST_CLS_MODEL,
 * EDGEOCR_TEST_REC_MODEL, EDGEOCR_TEST_ORT_LIBRARY and EDGEOCR_TEST_IMAGE and
 * exit with 77 (skipped) when the models or ONNX Runtime are missing.
 */
#define _POSIX_C_SOURCE 200809L

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edgeocr_c.h"

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
/* HWCAP2_BF16: ONNX Runtime's bf16 fast-math GEMM needs it. */
static int bf16_cpu(void) {
  return (getauxval(AT_HWCAP2) & (1UL << 14)) != 0;
}
#else
static int bf16_cpu(void) {
  return 0;
}
#endif

#define SKIP 77

static int g_failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++g_failures;                                                            \
    }                                                                          \
  } while (0)

/* A call that must fail with `code`, leave a message, and clear outputs. */
#define CHECK_STATUS(call, code)                                                                   \
  do {                                                                                             \
    edgeocr_status_t st_ = (call);                                                                 \
    if (st_ != (code)) {                                                                           \
      fprintf(stderr, "%s:%d: %s returned %s, expected %s (last error: %s)\n", __FILE__, __LINE__, \
              #call, edgeocr_status_name(st_), edgeocr_status_name(code), edgeocr_last_error());   \
      ++g_failures;                                                                                \
    } else if ((code) != EDGEOCR_STATUS_OK && edgeocr_last_error()[0] == '\0') {                   \
      fprintf(stderr, "%s:%d: %s failed without a message\n", __FILE__, __LINE__, #call);          \
      ++g_failures;                                                                                \
    } else if ((code) == EDGEOCR_STATUS_OK && edgeocr_last_error()[0] != '\0') {                   \
      fprintf(stderr, "%s:%d: %s succeeded but left a message: %s\n", __FILE__, __LINE__, #call,   \
              edgeocr_last_error());                                                               \
      ++g_failures;                                                                                \
    }                                                                                              \
  } while (0)

#define INVALID EDGEOCR_STATUS_INVALID_ARGUMENT
#define OK EDGEOCR_STATUS_OK

static const char* env(const char* name) {
  const char* v = getenv(name);
  return v && *v ? v : NULL;
}

/* ---- args: needs no model and no runtime ----------------------------------- */

static void* other_thread_error(void* arg) {
  const char** seen = (const char**)arg;
  /* This thread starts with no error and its own failure does not leak out. */
  *seen = edgeocr_last_error()[0] == '\0' ? "clean" : "dirty";
  if (edgeocr_options_init(NULL, sizeof(edgeocr_options_t)) != INVALID ||
      edgeocr_last_error()[0] == '\0')
    *seen = "no error";
  return NULL;
}

static void expect_create_fails(const edgeocr_options_t* opt, edgeocr_status_t code,
                                const char* what) {
  edgeocr_predictor_t p = (edgeocr_predictor_t)(uintptr_t)1; /* must be reset to NULL */
  edgeocr_status_t st = edgeocr_predictor_create(opt, &p);
  if (st != code || p != NULL || edgeocr_last_error()[0] == '\0') {
    fprintf(stderr, "create with %s: got %s (%s), expected %s\n", what, edgeocr_status_name(st),
            edgeocr_last_error(), edgeocr_status_name(code));
    ++g_failures;
  }
  if (st == OK) edgeocr_predictor_destroy(p);
}

static void test_args(void) {
  edgeocr_options_t opt, bad;
  edgeocr_predictor_t p = NULL;
  edgeocr_result_t r = (edgeocr_result_t)(uintptr_t)1;
  edgeocr_line_t line;
  edgeocr_timings_t t;
  edgeocr_memory_stats_t ms;
  size_t n = 7;
  const char* seen = NULL;
  pthread_t th;
  static const char model_bytes[] = "not a model";

  CHECK(strcmp(edgeocr_version(), "") != 0);
  CHECK(strcmp(edgeocr_last_error(), "") == 0);
  CHECK(strcmp(edgeocr_status_name(EDGEOCR_STATUS_OK), "OK") == 0);
  CHECK(strcmp(edgeocr_status_name(EDGEOCR_STATUS_INVALID_ARGUMENT), "INVALID_ARGUMENT") == 0);
  CHECK(strcmp(edgeocr_status_name(EDGEOCR_STATUS_NOT_FOUND), "NOT_FOUND") == 0);
  CHECK(strcmp(edgeocr_status_name(EDGEOCR_STATUS_UNSUPPORTED), "UNSUPPORTED") == 0);
  CHECK(strcmp(edgeocr_status_name(EDGEOCR_STATUS_BACKEND_ERROR), "BACKEND_ERROR") == 0);
  CHECK(strcmp(edgeocr_status_name(EDGEOCR_STATUS_OUT_OF_MEMORY), "OUT_OF_MEMORY") == 0);
  CHECK(strcmp(edgeocr_status_name(EDGEOCR_STATUS_INTERNAL), "INTERNAL") == 0);
  CHECK(strcmp(edgeocr_status_name(EDGEOCR_STATUS_INVALID_MODEL), "INVALID_MODEL") == 0);
  CHECK(strcmp(edgeocr_status_name(EDGEOCR_STATUS_RUNTIME_UNAVAILABLE), "RUNTIME_UNAVAILABLE") ==
        0);
  CHECK(strcmp(edgeocr_status_name((edgeocr_status_t)999), "UNKNOWN") == 0);
  CHECK(strcmp(edgeocr_status_name((edgeocr_status_t)-1), "UNKNOWN") == 0);

  /* options_init */
  CHECK_STATUS(edgeocr_options_init(NULL, sizeof(edgeocr_options_t)), INVALID);
  CHECK(strstr(edgeocr_last_error(), "options") != NULL);
  CHECK_STATUS(edgeocr_options_init(&opt, sizeof opt), OK);
  CHECK(opt.struct_size == sizeof(edgeocr_options_t));
  CHECK(opt.settings == NULL);
  CHECK(opt.bundle_path == NULL && opt.det_model_path == NULL && opt.rec_model_data == NULL);
  CHECK(opt.threads == 0 && opt.max_memory_mb == 0 && opt.use_cls == 1);
  CHECK(opt.det_limit_type == EDGEOCR_DET_LIMIT_MIN);
  CHECK(opt.det_limit_side_len == 736 && opt.det_max_side_len == 2000);
  CHECK(fabs(opt.det_thresh - 0.3) < 1e-6 && fabs(opt.det_box_thresh - 0.5) < 1e-6);
  CHECK(fabs(opt.det_unclip_ratio - 1.6) < 1e-6 && fabs(opt.cls_thresh - 0.9) < 1e-6);
  CHECK(fabs(opt.drop_score - 0.5) < 1e-6 && opt.rec_batch == 6);

  /* last error is per thread */
  CHECK_STATUS(edgeocr_options_init(NULL, sizeof(edgeocr_options_t)), INVALID);
  CHECK(pthread_create(&th, NULL, other_thread_error, (void*)&seen) == 0);
  pthread_join(th, NULL);
  CHECK(seen != NULL && strcmp(seen, "clean") == 0);
  CHECK(strstr(edgeocr_last_error(), "options") != NULL);

  /* predictor_create: NULLs and every option check (no runtime needed) */
  CHECK_STATUS(edgeocr_predictor_create(NULL, &p), INVALID);
  CHECK(p == NULL);
  CHECK_STATUS(edgeocr_predictor_create(&opt, NULL), INVALID);
  expect_create_fails(&opt, INVALID, "no model");
  bad = opt;
  bad.struct_size = 0;
  bad.det_model_path = "det.onnx";
  expect_create_fails(&bad, INVALID, "struct_size 0");
  bad = opt;
  bad.struct_size = EDGEOCR_OPTIONS_SIZE_V1 - 1;
  bad.det_model_path = "det.onnx";
  expect_create_fails(&bad, INVALID, "struct_size below version 1");
  bad = opt;
  bad.struct_size = (size_t)1 << 30;
  bad.det_model_path = "det.onnx";
  expect_create_fails(&bad, INVALID, "an absurd struct_size");
  bad = opt;
  bad.bundle_path = "/nonexistent/ppocr.eocr";
  expect_create_fails(&bad, EDGEOCR_STATUS_NOT_FOUND, "a missing bundle");
  bad = opt;
  bad.bundle_path = "ppocr.eocr";
  bad.det_model_path = "det.onnx";
  expect_create_fails(&bad, INVALID, "a bundle and a det model");
  bad = opt;
  bad.det_model_path = "det.onnx";
  bad.det_model_data = model_bytes;
  bad.det_model_size = sizeof model_bytes;
  expect_create_fails(&bad, INVALID, "det path and data");
  bad = opt;
  bad.rec_model_data = model_bytes;
  bad.rec_model_size = 0;
  expect_create_fails(&bad, INVALID, "rec data with size 0");
  bad = opt;
  bad.cls_model_size = 10;
  bad.det_model_path = "det.onnx";
  expect_create_fails(&bad, INVALID, "cls size without data");
  bad = opt;
  bad.det_model_path = "";
  expect_create_fails(&bad, INVALID, "empty det path");
  bad = opt;
  bad.det_model_path = "det.onnx";
  bad.keys_path = "keys.txt";
  expect_create_fails(&bad, INVALID, "keys without rec");
  bad = opt;
  bad.rec_model_path = "rec.onnx";
  bad.keys_path = "k";
  bad.keys_data = "a\n";
  bad.keys_size = 2;
  expect_create_fails(&bad, INVALID, "keys path and data");
  bad = opt;
  bad.det_model_path = "det.onnx";
  bad.ort_library_path = "";
  expect_create_fails(&bad, INVALID, "empty ort_library_path");
  bad = opt;
  bad.det_model_path = "det.onnx";
  bad.threads = -1;
  expect_create_fails(&bad, INVALID, "threads -1");
  bad = opt;
  bad.det_model_path = "det.onnx";
  bad.threads = 1 << 20;
  expect_create_fails(&bad, INVALID, "threads 2^20 (more than the runtime would start)");
  bad = opt;
  bad.det_model_path = "det.onnx";
  bad.arm64_bf16_fastmath = 2;
  expect_create_fails(&bad, INVALID, "arm64_bf16_fastmath 2");
  CHECK(strstr(edgeocr_last_error(), "arm64_bf16_fastmath") != NULL);
  bad = opt;
  bad.det_model_path = "det.onnx";
  bad.max_memory_mb = (size_t)-1;
  expect_create_fails(&bad, INVALID, "max_memory_mb SIZE_MAX");
  bad = opt;
  bad.det_model_path = "det.onnx";
  bad.use_cls = 2;
  expect_create_fails(&bad, INVALID, "use_cls 2");
  bad = opt;
  bad.det_model_path = "det.onnx";
  bad.det_limit_type = 7;
  expect_create_fails(&bad, INVALID, "det_limit_type 7");
  bad = opt;
  bad.det_model_path = "det.onnx";
  bad.det_limit_side_len = 0;
  expect_create_fails(&bad, INVALID, "det_limit_side_len 0");
  bad = opt;
  bad.det_model_path = "det.onnx";
  bad.det_limit_side_len = -5;
  expect_create_fails(&bad, INVALID, "det_limit_side_len -5");
  bad = opt;
  bad.det_model_path = "det.onnx";
  bad.det_max_side_len = 1 << 20;
  expect_create_fails(&bad, INVALID, "det_max_side_len huge");
  bad = opt;
  bad.det_model_path = "det.onnx";
  bad.det_thresh = -0.1f;
  expect_create_fails(&bad, INVALID, "det_thresh -0.1");
  bad = opt;
  bad.det_model_path = "det.onnx";
  bad.det_box_thresh = (float)NAN;
  expect_create_fails(&bad, INVALID, "det_box_thresh NaN");
  bad = opt;
  bad.det_model_path = "det.onnx";
  bad.cls_thresh = 1.5f;
  expect_create_fails(&bad, INVALID, "cls_thresh 1.5");
  bad = opt;
  bad.det_model_path = "det.onnx";
  bad.drop_score = 2.f;
  expect_create_fails(&bad, INVALID, "drop_score 2");
  bad = opt;
  bad.det_model_path = "det.onnx";
  bad.det_unclip_ratio = 0.f;
  expect_create_fails(&bad, INVALID, "det_unclip_ratio 0");
  bad = opt;
  bad.det_model_path = "det.onnx";
  bad.rec_batch = 0;
  expect_create_fails(&bad, INVALID, "rec_batch 0");
  bad = opt;
  bad.det_model_path = "/nonexistent/det.onnx";
  expect_create_fails(&bad, EDGEOCR_STATUS_NOT_FOUND, "a missing det file");
  CHECK(strstr(edgeocr_last_error(), "/nonexistent/det.onnx") != NULL);
  bad = opt;
  bad.det_model_path = "/nonexistent/model.nb";
  expect_create_fails(&bad, EDGEOCR_STATUS_NOT_FOUND, "a missing .nb det model");
  bad = opt;
  bad.rec_model_path = "pp.eocr";
  expect_create_fails(&bad, INVALID, "an .eocr rec model");
  bad = opt;
  bad.det_model_path = "/";
  expect_create_fails(&bad, INVALID, "a directory as det model");

  /* runtime path */
  CHECK_STATUS(edgeocr_set_ort_library_path(NULL), INVALID);
  CHECK_STATUS(edgeocr_set_ort_library_path(""), INVALID);

  /* NULL handles and NULL outputs */
  edgeocr_predictor_destroy(NULL);
  edgeocr_result_destroy(NULL);
  CHECK_STATUS(edgeocr_predictor_predict(NULL, NULL, &r), INVALID);
  CHECK(r == NULL);
  CHECK_STATUS(edgeocr_predictor_predict(NULL, NULL, NULL), INVALID);
  r = (edgeocr_result_t)(uintptr_t)1;
  CHECK_STATUS(edgeocr_predictor_recognize(NULL, NULL, &r), INVALID);
  CHECK(r == NULL);
  CHECK_STATUS(edgeocr_predictor_recognize(NULL, NULL, NULL), INVALID);
  r = (edgeocr_result_t)(uintptr_t)1;
  CHECK_STATUS(edgeocr_predictor_predict_encoded(NULL, "x", 1, 0, &r), INVALID);
  CHECK(r == NULL);
  CHECK_STATUS(edgeocr_predictor_predict_encoded(NULL, "x", 1, 0, NULL), INVALID);
  memset(&ms, 0xff, sizeof ms);
  ms.struct_size = sizeof ms;
  CHECK_STATUS(edgeocr_predictor_memory_stats(NULL, &ms), INVALID);
  CHECK(ms.reserved_bytes == 0 && ms.high_water_bytes == 0);
  CHECK_STATUS(edgeocr_predictor_memory_stats(NULL, NULL), INVALID);
  CHECK_STATUS(edgeocr_result_line_count(NULL, &n), INVALID);
  CHECK(n == 0);
  CHECK_STATUS(edgeocr_result_line_count(NULL, NULL), INVALID);
  memset(&line, 0xff, sizeof line);
  line.struct_size = sizeof line;
  CHECK_STATUS(edgeocr_result_get_line(NULL, 0, &line), INVALID);
  CHECK(line.text == NULL && line.text_size == 0 && line.score == 0.f);
  CHECK_STATUS(edgeocr_result_get_line(NULL, 0, NULL), INVALID);
  CHECK_STATUS(edgeocr_result_get_word(NULL, 0, 0, NULL), INVALID);
  memset(&t, 0xff, sizeof t);
  t.struct_size = sizeof t;
  CHECK_STATUS(edgeocr_result_timings(NULL, &t), INVALID);
  CHECK(t.total == 0.0);
  CHECK_STATUS(edgeocr_result_timings(NULL, NULL), INVALID);

  /* output structs without struct_size are refused, before anything is written */
  memset(&line, 0, sizeof line);
  CHECK_STATUS(edgeocr_result_get_line(NULL, 0, &line), INVALID);
  CHECK(strstr(edgeocr_last_error(), "struct_size") != NULL);
  memset(&t, 0, sizeof t);
  CHECK_STATUS(edgeocr_result_timings(NULL, &t), INVALID);
  CHECK(strstr(edgeocr_last_error(), "struct_size") != NULL);
  memset(&ms, 0, sizeof ms);
  CHECK_STATUS(edgeocr_predictor_memory_stats(NULL, &ms), INVALID);
  CHECK(strstr(edgeocr_last_error(), "struct_size") != NULL);

  /* a success clears the message */
  CHECK_STATUS(edgeocr_options_init(&opt, sizeof opt), OK);
  CHECK(strcmp(edgeocr_last_error(), "") == 0);
}

/* ---- versions: old and new struct sizes, the run-time version check ---------- */

/* Options as a program compiled against API version 1 or a future version lays them out:
   the current struct with room on both sides to see what the library writes. */
typedef struct {
  edgeocr_options_t o;
  unsigned char newer_fields[32];
  unsigned char guard[32];
} options_box;

static int all_bytes(const unsigned char* p, size_t n, unsigned char v) {
  size_t i;
  for (i = 0; i < n; ++i)
    if (p[i] != v) return 0;
  return 1;
}

static void test_versions(void) {
  options_box box;
  edgeocr_options_t opt;
  const size_t v1 = EDGEOCR_OPTIONS_SIZE_V1;
  const unsigned char* raw = (const unsigned char*)&box;

  CHECK(edgeocr_api_version() == EDGEOCR_C_API_VERSION);
  CHECK_STATUS(edgeocr_check_api_version(EDGEOCR_C_API_VERSION), OK);
  CHECK_STATUS(edgeocr_check_api_version(EDGEOCR_C_API_VERSION + 1), EDGEOCR_STATUS_UNSUPPORTED);
  CHECK(strstr(edgeocr_last_error(), "version") != NULL);
  CHECK_STATUS(edgeocr_check_api_version(1), EDGEOCR_STATUS_UNSUPPORTED);
  CHECK(v1 < sizeof(edgeocr_options_t) && v1 <= offsetof(edgeocr_options_t, settings));

  /* an older (version 1) struct: init writes only its bytes */
  memset(&box, 0xAB, sizeof box);
  CHECK_STATUS(edgeocr_options_init(&box.o, v1), OK);
  CHECK(box.o.struct_size == v1 && box.o.rec_batch == 6 && box.o.det_limit_side_len == 736);
  CHECK(all_bytes(raw + v1, sizeof box - v1, 0xAB));
  /* ... create accepts it with the defaults for what it lacks (here: a missing file) */
  box.o.det_model_path = "/nonexistent/det.onnx";
  expect_create_fails(&box.o, EDGEOCR_STATUS_NOT_FOUND, "version 1 options");
  /* ... and key/value settings need the newer layout */
  CHECK_STATUS(edgeocr_options_set(&box.o, "det_thresh", "0.4"), INVALID);
  CHECK(strstr(edgeocr_last_error(), "version 1") != NULL);
  CHECK(all_bytes(raw + v1, sizeof box - v1, 0xAB));
  edgeocr_options_release(&box.o); /* no-op: no settings field */
  CHECK(all_bytes(raw + v1, sizeof box - v1, 0xAB));

  /* a version 2 struct (up to `settings`): the same, and it gets arm64_bf16_fastmath off */
  memset(&box, 0xAB, sizeof box);
  CHECK_STATUS(edgeocr_options_init(&box.o, EDGEOCR_OPTIONS_SIZE_V2), OK);
  CHECK(box.o.struct_size == EDGEOCR_OPTIONS_SIZE_V2 && box.o.settings == NULL);
  CHECK(all_bytes(raw + EDGEOCR_OPTIONS_SIZE_V2, sizeof box - EDGEOCR_OPTIONS_SIZE_V2, 0xAB));
  box.o.det_model_path = "/nonexistent/det.onnx";
  expect_create_fails(&box.o, EDGEOCR_STATUS_NOT_FOUND, "version 2 options");
  CHECK(EDGEOCR_OPTIONS_SIZE_V2 <= offsetof(edgeocr_options_t, arm64_bf16_fastmath));

  /* sizes that are not a layout */
  CHECK_STATUS(edgeocr_options_init(&box.o, v1 - 1), INVALID);
  CHECK_STATUS(edgeocr_options_init(&box.o, offsetof(edgeocr_options_t, settings) + 1), INVALID);
  CHECK_STATUS(edgeocr_options_init(&box.o, EDGEOCR_OPTIONS_SIZE_V2 + 2), INVALID);
  CHECK(strstr(edgeocr_last_error(), "arm64_bf16_fastmath") != NULL);
  CHECK_STATUS(edgeocr_options_init(&box.o, 0), INVALID);

  /* a newer, larger struct: the fields this library does not know are zeroed, nothing past it */
  memset(&box, 0xAB, sizeof box);
  CHECK_STATUS(edgeocr_options_init(&box.o, sizeof box.o + sizeof box.newer_fields), OK);
  CHECK(box.o.struct_size == sizeof box.o + sizeof box.newer_fields && box.o.settings == NULL);
  CHECK(all_bytes(box.newer_fields, sizeof box.newer_fields, 0));
  CHECK(all_bytes(box.guard, sizeof box.guard, 0xAB));
  box.o.det_model_path = "/nonexistent/det.onnx";
  expect_create_fails(&box.o, EDGEOCR_STATUS_NOT_FOUND, "newer options left at their defaults");
  box.newer_fields[5] = 1; /* a field this library cannot honour */
  expect_create_fails(&box.o, EDGEOCR_STATUS_UNSUPPORTED, "a newer field set");
  CHECK(strstr(edgeocr_last_error(), "does not know") != NULL);

  /* a struct_size that cuts off a struct field of the current layout is a current struct */
  CHECK_STATUS(edgeocr_options_init(&opt, sizeof opt), OK);
  CHECK(opt.struct_size == sizeof opt);
}

/* ---- settings: the table reached by name ------------------------------------ */

static void test_settings_args(void) {
  edgeocr_options_t opt;
  edgeocr_setting_info_t info;
  size_t i, n = edgeocr_setting_count();

  CHECK(n >= 27);
  CHECK_STATUS(edgeocr_options_init(&opt, sizeof opt), OK);
  CHECK_STATUS(edgeocr_options_set(NULL, "det_thresh", "0.4"), INVALID);
  CHECK_STATUS(edgeocr_options_set(&opt, NULL, "0.4"), INVALID);
  CHECK_STATUS(edgeocr_options_set(&opt, "det_thresh", NULL), INVALID);
  CHECK_STATUS(edgeocr_options_set(&opt, "det_treshold", "0.4"), INVALID);
  CHECK(strstr(edgeocr_last_error(), "unknown pipeline setting 'det_treshold'") != NULL);
  CHECK(opt.settings == NULL); /* nothing attached by a refused call */
  CHECK_STATUS(edgeocr_options_set(&opt, "det_thresh", "1.5"), INVALID);
  CHECK(strstr(edgeocr_last_error(), "det_thresh must be a number in (0, 1)") != NULL);
  CHECK_STATUS(edgeocr_options_set(&opt, "det_thresh", "0,4"), INVALID);
  CHECK_STATUS(edgeocr_options_set(&opt, "det_thresh", ""), INVALID);
  CHECK_STATUS(edgeocr_options_set(&opt, "det_thresh", "nan"), INVALID);
  CHECK_STATUS(edgeocr_options_set(&opt, "cls_batch", "1e10"), INVALID);
  CHECK(strstr(edgeocr_last_error(), "cls_batch must be an integer in [1, 256]") != NULL);
  CHECK_STATUS(edgeocr_options_set(&opt, "cls_batch", "99999999999999999999999"), INVALID);
  CHECK_STATUS(edgeocr_options_set(&opt, "rec_batch", "6.5"), INVALID);
  CHECK_STATUS(edgeocr_options_set(&opt, "use_cls", "maybe"), INVALID);
  CHECK_STATUS(edgeocr_options_set(&opt, "det_limit_type", "medium"), INVALID);
  CHECK(strstr(edgeocr_last_error(), "'min' or 'max'") != NULL);
  CHECK_STATUS(edgeocr_options_set(&opt, "det_mean", "0.5,0.5"), INVALID);
  CHECK_STATUS(edgeocr_options_set(&opt, "rec_width_buckets", "320,,640"), INVALID);
  CHECK_STATUS(edgeocr_options_set(&opt, "det_max_side_len", "20000"), INVALID);
  CHECK(opt.settings == NULL);
  CHECK_STATUS(edgeocr_options_set(&opt, "det_thresh", " 0.4 "), OK);
  CHECK(opt.settings != NULL);
  CHECK_STATUS(edgeocr_options_set(&opt, "det_thresh", "0.35"), OK); /* replaces */
  edgeocr_options_release(&opt);
  CHECK(opt.settings == NULL);
  edgeocr_options_release(&opt);
  edgeocr_options_release(NULL);

  /* every setting listed, with a default that reads back */
  memset(&info, 0, sizeof info);
  CHECK_STATUS(edgeocr_setting_info(0, &info), INVALID); /* struct_size unset */
  info.struct_size = sizeof info;
  CHECK_STATUS(edgeocr_setting_info(n, &info), INVALID);
  CHECK_STATUS(edgeocr_setting_info(0, NULL), INVALID);
  for (i = 0; i < n; ++i) {
    CHECK_STATUS(edgeocr_setting_info(i, &info), OK);
    CHECK(info.struct_size == sizeof info);
    CHECK(info.name && info.name[0] && info.type && info.type[0] && info.allowed &&
          info.allowed[0]);
    CHECK(info.default_value && info.default_value[0] && info.doc && info.doc[0]);
    CHECK_STATUS(edgeocr_options_set(&opt, info.name, info.default_value), OK);
  }
  edgeocr_options_release(&opt);

  /* a bad struct field is named by the table at create */
  opt.det_model_path = "det.onnx";
  opt.det_thresh = 2.f;
  expect_create_fails(&opt, INVALID, "det_thresh 2 in the struct");
  CHECK(strstr(edgeocr_last_error(), "det_thresh must be a number in (0, 1)") != NULL);
}

/* ---- models ---------------------------------------------------------------- */

typedef struct {
  unsigned char* rgb;
  int width, height;
} rgb_image;

/* The sample is a binary PPM (P6, maxval 255) without comments. */
static int read_ppm(const char* path, rgb_image* img) {
  FILE* f = fopen(path, "rb");
  int maxval = 0;
  size_t n;
  if (!f) return -1;
  if (fscanf(f, "P6 %d %d %d", &img->width, &img->height, &maxval) != 3 || maxval != 255 ||
      img->width <= 0 || img->height <= 0 || fgetc(f) == EOF) {
    fclose(f);
    return -1;
  }
  n = (size_t)img->width * img->height * 3;
  img->rgb = (unsigned char*)malloc(n);
  if (!img->rgb || fread(img->rgb, 1, n, f) != n) {
    fclose(f);
    return -1;
  }
  fclose(f);
  return 0;
}

static void* read_all(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  void* buf;
  long len;
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  len = ftell(f);
  fseek(f, 0, SEEK_SET);
  buf = malloc(len > 0 ? (size_t)len : 1);
  if (!buf || len <= 0 || fread(buf, 1, (size_t)len, f) != (size_t)len) {
    free(buf);
    fclose(f);
    return NULL;
  }
  fclose(f);
  *size = (size_t)len;
  return buf;
}

/* The sample converted to `format`, rows `pad` bytes wider than needed. */
static edgeocr_image_t convert(const rgb_image* src, int format, int pad, unsigned char** storage) {
  static const int channels[] = {3, 3, 1, 4, 4, 2};
  const int ch = channels[format];
  const ptrdiff_t stride = (ptrdiff_t)src->width * ch + pad;
  edgeocr_image_t img;
  int x, y;
  unsigned char* buf = (unsigned char*)malloc((size_t)stride * src->height);
  memset(buf, 0xAB, (size_t)stride * src->height);
  for (y = 0; y < src->height; ++y) {
    for (x = 0; x < src->width; ++x) {
      const unsigned char* s = src->rgb + ((size_t)y * src->width + x) * 3;
      unsigned char* d = buf + y * stride + (ptrdiff_t)x * ch;
      switch (format) {
        case EDGEOCR_PIXEL_RGB:
          d[0] = s[0];
          d[1] = s[1];
          d[2] = s[2];
          break;
        case EDGEOCR_PIXEL_BGR:
          d[0] = s[2];
          d[1] = s[1];
          d[2] = s[0];
          break;
        case EDGEOCR_PIXEL_GRAY:
          d[0] = (unsigned char)((s[0] * 77 + s[1] * 150 + s[2] * 29) >> 8);
          break;
        case EDGEOCR_PIXEL_BGRA:
          d[0] = s[2];
          d[1] = s[1];
          d[2] = s[0];
          d[3] = 255;
          break;
        /* opaque: transparent pixels would be composited onto a matte */
        case EDGEOCR_PIXEL_GRAY_ALPHA:
          d[0] = (unsigned char)((s[0] * 77 + s[1] * 150 + s[2] * 29) >> 8);
          d[1] = 255;
          break;
        default:
          d[0] = s[0];
          d[1] = s[1];
          d[2] = s[2];
          d[3] = 255;
          break;
      }
    }
  }
  img.data = buf;
  img.data_size = (size_t)stride * src->height;
  img.width = src->width;
  img.height = src->height;
  img.stride = stride;
  img.format = format;
  *storage = buf;
  return img;
}

static size_t line_count(edgeocr_result_t r) {
  size_t n = 0;
  CHECK_STATUS(edgeocr_result_line_count(r, &n), OK);
  return n;
}

/* Concatenated texts, "|"-separated, into out. */
static void texts_of(edgeocr_result_t r, char* out, size_t cap) {
  size_t i, n = line_count(r);
  out[0] = '\0';
  for (i = 0; i < n; ++i) {
    edgeocr_line_t l;
    l.struct_size = sizeof l;
    CHECK_STATUS(edgeocr_result_get_line(r, i, &l), OK);
    if (strlen(out) + l.text_size + 2 < cap) {
      strcat(out, l.text);
      strcat(out, "|");
    }
  }
}

/* Same lines: texts equal, scores and boxes within tol. */
static int same_lines(edgeocr_result_t a, edgeocr_result_t b, float tol) {
  size_t i, k, n = line_count(a);
  if (n != line_count(b)) return 0;
  for (i = 0; i < n; ++i) {
    edgeocr_line_t la, lb;
    la.struct_size = sizeof la;
    lb.struct_size = sizeof lb;
    if (edgeocr_result_get_line(a, i, &la) != OK || edgeocr_result_get_line(b, i, &lb) != OK)
      return 0;
    if (strcmp(la.text, lb.text) != 0 || fabsf(la.score - lb.score) > tol) return 0;
    for (k = 0; k < 8; ++k)
      if (fabsf(la.box[k] - lb.box[k]) > tol) return 0;
  }
  return 1;
}

typedef struct {
  const char *det, *cls, *rec, *ort, *image;
} inputs;

static int get_inputs(inputs* in) {
  in->det = env("EDGEOCR_TEST_DET_MODEL");
  in->cls = env("EDGEOCR_TEST_CLS_MODEL");
  in->rec = env("EDGEOCR_TEST_REC_MODEL");
  in->ort = env("EDGEOCR_TEST_ORT_LIBRARY");
  in->image = env("EDGEOCR_TEST_IMAGE");
  if (!in->det || !in->cls || !in->rec || !in->image) {
    fprintf(stderr,
            "SKIP: set EDGEOCR_TEST_DET_MODEL, EDGEOCR_TEST_CLS_MODEL, "
            "EDGEOCR_TEST_REC_MODEL and EDGEOCR_TEST_IMAGE (and EDGEOCR_TEST_ORT_LIBRARY "
            "unless ONNX Runtime is found by default)\n");
    return SKIP;
  }
  return 0;
}

static edgeocr_options_t full_options(const inputs* in) {
  edgeocr_options_t opt;
  edgeocr_options_init(&opt, sizeof opt);
  opt.det_model_path = in->det;
  opt.cls_model_path = in->cls;
  opt.rec_model_path = in->rec;
  opt.ort_library_path = in->ort;
  opt.threads = 1;
  /* A det input of at most 640 px keeps the runs short (also under qemu). */
  opt.det_limit_type = EDGEOCR_DET_LIMIT_MAX;
  opt.det_limit_side_len = 640;
  return opt;
}

/* Creates the full predictor, or reports why the test must skip. */
static int create_full(const inputs* in, int det_side, edgeocr_predictor_t* p) {
  edgeocr_options_t opt = full_options(in);
  opt.det_limit_side_len = det_side;
  edgeocr_status_t st = edgeocr_predictor_create(&opt, p);
  if (st == EDGEOCR_STATUS_RUNTIME_UNAVAILABLE) {
    fprintf(stderr, "SKIP: ONNX Runtime unavailable: %s\n", edgeocr_last_error());
    return SKIP;
  }
  if (st != OK) {
    fprintf(stderr, "creating the predictor failed: %s: %s\n", edgeocr_status_name(st),
            edgeocr_last_error());
    ++g_failures;
    return 1;
  }
  return 0;
}

static void expect_image_fails(edgeocr_predictor_t p, const edgeocr_image_t* img,
                               const char* what) {
  edgeocr_result_t r = (edgeocr_result_t)(uintptr_t)1;
  edgeocr_status_t st = edgeocr_predictor_predict(p, img, &r);
  if (st != INVALID || r != NULL || edgeocr_last_error()[0] == '\0') {
    fprintf(stderr, "predict with %s: got %s (%s), expected INVALID_ARGUMENT\n", what,
            edgeocr_status_name(st), edgeocr_last_error());
    ++g_failures;
  }
  r = (edgeocr_result_t)(uintptr_t)1;
  st = edgeocr_predictor_recognize(p, img, &r);
  if (st != INVALID || r != NULL) {
    fprintf(stderr, "recognize with %s: got %s, expected INVALID_ARGUMENT\n", what,
            edgeocr_status_name(st));
    ++g_failures;
  }
}

static int test_models(void) {
  inputs in;
  rgb_image sample;
  edgeocr_predictor_t p = NULL, q = NULL;
  edgeocr_result_t r = NULL, r2 = NULL;
  edgeocr_options_t opt;
  edgeocr_image_t img, bad, crop;
  edgeocr_line_t line;
  edgeocr_timings_t t;
  edgeocr_memory_stats_t ms;
  const char *lib = NULL, *ver = NULL;
  unsigned char *buf_rgb = NULL, *buf_other = NULL;
  char texts[1024], texts2[1024];
  void* det_bytes;
  size_t det_size = 0, i, n;
  int fmt, rc;

  line.struct_size = sizeof line;
  t.struct_size = sizeof t;
  ms.struct_size = sizeof ms;
  if ((rc = get_inputs(&in)) != 0) return rc;
  if (read_ppm(in.image, &sample) != 0) {
    fprintf(stderr, "cannot read the sample image %s\n", in.image);
    return 1;
  }
  if ((rc = create_full(&in, 640, &p)) != 0) return rc;

  /* runtime */
  CHECK_STATUS(edgeocr_runtime_info(&lib, &ver), OK);
  CHECK(lib != NULL && ver != NULL && strlen(ver) >= 4);
  CHECK_STATUS(edgeocr_runtime_info(NULL, NULL), OK);
  printf("ONNX Runtime %s from %s\n", ver, lib);
  CHECK_STATUS(edgeocr_set_ort_library_path(lib), OK); /* the one already loaded */
  CHECK_STATUS(edgeocr_set_ort_library_path("/other/libonnxruntime.so"), INVALID);

  /* the full pipeline on the sample */
  img = convert(&sample, EDGEOCR_PIXEL_RGB, 0, &buf_rgb);
  CHECK_STATUS(edgeocr_predictor_predict(p, &img, &r), OK);
  n = line_count(r);
  texts_of(r, texts, sizeof texts);
  printf("lines: %s\n", texts);
  CHECK(n >= 3);
  CHECK(strstr(texts, "edgeocr") != NULL);
  CHECK(strstr(texts, "2024-0815") != NULL);
  CHECK(strstr(texts, "42.50") != NULL);
  for (i = 0; i < n; ++i) {
    int k;
    size_t w;
    char joined[1024];
    edgeocr_word_t word;
    word.struct_size = sizeof word;
    CHECK_STATUS(edgeocr_result_get_line(r, i, &line), OK);
    CHECK(line.text != NULL && strlen(line.text) == line.text_size && line.text_size > 0);
    /* words (API version 4): their texts joined with spaces give the line's text */
    CHECK(line.word_count > 0);
    joined[0] = '\0';
    for (w = 0; w < line.word_count; ++w) {
      CHECK_STATUS(edgeocr_result_get_word(r, i, w, &word), OK);
      CHECK(word.text != NULL && strlen(word.text) == word.text_size && word.text_size > 0);
      CHECK(word.score > 0.f && word.score <= 1.f);
      CHECK(word.box[0] >= line.box[0] - 1.f && word.box[2] <= line.box[2] + 1.f);
      if (strlen(joined) + word.text_size + 2 < sizeof joined) {
        if (w > 0) strcat(joined, " ");
        strcat(joined, word.text);
      }
    }
    CHECK(strcmp(joined, line.text) == 0);
    CHECK_STATUS(edgeocr_result_get_word(r, i, line.word_count, &word), INVALID);
    CHECK(word.text == NULL);
    CHECK(line.score >= 0.5f && line.score <= 1.f);
    CHECK(line.det_score > 0.f && line.det_score <= 1.f);
    CHECK(line.flipped == 0 && line.turns == 0); /* turns: API version 8 */
    for (k = 0; k < 4; ++k) {
      CHECK(line.box[2 * k] >= 0.f && line.box[2 * k] <= (float)sample.width);
      CHECK(line.box[2 * k + 1] >= 0.f && line.box[2 * k + 1] <= (float)sample.height);
    }
    CHECK(line.box[0] < line.box[2] && line.box[1] < line.box[7]); /* clockwise from top-left */
  }
  memset(&line, 0xff, sizeof line);
  line.struct_size = sizeof line;
  CHECK_STATUS(edgeocr_result_get_line(r, n, &line), INVALID);
  CHECK(line.text == NULL);
  CHECK_STATUS(edgeocr_result_get_line(r, (size_t)-1, &line), INVALID);
  CHECK_STATUS(edgeocr_result_timings(r, &t), OK);
  CHECK(t.total > 0.0 && t.det > 0.0 && t.rec > 0.0 && t.det_model > 0.0 && t.total >= t.det);
  CHECK_STATUS(edgeocr_predictor_memory_stats(p, &ms), OK);
  CHECK(ms.high_water_bytes > 0 && ms.cap_bytes == 0 && ms.reserved_bytes >= ms.in_use_bytes);

  /* a newer, larger line struct: the library writes its fields and nothing past them */
  {
    struct {
      edgeocr_line_t l;
      unsigned char newer[24];
    } big;
    memset(&big, 0xCD, sizeof big);
    big.l.struct_size = sizeof big;
    CHECK_STATUS(edgeocr_result_get_line(r, 0, &big.l), OK);
    CHECK(big.l.struct_size == sizeof big && big.l.text != NULL && big.l.text_size > 0);
    CHECK(all_bytes(big.newer, sizeof big.newer, 0xCD));
  }

  /* the sample turned 180 degrees: the same texts, every line flipped and read with 2 quarter
     turns (API version 8), its box still clockwise from the image's top-left */
  {
    rgb_image upside_down = sample;
    unsigned char* buf_turned = NULL;
    size_t px, npx = (size_t)sample.width * sample.height;
    edgeocr_image_t turned_img;
    upside_down.rgb = (unsigned char*)malloc(npx * 3);
    CHECK(upside_down.rgb != NULL);
    for (px = 0; upside_down.rgb && px < npx; ++px)
      memcpy(upside_down.rgb + 3 * px, sample.rgb + 3 * (npx - 1 - px), 3);
    turned_img = convert(&upside_down, EDGEOCR_PIXEL_RGB, 0, &buf_turned);
    CHECK_STATUS(edgeocr_predictor_predict(p, &turned_img, &r2), OK);
    CHECK(line_count(r2) == n);
    for (i = 0; i < line_count(r2); ++i) {
      CHECK_STATUS(edgeocr_result_get_line(r2, i, &line), OK);
      CHECK(line.flipped == 1 && line.turns == 2);
      CHECK(line.box[0] < line.box[2] && line.box[1] < line.box[7]);
    }
    texts_of(r2, texts2, sizeof texts2);
    CHECK(strstr(texts2, "2024-0815") != NULL && strstr(texts2, "42.50") != NULL);
    edgeocr_result_destroy(r2);
    r2 = NULL;
    free(buf_turned);
    free(upside_down.rgb);
  }

  /* every pixel format and a padded stride give the same lines */
  for (fmt = EDGEOCR_PIXEL_BGR; fmt <= EDGEOCR_PIXEL_GRAY_ALPHA; ++fmt) {
    edgeocr_image_t other = convert(&sample, fmt, fmt == EDGEOCR_PIXEL_BGR ? 0 : 13, &buf_other);
    CHECK_STATUS(edgeocr_predictor_predict(p, &other, &r2), OK);
    if (fmt == EDGEOCR_PIXEL_GRAY || fmt == EDGEOCR_PIXEL_GRAY_ALPHA) {
      texts_of(r2, texts2, sizeof texts2);
      CHECK(strstr(texts2, "42.50") != NULL);
    } else if (!same_lines(r, r2, 1e-5f)) {
      texts_of(r2, texts2, sizeof texts2);
      fprintf(stderr, "format %d gives other lines: %s\n", fmt, texts2);
      ++g_failures;
    }
    edgeocr_result_destroy(r2);
    r2 = NULL;
    free(buf_other);
  }

  /* ONNX Runtime's bf16 fast-math GEMM: on aarch64 with BF16 the same texts from changed rec
     outputs (the session entry reached the runtime); elsewhere it is ignored: the same bits */
  {
    edgeocr_options_t fo = full_options(&in);
    edgeocr_predictor_t fast = NULL;
    float worst = 0.f;
    fo.arm64_bf16_fastmath = 1;
    CHECK_STATUS(edgeocr_predictor_create(&fo, &fast), OK);
    CHECK_STATUS(edgeocr_predictor_predict(fast, &img, &r2), OK);
    texts_of(r2, texts2, sizeof texts2);
    CHECK(strcmp(texts, texts2) == 0);
    for (i = 0; i < n && i < line_count(r2); ++i) {
      edgeocr_line_t la, lb;
      la.struct_size = lb.struct_size = sizeof la;
      CHECK_STATUS(edgeocr_result_get_line(r, i, &la), OK);
      CHECK_STATUS(edgeocr_result_get_line(r2, i, &lb), OK);
      if (fabsf(la.score - lb.score) > worst) worst = fabsf(la.score - lb.score);
    }
    printf("bf16 fast math (%s): largest score change %.6f\n",
           bf16_cpu() ? "aarch64 with BF16" : "ignored here", worst);
    if (bf16_cpu())
      CHECK(worst > 0.f && worst < 0.02f);
    else
      CHECK(same_lines(r, r2, 0.f));
    edgeocr_result_destroy(r2);
    r2 = NULL;
    edgeocr_predictor_destroy(fast);
  }

  /* bad images */
  expect_image_fails(p, NULL, "a NULL image");
  bad = img;
  bad.data = NULL;
  expect_image_fails(p, &bad, "NULL data");
  bad = img;
  bad.width = 0;
  expect_image_fails(p, &bad, "width 0");
  bad = img;
  bad.height = 0;
  expect_image_fails(p, &bad, "height 0");
  bad = img;
  bad.width = -4;
  expect_image_fails(p, &bad, "width -4");
  bad = img;
  bad.height = -1;
  expect_image_fails(p, &bad, "height -1");
  bad = img;
  bad.width = EDGEOCR_MAX_IMAGE_SIDE + 1;
  expect_image_fails(p, &bad, "width too big");
  bad = img;
  bad.format = -1;
  expect_image_fails(p, &bad, "format -1");
  bad = img;
  bad.format = 6;
  expect_image_fails(p, &bad, "format 6");
  bad = img;
  bad.stride = img.stride - 1;
  expect_image_fails(p, &bad, "stride < width*3");
  bad = img;
  bad.stride = 0;
  expect_image_fails(p, &bad, "stride 0");
  bad = img;
  bad.stride = -img.stride;
  expect_image_fails(p, &bad, "negative stride");
  bad = img;
  bad.format = EDGEOCR_PIXEL_RGBA;
  expect_image_fails(p, &bad, "RGB rows read as RGBA");
  bad = img;
  bad.data_size = 0;
  expect_image_fails(p, &bad, "data_size 0");
  bad = img;
  bad.data_size = img.data_size - 1;
  expect_image_fails(p, &bad, "data_size short by 1");
  bad = img;
  bad.stride = PTRDIFF_MAX / 2;
  bad.data_size = (size_t)-1;
  expect_image_fails(p, &bad, "an absurd stride");
  CHECK(strstr(edgeocr_last_error(), "stride") != NULL);

  /* recognize one line in place: a window into the sample via data + stride */
  crop = img;
  crop.data = buf_rgb + 106 * img.stride;
  crop.height = 34;
  crop.width = 220;
  crop.data_size = img.data_size - 106 * (size_t)img.stride;
  CHECK_STATUS(edgeocr_predictor_recognize(p, &crop, &r2), OK);
  CHECK(line_count(r2) == 1);
  CHECK_STATUS(edgeocr_result_get_line(r2, 0, &line), OK);
  printf("recognize: %s (%.3f)\n", line.text, line.score);
  CHECK(strstr(line.text, "42.50") != NULL);
  CHECK(line.box[0] == 0.f && line.box[4] == 220.f && line.box[5] == 34.f);
  edgeocr_result_destroy(r2);
  r2 = NULL;

  /* a PNG file's bytes, decoded by the library (API version 6) */
  if (getenv("EDGEOCR_TEST_PNG")) {
    size_t png_size = 0;
    unsigned char* png = (unsigned char*)read_all(getenv("EDGEOCR_TEST_PNG"), &png_size);
    CHECK(png != NULL && png_size > 100);
    CHECK_STATUS(edgeocr_predictor_predict_encoded(p, png, png_size, 0, &r2), OK);
    CHECK(line_count(r2) == 4);
    CHECK_STATUS(edgeocr_result_get_line(r2, 0, &line), OK);
    CHECK(strstr(line.text, "Invoice") != NULL);
    edgeocr_result_destroy(r2);
    r2 = (edgeocr_result_t)(uintptr_t)1;
    /* cut short (damaged), not a PNG or JPEG, above the pixel cap, no bytes: refused with the
     * reason; UNSUPPORTED only for what the caller can decode itself */
    CHECK_STATUS(edgeocr_predictor_predict_encoded(p, png, png_size / 2, 0, &r2), INVALID);
    CHECK(r2 == NULL && strstr(edgeocr_last_error(), "damaged") != NULL);
    CHECK_STATUS(edgeocr_predictor_predict_encoded(p, buf_rgb, 64, 0, &r2),
                 EDGEOCR_STATUS_UNSUPPORTED);
    CHECK(strstr(edgeocr_last_error(), "not a PNG or JPEG") != NULL);
    CHECK_STATUS(edgeocr_predictor_predict_encoded(p, png, png_size, 1000, &r2), INVALID);
    CHECK(strstr(edgeocr_last_error(), "limit") != NULL);
    CHECK_STATUS(edgeocr_predictor_predict_encoded(p, png, 0, 0, &r2), INVALID);
    CHECK_STATUS(edgeocr_predictor_predict_encoded(p, NULL, 10, 0, &r2), INVALID);
    CHECK(r2 == NULL);
    r2 = NULL;
    free(png);
  }

  /* a result outlives its predictor */
  edgeocr_predictor_destroy(p);
  p = NULL;
  CHECK(line_count(r) == n);

  /* det from bytes, no cls: same lines as from the file */
  det_bytes = read_all(in.det, &det_size);
  CHECK(det_bytes != NULL);
  opt = full_options(&in);
  opt.det_model_path = NULL;
  opt.det_model_data = det_bytes;
  opt.det_model_size = det_size;
  CHECK_STATUS(edgeocr_predictor_create(&opt, &q), OK);
  CHECK_STATUS(edgeocr_predictor_predict(q, &img, &r2), OK);
  CHECK(same_lines(r, r2, 1e-5f));
  edgeocr_result_destroy(r2);
  r2 = NULL;
  edgeocr_predictor_destroy(q);
  q = NULL;

  /* detection only: boxes, no text */
  opt = full_options(&in);
  opt.cls_model_path = NULL;
  opt.rec_model_path = NULL;
  CHECK_STATUS(edgeocr_predictor_create(&opt, &q), OK);
  CHECK_STATUS(edgeocr_predictor_predict(q, &img, &r2), OK);
  CHECK(line_count(r2) >= 3);
  CHECK_STATUS(edgeocr_result_get_line(r2, 0, &line), OK);
  CHECK(line.text != NULL && line.text[0] == '\0' && line.text_size == 0);
  edgeocr_result_destroy(r2);
  r2 = (edgeocr_result_t)(uintptr_t)1;
  CHECK_STATUS(edgeocr_predictor_recognize(q, &img, &r2), INVALID); /* no rec model */
  CHECK(r2 == NULL);
  r2 = NULL;
  edgeocr_predictor_destroy(q);
  q = NULL;

  /* recognition only: predict reads the whole image as one line */
  opt = full_options(&in);
  opt.det_model_path = NULL;
  opt.cls_model_path = NULL;
  CHECK_STATUS(edgeocr_predictor_create(&opt, &q), OK);
  CHECK_STATUS(edgeocr_predictor_predict(q, &crop, &r2), OK);
  CHECK(line_count(r2) == 1);
  edgeocr_result_destroy(r2);
  r2 = NULL;
  edgeocr_predictor_destroy(q);
  q = NULL;

  /* model and dictionary errors */
  opt = full_options(&in);
  opt.det_model_path = in.rec;
  expect_create_fails(&opt, EDGEOCR_STATUS_INVALID_MODEL, "a rec model as det");
  opt = full_options(&in);
  opt.cls_model_path = in.det;
  expect_create_fails(&opt, EDGEOCR_STATUS_INVALID_MODEL, "a det model as cls");
  opt = full_options(&in);
  opt.det_model_path = NULL;
  opt.det_model_data = "garbage, not an ONNX model";
  opt.det_model_size = 26;
  expect_create_fails(&opt, EDGEOCR_STATUS_INVALID_MODEL, "garbage det bytes");
  opt = full_options(&in);
  opt.det_model_path = in.image; /* a file that is not a model */
  expect_create_fails(&opt, EDGEOCR_STATUS_INVALID_MODEL, "an image as det model");
  opt = full_options(&in);
  opt.keys_data = "a\nb\nc\n";
  opt.keys_size = 6;
  expect_create_fails(&opt, EDGEOCR_STATUS_INVALID_MODEL, "a 3-character dictionary");
  CHECK(strstr(edgeocr_last_error(), "3 characters") != NULL);
  opt = full_options(&in);
  opt.keys_path = "/nonexistent/keys.txt";
  expect_create_fails(&opt, EDGEOCR_STATUS_NOT_FOUND, "a missing keys file");
  opt = full_options(&in);
  opt.ort_library_path = "/other/libonnxruntime.so";
  expect_create_fails(&opt, INVALID, "a second runtime");

  /* a memory cap below what one rec line needs: refused at create, naming the settings (a
     smaller rec batch is no reason: the budget's planner runs batches down to one line) */
  opt = full_options(&in);
  opt.max_memory_mb = 1;
  CHECK_STATUS(edgeocr_options_set(&opt, "rec_width_buckets", "8192"), OK);
  expect_create_fails(&opt, INVALID, "max_memory_mb 1 with rec lines 8192 wide");
  CHECK(strstr(edgeocr_last_error(), "rec_width_buckets") != NULL);
  CHECK(strstr(edgeocr_last_error(), "max_memory_mb") != NULL);
  edgeocr_options_release(&opt); /* the settings edgeocr_options_set stored */
  /* a cap that fits the settings but not the det input this image asks for: refused per call */
  opt = full_options(&in);
  opt.max_memory_mb = 8;
  opt.det_limit_type = EDGEOCR_DET_LIMIT_MIN;
  opt.det_limit_side_len = 2000;
  CHECK_STATUS(edgeocr_predictor_create(&opt, &q), OK);
  CHECK_STATUS(edgeocr_predictor_memory_stats(q, &ms), OK);
  CHECK(ms.cap_bytes == 8u << 20);
  r2 = (edgeocr_result_t)(uintptr_t)1;
  CHECK_STATUS(edgeocr_predictor_predict(q, &img, &r2), EDGEOCR_STATUS_OUT_OF_MEMORY);
  CHECK(r2 == NULL);
  edgeocr_predictor_destroy(q);

  edgeocr_result_destroy(r);
  free(det_bytes);
  free(buf_rgb);
  free(sample.rgb);
  return 0;
}

/* ---- settings: every one reaches the predictor -------------------------------- */

/* A valid value other than the default for each setting, as the library prints it. The test
   fails if the library lists a setting that is missing here, so a new setting gets a test. */
static const char* const k_values[][2] = {
    {"det_limit_type", "max"},
    {"det_limit_side_len", "960"},
    {"det_max_side_len", "1600"},
    {"det_mean", "0.485,0.456,0.406"},
    {"det_std", "0.229,0.224,0.225"},
    {"det_thresh", "0.25"},
    {"det_box_thresh", "0.6"},
    {"det_unclip_ratio", "1.5"},
    {"det_max_candidates", "500"},
    {"det_use_dilation", "false"},
    {"det_score_mode", "slow"},
    {"det_min_size", "2.5"},
    {"use_cls", "false"},
    {"cls_height", "32"},
    {"cls_width", "160"},
    {"cls_batch", "4"},
    {"cls_thresh", "0.8"},
    {"cls_verify", "false"},
    {"cls_mean", "0.4,0.4,0.4"},
    {"cls_std", "0.3,0.3,0.3"},
    {"rec_height", "32"},
    {"rec_batch", "8"},
    {"rec_width_buckets", "320,640,960"},
    {"rec_batch_columns", "1920"},
    {"rec_pad_to", "line"},
    {"det_tile_pixels", "1000000"},
    {"rec_mean", "0.45,0.45,0.45"},
    {"rec_std", "0.35,0.35,0.35"},
    {"rotate_ratio", "1.25"},
    {"drop_score", "0.6"},
    {"det_stretch_below", "96"},
    {"rec_stretch_below", "32"},
    {"rec_space_gap", "0.2"},
    {"det_sharpen_below", "0.2"},
    {"det_max_upscale", "1.25"},
    {"rec_recheck_below", "0.5"},
    {"rec_recheck_trigger", "word"},
    {"layout_height", "640"},
    {"layout_width", "480"},
    {"layout_score_thresh", "0.4"},
    {"layout_nms_iou", "0.6"},
    {"layout_max_regions", "200"},
    {"table_method", "grid"},
    {"table_side", "512"},
    {"table_min_score", "0.4"},
    {"table_min_fit", "0.6"},
};
#define N_VALUES (sizeof k_values / sizeof k_values[0])

static int test_settings(void) {
  inputs in;
  edgeocr_options_t opt;
  edgeocr_predictor_t p = NULL;
  edgeocr_setting_info_t info;
  edgeocr_status_t st;
  char buf[512];
  size_t i, k, need = 0, n = edgeocr_setting_count();
  int rc;

  if ((rc = get_inputs(&in)) != 0) return rc;
  info.struct_size = sizeof info;
  /* A det-only predictor: no model fixes a cls/rec size, so every value must read back as set. */
  CHECK_STATUS(edgeocr_options_init(&opt, sizeof opt), OK);
  opt.det_model_path = in.det;
  opt.ort_library_path = in.ort;
  opt.threads = 1;
  for (i = 0; i < n; ++i) {
    int found = 0;
    CHECK_STATUS(edgeocr_setting_info(i, &info), OK);
    for (k = 0; k < N_VALUES; ++k) {
      if (strcmp(k_values[k][0], info.name) != 0) continue;
      found = 1;
      CHECK(strcmp(k_values[k][1], info.default_value) != 0);
      CHECK_STATUS(edgeocr_options_set(&opt, info.name, k_values[k][1]), OK);
    }
    if (!found) {
      fprintf(stderr, "setting %s has no test value in k_values\n", info.name);
      ++g_failures;
    }
  }
  /* a struct field and a key/value entry for one setting: the entry wins */
  opt.drop_score = 0.7f;
  st = edgeocr_predictor_create(&opt, &p);
  if (st == EDGEOCR_STATUS_RUNTIME_UNAVAILABLE) {
    fprintf(stderr, "SKIP: ONNX Runtime unavailable: %s\n", edgeocr_last_error());
    edgeocr_options_release(&opt);
    return SKIP;
  }
  CHECK_STATUS(st, OK);
  if (p == NULL) return 1;
  for (k = 0; k < N_VALUES; ++k) {
    CHECK_STATUS(edgeocr_predictor_get_setting(p, k_values[k][0], buf, sizeof buf, &need), OK);
    if (strcmp(buf, k_values[k][1]) != 0) {
      fprintf(stderr, "%s: set %s, the predictor runs with %s\n", k_values[k][0], k_values[k][1],
              buf);
      ++g_failures;
    }
    CHECK(need == strlen(buf) + 1);
  }
  /* reading back: unknown keys, short buffers */
  CHECK_STATUS(edgeocr_predictor_get_setting(p, "nope", buf, sizeof buf, &need), INVALID);
  CHECK_STATUS(edgeocr_predictor_get_setting(p, "rec_width_buckets", buf, 4, &need), INVALID);
  CHECK(need == strlen("320,640,960") + 1 && buf[0] == '\0');
  CHECK_STATUS(edgeocr_predictor_get_setting(p, "rec_width_buckets", NULL, 0, &need), INVALID);
  CHECK(need == strlen("320,640,960") + 1);
  CHECK_STATUS(edgeocr_predictor_get_setting(p, "rec_width_buckets", NULL, 8, &need), INVALID);
  CHECK_STATUS(edgeocr_predictor_get_setting(NULL, "drop_score", buf, sizeof buf, &need), INVALID);
  edgeocr_predictor_destroy(p);
  p = NULL;

  /* the struct fields alone (no entries) reach it too */
  edgeocr_options_release(&opt);
  CHECK(opt.settings == NULL);
  opt.det_box_thresh = 0.55f;
  opt.det_limit_type = EDGEOCR_DET_LIMIT_MAX;
  CHECK_STATUS(edgeocr_predictor_create(&opt, &p), OK);
  CHECK_STATUS(edgeocr_predictor_get_setting(p, "det_box_thresh", buf, sizeof buf, NULL), OK);
  CHECK(strcmp(buf, "0.55") == 0);
  CHECK_STATUS(edgeocr_predictor_get_setting(p, "det_limit_type", buf, sizeof buf, NULL), OK);
  CHECK(strcmp(buf, "max") == 0);
  CHECK_STATUS(edgeocr_predictor_get_setting(p, "drop_score", buf, sizeof buf, NULL), OK);
  CHECK(strcmp(buf, "0.7") == 0);
  edgeocr_predictor_destroy(p);
  printf("settings: %u set by name and read back from the predictor\n", (unsigned)N_VALUES);
  return 0;
}

/* ---- threads ---------------------------------------------------------------- */

#define N_THREADS 8
#define N_RUNS 1

typedef struct {
  edgeocr_predictor_t p;
  const edgeocr_image_t* img;
  const char* expected;
  int failures;
} worker;

static void* work(void* arg) {
  worker* w = (worker*)arg;
  int i;
  char texts[1024];
  for (i = 0; i < N_RUNS; ++i) {
    edgeocr_result_t r = NULL;
    edgeocr_result_t none = NULL;
    if (edgeocr_predictor_predict(w->p, w->img, &r) != OK) {
      ++w->failures;
      continue;
    }
    texts_of(r, texts, sizeof texts);
    if (strcmp(texts, w->expected) != 0) ++w->failures;
    edgeocr_result_destroy(r);
    /* each thread's error stays its own */
    if (edgeocr_predictor_predict(w->p, NULL, &none) != INVALID ||
        strstr(edgeocr_last_error(), "image is NULL") == NULL)
      ++w->failures;
  }
  return NULL;
}

static int test_threads(void) {
  inputs in;
  rgb_image sample;
  edgeocr_predictor_t p = NULL;
  edgeocr_result_t r = NULL;
  edgeocr_image_t img;
  unsigned char* buf;
  char expected[1024];
  pthread_t th[N_THREADS];
  worker w[N_THREADS];
  int i, rc;

  if ((rc = get_inputs(&in)) != 0) return rc;
  if (read_ppm(in.image, &sample) != 0) return 1;
  /* A small det input: 8 threads must stay quick under qemu too. */
  if ((rc = create_full(&in, 384, &p)) != 0) return rc;
  img = convert(&sample, EDGEOCR_PIXEL_BGR, 0, &buf);
  CHECK(edgeocr_last_error()[0] == '\0');
  CHECK_STATUS(edgeocr_predictor_predict(p, &img, &r), OK);
  texts_of(r, expected, sizeof expected);
  edgeocr_result_destroy(r);
  CHECK_STATUS(edgeocr_options_init(NULL, sizeof(edgeocr_options_t)),
               INVALID); /* the main thread's own error */
  for (i = 0; i < N_THREADS; ++i) {
    w[i].p = p;
    w[i].img = &img;
    w[i].expected = expected;
    w[i].failures = 0;
    CHECK(pthread_create(&th[i], NULL, work, &w[i]) == 0);
  }
  for (i = 0; i < N_THREADS; ++i) {
    pthread_join(th[i], NULL);
    if (w[i].failures) fprintf(stderr, "thread %d: %d failure(s)\n", i, w[i].failures);
    g_failures += w[i].failures;
  }
  CHECK(strstr(edgeocr_last_error(), "options") != NULL);
  printf("%d threads x %d runs: %s\n", N_THREADS, N_RUNS, expected);
  edgeocr_predictor_destroy(p);
  free(buf);
  free(sample.rgb);
  return 0;
}

int main(int argc, char** argv) {
  int rc = 0;
  const char* mode = argc > 1 ? argv[1] : "args";
  if (strcmp(mode, "args") == 0) {
    test_args();
    test_versions();
    test_settings_args();
  } else if (strcmp(mode, "models") == 0)
    rc = test_models();
  else if (strcmp(mode, "threads") == 0)
    rc = test_threads();
  else if (strcmp(mode, "settings") == 0)
    rc = test_settings();
  else {
    fprintf(stderr, "usage: test_c_api args|models|threads|settings\n");
    return 2;
  }
  if (rc == SKIP && g_failures == 0) return SKIP;
  if (g_failures) {
    fprintf(stderr, "%s: %d check(s) failed\n", mode, g_failures);
    return 1;
  }
  if (rc) return rc;
  printf("%s: all checks passed\n", mode);
  return 0;
}
