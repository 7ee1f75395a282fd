"""Learning versus memorizing: polynomial fits, scored on the data they saw and on fresh data.

A companion to the lesson "Learning versus memorizing". It draws noisy samples of
sin(pi x) on [-1, 1] with the same seeded generator as the course's engine (SplitMix64,
Marsaglia's polar method for the Gaussian noise), fits polynomials in the orthonormal Legendre
basis by Householder QR least squares (ridge: QR of the matrix stacked on sqrt(n*lambda)*I;
more coefficients than samples: the minimum-norm interpolant, by the QR of A transposed), and
prints train, validation and leave-one-out errors against the degree, the effect of weight
decay (with its effective number of parameters), and early stopping of gradient descent. Small sizes, plain Python: the maths, not speed.

Run:  python3 generalization.py                  the lesson's worked example
      python3 generalization.py --samples 6 --seed 1   a second descent below the best small fit
      python3 generalization.py --json           the same numbers as JSON
"""
import argparse
import json
import math
import sys

MASK = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15  # SplitMix64's increment
SALT = {"train": 0x5DEECE66D, "validation": 0x2545F4914F6CDD1D}  # one stream per set


def avalanche(z):
    """SplitMix64's output function: every input bit flips each output bit about half the time."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


class Stream:
    """SplitMix64 (Steele, Lea, Flood 2014) with the engine's uniform and normal draws; the
    starting state hashes seed and salt together, so distinct seeds draw unrelated streams."""

    def __init__(self, seed, salt):
        self.state = avalanche(avalanche((salt + GOLDEN) & MASK) ^ avalanche(seed & MASK))
        self.spare = None

    def next(self):
        self.state = (self.state + GOLDEN) & MASK
        return avalanche(self.state)

    def uniform(self):  # [0, 1) on the grid k * 2^-53
        return (self.next() >> 11) * 2.0**-53

    def normal(self):  # Marsaglia's polar method, two values per accepted pair
        if self.spare is not None:
            value, self.spare = self.spare, None
            return value
        while True:
            u, v = 2 * self.uniform() - 1, 2 * self.uniform() - 1
            s = u * u + v * v
            if 0 < s < 1:
                break
        f = math.sqrt(-2 * math.log(s) / s)
        self.spare = v * f
        return u * f


def draw(n, noise, seed, which):
    """n samples (x uniform on [-1, 1), y = sin(pi x) + noise * N(0, 1))."""
    rng = Stream(seed, SALT[which])
    xs, ys = [], []
    for _ in range(n):
        x = 2 * rng.uniform() - 1
        xs.append(x)
        ys.append(math.sin(math.pi * x) + noise * rng.normal())
    return xs, ys


def legendre_row(x, degree):
    """phi_k(x) = sqrt(2k + 1) P_k(x), orthonormal on [-1, 1] (mean of phi_j phi_k is 0 or 1)."""
    row, prev, cur = [], 0.0, 1.0
    for k in range(degree + 1):
        row.append(math.sqrt(2 * k + 1) * cur)
        prev, cur = cur, ((2 * k + 1) * x * cur - k * prev) / (k + 1)
    return row


def householder_solve(a, y):
    """Least squares min ||a c - y|| for a with rows >= cols: a = QR by Householder
    reflections applied to a copy of a and y, then back substitution R c = Q^T y."""
    a = [row[:] for row in a]
    y = y[:]
    m, p = len(a), len(a[0])
    for j in range(p):
        norm = math.sqrt(sum(a[i][j] ** 2 for i in range(j, m)))
        if norm == 0:
            continue
        alpha = -norm if a[j][j] >= 0 else norm  # reflect onto -sign(a_jj) ||x|| e_1
        v = [0.0] * j + [a[j][j] - alpha] + [a[i][j] for i in range(j + 1, m)]
        vv = sum(t * t for t in v[j:])
        for k in range(j, p):  # a <- (I - 2 v v^T / v^T v) a
            d = 2 * sum(v[i] * a[i][k] for i in range(j, m)) / vv
            for i in range(j, m):
                a[i][k] -= d * v[i]
        d = 2 * sum(v[i] * y[i] for i in range(j, m)) / vv
        for i in range(j, m):
            y[i] -= d * v[i]
    c = [0.0] * p
    for j in reversed(range(p)):
        c[j] = (y[j] - sum(a[j][k] * c[k] for k in range(j + 1, p))) / a[j][j]
    return c


def fit(xs, ys, degree, weight_decay=0.0):
    """Coefficients minimizing (1/n) sum (fit - y)^2 + weight_decay * ||c||^2."""
    n, p = len(xs), degree + 1
    a = [legendre_row(x, degree) for x in xs]
    if weight_decay > 0:  # ridge: least squares on [A; sqrt(n lambda) I] and [y; 0]
        r = math.sqrt(n * weight_decay)
        extra = [[r if k == j else 0.0 for k in range(p)] for j in range(p)]
        return householder_solve(a + extra, ys + [0.0] * p)
    if p <= n:
        return householder_solve(a, ys)
    # More coefficients than samples: the interpolant of least ||c||, c = A^T (A A^T)^-1 y,
    # here as c = Q z with A^T = QR and R^T z = y (the same QR, of A transposed).
    at = [[a[i][k] for i in range(n)] for k in range(p)]
    q_cols, r = gram_schmidt(at)
    z = [0.0] * n
    for i in range(n):  # forward substitution R^T z = y
        z[i] = (ys[i] - sum(r[k][i] * z[k] for k in range(i))) / r[i][i]
    return [sum(q_cols[k][j] * z[k] for k in range(n)) for j in range(p)]


def gram_schmidt(m):
    """Thin QR of a tall matrix m (rows x cols) by modified Gram-Schmidt: columns of Q, and R."""
    rows, cols = len(m), len(m[0])
    q = [[m[i][k] for i in range(rows)] for k in range(cols)]
    r = [[0.0] * cols for _ in range(cols)]
    for k in range(cols):
        for j in range(k):
            r[j][k] = sum(q[j][i] * q[k][i] for i in range(rows))
            q[k] = [q[k][i] - r[j][k] * q[j][i] for i in range(rows)]
        r[k][k] = math.sqrt(sum(t * t for t in q[k]))
        q[k] = [t / r[k][k] for t in q[k]]
    return q, r


def mse(xs, ys, c):
    degree = len(c) - 1
    return sum((sum(a * b for a, b in zip(legendre_row(x, degree), c)) - y) ** 2 for x, y in zip(xs, ys)) / len(xs)


def loo_cv(xs, ys, degree, weight_decay=0.0):
    """Leave-one-out cross-validation: each sample predicted by the fit to the other n - 1."""
    n = len(xs)
    return sum(mse([xs[i]], [ys[i]], fit(xs[:i] + xs[i + 1:], ys[:i] + ys[i + 1:], degree, weight_decay)) for i in range(n)) / n


def effective_parameters(xs, degree, weight_decay=0.0):
    """tr(H) of the hat matrix: H_jj is the fit to the j-th unit vector of labels, at x_j."""
    unit = lambda j: [1.0 if i == j else 0.0 for i in range(len(xs))]  # noqa: E731
    return sum(sum(a * b for a, b in zip(legendre_row(x, degree), fit(xs, unit(j), degree, weight_decay))) for j, x in enumerate(xs))


def gradient_descent(train, val, degree, steps):
    """Gradient descent from c = 0 on (1/n)||Ac - y||^2 with step 1/lambda_max of its Hessian
    (2/n) A^T A; returns the learning rate, 2/lambda_max and (step, train, validation) rows."""
    a = [legendre_row(x, degree) for x in train[0]]
    n, p = len(a), degree + 1
    h = [[2 / n * sum(a[i][j] * a[i][k] for i in range(n)) for k in range(p)] for j in range(p)]
    v = [1.0] * p  # lambda_max by power iteration (h is symmetric positive semi-definite)
    lam = 0.0
    for _ in range(2000):
        w = [sum(h[j][k] * v[k] for k in range(p)) for j in range(p)]
        lam = math.sqrt(sum(t * t for t in w))
        v = [t / lam for t in w]
    lr, c, rows = 1 / lam, [0.0] * p, []
    for step in range(steps + 1):
        rows.append((step, mse(*train, c), mse(*val, c)))
        residual = [sum(a[i][k] * c[k] for k in range(p)) - train[1][i] for i in range(n)]
        grad = [2 / n * sum(residual[i] * a[i][j] for i in range(n)) for j in range(p)]
        c = [c[j] - lr * grad[j] for j in range(p)]
    return lr, 2 / lam, rows


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, not argparse's usage block
        sys.exit(f"{self.prog}: {message} (see --help)")


def main(argv=None):
    ap = Parser(prog="generalization.py", description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=20, help="training samples n (default 20)")
    ap.add_argument("--noise", type=float, default=0.1, help="label noise sigma (default 0.1)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the draws (default 0)")
    ap.add_argument("--max-degree", type=int, default=24, help="largest degree of the sweep (default 24)")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    if not 2 <= args.samples <= 60:
        ap.error("--samples must be between 2 and 60")
    if not 0 <= args.noise <= 10:
        ap.error("--noise must be between 0 and 10")
    if not 0 <= args.seed < 2**32:
        ap.error("--seed must be between 0 and 2^32 - 1")
    if not 1 <= args.max_degree <= 30:
        ap.error("--max-degree must be between 1 and 30")

    n, sigma, seed = args.samples, args.noise, args.seed
    train, val = draw(n, sigma, seed, "train"), draw(200, sigma, seed, "validation")
    sweep = []
    for d in range(args.max_degree + 1):
        c = fit(*train, d)
        row = {"degree": d, "train_mse": mse(*train, c), "validation_mse": mse(*val, c)}
        sweep.append({**row, "loo_cv_mse": loo_cv(*train, d)} if d < n - 1 else row)
    best = min(sweep, key=lambda r: r["validation_mse"])

    # Weight decay and early stopping on a degree-15 polynomial, 20 samples, sigma = 0.2.
    rtrain, rval = draw(20, 0.2, seed, "train"), draw(200, 0.2, seed, "validation")
    plain, ridge = fit(*rtrain, 15), fit(*rtrain, 15, 0.1)
    lr, lr_max, steps = gradient_descent(rtrain, rval, 15, 200)
    stop = min(steps, key=lambda r: r[2])

    out = {
        "noise_variance": sigma**2,
        "truth_validation_mse": sum((math.sin(math.pi * x) - y) ** 2 for x, y in zip(*val)) / len(val[0]),
        "by_degree": sweep,
        "best_degree": best["degree"],
        "best_validation_mse": best["validation_mse"],
        "ridge": {"plain_train_mse": mse(*rtrain, plain), "plain_validation_mse": mse(*rval, plain),
                  "train_mse": mse(*rtrain, ridge), "validation_mse": mse(*rval, ridge),
                  "coefficient_norm": math.sqrt(sum(t * t for t in ridge)),
                  "effective_parameters": effective_parameters(rtrain[0], 15, 0.1)},
        "early_stopping": {"gd_lr": lr, "gd_lr_max_stable": lr_max, "best_step": stop[0],
                           "best_validation_mse": stop[2], "validation_mse_at_200": steps[-1][2]},
    }
    if args.json:
        print(json.dumps(out, indent=1))
        return
    print(f"{n} samples of sin(pi x) + noise (sigma = {sigma}, seed {seed}); noise floor sigma^2 = {sigma**2:.4g}")
    print("degree  coefficients  train MSE     validation MSE  leave-one-out CV")
    for r in sweep:
        mark = "  <- best" if r is best else ("  <- interpolation threshold" if r["degree"] == n - 1 else "")
        print(f"{r['degree']:6d}  {r['degree'] + 1:12d}  {r['train_mse']:.4e}    {r['validation_mse']:.4e}      {format(r['loo_cv_mse'], '10.4e') if 'loo_cv_mse' in r else '-':>10}{mark}")
    rd = out["ridge"]
    print(f"\ndegree 15, 20 samples, sigma = 0.2: least squares validation MSE {rd['plain_validation_mse']:.4g}")
    print(f"weight decay lambda = 0.1: train MSE {rd['train_mse']:.4g}, validation MSE {rd['validation_mse']:.4g}, "
          f"{rd['effective_parameters']:.3g} effective parameters of 16")
    es = out["early_stopping"]
    print(f"early stopping (lr = 1/lambda_max = {es['gd_lr']:.4g}): best step {es['best_step']}, "
          f"validation MSE {es['best_validation_mse']:.4g} (step 200: {es['validation_mse_at_200']:.4g})")


if __name__ == "__main__":
    try:
        main()
    except (ValueError, ZeroDivisionError) as err:
        sys.exit(f"generalization.py: {err}")
