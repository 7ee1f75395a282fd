"""Tensors as storage + shape + strides + offset + dtype, in plain Python.

A companion to the lesson "Tensors, shapes and memory layout". It builds a tensor over a flat
Python list (the storage), computes row-major strides, makes views by rewriting strides
(transpose, permute: nothing is copied), walks a view in row-major order to find each
element's storage offset, copies it into a contiguous tensor (what .contiguous() does), counts
a tensor's bytes in each number format and applies NumPy's broadcasting rule to two shapes.

Run:  python3 tensors-and-layout.py                  the lesson's worked examples
      python3 tensors-and-layout.py --shape 2,3,4 --permute 2,0,1
      python3 tensors-and-layout.py --shape 2,5,3,4 --transpose 1,2 --view 2,3,20
      python3 tensors-and-layout.py --a 3 --b 3,1    the (n,) + (n, 1) pitfall
      python3 tensors-and-layout.py --json           the same numbers as JSON
"""
import argparse
import json
import math
import sys

# Bytes per element of each dtype (int4 packs two elements into a byte; tf32 is stored as fp32).
DTYPE_BYTES = {"fp64": 8, "fp32": 4, "tf32": 4, "bf16": 2, "fp16": 2,
               "fp8-e4m3": 1, "fp8-e5m2": 1, "int8": 1, "int4": 0.5}


def row_major_strides(shape):
    """s[d] = product of the sizes to the right of d (the last dimension has stride 1)."""
    strides = [1] * len(shape)
    for d in range(len(shape) - 2, -1, -1):
        strides[d] = strides[d + 1] * max(shape[d + 1], 1)  # an empty dimension steps as size 1
    return strides


def is_contiguous(shape, strides):
    """PyTorch's is_contiguous: row-major strides, ignoring dimensions of size 1."""
    want = row_major_strides(shape)
    return all(n == 1 or s == w for n, s, w in zip(shape, strides, want))


class Tensor:
    """A view onto `storage`: element [i0, i1, ...] is storage[offset + sum(i_d * s_d)]."""

    def __init__(self, storage, shape, strides=None, offset=0):
        self.storage, self.shape, self.offset = storage, list(shape), offset
        self.strides = list(strides) if strides is not None else row_major_strides(shape)

    def transpose(self, i, j):  # swaps two sizes and their strides; no data moves
        n = len(self.shape)
        i, j = i % n, j % n
        shape, strides = self.shape[:], self.strides[:]
        shape[i], shape[j] = shape[j], shape[i]
        strides[i], strides[j] = strides[j], strides[i]
        return Tensor(self.storage, shape, strides, self.offset)

    def permute(self, dims):  # dimension k of the result is dimension dims[k] of self
        dims = [d % len(self.shape) for d in dims]
        if sorted(dims) != list(range(len(self.shape))):
            raise ValueError(f"{dims} is not a permutation of {len(self.shape)} dimensions")
        return Tensor(self.storage, [self.shape[d] for d in dims], [self.strides[d] for d in dims], self.offset)

    def offsets(self):
        """Storage offset of every element, in row-major order of the view (last index fastest)."""
        out = []
        index = [0] * len(self.shape)
        for _ in range(math.prod(self.shape)):
            out.append(self.offset + sum(i * s for i, s in zip(index, self.strides)))
            for d in range(len(self.shape) - 1, -1, -1):  # odometer: bump the last index first
                index[d] += 1
                if index[d] < self.shape[d]:
                    break
                index[d] = 0
        return out

    def contiguous(self):
        """Itself when already contiguous; else a copy of every element into new row-major storage."""
        if is_contiguous(self.shape, self.strides):
            return self, 0
        copy = [self.storage[k] for k in self.offsets()]
        return Tensor(copy, self.shape), len(copy)


def view_strides(shape, strides, new):
    """Strides of y.view(new), or None where PyTorch's rule fails: old dimensions fall into runs
    laid out one after the other (stride[i] = stride[i+1] * size[i+1]; size 1 joins any run), and
    the new sizes must group into the same element counts, run by run, from the right."""
    out, nxt, end = [1] * len(new), len(new), len(shape)
    while end > 0:
        base, begin = strides[end - 1], end - 1
        run = shape[begin]
        while begin > 0 and (shape[begin - 1] == 1 or strides[begin - 1] == run * base):
            begin -= 1
            run *= shape[begin]
        held = 1
        while nxt > 0 and (held < run or new[nxt - 1] == 1):
            out[nxt - 1] = held * base
            nxt -= 1
            held *= new[nxt]
        if held != run:
            return None
        end = begin
    while nxt > 0 and new[nxt - 1] == 1:
        nxt -= 1
    return out if nxt == 0 else None


def broadcast(a, b):
    """NumPy broadcasting: align from the right, sizes equal or 1; strides 0 where stretched."""
    rank = max(len(a), len(b))
    shape = []
    for k in range(rank):  # k-th dimension of the result, from the left
        da, db = k - (rank - len(a)), k - (rank - len(b))
        na = a[da] if da >= 0 else 1
        nb = b[db] if db >= 0 else 1
        if na != nb and na != 1 and nb != 1:
            raise ValueError(f"a's dimension {da} (size {na}) and b's dimension {db} (size {nb}) differ and neither is 1")
        shape.append(nb if na == 1 else na)  # 1 against 0 gives 0: empty tensors broadcast

    def strides_over(x):
        own = row_major_strides(x)
        lead = rank - len(x)
        return [0 if k < lead or x[k - lead] == 1 and shape[k] != 1 else own[k - lead] for k in range(rank)]

    return shape, strides_over(a), strides_over(b)


def ints(text, name, minimum):
    try:
        values = [int(t) for t in text.split(",") if t.strip() != ""]
    except ValueError:
        raise SystemExit(f"tensors-and-layout.py: --{name} must be whole numbers separated by commas, such as 2,3,4")
    if len(values) > 8 or any(v < minimum for v in values):
        raise SystemExit(f"tensors-and-layout.py: --{name} takes at most 8 numbers, each at least {minimum}")
    return values


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="tensors-and-layout.py", description="Strides, views, bytes and broadcasting of tensors.")
    p.add_argument("--shape", default="3,4", help="shape of the contiguous tensor x (default 3,4)")
    p.add_argument("--transpose", default=None, help="two dims to swap, e.g. 0,1 (default 0,1 when --permute is not given)")
    p.add_argument("--permute", default=None, help="a permutation of x's dims, e.g. 2,0,1")
    p.add_argument("--view", default=None, help="a new shape for y.view(...), e.g. 12 (default: all of y's elements in one dimension)")
    p.add_argument("--dtype", default="fp32", choices=list(DTYPE_BYTES), help="element format (default fp32)")
    p.add_argument("--batch", type=int, default=8, help="logits batch (default 8)")
    p.add_argument("--seq", type=int, default=2048, help="logits sequence length (default 2048)")
    p.add_argument("--vocab", type=int, default=50257, help="vocabulary size (default 50257, GPT-2)")
    p.add_argument("--a", default="8,1,6,1", help="shape of a for broadcasting (default 8,1,6,1)")
    p.add_argument("--b", default="7,1,5", help="shape of b for broadcasting (default 7,1,5)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    args = p.parse_args(argv)
    shape = ints(args.shape, "shape", 1)
    if not shape or math.prod(shape) > 4096:
        p.error("--shape needs 1 to 8 sizes and at most 4096 elements (the program walks every one)")
    for name in ("batch", "seq", "vocab"):
        if getattr(args, name) < 1:
            p.error(f"--{name} must be at least 1")

    x = Tensor(list(range(math.prod(shape))), shape)  # storage holds 0, 1, 2, ...: value = offset
    try:
        if args.permute is not None:
            y = x.permute(ints(args.permute, "permute", -8))
            view = f"x.permute({args.permute})"
        else:
            pair = ints(args.transpose or "0,1", "transpose", -8)
            i, j = (pair + [len(shape), len(shape)])[:2]
            if len(pair) != 2 or not (-len(shape) <= i < len(shape) and -len(shape) <= j < len(shape)):
                p.error(f"--transpose needs two dims within the {len(shape)} of x")
            y = x.transpose(i, j)
            view = f"x.transpose({i}, {j})"
    except ValueError as e:
        p.error(str(e))
    size = DTYPE_BYTES[args.dtype]
    offsets = y.offsets()
    packed, copied = y.contiguous()
    # Executed check: the copy holds, in order, the values the view reads.
    assert packed.storage[: len(offsets)] == [y.storage[k] for k in offsets]

    logits_shape = [args.batch, args.seq, args.vocab]
    logits_elements = math.prod(logits_shape)
    logits = {d: logits_elements * DTYPE_BYTES[d] for d in ("fp64", "fp32", "bf16", "fp8-e4m3", "int4")}
    new = ints(args.view, "view", 1) if args.view is not None else [len(offsets)]
    if math.prod(new) != len(offsets):
        p.error(f"--view must hold y's {len(offsets)} elements")
    vs = view_strides(y.shape, y.strides, new)
    a, b = ints(args.a, "a", 0), ints(args.b, "b", 0)
    try:
        out, sa, sb = broadcast(a, b)
        bc = {"shape": out, "elements": math.prod(out), "a_strides_broadcast": sa, "b_strides_broadcast": sb}
    except ValueError as e:
        bc = {"error": f"Shapes do not broadcast: {e}."}

    result = {
        "x": {"shape": x.shape, "strides": x.strides},
        "view": {"shape": y.shape, "strides": y.strides, "contiguous": is_contiguous(y.shape, y.strides),
                 "elements": len(offsets), "bytes": len(offsets) * size, "contiguous_copy_bytes": copied * size,
                 "contiguous_strides": packed.strides, "storage_offsets": offsets,
                 "view_possible": vs is not None, "view_strides": vs, "reshape_copy_bytes": 0 if vs else len(offsets) * size},
        "logits": {"shape": logits_shape, "elements": logits_elements, "bytes": logits},
        "broadcast": bc,
    }
    if args.json:
        print(json.dumps(result, indent=1))
        return
    print(f"x: shape {x.shape}, strides {x.strides} (elements), contiguous")
    print(f"{view}: shape {y.shape}, strides {y.strides}, contiguous: {result['view']['contiguous']}")
    print(f"  storage offsets in row-major order of the view: {offsets}")
    print(f"  .contiguous() copies {copied * size:g} B ({copied} elements of {args.dtype})")
    print(f"  y.view({new}): " + (f"a view, strides {vs}" if vs else f"fails; .reshape copies {len(offsets) * size:g} B"))
    print()
    print(f"logits {logits_shape}: {logits_elements:,} elements")
    for d, n in logits.items():
        print(f"  {d:9s} {n / 1e9:8.2f} GB")
    print()
    if "error" in bc:
        print(f"a {a} + b {b}: {bc['error']}")
    else:
        print(f"a {a} + b {b} -> {bc['shape']}: {bc['elements']:,} elements" + (" (empty)" if not bc["elements"] else ""))
        print(f"  strides over the result: a {sa}, b {sb} (0 = stretched, nothing copied)")


if __name__ == "__main__":
    main()
