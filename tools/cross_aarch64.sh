#!/usr/bin/env bash
# Cross-builds edgeocr (core, C API, C++ and C tests) for aarch64 Linux and
# runs the tests and the C example under qemu-user with an aarch64 ONNX
# Runtime taken from the onnxruntime wheel on PyPI.
#
#   tools/cross_aarch64.sh            # build dir: build/aarch64
#
# Environment:
#   EDGEOCR_ARM_ORT_VERSION  onnxruntime wheel version (default 1.22.1). Pinned:
#                            1.20-1.26 run under qemu-aarch64 7.2; 1.28+ crashed
#                            inside ORT's own start-up under qemu.
#   EDGEOCR_CROSS_BUILD_DIR  build folder (default build/aarch64)
#   EDGEOCR_CROSS_JOBS       parallel build jobs (default 2)
#   EDGEOCR_CROSS_CTEST      0: skip ctest under qemu (default 1)
#   EDGEOCR_X86_DEMO         an x86 build of examples/c/ocr_demo (default:
#                            build/ctest/ocr_demo); with it, tools/cross_parity.py
#                            compares the aarch64 example with it on a bundle and
#                            on .nb files (EDGEOCR_SHARED_DIR: where ../shared is)
#   EDGEOCR_TEST_DET_MODEL / _CLS_MODEL / _REC_MODEL
#                            ONNX models (architecture independent); default:
#                            the PP-OCRv4 models of the installed
#                            rapidocr_onnxruntime wheel
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${EDGEOCR_CROSS_BUILD_DIR:-$ROOT/build/aarch64}
JOBS=${EDGEOCR_CROSS_JOBS:-2}
ORT_VERSION=${EDGEOCR_ARM_ORT_VERSION:-1.22.1}
SYSROOT=/usr/aarch64-linux-gnu
ORT_DIR=$BUILD/ort-$ORT_VERSION
say() { printf '\n== %s\n' "$*"; }

say "toolchain"
if ! command -v aarch64-linux-gnu-g++ >/dev/null || ! command -v qemu-aarch64 >/dev/null; then
  SUDO=$([ "$(id -u)" = 0 ] && echo "" || echo sudo)
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
    g++-aarch64-linux-gnu qemu-user
fi
aarch64-linux-gnu-g++ --version | head -1
qemu-aarch64 --version | head -1

say "aarch64 ONNX Runtime $ORT_VERSION"
ORT_LIB=$(ls "$ORT_DIR"/libonnxruntime.so.* 2>/dev/null | head -1 || true)
if [ -z "$ORT_LIB" ]; then
  mkdir -p "$ORT_DIR"
  python3 -m pip download -q --no-deps --only-binary=:all: --platform manylinux_2_27_aarch64 \
    --python-version 311 "onnxruntime==$ORT_VERSION" -d "$ORT_DIR"
  python3 - "$ORT_DIR" <<'PY'
import glob, os, sys, zipfile
d = sys.argv[1]
whl = glob.glob(os.path.join(d, "onnxruntime-*.whl"))[0]
with zipfile.ZipFile(whl) as z:
    for n in z.namelist():
        base = os.path.basename(n)
        if n.startswith("onnxruntime/capi/libonnxruntime.so"):
            with open(os.path.join(d, base), "wb") as f:
                f.write(z.read(n))
PY
  ORT_LIB=$(ls "$ORT_DIR"/libonnxruntime.so.* | head -1)
fi
file -L "$ORT_LIB" | sed "s|$ROOT/||"

say "models"
if [ -z "${EDGEOCR_TEST_DET_MODEL:-}" ]; then
  IFS=';' read -r EDGEOCR_TEST_DET_MODEL EDGEOCR_TEST_CLS_MODEL EDGEOCR_TEST_REC_MODEL _ \
    < <(python3 "$ROOT/tests/c/find_test_inputs.py" || echo ";;;")
fi
echo "det=${EDGEOCR_TEST_DET_MODEL:-<none>}"

say "nlohmann/json (header-only, the host's copy serves the target)"
python3 -c "import nlohmann_json" 2>/dev/null || python3 -m pip install -q "nlohmann-json==3.12.0"
NLOHMANN_INCLUDE=$(python3 -c "import nlohmann_json; print(nlohmann_json.get_include())")
echo "$NLOHMANN_INCLUDE"

say "configure + build ($JOBS jobs)"
cmake -S "$ROOT" -B "$BUILD" -G Ninja \
  -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/aarch64-linux-gnu.cmake" \
  -DEDGEOCR_NLOHMANN_INCLUDE="$NLOHMANN_INCLUDE" \
  -DEDGEOCR_BUILD_TESTS=ON -DEDGEOCR_BUILD_PYTHON=OFF \
  -DEDGEOCR_TEST_DET_MODEL="${EDGEOCR_TEST_DET_MODEL:-}" \
  -DEDGEOCR_TEST_CLS_MODEL="${EDGEOCR_TEST_CLS_MODEL:-}" \
  -DEDGEOCR_TEST_REC_MODEL="${EDGEOCR_TEST_REC_MODEL:-}" \
  -DEDGEOCR_TEST_ORT_LIBRARY="$ORT_LIB" >/dev/null
cmake --build "$BUILD" -j "$JOBS"
file "$BUILD"/libedgeocr.so.*.*.* | sed "s|$ROOT/||"

if [ "${EDGEOCR_CROSS_CTEST:-1}" != 0 ]; then
  say "ctest under qemu-aarch64"
  (cd "$BUILD" && ctest --output-on-failure --timeout 1800)
fi

say "C example under qemu-aarch64"
EDGEOCR_ORT_LIBRARY="$ORT_LIB" EDGEOCR_DET_MODEL="${EDGEOCR_TEST_DET_MODEL:-}" \
  EDGEOCR_CLS_MODEL="${EDGEOCR_TEST_CLS_MODEL:-}" EDGEOCR_REC_MODEL="${EDGEOCR_TEST_REC_MODEL:-}" \
  qemu-aarch64 -L "$SYSROOT" "$BUILD/ocr_demo" "$ROOT/tests/c/data/sample.ppm"

X86_DEMO=${EDGEOCR_X86_DEMO:-$ROOT/build/ctest/ocr_demo}
if [ -x "$X86_DEMO" ]; then
  say "C example, aarch64 (qemu) vs x86: a bundle and .nb files"
  SHARED=${EDGEOCR_SHARED_DIR:-$ROOT/../shared}
  python3 "$ROOT/tools/cross_parity.py" --arm-demo "$BUILD/ocr_demo" --arm-ort "$ORT_LIB" \
    --sysroot "$SYSROOT" --x86-demo "$X86_DEMO" --nb-dir "$SHARED/fixtures/paddle_lite/nb" \
    "$ROOT/tests/c/data/sample.ppm" "$ROOT/tests/data/sample_en.png"
else
  say "no x86 ocr_demo at $X86_DEMO (EDGEOCR_X86_DEMO): aarch64 vs x86 comparison skipped"
fi
