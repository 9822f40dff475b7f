#!/usr/bin/env bash
# Set up real Paddle Lite 2.10 in a Debian 11 chroot and make .nb files plus
# Paddle Lite's reference outputs from ONNX (or Paddle inference) models.
#
# Paddle Lite's wheels stop at Python 3.10 and have no aarch64 Linux build, so
# the tool runs Paddle Lite 2.10 + Paddle 2.6.2 + x2paddle inside a minimal
# Debian bullseye root (Python 3.9) made with debootstrap. Needs root (chroot,
# mounts) and network access to the Debian mirror and PyPI; about 4 minutes and
# 1.2-1.3 GB the first time, the root is reused afterwards. CI need not run it.
#
# usage: tools/paddle_lite_fixtures.sh WORKDIR MODEL [MODEL...]
#   MODEL:  NAME=PATH.onnx[:INPUT_SHAPE]  e.g. det=ch_PP-OCRv4_det_infer.onnx
#                                              rec=rec.onnx:1,3,48,320 (fixed input shape)
#       or  NAME=DIR  a Paddle inference model folder (model.pdmodel + model.pdiparams)
#       or  ops[=CASE,CASE...]  the tiny single-op models of tools/paddle_lite/make_op_models.py
#           (hard_swish, relu6, bilinear_v2, nearest_v1, eltwise_axis, split, lstm, ...;
#           all cases when none is named), fp32 only
#   env:    TARGETS="x86 arm"  QUANT="fp32 int8"  INPUTS=DIR (NAME_input.npy; else random)
#           OPS_DEST=DIR  also copy the op models' files (NAME_{x86,arm}.nb, NAME_inputs.npz,
#                         NAME_lite_x86.npz, NAME_paddle.npz) there, e.g. tests/data/paddle_lite_ops
#           KEEP_MOUNTS=1 leave the root's proc/dev/work mounts in place on exit
# Output: WORKDIR/out/nb/NAME_{x86,arm}[_int8].nb and, for the x86 files,
#         WORKDIR/out/ref/NAME_lite_x86[_int8].npy (Paddle Lite run on NAME_input.npy;
#         .npz: every output, out0, out1, ... in fetch order).
#         arm references need an armv8 build of Paddle Lite (e.g. under qemu-aarch64).
#         A failed opt or run of one file is reported and the others go on
#         (see WORKDIR/opt_*.log); the tool then exits 1.
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
cleanup(){
  [ -n "${KEEP_MOUNTS:-}" ] && return 0
  for m in "$ROOT/work" "$ROOT/dev" "$ROOT/proc"; do
    mountpoint -q "$m" && { umount "$m" || umount -l "$m"; }
  done
  return 0
}
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
   "$HERE"/paddle_lite/run_lite.py "$HERE"/paddle_lite/make_op_models.py "$WORK/job/s/"
[ -n "${INPUTS:-}" ] && cp "$INPUTS"/*_input.npy "$WORK/job/ref/" 2>/dev/null || true

FAILED=""
fail(){ FAILED="$FAILED $1"; echo "[paddle_lite_fixtures] FAILED: $1" >&2; }

# opt + Paddle Lite run for one Paddle inference model in job/paddle/NAME
convert_and_run(){
  local name=$1 quants=$2 m=paddle/$1/inference_model t q sfx extra
  inroot "python s/patch_pdmodel.py $m/model.pdmodel $m/model_lite.pdmodel" || { fail "$name patch"; return 0; }
  for t in $TARGETS; do
    for q in $quants; do
      sfx=""; extra=""
      [ "$q" = int8 ] && { sfx=_int8; extra="--quant_model=true --quant_type=QUANT_INT8"; }
      log "$name: opt --valid_targets=$t $q"
      rm -f "$WORK/job/nb/${name}_${t}${sfx}.nb"
      inroot "paddle_lite_opt --model_file=$m/model_lite.pdmodel --param_file=$m/model.pdiparams \
        --optimize_out=nb/${name}_${t}${sfx} --valid_targets=$t $extra" >"$WORK/opt_${name}_${t}${sfx}.log" 2>&1 || true
      # the written file, not opt's exit status, says whether it worked
      [ -s "$WORK/job/nb/${name}_${t}${sfx}.nb" ] || fail "opt ${name}_${t}${sfx} (see $WORK/opt_${name}_${t}${sfx}.log)"
    done
  done
  # Paddle Lite here is the x86 build: run the x86 files only (an arm file on x86 gives garbage)
  case " $TARGETS " in *" x86 "*) ;; *) return 0;; esac
  for q in $quants; do
    sfx=""; [ "$q" = int8 ] && sfx=_int8
    [ -s "$WORK/job/nb/${name}_x86${sfx}.nb" ] || continue
    inroot "python s/run_lite.py $name x86$sfx" || fail "run ${name}_x86${sfx}"
  done
}

OPS_CASES=""
for spec in "$@"; do
  case "$spec" in
    ops|ops=*)
      sel=""; [ "$spec" != ops ] && sel=$(echo "${spec#ops=}" | tr , ' ')
      log "op models: ${sel:-all cases} (make_op_models.py)"
      rm -f "$WORK/job/op_cases.txt"
      inroot "python s/make_op_models.py /work $sel" || fail "make_op_models (some cases)"
      touch "$WORK/job/op_cases.txt"
      sel=$(cat "$WORK/job/op_cases.txt")   # the cases that built
      for name in $sel; do
        [ -f "$WORK/job/paddle/$name/inference_model/model.pdmodel" ] || continue
        convert_and_run "$name" fp32
        OPS_CASES="$OPS_CASES $name"
      done
      continue;;
  esac
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
      >"$WORK/x2paddle_$name.log" 2>&1 || { fail "x2paddle $name (see $WORK/x2paddle_$name.log)"; continue; }
  fi
  convert_and_run "$name" "$QUANT"
done

mkdir -p "$WORK/out"
cp -r "$WORK/job/nb" "$WORK/job/ref" "$WORK/out/"
if [ -n "${OPS_DEST:-}" ] && [ -n "$OPS_CASES" ]; then
  mkdir -p "$OPS_DEST"
  for name in $OPS_CASES; do
    for f in nb/${name}_x86.nb nb/${name}_arm.nb ref/${name}_inputs.npz ref/${name}_lite_x86.npz \
             ref/${name}_paddle.npz; do
      [ -f "$WORK/job/$f" ] && cp "$WORK/job/$f" "$OPS_DEST/"
    done
  done
  log "op models copied to $OPS_DEST ($(du -sh "$OPS_DEST" | cut -f1))"
fi
log "done: $WORK/out/nb, $WORK/out/ref"
ls -l "$WORK/out/nb" "$WORK/out/ref"
[ -z "$FAILED" ] || { echo "[paddle_lite_fixtures] failures:$FAILED" >&2; exit 1; }
