"""Run a .nb file with real Paddle Lite (MobileConfig, the light API) and save
its first output as the reference.

Runs inside the Paddle Lite root. usage: run_lite.py NAME SUFFIX
reads nb/NAME_SUFFIX.nb and ref/NAME_input.npy (made from the model's input
shape with a fixed seed when absent), writes ref/NAME_lite_SUFFIX.npy.
"""
import os
import sys

import numpy as np
from paddlelite.lite import MobileConfig, create_paddle_predictor


def main(name: str, suffix: str) -> None:
    cfg = MobileConfig()
    cfg.set_model_from_file(f"nb/{name}_{suffix}.nb")
    pred = create_paddle_predictor(cfg)
    inp = pred.get_input(0)
    path = f"ref/{name}_input.npy"
    if os.path.exists(path):
        x = np.load(path).astype(np.float32)
    else:
        shape = [d if d > 0 else s for d, s in zip(inp.shape(), (1, 3, 64, 64))]
        x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
        np.save(path, x)
    inp.from_numpy(x)
    pred.run()
    y = pred.get_output(0).numpy()
    np.save(f"ref/{name}_lite_{suffix}.npy", y)
    print(f"{name}_{suffix}.nb: input {x.shape} -> output {y.shape}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
