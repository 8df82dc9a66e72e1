import warnings

import numpy as np
import gpbandit as gb


def f(x):  # your function: one point (a 1-D array) in, one number out (here: to minimise)
    return float((x[0] - 0.3) ** 2 + 10 * (x[1] - 0.6) ** 2 + 0.3 * np.sin(15 * x[0]))


# 1. One call, like scikit-optimize's gp_minimize: the whole box (4096 Sobol candidates as each
#    ask's global step, refined beyond them), log EI, ARD Matérn-5/2 refitted after every call.
res = gb.minimize(f, [(0.0, 1.0), (0.0, 1.0)], n_calls=30, seed=0)
print(f"minimize: f({np.round(res.x, 3)}) = {res.fun:.4f} after {res.nfev} calls")
print("  fitted lengthscales:", res.optimizer.kernel.lengthscales.round(3))

# 2. Ask/tell: you run the evaluations (here 3 at a time) and report them, in any order; also
#    points the optimizer did not suggest. Rewards are maximised unless minimize=True.
opt = gb.Optimizer({"type": "grid", "lower": [0, 0], "upper": [1, 1], "counts": [100, 100]},
                   minimize=True, fit_every=5, seed=0)
opt.tell([[0.5, 0.5]], [f(np.array([0.5, 0.5]))])     # a point you had already evaluated
# Once converged, a batch repeats observed grid points, which a ModelWarning would say each time.
warnings.simplefilter("ignore", gb.ModelWarning)
for _ in range(10):
    points, indices = opt.ask(3)                         # a batch of 3 candidates
    opt.tell(indices, [f(x) for x in points])            # report by index (or by point)
mean, var = opt.predict([[0.3, 0.6], [0.9, 0.1]])       # the model anywhere
print(f"ask/tell: best f = {opt.best.y:.4f} at {opt.best.x} after {len(opt)} evaluations")
print("  predicted f at (0.3, 0.6) and (0.9, 0.1):", mean.round(3), "sd", np.sqrt(var).round(3))
opt.save("/tmp/gpbandit-opt.json")                      # or pickle.dumps(opt)
again = gb.Optimizer.load("/tmp/gpbandit-opt.json")     # continues with the same choices
print("  same next batch after save/load:", (again.ask(3).indices == opt.ask(3).indices).all())
