"""Adapt a Paddle 2.6 program to what Paddle Lite 2.10's opt understands.

* ``matmul_v2`` becomes ``matmul`` (2.10's x86 target has no matmul_v2
  kernel): trans_x/trans_y become transpose_X/transpose_Y, alpha = 1;
* reshape2 / transpose2 / squeeze2 / unsqueeze2 / flatten2 / flatten_contiguous_range
  without an ``XShape`` output get one (2.10 expects it);
* attributes Paddle 2.6 no longer writes but 2.10's op readers require get
  their old default (relu6 ``threshold`` 6, swish ``beta`` 1).

Runs inside the Paddle Lite root (paddlepaddle 2.6). usage: patch_pdmodel.py IN OUT
"""

import sys

from paddle.base import proto

# op -> [(attribute, proto AttrType name, default)] that Lite 2.10 reads unconditionally
MISSING_ATTRS = {"relu6": [("threshold", "FLOAT", 6.0)], "swish": [("beta", "FLOAT", 1.0)]}
XSHAPE_OPS = {
    "reshape2",
    "transpose2",
    "squeeze2",
    "unsqueeze2",
    "flatten2",
    "flatten_contiguous_range",
}


def main(src: str, dst: str) -> None:
    fw = proto.framework_pb2
    prog = fw.ProgramDesc()
    with open(src, "rb") as f:
        prog.ParseFromString(f.read())
    n_matmul = n_xshape = n_attr = 0
    for block in prog.blocks:
        var_by_name = {v.name: v for v in block.vars}
        for op in block.ops:
            if op.type == "matmul_v2":
                op.type = "matmul"
                renames = {"trans_x": "transpose_X", "trans_y": "transpose_Y"}
                for a in op.attrs:
                    a.name = renames.get(a.name, a.name)
                alpha = op.attrs.add()
                alpha.name, alpha.type, alpha.f = "alpha", fw.AttrType.FLOAT, 1.0
                n_matmul += 1
            for name, kind, default in MISSING_ATTRS.get(op.type, []):
                if not any(a.name == name for a in op.attrs):
                    a = op.attrs.add()
                    a.name, a.type = name, getattr(fw.AttrType, kind)
                    setattr(a, {"FLOAT": "f", "INT": "i", "BOOLEAN": "b"}[kind], default)
                    n_attr += 1
            if op.type in XSHAPE_OPS and not any(o.parameter == "XShape" for o in op.outputs):
                out = next(o for o in op.outputs if o.parameter == "Out").arguments[0]
                xs = block.vars.add()
                xs.CopyFrom(var_by_name[out])
                xs.name, xs.persistable = out + ".xshape", False
                slot = op.outputs.add()
                slot.parameter = "XShape"
                slot.arguments.append(xs.name)
                n_xshape += 1
    with open(dst, "wb") as f:
        f.write(prog.SerializeToString())
    print(
        f"{src}: {n_matmul} matmul_v2 -> matmul, {n_xshape} XShape outputs added, "
        f"{n_attr} attributes given their default"
    )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
