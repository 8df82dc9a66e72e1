import numpy as np
import gpbandit as gb

print("gpbandit", gb.__version__)
ctx = gb.Context("cpu")
domain = gb.Domain.grid([0, 0], [1, 1], [100, 100])      # N = 10 000 candidates
kernel = gb.Kernel.matern(2.5, lengthscale=0.2)
x = domain.points                                         # 2×N view of the points, no copy
f = np.sin(3 * x[0]) * np.cos(2 * x[1])                   # the unknown function
rng = np.random.default_rng(0)

# 1. GP-UCB by hand on the exact posterior, 4 independent runs in lockstep.
post = gb.FinitePosterior(ctx, kernel, domain, runs=4, noise_variance=1e-2, capacity=50)
for t in range(50):
    idx, _ = post.ucb_argmax(np.full(4, 2.0))             # one candidate per run
    post.observe(idx, f[idx] + 0.1 * rng.standard_normal(4))
print("simple regret per run:", [round(float(f.max() - f[post.mean(r).argmax()]), 4) for r in range(4)])

# 2. A registered policy with locally private rewards (CTL, secure noise source).
pol = gb.make_policy("gp_ucb", context=ctx, domain=domain, kernel=kernel, runs=4, horizon=50,
                     ldp={"epsilon": 2.0, "B": 1.0, "R": 0.5})
ctl, src = gb.CtlMechanism(**pol.ldp_request(0)), gb.secure_source()
for t in range(1, 51):
    c = pol.select(t, t - 1)                              # 4×1 candidate indices
    pol.observe(c, ctl.privatize(f[c] + rng.uniform(-0.5, 0.5, c.shape), src))
print(f"CTL: nominal epsilon {ctl.epsilon}, proven for floating point {ctl.proven_epsilon:.15f}")

# 3. A whole experiment from a config file (the CLI's format): runs.csv, summary.json.
res = gb.run("examples/demo.json", out_dir="/tmp/gpbandit-demo", runs=2)
for p in res.policies:
    print(f"{p.label:15s} R_T = {p.cumulative_mean:7.2f} ± {p.cumulative_sd:.2f}")
