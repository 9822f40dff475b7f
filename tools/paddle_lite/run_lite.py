"""Run a .nb file with real Paddle Lite (MobileConfig, the light API) and save
its outputs as the reference.

Runs inside the Paddle Lite root. usage: run_lite.py NAME SUFFIX
reads nb/NAME_SUFFIX.nb and its inputs, in feed order, from
ref/NAME_inputs.npz (in0, in1, ...) or else ref/NAME_input.npy (one input;
made from the model's input shape with a fixed seed when absent). Writes
ref/NAME_lite_SUFFIX.npz (the outputs in fetch order: out0, out1, ...; as many
as ref/NAME_paddle.npz holds, else one) and
ref/NAME_lite_SUFFIX.npy (the first output).
"""

import os
import sys

import numpy as np
from paddlelite.lite import MobileConfig, create_paddle_predictor


def _inputs(pred, name):
    npz = f"ref/{name}_inputs.npz"
    if os.path.exists(npz):
        z = np.load(npz)
        return [z[f"in{i}"] for i in range(len(z.files))]
    path = f"ref/{name}_input.npy"
    if not os.path.exists(path):
        shape = [d if d > 0 else s for d, s in zip(pred.get_input(0).shape(), (1, 3, 64, 64))]
        np.save(path, np.random.default_rng(0).standard_normal(shape).astype(np.float32))
    return [np.load(path).astype(np.float32)]


def _n_outputs(name):
    # the light API cannot list its outputs (and aborts on a bad index): take
    # the count from Paddle's own outputs when make_op_models.py wrote them
    path = f"ref/{name}_paddle.npz"
    if os.path.exists(path):
        return len(np.load(path).files)
    return 1


def main(name: str, suffix: str) -> None:
    cfg = MobileConfig()
    cfg.set_model_from_file(f"nb/{name}_{suffix}.nb")
    pred = create_paddle_predictor(cfg)
    xs = _inputs(pred, name)
    for i, x in enumerate(xs):
        pred.get_input(i).from_numpy(np.ascontiguousarray(x))
    pred.run()
    ys = [np.array(pred.get_output(i).numpy(), copy=True) for i in range(_n_outputs(name))]
    np.savez(f"ref/{name}_lite_{suffix}.npz", **{f"out{i}": y for i, y in enumerate(ys)})
    np.save(f"ref/{name}_lite_{suffix}.npy", ys[0])
    print(
        f"{name}_{suffix}.nb: inputs {[x.shape for x in xs]} -> outputs "
        f"{[(y.shape, str(y.dtype)) for y in ys]}"
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
