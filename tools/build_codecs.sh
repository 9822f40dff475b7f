#!/usr/bin/env bash
# Builds the image decoders the core links (zlib, libspng, libjpeg-turbo) as static archives of
# position-independent code, from Debian 12's source packages, into PREFIX/{include,lib}:
#
#   tools/build_codecs.sh PREFIX                    # for this machine (the wheel: .ci/run)
#   tools/build_codecs.sh PREFIX aarch64-linux-gnu  # with the cross toolchain (cross_aarch64.sh)
#
# then configure with -DEDGEOCR_CODECS_PREFIX=PREFIX (or EDGEOCR_CODECS_PREFIX in the
# environment, which `python -m build` and cibuildwheel pass on): the core links these archives
# instead of the system's shared libraries, and the wheel or libedgeocr.so needs none of them.
#
# Why from source: Debian's libjpeg.a, libpng16.a and libz.a are built as position-independent
# executables' code, not -fPIC (`ld -shared` refuses them: "relocation R_X86_64_PC32 against
# symbol `stderr' can not be used when making a shared object; recompile with -fPIC"), and
# libspng-dev ships no static archive at all. The sources are the same versions as the -dev
# packages a newcomer's editable build links (zlib 1.2.13, libspng 0.7.3, libjpeg-turbo 2.1.5),
# with Debian's patches applied, each tarball checked against the sha256 pinned below.
#
# Needs curl, tar, patch, cmake and a C compiler; nasm for libjpeg-turbo's x86 SIMD (without
# it, x86 decodes with its C code: same pixels, slower). Environment: EDGEOCR_CODECS_SOURCES
# (a folder that keeps the downloads between runs; default PREFIX/src), JOBS (2).
set -euo pipefail

PREFIX=${1:?usage: tools/build_codecs.sh PREFIX [HOST-TRIPLET]}
HOST=${2:-}
JOBS=${JOBS:-2}
mkdir -p "$PREFIX"
PREFIX=$(cd "$PREFIX" && pwd)
SRC=${EDGEOCR_CODECS_SOURCES:-$PREFIX/src}
mkdir -p "$SRC" "$PREFIX/include" "$PREFIX/lib"
ARCHIVE=http://deb.debian.org/debian/pool/main
if [ -n "$HOST" ]; then CC=$HOST-gcc; else CC=${CC:-cc}; fi
CFLAGS="-O2 -fPIC -fvisibility=hidden"
say() { printf '\n== build_codecs: %s\n' "$*"; }

# name  path in the archive  sha256
FILES=(
  "zlib_1.2.13.dfsg.orig.tar.bz2 z/zlib 71feb7947e3c00ef125f83b79a4e529bde31171e5babe48b391f06758d1ab0a1"
  "zlib_1.2.13.dfsg-1.debian.tar.xz z/zlib f66cf3d4f2d7defcd4d1fd1fb0a11ee39f1e01b42ec7d059c9dc5c1695133c44"
  "libspng_0.7.3.orig.tar.gz libs/libspng a50cadbe808ffda1a7fab17d145f52a23b163f34b3eb3696c7ecb5a52340fc1d"
  "libspng_0.7.3-3.debian.tar.xz libs/libspng d24b992ef0839350dda99083a0c62a0bb1e403800ba9e9dfcf57754ba297d187"
  "libjpeg-turbo_2.1.5.orig.tar.gz libj/libjpeg-turbo 254f3642b04e309fee775123133c6464181addc150499561020312ec61c1bf7c"
  "libjpeg-turbo_2.1.5-2.debian.tar.xz libj/libjpeg-turbo cdb2433c2f7101345c1ffa14efb943787c675b86354691a32490845fe4bc9237"
)
say "sources (Debian 12 source packages, sha256 pinned)"
for entry in "${FILES[@]}"; do
  read -r name path sum <<<"$entry"
  if ! echo "$sum  $SRC/$name" | sha256sum -c --status 2>/dev/null; then
    curl -fsSL --retry 3 -o "$SRC/$name.part" "$ARCHIVE/$path/$name"
    mv "$SRC/$name.part" "$SRC/$name"
  fi
  echo "$sum  $SRC/$name" | sha256sum -c --quiet || { echo "build_codecs: $name: wrong sha256" >&2; exit 1; }
done

# Unpacks NAME's orig tarball and Debian's patches into a fresh WORK/NAME and applies the patches
# of debian/patches/series in order (quilt's format: a file name, optionally -pN).
WORK=$(mktemp -d "${TMPDIR:-/tmp}/edgeocr-codecs.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
unpack() {
  local dir=$1 orig=$2 debian=$3
  mkdir -p "$WORK/$dir"
  tar -xf "$SRC/$orig" -C "$WORK/$dir" --strip-components=1
  tar -xf "$SRC/$debian" -C "$WORK/$dir"
  local series=$WORK/$dir/debian/patches/series
  if [ -f "$series" ]; then
    while read -r patch level; do
      case "$patch" in '' | '#'*) continue ;; esac
      patch -s -d "$WORK/$dir" "${level:--p1}" <"$WORK/$dir/debian/patches/$patch"
    done <"$series"
  fi
}

say "zlib 1.2.13 ($CC)"
unpack zlib zlib_1.2.13.dfsg.orig.tar.bz2 zlib_1.2.13.dfsg-1.debian.tar.xz
(
  cd "$WORK/zlib"
  objs=()
  for f in adler32 crc32 deflate infback inffast inflate inftrees trees zutil compress uncompr; do
    # shellcheck disable=SC2086 # CFLAGS is a list of flags
    "$CC" $CFLAGS -DHAVE_UNISTD_H -DHAVE_STDARG_H -c "$f.c" -o "$f.o"
    objs+=("$f.o")
  done
  rm -f "$PREFIX/lib/libz.a"
  "${HOST:+$HOST-}ar" rcs "$PREFIX/lib/libz.a" "${objs[@]}"
  cp zlib.h zconf.h "$PREFIX/include/"
)

say "libspng 0.7.3 ($CC)"
unpack spng libspng_0.7.3.orig.tar.gz libspng_0.7.3-3.debian.tar.xz
(
  cd "$WORK/spng"
  # SPNG_STATIC: no dllexport decorations; zlib from the archive above.
  # shellcheck disable=SC2086
  "$CC" $CFLAGS -DSPNG_STATIC -I"$PREFIX/include" -c spng/spng.c -o spng.o
  rm -f "$PREFIX/lib/libspng.a"
  "${HOST:+$HOST-}ar" rcs "$PREFIX/lib/libspng.a" spng.o
  cp spng/spng.h "$PREFIX/include/"
)

say "libjpeg-turbo 2.1.5 ($CC)"
unpack jpeg libjpeg-turbo_2.1.5.orig.tar.gz libjpeg-turbo_2.1.5-2.debian.tar.xz
cross=()
if [ -n "$HOST" ]; then
  cross=(-DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR="${HOST%%-*}"
         -DCMAKE_C_COMPILER="$CC")
fi
simd=ON
if [ -z "$HOST" ] && [ "$(uname -m)" = x86_64 ] && ! command -v nasm >/dev/null; then
  echo "build_codecs: no nasm: libjpeg-turbo without its x86 SIMD code (same pixels, slower)"
  simd=OFF
fi
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S "$WORK/jpeg" -B "$WORK/jpeg/build" "${gen[@]}" "${cross[@]}" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_POSITION_INDEPENDENT_CODE=ON -DCMAKE_POLICY_VERSION_MINIMUM=3.5 \
  -DCMAKE_C_FLAGS="-fvisibility=hidden" -DENABLE_SHARED=OFF -DENABLE_STATIC=ON \
  -DWITH_TURBOJPEG=OFF -DWITH_SIMD=$simd -DREQUIRE_SIMD=$simd >"$WORK/jpeg.configure.log" 2>&1 \
  || { tail -30 "$WORK/jpeg.configure.log"; exit 1; }
cmake --build "$WORK/jpeg/build" --target jpeg-static -j "$JOBS" >"$WORK/jpeg.build.log" 2>&1 \
  || { tail -30 "$WORK/jpeg.build.log"; exit 1; }
cp "$WORK/jpeg/build/libjpeg.a" "$PREFIX/lib/"
cp "$WORK/jpeg/jpeglib.h" "$WORK/jpeg/jerror.h" "$WORK/jpeg/jmorecfg.h" \
  "$WORK/jpeg/build/jconfig.h" "$PREFIX/include/"

say "done: $PREFIX/lib"
ls -l "$PREFIX/lib"
