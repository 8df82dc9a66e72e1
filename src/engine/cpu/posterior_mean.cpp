// The recompute mode's mean-only pass (FinitePosterior::mean): μ = K(D, X_t)·β with
// β = (K_t + λI)⁻¹y = L⁻ᵀα, from the factor by one back substitution (O(t²)), then t kernel
// values and t multiply-adds per candidate: O(N·t), no row of V. variance() and ucb_argmax()
// still rebuild V (CpuState::refresh), so a caller that reads only μ (a greedy batch) never pays
// the O(N·t²) of the triangular solves.
#include <algorithm>

#include "engine/cpu/fingerprint_block.hpp"
#include "engine/cpu/posterior_state.hpp"

namespace gpb::detail {

namespace {

/// Candidates per kernel block of the mean pass: a multiple of fingerprint_block's 64-row tile,
/// with the block's len × m kernel values under 512 KiB.
int block_len(int m) {
  const int fit = (65536 / std::max(m, 1)) / 64 * 64;
  return std::max(64, fit);
}

}  // namespace

void CpuState::mean_direct(int j0, int j1) const {
  const int R = num_runs(), span = j1 - j0;
  if (span <= 0) return;
  const std::vector<MeanWeights> mw = all_mean_weights();
  int most = 0;
  for (const MeanWeights& w : mw) most = std::max(most, w.rows);
  const bool fingerprint = eval.type == KernelType::Tanimoto || eval.type == KernelType::MinMax;
  const int chunks = (span + chunk - 1) / chunk, tasks = R * chunks, sub = block_len(most);
  const double flops = static_cast<double>(R) * span * most * (d + 6.0);
#pragma omp parallel num_threads(std::max(1, std::min(threads_for(flops), tasks)))
  {
    std::vector<double> kv(static_cast<std::size_t>(sub) * std::max(most, 1));
    Eigen::MatrixXd buf;  // a streamed chunk's encodings
#pragma omp for schedule(dynamic)
    for (int task = 0; task < tasks; ++task) {
      const int r = task / chunks, c0 = j0 + (task % chunks) * chunk;
      const MeanWeights& w = mw[static_cast<std::size_t>(r)];
      const int len = std::min(chunk, j1 - c0), mr = w.rows;
      const RunRows& run = runs[static_cast<std::size_t>(r)];
      const double* b = w.beta.data();
      double* out = mu_direct.data() + static_cast<std::size_t>(r) * ncap + c0;
      std::fill(out, out + len, 0.0);
      if (mr == 0) continue;
      const double* x = chunk_points(c0, len, buf);  // candidate c0 first
      for (int s0 = 0; s0 < len; s0 += sub) {
        const int sl = std::min(sub, len - s0);
        const double* xs = x + static_cast<long>(s0) * d;
        if (fingerprint) {  // kv[i + q·sl] = k(x_i, x_{a_q}), the popcount tiles
          fingerprint_block(eval, xs, sl, run.xs.data(), mr, d, kv.data(), sl, Threads{1, 0.0});
        } else {
          for (int q = 0; q < mr; ++q)
            kernel_row(eval, run.x(q, d), xs, d, 0, sl, kv.data() + static_cast<long>(q) * sl);
        }
        // Per element: Σ_q β_q k(x_j, x_{a_q}) in row order, the same sum whatever the chunk,
        // block or rank the candidate falls in.
        double* o = out + s0;
        for (int q = 0; q < mr; ++q) {
          const double bq = b[q];
          const double* kq = kv.data() + static_cast<long>(q) * sl;
          for (int i = 0; i < sl; ++i) o[i] = mean_step(o[i], bq, kq[i]);
        }
      }
    }
  }
}

void CpuState::refresh_mean() const {
  if (mu_direct.empty()) {
    mu_direct.assign(runs.size() * static_cast<std::size_t>(ncap), 0.0);
    mean_stale = true;
  }
  if (!mean_stale) return;
  mean_direct(0, n);
  mean_stale = false;
}

}  // namespace gpb::detail
