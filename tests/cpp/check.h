// A minimal test harness: CHECK(cond), CHECK_NEAR(a, b, tol), TEST(name).
// Each test binary's main() runs every registered TEST and returns non-zero on failure.
#pragma once

#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace edgeocr_test {

struct Registry {
  std::vector<std::pair<std::string, std::function<void()>>> tests;
  int failures = 0;
  static Registry& get() {
    static Registry r;
    return r;
  }
};

struct Registrar {
  Registrar(const char* name, std::function<void()> fn) {
    Registry::get().tests.emplace_back(name, std::move(fn));
  }
};

}  // namespace edgeocr_test

#define EOCR_CAT2(a, b) a##b
#define EOCR_CAT(a, b) EOCR_CAT2(a, b)
#define TEST(name)                                                        \
  static void name();                                                     \
  static edgeocr_test::Registrar EOCR_CAT(registrar_, name)(#name, name); \
  static void name()

#define CHECK(cond)                                                                 \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      ++edgeocr_test::Registry::get().failures;                                     \
    }                                                                               \
  } while (0)

#define CHECK_NEAR(a, b, tol)                                                                    \
  do {                                                                                           \
    double va_ = (a), vb_ = (b);                                                                 \
    if (!(std::fabs(va_ - vb_) <= (tol))) {                                                      \
      std::fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s=%g %s=%g tol=%g\n", __FILE__, __LINE__, \
                   #a, va_, #b, vb_, static_cast<double>(tol));                                  \
      ++edgeocr_test::Registry::get().failures;                                                  \
    }                                                                                            \
  } while (0)

#define CHECK_THROWS(stmt)                                                                       \
  do {                                                                                           \
    bool thrown_ = false;                                                                        \
    try {                                                                                        \
      stmt;                                                                                      \
    } catch (...) {                                                                              \
      thrown_ = true;                                                                            \
    }                                                                                            \
    if (!thrown_) {                                                                              \
      std::fprintf(stderr, "%s:%d: expected an exception from %s\n", __FILE__, __LINE__, #stmt); \
      ++edgeocr_test::Registry::get().failures;                                                  \
    }                                                                                            \
  } while (0)

// Define in exactly one translation unit per test binary (each test file is its own binary).
#define TEST_MAIN()                                                                      \
  int main() {                                                                           \
    auto& r = edgeocr_test::Registry::get();                                             \
    int failed_tests = 0;                                                                \
    for (auto& t : r.tests) {                                                            \
      int before = r.failures;                                                           \
      try {                                                                              \
        t.second();                                                                      \
      } catch (const std::exception& e) {                                                \
        std::fprintf(stderr, "%s: uncaught exception: %s\n", t.first.c_str(), e.what()); \
        ++r.failures;                                                                    \
      }                                                                                  \
      bool ok = r.failures == before;                                                    \
      if (!ok) ++failed_tests;                                                           \
      std::printf("[%s] %s\n", ok ? "PASS" : "FAIL", t.first.c_str());                   \
    }                                                                                    \
    std::printf("%zu tests, %d failed\n", r.tests.size(), failed_tests);                 \
    return failed_tests == 0 ? 0 : 1;                                                    \
  }
