#!/usr/bin/env bash
# Set up real Paddle Lite 2.10 in a Debian 11 chroot and make .nb files plus
# Paddle Lite's reference outputs from ONNX (or Paddle inference) models.
#
# Paddle Lite's wheels stop at Python 3.10 and have no aarch64 Linux build, so
# the tool runs Paddle Lite 2.10 + Paddle 2.6.2 + x2paddle inside a minimal
# Debian bullseye root (Python 3.9) made with debootstrap. Needs root (chroot,
# mounts) and network access to the Debian mirror and PyPI; about 4 minutes and
# 1.3 GB the first time, the root is reused afterwards. CI need not run it.
#
# usage: tools/paddle_lite_fixtures.sh WORKDIR MODEL [MODEL...]
#   MODEL:  NAME=PATH.onnx[:INPUT_SHAPE]  e.g. det=ch_PP-OCRv4_det_infer.onnx
#                                              rec=rec.onnx:1,3,48,320 (fixed input shape)
#       or  NAME=DIR  a Paddle inference model folder (model.pdmodel + model.pdiparams)
#   env:    TARGETS="x86 arm"  QUANT="fp32 int8"  INPUTS=DIR (NAME_input.npy; else random)
# Output: WORKDIR/out/nb/NAME_{x86,arm}[_int8].nb and, for the x86 files,
#         WORKDIR/out/ref/NAME_lite_x86[_int8].npy (Paddle Lite run on NAME_input.npy).
#         arm references need an armv8 build of Paddle Lite (e.g. under qemu-aarch64).
set -euo pipefail

WORK=${1:?usage: $0 WORKDIR NAME=MODEL [NAME=MODEL...]}; shift
[ $# -ge 1 ] || { echo "give at least one NAME=MODEL" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "needs root (debootstrap, chroot, mount)" >&2; exit 2; }
TARGETS=${TARGETS:-"x86 arm"}; QUANT=${QUANT:-"fp32 int8"}
HERE=$(cd "$(dirname "$0")" && pwd)
WORK=$(mkdir -p "$WORK" && cd "$WORK" && pwd)
ROOT=$WORK/rootfs
log(){ echo "[paddle_lite_fixtures] $*"; }

# 1. the Debian 11 root with Python 3.9 (kept between runs)
if [ ! -x "$ROOT/opt/pl/bin/paddle_lite_opt" ]; then
  command -v debootstrap >/dev/null || { apt-get update -q && apt-get install -y -q debootstrap; }
  if [ ! -x "$ROOT/usr/bin/python3" ]; then
    log "debootstrap bullseye into $ROOT"
    debootstrap --variant=minbase \
      --include=python3,python3-pip,python3-venv,libgomp1,ca-certificates \
      bullseye "$ROOT" >"$WORK/debootstrap.log"
  fi
fi
# the host's resolver and CA bundle (a proxy's CA, if any) for pip inside the root
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
[ -f /etc/ssl/certs/ca-certificates.crt ] && cp /etc/ssl/certs/ca-certificates.crt "$ROOT/etc/ssl/certs/host-ca.crt"

mountpoint -q "$ROOT/proc" || mount -t proc proc "$ROOT/proc"
mountpoint -q "$ROOT/dev" || mount --bind /dev "$ROOT/dev"
mkdir -p "$ROOT/work" "$WORK/job"
mountpoint -q "$ROOT/work" || mount --bind "$WORK/job" "$ROOT/work"
cleanup(){ umount "$ROOT/work" "$ROOT/dev" "$ROOT/proc" 2>/dev/null || true; }
trap cleanup EXIT

# run a command in the root with a clean environment
inroot(){
  chroot "$ROOT" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
    PATH=/opt/pl/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    PIP_CERT=/etc/ssl/certs/host-ca.crt PIP_DISABLE_PIP_VERSION_CHECK=1 \
    /bin/bash -c "cd /work && $*"
}

if [ ! -x "$ROOT/opt/pl/bin/paddle_lite_opt" ]; then
  log "pip install paddlelite 2.10, paddlepaddle 2.6.2, x2paddle 1.6.0"
  inroot "python3 -m venv /opt/pl && pip install -q -U pip && pip install -q 'numpy<2' \
    paddlelite==2.10 paddlepaddle==2.6.2 x2paddle==1.6.0 onnx==1.14.1 protobuf==3.20.3 six requests"
fi

# 2. models -> Paddle inference models -> .nb -> Paddle Lite outputs
mkdir -p "$WORK/job/src" "$WORK/job/paddle" "$WORK/job/nb" "$WORK/job/ref" "$WORK/job/s"
cp "$HERE"/paddle_lite/prepare_onnx.py "$HERE"/paddle_lite/patch_pdmodel.py \
   "$HERE"/paddle_lite/run_lite.py "$WORK/job/s/"
[ -n "${INPUTS:-}" ] && cp "$INPUTS"/*_input.npy "$WORK/job/ref/" 2>/dev/null || true

for spec in "$@"; do
  name=${spec%%=*}; src=${spec#*=}; shape=""
  case "$src" in *.onnx:*) shape=${src##*:}; src=${src%:*};; esac
  if [ -d "$src" ]; then
    log "$name: Paddle inference model $src"
    mkdir -p "$WORK/job/paddle/$name/inference_model"
    cp "$src"/*.pdmodel "$WORK/job/paddle/$name/inference_model/model.pdmodel"
    cp "$src"/*.pdiparams "$WORK/job/paddle/$name/inference_model/model.pdiparams"
  else
    log "$name: ONNX $src -> x2paddle"
    cp "$src" "$WORK/job/src/$name.onnx"
    inroot "python s/prepare_onnx.py src/$name.onnx src/${name}_clean.onnx"
    extra=""
    [ -n "$shape" ] && extra="-isd \"{'x':[${shape}]}\""
    inroot "x2paddle -f onnx -m src/${name}_clean.onnx -s paddle/$name -df true $extra" \
      >"$WORK/x2paddle_$name.log" 2>&1 || { echo "x2paddle failed, see $WORK/x2paddle_$name.log" >&2; exit 1; }
  fi
  m=paddle/$name/inference_model
  inroot "python s/patch_pdmodel.py $m/model.pdmodel $m/model_lite.pdmodel"
  for t in $TARGETS; do
    for q in $QUANT; do
      sfx=""; extra=""
      [ "$q" = int8 ] && { sfx=_int8; extra="--quant_model=true --quant_type=QUANT_INT8"; }
      log "$name: opt --valid_targets=$t $q"
      inroot "paddle_lite_opt --model_file=$m/model_lite.pdmodel --param_file=$m/model.pdiparams \
        --optimize_out=nb/${name}_${t}${sfx} --valid_targets=$t $extra" >"$WORK/opt_${name}_${t}${sfx}.log" 2>&1
    done
  done
  # Paddle Lite here is the x86 build: run the x86 files only (an arm file on x86 gives garbage)
  for q in $QUANT; do
    sfx=""; [ "$q" = int8 ] && sfx=_int8
    case " $TARGETS " in *" x86 "*) inroot "python s/run_lite.py $name x86$sfx";; esac
  done
done

mkdir -p "$WORK/out"
cp -r "$WORK/job/nb" "$WORK/job/ref" "$WORK/out/"
log "done: $WORK/out/nb, $WORK/out/ref"
ls -l "$WORK/out/nb" "$WORK/out/ref"
