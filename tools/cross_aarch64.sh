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
#                            compares the aarch64 example with it on fp32 and int8
#                            bundles, with bf16 fast math, and on .nb files
#                            (EDGEOCR_SHARED_DIR: where ../shared is)
#   EDGEOCR_CROSS_PAGES      images for that comparison (default: the C sample and
#                            two small dev pages of ../shared: qemu runs a page in
#                            minutes, benchmarks/README.md "aarch64 under qemu")
#   EDGEOCR_CROSS_MODELS     model sets packed for it (default: the default set,
#                            ppocr-v4det-v6rec; e.g. ppocr-v4-mobile,ppocr-v4det-v6rec)
#   EDGEOCR_CROSS_SET        pipeline settings for both sides (default:
#                            "det_limit_type=max det_limit_side_len=640", shorter runs)
#   EDGEOCR_CROSS_X86_ORT    the x86 ONNX Runtime for it: "same" (default: the x86
#                            wheel of EDGEOCR_ARM_ORT_VERSION, so that only the
#                            architecture differs), "installed", or a library path
#   EDGEOCR_CROSS_BUNDLES    folder that keeps the packed bundles between runs
#   EDGEOCR_CROSS_JSON       write the comparison's rows there
# qemu-user runs the aarch64 code correctly but gives no figure of its speed:
# the timings printed here say nothing about an ARM device.
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

say "image decoders for aarch64 (static: libspng, zlib, libjpeg-turbo with Neon; tools/build_codecs.sh)"
CODECS=$BUILD/codecs
[ -f "$CODECS/lib/libjpeg.a" ] || JOBS=$JOBS bash "$ROOT/tools/build_codecs.sh" "$CODECS" aarch64-linux-gnu

say "configure + build ($JOBS jobs)"
cmake -S "$ROOT" -B "$BUILD" -G Ninja \
  -DCMAKE_TOOLCHAIN_FILE="$ROOT/cmake/aarch64-linux-gnu.cmake" \
  -DEDGEOCR_NLOHMANN_INCLUDE="$NLOHMANN_INCLUDE" -DEDGEOCR_CODECS_PREFIX="$CODECS" \
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

say "SHA-256 under qemu-aarch64: the ARMv8 SHA-2 instructions and the portable code"
# Both against FIPS 180-4's examples and hashlib's digests (tests/cpp/test_sha256.cpp). Every CPU
# model of qemu-aarch64 7.2 has SHA-2 (HWCAP_SHA2), so the portable code runs by being asked to.
for cpu in cortex-a53 max; do
  EDGEOCR_SHA256_EXPECT=armv8-sha2 qemu-aarch64 -cpu "$cpu" -L "$SYSROOT" "$BUILD/test_sha256" |
    sed -n "s/^sha256: /-cpu $cpu: /p; /tests, /p"
done
EDGEOCR_SHA256=portable EDGEOCR_SHA256_EXPECT=portable \
  qemu-aarch64 -cpu cortex-a53 -L "$SYSROOT" "$BUILD/test_sha256" |
  sed -n "s/^sha256: /-cpu cortex-a53, EDGEOCR_SHA256=portable: /p; /tests, /p"

say "image decoders: aarch64 (qemu) vs x86 pixels on every PNG and JPEG of tests/data and the dev set"
# The core's decoder (csrc/codec) for both: aarch64 on the static libraries above, x86 on the
# host's libspng/libjpeg-turbo/zlib (the -dev packages the README's set-up installs).
# Known difference, one file: corrupt_scan.jpg has flipped bits in its entropy-coded data that
# libjpeg decodes without a warning; libjpeg-turbo's x86 SIMD IDCT (SSE2/AVX2) clamps the
# out-of-range coefficients unlike its Neon and C ones (JSIMD_FORCENONE=1 gives both the C
# IDCT's pixels), so its damaged blocks differ. docs/reliability.md says so.
DECODE_DIFFERS="tests/data/malformed/corrupt_scan.jpg"
# aarch64: the decoder the build above compiled into libedgeocr (libedgeocr_codec.a), not a copy.
aarch64-linux-gnu-g++ -O2 -std=c++17 -I"$ROOT/csrc" -I"$ROOT/csrc/include" \
  "$ROOT/tools/decode_hash.cpp" "$BUILD/libedgeocr_codec.a" \
  "$CODECS"/lib/{libspng,libjpeg,libz}.a -o "$BUILD/decode_hash"
g++ -O2 -std=c++17 -I"$ROOT/csrc" -I"$ROOT/csrc/include" "$ROOT/tools/decode_hash.cpp" \
  "$ROOT"/csrc/codec/{image,jpeg,png}.cpp -lspng -ljpeg -lz -o "$BUILD/decode_hash_x86"
mapfile -t images < <(cd "$ROOT" && find tests/data -type f \( -name '*.png' -o -name '*.jpg' \) | sort)
DEV_IMAGES=${EDGEOCR_SHARED_DIR:-$ROOT/../shared}/datasets/dev/images  # the dev set's scans too
[ -d "$DEV_IMAGES" ] && mapfile -t -O "${#images[@]}" images < <(
  find "$(cd "$DEV_IMAGES" && pwd)" -type f \( -name '*.png' -o -name '*.jpg' \) | sort)
(cd "$ROOT" && "$BUILD/decode_hash_x86" "${images[@]}") >"$BUILD/decode_x86.txt"
(cd "$ROOT" && qemu-aarch64 -L "$SYSROOT" "$BUILD/decode_hash" "${images[@]}") >"$BUILD/decode_arm.txt"
differ=$(diff "$BUILD/decode_x86.txt" "$BUILD/decode_arm.txt" | sed -n 's/^< \([^ ]*\) .*/\1/p' || true)
echo "${#images[@]} files, $(grep -c "result=0" "$BUILD/decode_arm.txt") decoded on aarch64"
unexpected=""
for f in $differ; do
  case " $DECODE_DIFFERS " in *" $f "*) echo "differs (known): $f" ;; *) unexpected+=" $f" ;; esac
done
if [ -n "$unexpected" ]; then
  echo "aarch64 decodes other pixels than x86:$unexpected" >&2
  exit 1
fi
echo "aarch64 and x86 decode the same pixels (but the known difference above)"

say "C example under qemu-aarch64"
EDGEOCR_ORT_LIBRARY="$ORT_LIB" EDGEOCR_DET_MODEL="${EDGEOCR_TEST_DET_MODEL:-}" \
  EDGEOCR_CLS_MODEL="${EDGEOCR_TEST_CLS_MODEL:-}" EDGEOCR_REC_MODEL="${EDGEOCR_TEST_REC_MODEL:-}" \
  qemu-aarch64 -L "$SYSROOT" "$BUILD/ocr_demo" "$ROOT/tests/c/data/sample.ppm"

X86_DEMO=${EDGEOCR_X86_DEMO:-$ROOT/build/ctest/ocr_demo}
if [ -x "$X86_DEMO" ]; then
  say "C example, aarch64 (qemu) vs x86: fp32 and int8 bundles, bf16 fast math, .nb files"
  SHARED=${EDGEOCR_SHARED_DIR:-$ROOT/../shared}
  X86_ORT=${EDGEOCR_CROSS_X86_ORT:-same}
  if [ "$X86_ORT" = same ]; then
    X86_ORT_DIR=$BUILD/ort-x86_64-$ORT_VERSION
    X86_ORT=$(ls "$X86_ORT_DIR"/onnxruntime/capi/libonnxruntime.so.* 2>/dev/null | head -1 || true)
    if [ -z "$X86_ORT" ]; then
      python3 -m pip install -q --no-deps --only-binary=:all: --platform manylinux_2_27_x86_64 \
        --python-version 311 --target "$X86_ORT_DIR" "onnxruntime==$ORT_VERSION"
      X86_ORT=$(ls "$X86_ORT_DIR"/onnxruntime/capi/libonnxruntime.so.* | head -1)
    fi
  fi
  [ "$X86_ORT" = installed ] && X86_ORT=""
  if [ -n "${EDGEOCR_CROSS_PAGES:-}" ]; then
    read -r -a PAGES <<<"$EDGEOCR_CROSS_PAGES"
  else
    PAGES=("$ROOT/tests/c/data/sample.ppm")
    for p in tiny_price_zh_01.png small_sms_zh_01.png; do
      [ -f "$SHARED/datasets/dev/images/$p" ] && PAGES+=("$SHARED/datasets/dev/images/$p")
    done
  fi
  SETS=()
  for kv in ${EDGEOCR_CROSS_SET-det_limit_type=max det_limit_side_len=640}; do SETS+=(--set "$kv"); done
  python3 "$ROOT/tools/cross_parity.py" --arm-demo "$BUILD/ocr_demo" --arm-ort "$ORT_LIB" \
    --sysroot "$SYSROOT" --x86-demo "$X86_DEMO" ${X86_ORT:+--x86-ort "$X86_ORT"} \
    --models "${EDGEOCR_CROSS_MODELS:-ppocr-v4det-v6rec}" "${SETS[@]}" \
    ${EDGEOCR_CROSS_BUNDLES:+--bundle-dir "$EDGEOCR_CROSS_BUNDLES"} \
    ${EDGEOCR_CROSS_JSON:+--json "$EDGEOCR_CROSS_JSON"} \
    --nb-dir "$SHARED/fixtures/paddle_lite/nb" "${PAGES[@]}"
else
  say "no x86 ocr_demo at $X86_DEMO (EDGEOCR_X86_DEMO): aarch64 vs x86 comparison skipped"
fi
