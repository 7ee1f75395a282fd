"""Backpropagation by hand: reverse-mode gradients, a gradient check and activation memory.

A companion to the lesson "Gradients by backpropagation", in its order: (1) parse an
expression into a computational graph (a node per operation, a leaf per variable), run the
forward pass and one reverse pass from the output (gradient 1), each node adding grad times
its local derivative into its operands; (2) check that gradient with forward and central
differences for h = 10^-1 ... 10^-12, in fp64 or with every operation rounded to fp32;
(3) count the activations an L-layer MLP keeps for backward, without checkpoints, with one
every k layers and every ceil(sqrt(L)) layers (Chen et al. 2016).

Run:  python3 backpropagation.py                       the lesson's worked example
      python3 backpropagation.py --expression "tanh(x*y) + x" --values x=0.5,y=2
      python3 backpropagation.py --layers 256 --k 16 --json
"""
import argparse, json, math, re, struct, sys

# Local derivatives d(op)/d(operand), from the operand values a, b and the node's value v.
UNARY = {
    "exp": (math.exp, lambda a, v: v), "log": (math.log, lambda a, v: 1 / a),
    "sin": (math.sin, lambda a, v: math.cos(a)), "cos": (math.cos, lambda a, v: -math.sin(a)),
    "tanh": (math.tanh, lambda a, v: 1 - v * v), "sqrt": (math.sqrt, lambda a, v: 0.5 / v),
    "sigmoid": (lambda a: 1 / (1 + math.exp(-a)), lambda a, v: v * (1 - v)),
    "relu": (lambda a: a if a > 0 else 0.0, lambda a, v: 1.0 if a > 0 else 0.0),
}
BINARY = {"+": "add", "-": "sub", "*": "mul", "/": "div", "^": "pow"}
# Binary operations: the value, and the local derivatives with respect to both operands.
VALUE = {"add": lambda a: a[0] + a[1], "sub": lambda a: a[0] - a[1], "mul": lambda a: a[0] * a[1],
         "div": lambda a: a[0] / a[1], "pow": lambda a: a[0] ** a[1], "neg": lambda a: -a[0]}
LOCAL = {"add": lambda a, v: [1.0, 1.0], "sub": lambda a, v: [1.0, -1.0],
         "mul": lambda a, v: [a[1], a[0]],  # d(ab)/da = b, d(ab)/db = a: the forward values are needed
         "div": lambda a, v: [1 / a[1], -a[0] / (a[1] * a[1])], "neg": lambda a, v: [-1.0],
         "pow": lambda a, v: [a[1] * a[0] ** (a[1] - 1), v * math.log(a[0]) if a[0] > 0 else 0.0]}


class Graph:
    """Nodes in topological order: (op, label, inputs); a variable is one leaf for all its uses."""

    def __init__(self, text):
        self.nodes, self.leaf = [], {}
        self.tokens = re.findall(r"\d+\.?\d*(?:[eE][-+]?\d+)?|[A-Za-z_]\w*|[-+*/^()]|\S", text)
        self.pos = 0
        self.root = self.sum()
        if self.pos != len(self.tokens):
            raise ValueError(f"unexpected '{self.tokens[self.pos]}'")

    def add(self, op, label, inputs=()):
        self.nodes.append((op, label, tuple(inputs)))
        return len(self.nodes) - 1

    def peek(self):
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None
    def take(self):
        self.pos += 1
        return self.tokens[self.pos - 1] if self.pos <= len(self.tokens) else None
    def chain(self, ops, operand):  # operand (op operand)*, left-associative
        node = operand()
        while self.peek() in ops:
            op = self.take()
            node = self.add(BINARY[op], op, (node, operand()))
        return node
    def sum(self):  # sum := product (('+' | '-') product)*
        return self.chain(("+", "-"), self.product)
    def product(self):  # product := unary (('*' | '/') unary)*
        return self.chain(("*", "/"), self.unary)

    def unary(self):  # unary := '-' unary | power, so -x^2 = -(x^2)
        if self.peek() == "-":
            self.take()
            return self.add("neg", "-", (self.unary(),))
        return self.power()

    def power(self):  # power := atom ('^' unary)?, right-associative
        base = self.atom()
        if self.peek() == "^":
            self.take()
            return self.add("pow", "^", (base, self.unary()))
        return base

    def closed(self, node):
        if self.take() != ")":
            raise ValueError("'(' is never closed")
        return node
    def atom(self):
        t = self.take()
        if t is None:
            raise ValueError("the expression ends too early")
        if t == "(":
            return self.closed(self.sum())
        if re.fullmatch(r"\d.*", t):
            return self.add("const", t)
        if re.fullmatch(r"[A-Za-z_]\w*", t):
            if self.peek() == "(":
                if t not in UNARY:
                    raise ValueError(f"unknown function '{t}'")
                self.take()
                return self.add(t, t, (self.closed(self.sum()),))
            if t not in self.leaf:
                self.leaf[t] = self.add("var", t)
            return self.leaf[t]
        raise ValueError(f"unexpected '{t}'")


def fp32(x):
    """x rounded to the nearest fp32 number (the engine rounds every operation in fp32 mode)."""
    try:
        return struct.unpack("f", struct.pack("f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)


def forward(g, values, rnd=float):
    """The forward pass: every node's value, operands first, each result rounded by rnd."""
    v = []
    for op, label, ins in g.nodes:
        a = [v[i] for i in ins]
        if op == "var":
            x = values[label]
        elif op == "const":
            x = float(label)
        elif op in UNARY:
            x = UNARY[op][0](a[0])
        else:
            x = VALUE[op](a)
        if isinstance(x, complex):
            raise ValueError("a negative number to a fractional power")
        v.append(rnd(x))
    return v


def backward(g, v):
    """The reverse pass: grad[root] = 1, then each node, last to first, adds into its operands."""
    grad = [0.0] * len(g.nodes)
    depends = [False] * len(g.nodes)  # does the node depend on a variable?
    for n, (op, _, ins) in enumerate(g.nodes):
        depends[n] = op == "var" or any(depends[i] for i in ins)
    grad[g.root] = 1.0
    visits = 0
    for n in range(len(g.nodes) - 1, -1, -1):
        op, _, ins = g.nodes[n]
        if not depends[n]:
            continue  # a constant subexpression: nothing to send back
        visits += 1
        a, out = [v[i] for i in ins], grad[n]
        local = LOCAL[op](a, v[n]) if op in LOCAL else [UNARY[op][1](a[0], v[n])] if op in UNARY else []
        for i, d in zip(ins, local):
            if depends[i]:  # constants get no gradient (the engine reports 0)
                grad[i] += out * d  # fan-out: a node used twice receives two contributions
    return grad, visits


def difference(g, values, var, h, central, rnd):
    """Finite difference (f(x+h) - f(x))/h or (f(x+h) - f(x-h))/2h, arithmetic rounded by rnd."""
    x, h = rnd(values[var]), rnd(h)
    f = lambda at: forward(g, {**values, var: at}, rnd)[g.root]
    if central:
        return rnd(rnd(f(rnd(x + h)) - f(rnd(x - h))) / rnd(2 * h))
    return rnd(rnd(f(rnd(x + h)) - f(x)) / h)


def gradient_check(g, values, var, analytic, method, dtype):
    rnd = fp32 if dtype == "fp32" else float
    sweep = []
    for k in range(1, 13):
        h = 10.0 ** -k
        try:
            sweep.append({"step": h, "abs_error": abs(difference(g, values, var, h, method == "central", rnd) - analytic)})
        except (ValueError, ZeroDivisionError):
            pass  # the step leaves f's domain
    best = min(sweep, key=lambda s: s["abs_error"])
    return {"sweep": sweep, "best_step": best["step"], "best_error": best["abs_error"]}


BYTES = {"fp64": 8, "fp32": 4, "bf16": 2, "fp16": 2}


def backprop_memory(layers, width, batch, element_bytes, k):
    """Peak activation bytes of an MLP: each layer keeps input and pre-activation (2·b·w values);
    with checkpoints, they + one segment re-run from its checkpoint (its first input, counted once)."""
    layer, checkpoint = 2 * batch * width * element_bytes, batch * width * element_bytes
    peak = lambda kk: math.ceil(layers / kk) * checkpoint + min(kk, layers) * layer - checkpoint
    forward_flops = 2 * batch * width * width * layers
    sqrt_k = math.ceil(math.sqrt(layers))
    return {"layer_bytes": layer, "weight_bytes": layers * width * width * element_bytes, "none_peak_bytes": layers * layer,
            "every_k_peak_bytes": peak(k),
            "sqrt_k": sqrt_k, "sqrt_peak_bytes": peak(sqrt_k), "best_k": min(range(1, layers + 1), key=peak),
            "forward_flops": forward_flops, "training_flops": 3 * forward_flops,
            "recompute_fraction": forward_flops / (3 * forward_flops)}  # one extra forward pass


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    p = Parser(prog="backpropagation.py", description="Reverse-mode gradients, a gradient check, activation memory.")
    p.add_argument("--expression", default="x^2*y + sin(x)", help="expression (default x^2*y + sin(x))")
    p.add_argument("--values", default="x=2,y=3", help="variable values, such as x=2,y=3")
    p.add_argument("--check", default="exp(x)", help="function of x to gradient-check at x = 1 (default exp(x))")
    p.add_argument("--layers", type=int, default=64, help="MLP depth L (default 64)")
    p.add_argument("--width", type=int, default=4096, help="width w (default 4096)")
    p.add_argument("--batch", type=int, default=32, help="batch b (default 32)")
    p.add_argument("--k", type=int, default=16, help="checkpoint every k layers (default 16)")
    p.add_argument("--dtype", default="bf16", choices=sorted(BYTES), help="activation type (default bf16)")
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    a = p.parse_args(argv)
    for name, top in (("layers", 4096), ("width", 1 << 20), ("batch", 1 << 20), ("k", 4096)):
        if not 1 <= getattr(a, name) <= top:
            p.error(f"--{name} must be a whole number from 1 to {top}")
    try:
        values = {k.strip(): float(v) for k, v in (item.split("=") for item in a.values.split(","))}
    except ValueError:
        p.error("--values must look like x=2,y=3")
    try:
        g, check = Graph(a.expression), Graph(a.check)
        v = forward(g, values)
        grad, visits = backward(g, v)
        gradients = {name: grad[n] for name, n in g.leaf.items()}
        x1 = {"x": 1.0}
        exact = backward(check, forward(check, x1))[0][check.leaf["x"]]
        checks = {f"{m}_{d}": gradient_check(check, x1, "x", exact, m, d) for d in ("fp64", "fp32") for m in ("forward", "central")}
    except KeyError as e:
        p.error(f"the variable {e} has no value")
    except (ValueError, ZeroDivisionError, OverflowError) as e:
        p.error(f"cannot evaluate: {e}")
    mem = backprop_memory(a.layers, a.width, a.batch, BYTES[a.dtype], a.k)
    if a.json:
        print(json.dumps({"value": v[g.root], "gradients": gradients, "nodes": len(g.nodes), "reverse_visits": visits,
                          "analytic": exact, "checks": checks, "memory": mem}, indent=1))
        return
    print(f"f = {a.expression} at {a.values}: {len(g.nodes)} nodes")
    for n, (op, label, ins) in enumerate(g.nodes):
        print(f"  node {n:2} {op:7} {label:>5}  inputs {list(ins)!s:8}  value {v[n]:.4g}  grad {grad[n]:.4g}")
    print(f"f = {v[g.root]:.4f}; " + ", ".join(f"df/d{k} = {x:.4f}" for k, x in gradients.items()) +
          f"; the reverse pass visits {visits} nodes")
    print(f"\ngradient check of d/dx {a.check} at x = 1 (exact {exact:.6f}):")
    for name, c in checks.items():  # a step too small to move x in this precision checks nothing
        stuck = (fp32 if name.endswith("fp32") else float)(1.0 + c["best_step"]) == 1.0
        print(f"  {name:14} best h = {c['best_step']:.0e}, error {c['best_error']:.2e}" + ("  (x + h rounds to x: no check)" if stuck else ""))
    print(f"\nMLP of {a.layers} layers, width {a.width}, batch {a.batch}, {a.dtype}:")
    print(f"  peak: {mem['none_peak_bytes'] / 1e6:.2f} MB without checkpoints, {mem['every_k_peak_bytes'] / 1e6:.2f} MB "
          f"every {a.k} layers, {mem['sqrt_peak_bytes'] / 1e6:.2f} MB every ceil(sqrt L) = {mem['sqrt_k']} (best k = {mem['best_k']})")
    print(f"  weights: {mem['weight_bytes'] / 1e9:.2f} GB; recomputation: one extra forward, {mem['forward_flops'] / 1e9:.1f} GFLOP = "
          f"{100 * mem['recompute_fraction']:.0f}% of {mem['training_flops'] / 1e9:.1f} GFLOP")


if __name__ == "__main__":
    main()
