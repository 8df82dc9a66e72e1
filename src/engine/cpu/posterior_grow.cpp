// Growing the CPU FinitePosterior's candidate set (FinitePosterior::add_candidates): new columns of
// V by the row recurrence restricted to them, with the per-element steps of the eager update in the
// same order, so a grown posterior equals one built with the candidates from the start.
#include <algorithm>

#include "engine/cpu/posterior_state.hpp"

namespace gpb::detail {

void CpuState::widen(int need) {
  if (need <= ncap) return;
  // Doubling amortises a materialised domain's copies; a streamed one (10⁸ candidates, a few
  // extras) grows by a small step instead of doubling μ and σ².
  const int wide = streamed() ? need + kStreamExtraStep : std::max(need, 2 * ncap);
  const std::size_t R = runs.size(), old_stride = ncap, stride = wide;
  const auto relayout = [&](auto& buf, std::size_t per_run_rows) {
    using T = std::remove_reference_t<decltype(buf[0])>;
    std::unique_ptr<T[]> grown(new T[R * per_run_rows * stride]);
    for (std::size_t r = 0; r < R; ++r) {
      for (std::size_t q = 0; q < static_cast<std::size_t>(rows) && q < per_run_rows; ++q) {
        const T* src = buf.get() + (r * per_run_rows + q) * old_stride;
        std::copy(src, src + n, grown.get() + (r * per_run_rows + q) * stride);
      }
    }
    buf.swap(grown);
  };
  if (!recompute) {
    if (mixed) {
      relayout(vf, static_cast<std::size_t>(cap));
    } else {
      relayout(v, static_cast<std::size_t>(cap));
    }
  }
  const auto per_run = [&](std::vector<double>& a) {
    std::vector<double> grown(R * stride, 0.0);
    for (std::size_t r = 0; r < R; ++r) {
      std::copy(a.begin() + static_cast<long>(r * old_stride),
                a.begin() + static_cast<long>(r * old_stride + n),
                grown.begin() + static_cast<long>(r * stride));
    }
    a.swap(grown);
  };
  per_run(mu);
  per_run(sigma2);
  if (!mu_direct.empty()) per_run(mu_direct);
  points.conservativeResize(Eigen::NoChange, streamed() ? wide - nspace : wide);
  kdiag.conservativeResize(wide);
  ncap = wide;
}

template <class VT>
void CpuState::new_columns(int first, int count) {
  const int R = num_runs(), t = rows;
  const int tasks = R * count;
  const int nt = threads_for(static_cast<double>(tasks) * (0.5 * t * t + 8.0 * t * (d + 4)));
  const std::size_t stride = static_cast<std::size_t>(ncap);
#pragma omp parallel for schedule(static) num_threads(std::max(1, std::min(nt, tasks)))
  for (int task = 0; task < tasks; ++task) {
    const int r = task / count, j = first + task % count;
    double m = 0.0, s2 = kdiag[j];
    grown_column(eval, held_point(j), d, runs[static_cast<std::size_t>(r)], rows,
                 vrow<VT>(r, 0) + j, stride, m, s2);
    s2_of(r)[j] = s2;
    mu_of(r)[j] = m;
  }
}

void CpuState::add_points(const Eigen::Ref<const Eigen::MatrixXd>& pts) {
  const int m = static_cast<int>(pts.cols());
  if (!recompute && lazy) catch_up_all(rows);  // the new blocks start with every row applied
  widen(n + m);
  const int first = n;
  points.middleCols(streamed() ? first - nspace : first, m) = pts;
  kdiag.segment(first, m) = kernel_diag_cpu(kernel, pts, threads);
  if (!order.empty()) {  // new candidates keep their own positions, after the spatial order
    for (int i = first; i < first + m; ++i) {
      order.push_back(i);
      position.push_back(i);
    }
  }
  n += m;
  shard.end += m;
  shard.total += m;
  blocks = (n + kBlock - 1) / kBlock;
  if (!recompute) block_rows.assign(runs.size() * static_cast<std::size_t>(blocks), rows);
  for (int r = 0; r < num_runs(); ++r) {
    for (int j = first; j < n; ++j) {
      s2_of(r)[j] = kdiag[j];
      mu_of(r)[j] = 0.0;
    }
  }
  if (recompute) {
    // mean()'s μ at the new candidates (when stale, the next mean() recomputes every one).
    if (!mu_direct.empty() && !mean_stale) mean_direct(first, n);
    if (stale || rows == 0) return;  // the next refresh covers them
    std::vector<double> col(static_cast<std::size_t>(rows));
    for (int r = 0; r < num_runs(); ++r) {  // μ, σ² at the new candidates from the factor alone
      for (int j = first; j < n; ++j) {
        grown_column(eval, held_point(j), d, runs[static_cast<std::size_t>(r)], rows, col.data(), 1,
                     mu_of(r)[j], s2_of(r)[j]);
      }
    }
    return;
  }
  if (mixed) {
    new_columns<float>(first, m);
  } else {
    new_columns<double>(first, m);
  }
}

template void CpuState::new_columns<double>(int, int);
template void CpuState::new_columns<float>(int, int);

}  // namespace gpb::detail
