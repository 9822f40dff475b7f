// CPU features that decide how fast ONNX Runtime's int8 kernels run.
#pragma once

#include <string>

namespace edgeocr {

struct CpuFeatures {
  std::string arch;  // "x86_64", "aarch64" or "other"
  // x86_64 (CPUID, and the OS saving the AVX/AVX-512 registers: XGETBV)
  bool avx2 = false;
  bool avx512f = false;
  bool avx512bw = false;
  bool avx512_vnni = false;  // VPDPBUSD on 512-bit registers
  bool avx_vnni = false;     // VPDPBUSD on 256-bit registers (Alder Lake and later)
  bool amx_int8 = false;
  // aarch64 (HWCAP / HWCAP2)
  bool asimddp = false;  // SDOT/UDOT (ARMv8.2 dot product)
  bool i8mm = false;     // SMMLA/UMMLA (ARMv8.6 int8 matrix multiply)
  bool bf16 = false;     // BFMMLA (the bf16 fast-math GEMM needs it)

  // True when int8 GEMM/conv kernels have a dot-product instruction here
  // (VNNI on x86, SDOT on ARM); without one, ONNX Runtime's int8 kernels
  // widen to 16 bits and often run no faster than float.
  bool int8_dot() const { return avx512_vnni || avx_vnni || amx_int8 || asimddp || i8mm; }
};

// Detected once per process; never throws.
const CpuFeatures& cpu_features();

// The CPU's raw feature words (x86_64: vendor and CPUID leaves 1 and 7 with XCR0; aarch64:
// HWCAP and HWCAP2), as text: what an ONNX Runtime graph optimised on this machine may depend
// on (its NCHWc block size follows AVX-512). Part of the optimised-graph cache's key.
const std::string& cpu_signature();

}  // namespace edgeocr
