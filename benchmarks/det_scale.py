#!/usr/bin/env python3
"""How far det enlarges an image (det_max_upscale): accuracy and time on the images it changes.

    python benchmarks/det_scale.py [--sets dev-small,crops,ui] [--variants 1000,1,1.5,2,3]
        [--models ppocr-v6-small] [--threads 2] [--rounds 1] [--json out.json]

The default det input size rule enlarges an image until its short side is det_limit_side_len
(736), at most det_max_upscale times. Pages whose short side is already at least 736 px read the
same whatever det_max_upscale is, so only images with a shorter side are measured:

* ``dev-small``: the dev pages (../shared/datasets/dev) whose short side is below 736 px (47 of
  124: receipts, forms, signs, UI screens, the tiny labels);
* ``crops``: windows cut from dev pages around a few of their upright lines (seeded, each crop
  keeps the lines wholly inside it as its ground truth): the single labels and snippets a device
  sees;
* ``ui``: UI-sized images rendered here (buttons, menu strips, dialogs, status bars, toasts,
  price tags; DejaVu and Droid Sans Fallback, English and Chinese), written (seeded, with their
  ground truth) under ``$TMPDIR/edgeocr-det-scale/ui``; the crops under ``.../dev_crops``.

Each variant is one Predictor in this process. An image whose det input under a variant is the
first variant's (the baseline) reads the same, so each variant reads only the images it changes,
each time in a block with the baseline reading the same images, the order alternating round by
round (so load from other processes and threads still spinning fall on both alike). Reported per
set and variant, on the images some variant changes (the others read the same under all): det
P/R/H, line accuracy, 1-NED, line accuracy with whitespace, the det input pixels and the time
ratio to the baseline on the images the variant changes (only ratios mean something on a shared
machine).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
WORK = Path(os.environ.get("TMPDIR", "/tmp")) / "edgeocr-det-scale"  # rendered images, crops
LATIN_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
LATIN_BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
CJK_FONT = "/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf"


def dev_dir() -> Path:
    shared = os.environ.get("EDGEOCR_SHARED_DIR")
    root = Path(shared) if shared else HERE.parents[1] / "shared"
    return root / "datasets" / "dev"


# -- the sets -------------------------------------------------------------------------------------


def dev_small(limit_side: int = 736) -> list[dict]:
    from edgeocr import evaluate

    return [s for s in evaluate.load_e2e(dev_dir()) if min(s["width"], s["height"]) < limit_side]


def _quad_bounds(points) -> tuple[float, float, float, float]:
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


def crops(n: int = 60, seed: int = 7) -> list[dict]:
    """Windows around 1-3 neighbouring upright lines of dev pages, with a margin of 0.3-1.5 line
    heights; a crop's ground truth is the lines wholly inside it, none may be cut."""
    from PIL import Image

    from edgeocr import evaluate

    rng = random.Random(seed)
    out_dir = WORK / "dev_crops"
    out_dir.mkdir(parents=True, exist_ok=True)
    pages = [
        s
        for s in evaluate.load_e2e(dev_dir())
        if not {"rotated", "rot90", "rot180", "perspective", "large"} & set(s.get("tags", []))
    ]
    samples: list[dict] = []
    tries = 0
    while len(samples) < n and tries < 50 * n:
        tries += 1
        page = rng.choice(pages)
        lines = [ln for ln in page["lines"] if not ln.get("ignore")]
        if not lines:
            continue
        first = rng.randrange(len(lines))
        chosen = lines[first : first + rng.randint(1, 3)]
        boxes = [_quad_bounds(ln["points"]) for ln in chosen]
        x0, y0 = min(b[0] for b in boxes), min(b[1] for b in boxes)
        x1, y1 = max(b[2] for b in boxes), max(b[3] for b in boxes)
        lh = max(b[3] - b[1] for b in boxes)
        m = lh * rng.uniform(0.3, 1.5)
        x0, y0 = max(0, int(x0 - m)), max(0, int(y0 - m))
        x1 = min(page["width"], int(math.ceil(x1 + m)))
        y1 = min(page["height"], int(math.ceil(y1 + m)))
        # Every line touching the window must lie wholly inside it.
        inside, cut = [], False
        for ln in page["lines"]:
            bx0, by0, bx1, by1 = _quad_bounds(ln["points"])
            if bx1 <= x0 or bx0 >= x1 or by1 <= y0 or by0 >= y1:
                continue
            if bx0 < x0 or by0 < y0 or bx1 > x1 or by1 > y1:
                cut = True
                break
            inside.append(ln)
        if cut or not inside or (x1 - x0) * (y1 - y0) < 400:
            continue
        sid = f"crop{len(samples):03d}_{page['id']}"
        path = out_dir / f"{sid}.png"
        if not path.exists():
            with Image.open(page["path"]) as im:
                im.convert("RGB").crop((x0, y0, x1, y1)).save(path)
        samples.append(
            {
                "id": sid,
                "path": str(path),
                "width": x1 - x0,
                "height": y1 - y0,
                "tags": ["crop"],
                "lines": [
                    {**ln, "points": [[p[0] - x0, p[1] - y0] for p in ln["points"]]}
                    for ln in inside
                ],
            }
        )
    return samples


# UI elements: (kind, texts, font size px, canvas w x h, background, ink)
_UI_EN = [
    "OK",
    "Cancel",
    "Save changes",
    "Sign in",
    "Settings",
    "Wi-Fi connected",
    "Battery 87%",
    "Download complete",
    "Delete this file?",
    "Next",
    "Search",
    "3 new messages",
    "Price: $12.99",
    "Low storage space",
    "Update available",
    "Exit",
]
_UI_ZH = [
    "确定",
    "取消",
    "保存修改",
    "登录",
    "设置",
    "已连接无线网络",
    "电量 87%",
    "下载完成",
    "删除此文件？",
    "下一步",
    "搜索",
    "3 条新消息",
    "价格：12.99 元",
    "存储空间不足",
    "有可用更新",
    "出口",
]


def _render(texts, font_px, canvas, bg, ink, rng, path):
    from PIL import Image, ImageDraw, ImageFont

    im = Image.new("RGB", canvas, bg)
    d = ImageDraw.Draw(im)
    lines = []
    y = rng.randint(2, max(2, font_px // 2))
    for text in texts:
        cjk = any(ord(ch) > 0x2E80 for ch in text)
        font = ImageFont.truetype(
            CJK_FONT if cjk else rng.choice([LATIN_FONT, LATIN_BOLD]), font_px
        )
        x0, y0, x1, y1 = d.textbbox((0, 0), text, font=font)
        tw, th = x1 - x0, y1 - y0
        room = canvas[0] - tw
        if room < 4 or y + th + 2 > canvas[1]:
            break
        x = rng.randint(2, room - 2) if rng.random() < 0.5 else room // 2
        d.text((x - x0, y - y0), text, font=font, fill=ink)
        pad = 0.05 * th
        lines.append(
            {
                "text": text,
                "lang": "zh" if cjk else "en",
                "points": [
                    [x - pad, y - pad],
                    [x + tw + pad, y - pad],
                    [x + tw + pad, y + th + pad],
                    [x - pad, y + th + pad],
                ],
            }
        )
        y += th + rng.randint(max(4, font_px // 2), 2 * font_px)
    im.save(path)
    return lines


def ui_images(n: int = 48, seed: int = 11) -> list[dict]:
    """Rendered UI-sized images: a button or label (one line), a toast or status bar (a wide
    strip), a menu or dialog (2-5 lines); 11-28 px text, light and dark themes."""
    rng = random.Random(seed)
    (WORK / "ui").mkdir(parents=True, exist_ok=True)
    themes = [
        ((255, 255, 255), (20, 20, 20)),
        ((33, 37, 43), (230, 230, 230)),
        ((0, 120, 215), (255, 255, 255)),
        ((245, 245, 240), (90, 90, 90)),
    ]
    samples = []
    for i in range(n):
        kind = ["button", "strip", "menu", "dialog"][i % 4]
        words = _UI_ZH if i % 2 else _UI_EN
        font_px = rng.randint(11, 28)
        bg, ink = rng.choice(themes)
        if kind == "button":
            texts = [rng.choice(words)]
            canvas = (rng.randint(4, 12) * font_px, int(font_px * rng.uniform(1.8, 3.0)))
        elif kind == "strip":
            texts = [" ".join(rng.sample(words, 2)) if i % 2 == 0 else rng.choice(words)]
            canvas = (rng.randint(20, 40) * font_px, int(font_px * rng.uniform(1.6, 2.4)))
        elif kind == "menu":
            texts = rng.sample(words, rng.randint(3, 5))
            canvas = (rng.randint(9, 14) * font_px, font_px * 14)
        else:
            texts = rng.sample(words, 2)
            canvas = (rng.randint(16, 24) * font_px, font_px * 6)
        path = WORK / "ui" / f"ui{i:03d}_{kind}.png"
        lines = _render(texts, font_px, canvas, bg, ink, rng, path)
        if lines:
            samples.append(
                {
                    "id": path.stem,
                    "path": str(path),
                    "width": canvas[0],
                    "height": canvas[1],
                    "tags": ["ui", kind],
                    "lines": lines,
                }
            )
    with open(WORK / "ui" / "ui_images.jsonl", "w", encoding="utf-8") as f:
        for s in samples:
            f.write(json.dumps({**s, "path": Path(s["path"]).name}, ensure_ascii=False) + "\n")
    return samples


# -- the run --------------------------------------------------------------------------------


def read_set(p, samples, images) -> tuple[dict, float]:
    preds = {}
    t0 = time.perf_counter()
    for s, img in zip(samples, images):
        r = p.predict(img)
        preds[s["id"]] = [
            {"text": ln.text, "box": ln.box.tolist(), "score": ln.score} for ln in r.lines
        ]
    return preds, time.perf_counter() - t0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sets", default="dev-small,crops,ui")
    ap.add_argument("--variants", default="1000,1,1.5,2,3", help="det_max_upscale values")
    ap.add_argument("--models", default=None, help="model set (default: the default set)")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument(
        "--rounds", type=int, default=2, help="blocks per variant and set (order alternating)"
    )
    ap.add_argument("--json", default=None)
    args = ap.parse_args(argv)

    import edgeocr
    from edgeocr import _core, evaluate
    from edgeocr.image_io import load_image

    variants = [float(v) for v in args.variants.split(",")]
    predictors = [
        edgeocr.Predictor(models=args.models, threads=args.threads, det_max_upscale=v)
        for v in variants
    ]
    cfg = predictors[0].config
    makers = {"dev-small": dev_small, "crops": crops, "ui": ui_images}
    loadavg = [os.getloadavg()]
    out = {"variants": variants, "models": args.models, "threads": args.threads, "sets": {}}
    for name in args.sets.split(","):
        samples = makers[name]()
        for s in samples:
            s.setdefault("tags", [])
        images = [load_image(s["path"]) for s in samples]
        # The det input of each image under each variant: an image whose input is the first
        # variant's reads the same, so only the images a variant changes are read by it.
        sizes = [
            [
                _core.kernels.det_target_size(
                    s["width"],
                    s["height"],
                    cfg.det_limit_type,
                    cfg.det_limit_side_len,
                    cfg.det_max_side_len,
                    v,
                )
                for s in samples
            ]
            for v in variants
        ]
        changed = [
            [i for i in range(len(samples)) if sizes[k][i] != sizes[0][i]]
            for k in range(len(variants))
        ]
        # Images no variant changes read the same under all of them: left out (counted).
        keep = sorted({i for c in changed[1:] for i in c})
        n_set = len(samples)
        samples = [samples[i] for i in keep]
        images = [images[i] for i in keep]
        sizes = [[row[i] for i in keep] for row in sizes]
        changed = [[j for j, i in enumerate(keep) if i in set(c)] for c in changed]
        for p in predictors:  # first call of each shape outside the timing
            p.predict(images[0])
        seconds = [0.0] * len(variants)  # on the images the variant changes, baseline alike
        base_seconds = [0.0] * len(variants)
        base_preds, _ = read_set(predictors[0], samples, images)
        preds = [dict(base_preds) for _ in variants]
        for r in range(args.rounds):
            order = list(range(1, len(variants)))
            if r % 2:
                order.reverse()
            for k in order:
                idx = changed[k]
                sub = [samples[i] for i in idx]
                subimg = [images[i] for i in idx]
                if r % 2 == 0:
                    got, t0 = read_set(predictors[0], sub, subimg)
                    got, t = read_set(predictors[k], sub, subimg)
                else:
                    got, t = read_set(predictors[k], sub, subimg)
                    _, t0 = read_set(predictors[0], sub, subimg)
                preds[k].update(got)
                seconds[k] += t
                base_seconds[k] += t0
        loadavg.append(os.getloadavg())
        rows = []
        for k, v in enumerate(variants):
            px = sum(w * h for w, h in sizes[k])
            a = evaluate.evaluate_e2e(samples, preds[k])["all"]
            rows.append(
                {
                    "det_max_upscale": v,
                    "changed_images": len(changed[k]),
                    "det_precision": a["det_precision"],
                    "det_recall": a["det_recall"],
                    "det_hmean": a["det_hmean"],
                    "line_acc": a["line_acc"],
                    "one_minus_ned": a["one_minus_ned"],
                    "line_acc_ws": a["line_acc_ws"],
                    "det_mpixels": px / 1e6,
                    "seconds_changed": seconds[k],
                    "time_ratio_changed": seconds[k] / base_seconds[k] if base_seconds[k] else 1.0,
                }
            )
        out["sets"][name] = {
            "n_images_in_set": n_set,
            "n_images": len(samples),
            "n_lines": sum(len(s["lines"]) for s in samples),
            "rows": rows,
        }
        print(
            f"\n{name}: {len(samples)} images that some variant changes (of {n_set}), "
            f"{out['sets'][name]['n_lines']} lines"
        )
        print(
            "| det_max_upscale | images changed | det P | det R | det H | line acc | 1-NED | "
            "line acc ws | det Mpx (all) | time ratio (changed) |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|")
        for row in rows:
            print(
                f"| {row['det_max_upscale']:g} | {row['changed_images']} | "
                f"{row['det_precision']:.4f} | {row['det_recall']:.4f} | "
                f"{row['det_hmean']:.4f} | {row['line_acc']:.4f} | {row['one_minus_ned']:.4f} | "
                f"{row['line_acc_ws']:.4f} | {row['det_mpixels']:.1f} | "
                f"{row['time_ratio_changed']:.2f} |"
            )
        sys.stdout.flush()
    out["loadavg"] = loadavg
    print("loadavg:", loadavg)
    if args.json:
        Path(args.json).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
