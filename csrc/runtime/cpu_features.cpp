#include "edgeocr/cpu_features.h"

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

}  // namespace

const CpuFeatures& cpu_features() {
  static const CpuFeatures features = [] {
    CpuFeatures f;
    detect(f);
    return f;
  }();
  return features;
}

}  // namespace edgeocr
