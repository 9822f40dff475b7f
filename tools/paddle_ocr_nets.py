"""PP-OCR architectures in paddle.nn, written small, with seeded random weights.

Exports Paddle inference models (``paddle.jit.save``) in the PIR ``.json``
format or the older ``.pdmodel`` format, with an ``inference.yml`` in the
layout PaddleOCR's exporter writes, for the Paddle tests
(tests/python/test_paddle_models.py) and ``edgeocr bench --compare paddle``.

The networks follow PaddleOCR's mobile models, layer for layer in kind:

- det: DB. A MobileNetV3 backbone (inverted residuals: 1x1 expand, depthwise
  kxk, squeeze-excite, 1x1 project; hardswish) with four stages at strides
  4/8/16/32, an FPN neck (1x1 laterals, nearest x2 upsampling and add, 3x3
  smoothing, concatenation at stride 4) and the DB head (3x3 conv, BN, ReLU,
  two 2x2 transposed convs, sigmoid): N x 1 x H x W probabilities.
- rec: SVTR-LCNet. A PP-LCNet backbone (depthwise-separable blocks that
  halve the height and keep most of the width), the SVTR neck (convs, global
  mixing transformer blocks over the sequence, shortcut concatenation) and
  the CTC head (linear, softmax): N x T x C.
- cls: a MobileNetV3-small style net, global pooling, linear, softmax: N x 2.

``--size ppocr`` builds them at the widths and depths of PP-OCRv4 mobile
det / PP-OCRv4 mobile rec / the v2 cls (similar parameter counts and
FLOPs), for benchmarks; ``--size small`` (the default) keeps them tiny for
tests. The weights are random (fixed by ``--seed``): these networks read no
text; they are for conversion parity and runtime speed, not accuracy.

Usage: python tools/paddle_ocr_nets.py --role det --format json --out DIR [--seed 0]
(--format pdmodel sets FLAGS_enable_pir_api=0 before paddle is imported: the
only way Paddle 3.x still writes the older program format).
"""

from __future__ import annotations

import argparse
import os
import sys

# Widths per size: (det backbone stages, det neck, rec channels, rec svtr dims, cls channels).
SIZES = {
    "small": {
        "det_stages": [(16, 1), (24, 1), (32, 1), (48, 1)],
        "det_neck": 32,
        "rec_stages": [(32, 1), (48, 1), (64, 1)],
        "rec_dims": 32,
        "rec_depth": 1,
        "cls_channels": [8, 16, 24],
        "charset": 40,
    },
    "ppocr": {
        "det_stages": [(24, 2), (40, 3), (80, 4), (160, 3)],
        "det_neck": 96,
        "rec_stages": [(64, 2), (128, 3), (256, 4)],
        "rec_dims": 64,
        "rec_depth": 2,
        "cls_channels": [16, 24, 48, 96],
        "charset": 6623,
    },
}


def build(role: str, size: str = "small", seed: int = 0):
    """The network for ``role`` (det/cls/rec), eval mode, weights seeded by ``seed``."""
    import numpy as np
    import paddle
    from paddle import nn
    from paddle.nn import functional as F

    paddle.seed(seed)
    np.random.seed(seed)
    cfg = SIZES[size]

    class ConvBN(nn.Layer):
        def __init__(self, cin, cout, k, stride=1, groups=1, act="hardswish"):
            super().__init__()
            self.conv = nn.Conv2D(
                cin, cout, k, stride, (k - 1) // 2, groups=groups, bias_attr=False
            )
            self.bn = nn.BatchNorm2D(cout)
            self.act = act

        def forward(self, x):
            x = self.bn(self.conv(x))
            if self.act == "hardswish":
                return F.hardswish(x)
            if self.act == "relu":
                return F.relu(x)
            if self.act == "swish":
                return F.swish(x)
            return x

    class SE(nn.Layer):
        def __init__(self, c):
            super().__init__()
            self.pool = nn.AdaptiveAvgPool2D(1)
            self.fc1 = nn.Conv2D(c, max(8, c // 4), 1)
            self.fc2 = nn.Conv2D(max(8, c // 4), c, 1)

        def forward(self, x):
            s = F.relu(self.fc1(self.pool(x)))
            return x * F.hardsigmoid(self.fc2(s), slope=0.2, offset=0.5)

    class InvertedResidual(nn.Layer):
        def __init__(self, cin, cout, k, stride, expand=3, se=True):
            super().__init__()
            mid = cin * expand
            self.expand = ConvBN(cin, mid, 1)
            self.dw = ConvBN(mid, mid, k, stride, groups=mid)
            self.se = SE(mid) if se else None
            self.project = ConvBN(mid, cout, 1, act=None)
            self.residual = stride == 1 and cin == cout

        def forward(self, x):
            y = self.dw(self.expand(x))
            if self.se is not None:
                y = self.se(y)
            y = self.project(y)
            return x + y if self.residual else y

    def up(x, like):
        # Nearest upsampling to the size of `like`. PaddleOCR writes scale_factor=2, which
        # paddle2onnx 2.1 cannot read from Paddle 3.3's PIR programs (an integer scale list
        # where it expects floats); the output size gives the same op and values.
        return F.interpolate(x, size=paddle.shape(like)[2:4], mode="nearest")

    def legacy(op_type, inputs, attrs, fallback):
        # Paddle 3.3 traces sigmoid, exp, tanh, matmul and gelu only into PIR programs (in
        # old-IR tracing they fail: "must be Value, but got Variable"): for the .pdmodel
        # format the same operator is appended to the old program directly.
        if paddle.in_dynamic_mode() or paddle.framework.in_pir_mode():
            return fallback()
        from paddle.base.layer_helper import LayerHelper

        helper = LayerHelper(op_type)
        out = helper.create_variable_for_type_inference(dtype="float32")
        helper.append_op(type=op_type, inputs=inputs, outputs={"Out": [out]}, attrs=attrs)
        return out

    def sigmoid(x):
        return legacy("sigmoid", {"X": [x]}, {}, lambda: F.sigmoid(x))

    def matmul(a, b, trans_y=False):
        return legacy(
            "matmul_v2",
            {"X": [a], "Y": [b]},
            {"trans_x": False, "trans_y": trans_y},
            lambda: paddle.matmul(a, b, transpose_y=trans_y),
        )

    class DBNet(nn.Layer):
        def __init__(self):
            super().__init__()
            self.stem = ConvBN(3, 16, 3, 2)
            stages, cin = [], 16
            for i, (c, depth) in enumerate(cfg["det_stages"]):
                blocks = []
                for j in range(depth):
                    stride = 2 if j == 0 else 1
                    blocks.append(InvertedResidual(cin, c, 5 if i >= 2 else 3, stride, se=i >= 2))
                    cin = c
                stages.append(nn.Sequential(*blocks))
            self.stages = nn.LayerList(stages)
            n = cfg["det_neck"]
            self.lateral = nn.LayerList([nn.Conv2D(c, n, 1) for c, _ in cfg["det_stages"]])
            self.smooth = nn.LayerList(
                [nn.Conv2D(n, n // 4, 3, padding=1) for _ in cfg["det_stages"]]
            )
            self.head_conv = ConvBN(n, n // 4, 3, act="relu")
            self.up1 = nn.Conv2DTranspose(n // 4, n // 4, 2, 2)
            self.up1_bn = nn.BatchNorm2D(n // 4)
            self.up2 = nn.Conv2DTranspose(n // 4, 1, 2, 2)

        def forward(self, x):
            x = self.stem(x)
            feats = []
            for s in self.stages:
                x = s(x)
                feats.append(x)
            lat = [lay(f) for lay, f in zip(self.lateral, feats)]
            for i in range(len(lat) - 1, 0, -1):
                lat[i - 1] = lat[i - 1] + up(lat[i], lat[i - 1])
            outs = []
            for i, (sm, f) in enumerate(zip(self.smooth, lat)):
                y = sm(f)
                if i:
                    y = up(y, lat[0])
                outs.append(y)
            y = self.head_conv(paddle.concat(outs, axis=1))
            y = F.relu(self.up1_bn(self.up1(y)))
            return sigmoid(self.up2(y))

    class Block(nn.Layer):  # SVTR global mixing block
        def __init__(self, dim, heads):
            super().__init__()
            self.norm1 = nn.LayerNorm(dim, epsilon=1e-6)
            self.heads = heads
            self.qkv = nn.Linear(dim, dim * 3)
            self.proj = nn.Linear(dim, dim)
            self.norm2 = nn.LayerNorm(dim, epsilon=1e-6)
            self.fc1 = nn.Linear(dim, dim * 2)
            self.fc2 = nn.Linear(dim * 2, dim)

        def forward(self, x):
            d = x.shape[-1]
            qkv = self.qkv(self.norm1(x)).reshape([0, -1, 3, self.heads, d // self.heads])
            qkv = qkv.transpose([2, 0, 3, 1, 4])  # 3 x N x heads x T x d/heads
            q, k, v = qkv[0] * (d // self.heads) ** -0.5, qkv[1], qkv[2]
            a = F.softmax(matmul(q, k, trans_y=True), axis=-1)
            y = matmul(a, v).transpose([0, 2, 1, 3]).reshape([0, -1, d])
            x = x + self.proj(y)
            return x + self.fc2(F.swish(self.fc1(self.norm2(x))))

    class SVTRLCNet(nn.Layer):
        def __init__(self):
            super().__init__()
            self.stem = ConvBN(3, 16, 3, 2)
            layers, cin = [], 16
            # PP-LCNet: depthwise-separable blocks. H 48 -> 3 and W -> W/8 before the pool:
            # the first stage halves both, the others only the height (stride (2, 1)).
            for i, (c, depth) in enumerate(cfg["rec_stages"]):
                for j in range(depth):
                    stride = (2 if i == 0 else (2, 1)) if j == 0 else 1
                    layers.append(
                        nn.Sequential(
                            nn.Conv2D(cin, cin, 3, stride, 1, groups=cin, bias_attr=False),
                            nn.BatchNorm2D(cin),
                            nn.Hardswish(),
                            ConvBN(cin, c, 1),
                        )
                    )
                    cin = c
            self.backbone = nn.Sequential(*layers)
            self.pool = nn.AvgPool2D(kernel_size=(3, 2), stride=(3, 2))
            d = cfg["rec_dims"]
            self.conv1 = ConvBN(cin, cin // 8, 3, act="swish")
            self.conv2 = ConvBN(cin // 8, d, 1, act="swish")
            self.blocks = nn.LayerList([Block(d, 4) for _ in range(cfg["rec_depth"])])
            self.norm = nn.LayerNorm(d, epsilon=1e-6)
            self.conv3 = ConvBN(d, cin, 1, act="swish")
            self.conv4 = ConvBN(2 * cin, cin // 8, 3, act="swish")
            self.conv1x1 = ConvBN(cin // 8, d, 1, act="swish")
            self.head = nn.Linear(d, cfg["charset"] + 2)

        def forward(self, x):
            x = self.pool(self.backbone(self.stem(x)))  # N x C x 1 x W/8
            shortcut = x
            z = self.conv2(self.conv1(x))
            n, c, h, w = z.shape
            seq = z.flatten(2).transpose([0, 2, 1])
            for b in self.blocks:
                seq = b(seq)
            seq = self.norm(seq)
            z = seq.transpose([0, 2, 1]).reshape([-1, c, h, w])
            z = self.conv3(z)
            z = self.conv1x1(self.conv4(paddle.concat([shortcut, z], axis=1)))
            seq = z.squeeze(2).transpose([0, 2, 1])  # N x T x D
            return F.softmax(self.head(seq), axis=2)

    class ClsNet(nn.Layer):
        def __init__(self):
            super().__init__()
            ch = cfg["cls_channels"]
            self.stem = ConvBN(3, ch[0], 3, 2)
            blocks, cin = [], ch[0]
            for c in ch[1:]:
                blocks.append(InvertedResidual(cin, c, 3, 2, se=True))
                cin = c
            self.blocks = nn.Sequential(*blocks)
            self.conv = ConvBN(cin, 2 * cin, 1)
            self.pool = nn.AdaptiveAvgPool2D(1)
            self.fc = nn.Linear(2 * cin, 2)

        def forward(self, x):
            x = self.pool(self.conv(self.blocks(self.stem(x))))
            return F.softmax(self.fc(x.flatten(1)), axis=1)

    net = {"det": DBNet, "rec": SVTRLCNet, "cls": ClsNet}[role]()
    # BN statistics away from the identity, so the folded scales are exercised.
    for name, p in net.named_parameters():
        if name.endswith("_mean"):
            p.set_value(np.random.uniform(-0.1, 0.1, p.shape).astype("float32"))
    for layer in net.sublayers():
        if isinstance(layer, nn.BatchNorm2D):
            layer._mean.set_value(np.random.uniform(-0.1, 0.1, layer._mean.shape).astype("float32"))
            layer._variance.set_value(
                np.random.uniform(0.5, 1.5, layer._variance.shape).astype("float32")
            )
    net.eval()
    return net


INPUT_SHAPES = {"det": [None, 3, None, None], "rec": [None, 3, 48, None], "cls": [None, 3, 48, 192]}


def charset(size: str = "small") -> list[str]:
    """The dictionary of the rec net: printable ASCII letters and digits first."""
    n = SIZES[size]["charset"]
    base = [chr(c) for c in range(0x21, 0x7F)]
    extra = [chr(0x4E00 + i) for i in range(max(0, n - len(base)))]
    return (base + extra)[:n]


def inference_yml(role: str, size: str = "small") -> str:
    """An inference.yml in the layout of PaddleOCR's exporter (tools/export_model.py)."""
    import yaml

    if role == "det":
        doc = {
            "Global": {"model_name": f"edgeocr-test-{role}"},
            "PreProcess": {
                "transform_ops": [
                    {"DecodeImage": {"channel_first": False, "img_mode": "BGR"}},
                    {"DetLabelEncode": None},
                    {"DetResizeForTest": {"limit_side_len": 736, "limit_type": "min"}},
                    {
                        "NormalizeImage": {
                            "mean": [0.485, 0.456, 0.406],
                            "std": [0.229, 0.224, 0.225],
                            "scale": "1./255.",
                            "order": "hwc",
                        }
                    },
                    {"ToCHWImage": None},
                    {"KeepKeys": {"keep_keys": ["image", "shape", "polys", "ignore_tags"]}},
                ]
            },
            "PostProcess": {
                "name": "DBPostProcess",
                "thresh": 0.25,
                "box_thresh": 0.55,
                "max_candidates": 800,
                "unclip_ratio": 1.8,
            },
        }
    elif role == "rec":
        doc = {
            "Global": {"model_name": f"edgeocr-test-{role}"},
            "PreProcess": {
                "transform_ops": [
                    {"DecodeImage": {"channel_first": False, "img_mode": "BGR"}},
                    {"CTCLabelEncode": None},
                    {"RecResizeImg": {"image_shape": [3, 48, 320]}},
                    {"KeepKeys": {"keep_keys": ["image", "label", "length"]}},
                ]
            },
            "PostProcess": {"name": "CTCLabelDecode", "character_dict": charset(size)},
        }
    else:
        doc = {
            "Global": {"model_name": f"edgeocr-test-{role}"},
            "PreProcess": {
                "transform_ops": [
                    {"DecodeImage": {"channel_first": False, "img_mode": "BGR"}},
                    {"ClsLabelEncode": {"label_list": ["0", "180"]}},
                    {"ClsResizeImg": {"image_shape": [3, 48, 192]}},
                    {"KeepKeys": {"keep_keys": ["image", "label"]}},
                ]
            },
            "PostProcess": {"name": "ClsPostProcess", "label_list": ["0", "180"]},
        }
    return yaml.safe_dump(doc, allow_unicode=True, sort_keys=False)


def export(role: str, out: str, *, size: str = "small", seed: int = 0, yml: bool = True) -> str:
    """Writes ``out``/inference.{json|pdmodel} + .pdiparams (+ inference.yml); returns ``out``.

    The format is whatever this process's Paddle writes: PIR ``.json``
    unless FLAGS_enable_pir_api=0 was set before paddle was imported.
    """
    import paddle

    net = build(role, size, seed)
    os.makedirs(out, exist_ok=True)
    spec = [paddle.static.InputSpec(INPUT_SHAPES[role], "float32", "x")]
    paddle.jit.save(net, os.path.join(out, "inference"), input_spec=spec)
    if yml:
        with open(os.path.join(out, "inference.yml"), "w", encoding="utf-8") as f:
            f.write(inference_yml(role, size))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--role", choices=("det", "cls", "rec"), action="append", required=True)
    ap.add_argument("--format", choices=("json", "pdmodel"), default="json")
    ap.add_argument("--size", choices=sorted(SIZES), default="small")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-yml", action="store_true", help="write no inference.yml")
    ap.add_argument("--out", required=True, help="folder; one sub-folder per role")
    args = ap.parse_args(argv)
    # Paddle reads its flags when it is imported: the older format needs PIR off first.
    os.environ["FLAGS_enable_pir_api"] = "0" if args.format == "pdmodel" else "1"
    for role in args.role:
        d = export(
            role,
            os.path.join(args.out, role),
            size=args.size,
            seed=args.seed,
            yml=not args.no_yml,
        )
        print(d, sorted(os.listdir(d)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
