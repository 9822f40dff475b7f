#include "edgeocr/cpu_features.h"

#include <cstdio>
#include <cstring>

#if defined(__x86_64__) || defined(_M_X64)
#include <cpuid.h>
#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

namespace edgeocr {
namespace {

#if defined(__x86_64__) || defined(_M_X64)
unsigned long long xgetbv0() {
  unsigned int eax = 0, edx = 0;
  __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
  return (static_cast<unsigned long long>(edx) << 32) | eax;
}

void detect(CpuFeatures& f) {
  f.arch = "x86_64";
  unsigned int a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return;
  const bool osxsave = (c >> 27) & 1;
  if (!osxsave) return;
  const unsigned long long xcr0 = xgetbv0();
  const bool os_avx = (xcr0 & 0x6) == 0x6;                 // XMM + YMM state
  const bool os_avx512 = os_avx && (xcr0 & 0xe0) == 0xe0;  // opmask + ZMM state
  const bool os_amx = (xcr0 & 0x60000) == 0x60000;         // XTILECFG + XTILEDATA
  if (__get_cpuid_max(0, nullptr) < 7) return;
  __cpuid_count(7, 0, a, b, c, d);
  f.avx2 = os_avx && ((b >> 5) & 1);
  f.avx512f = os_avx512 && ((b >> 16) & 1);
  f.avx512bw = os_avx512 && ((b >> 30) & 1);
  f.avx512_vnni = os_avx512 && ((c >> 11) & 1);
  f.amx_int8 = os_amx && ((d >> 25) & 1);
  __cpuid_count(7, 1, a, b, c, d);
  f.avx_vnni = os_avx && ((a >> 4) & 1);
}
#elif defined(__aarch64__) && defined(__linux__)
void detect(CpuFeatures& f) {
  f.arch = "aarch64";
  const unsigned long hw = getauxval(AT_HWCAP);
  const unsigned long hw2 = getauxval(AT_HWCAP2);
  f.asimddp = (hw >> 20) & 1;  // HWCAP_ASIMDDP
  f.i8mm = (hw2 >> 13) & 1;    // HWCAP2_I8MM
  f.bf16 = (hw2 >> 14) & 1;    // HWCAP2_BF16
}
#elif defined(__aarch64__)
void detect(CpuFeatures& f) {
  f.arch = "aarch64";
}
#else
void detect(CpuFeatures& f) {
  f.arch = "other";
}
#endif

std::string signature() {
  std::string s;
  [[maybe_unused]] auto add = [&s](const char* name, unsigned long long v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, " %s=%llx", name, v);
    s += buf;
  };
#if defined(__x86_64__) || defined(_M_X64)
  unsigned int a = 0, b = 0, c = 0, d = 0;
  s = "x86_64";
  if (__get_cpuid(0, &a, &b, &c, &d)) {
    char vendor[13];
    std::memcpy(vendor, &b, 4);
    std::memcpy(vendor + 4, &d, 4);
    std::memcpy(vendor + 8, &c, 4);
    vendor[12] = 0;
    s += std::string(" ") + vendor;
    const unsigned int max_leaf = a;
    __get_cpuid(1, &a, &b, &c, &d);
    add("1c", c);
    add("1d", d);
    if ((c >> 27) & 1) add("xcr0", xgetbv0());
    if (max_leaf >= 7) {
      __cpuid_count(7, 0, a, b, c, d);
      add("7b", b);
      add("7c", c);
      add("7d", d);
      __cpuid_count(7, 1, a, b, c, d);
      add("7.1a", a);
    }
  }
#elif defined(__aarch64__) && defined(__linux__)
  s = "aarch64";
  add("hwcap", getauxval(AT_HWCAP));
  add("hwcap2", getauxval(AT_HWCAP2));
#elif defined(__aarch64__)
  s = "aarch64";
#else
  s = "other";
#endif
  return s;
}

}  // namespace

const std::string& cpu_signature() {
  static const std::string s = signature();
  return s;
}

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = [] {
    CpuFeatures f;
    detect(f);
    return f;
  }();
  return features;
}

}  // namespace edgeocr
