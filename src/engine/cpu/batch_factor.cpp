// The factor block of a batch (engine/cpu/batch_factor.hpp): the row-by-row definition and the
// tiled computation of the same values.
#include "engine/cpu/batch_factor.hpp"

#include <algorithm>

#include "engine/detail/scalar_steps.hpp"

namespace gpb::detail {

BatchFactor factor_batch_by_rows(const Eigen::MatrixXd& S, const double* var0, const double* prior,
                                 const double* noise, const Eigen::MatrixXd* prefix) {
  const int q = static_cast<int>(S.rows());
  const int t = prefix != nullptr ? static_cast<int>(prefix->cols()) : 0;
  BatchFactor f;
  f.lbb = Eigen::MatrixXd::Zero(q, q);
  f.vars.resize(static_cast<std::size_t>(q));
  for (int i = 0; i < q; ++i) {
    double s = var0[i];
    for (int j = 0; j < i; ++j) {
      double acc = S(i, j);
      for (int p = 0; p < t; ++p) acc = row_step(acc, (*prefix)(j, p), (*prefix)(i, p));
      for (int k = 0; k < j; ++k) acc = row_step(acc, f.lbb(j, k), f.lbb(i, k));
      f.lbb(i, j) = acc / f.lbb(j, j);
      s = var_step(s, f.lbb(i, j));
    }
    f.vars[static_cast<std::size_t>(i)] = s;
    f.lbb(i, i) = pivot(noise[i], s, prior[i]);
  }
  return f;
}

namespace {

constexpr int kTile = 8;   // columns per tile
constexpr int kGroup = 8;  // rows per group (the accumulators: kTile·kGroup doubles)

/// acc(i, b) = S(i, j0+b) − Σ_p P(j0+b, p) P(i, p) − Σ_{k<j0} L(j0+b, k) L(i, k), term by term
/// in that order, for the rows i ∈ [i0, i0+g) and the tile's nb columns; rows i ≤ j0+b are
/// computed too and never read.
void tile_prefix(const Eigen::MatrixXd& S, const Eigen::MatrixXd* P, const Eigen::MatrixXd& L,
                 int j0, int nb, int i0, int g, double* acc /* kGroup·kTile, acc[b·kGroup + c] */) {
  const int q = static_cast<int>(S.rows());
  double a[kTile][kGroup];
  for (int b = 0; b < kTile; ++b) {
    for (int c = 0; c < kGroup; ++c) {
      const int i = std::min(i0 + c, q - 1), j = std::min(j0 + b, q - 1);
      a[b][c] = b < nb && c < g && i >= j ? S(i, j) : 0.0;  // S's lower triangle only
    }
  }
  // One step with column k of a q-row matrix: its entries at the tile's columns and the rows.
  const auto step = [&](const double* colk) {
    double l[kTile];
    for (int b = 0; b < kTile; ++b) l[b] = colk[std::min(j0 + b, q - 1)];
    double v[kGroup];
    for (int c = 0; c < kGroup; ++c) v[c] = colk[std::min(i0 + c, q - 1)];
    for (int b = 0; b < kTile; ++b) {
      for (int c = 0; c < kGroup; ++c) a[b][c] = row_step(a[b][c], l[b], v[c]);
    }
  };
  if (P != nullptr) {
    for (long p = 0; p < P->cols(); ++p) step(P->data() + p * P->outerStride());
  }
  for (int k = 0; k < j0; ++k) step(L.data() + k * L.outerStride());  // L(i, k) contiguous in i
  for (int b = 0; b < kTile; ++b) {
    for (int c = 0; c < kGroup; ++c) acc[b * kGroup + c] = a[b][c];
  }
}

}  // namespace

BatchFactor factor_batch(const Eigen::MatrixXd& S, const double* var0, const double* prior,
                         const double* noise, Threads threads, const Eigen::MatrixXd* prefix) {
  const int q = static_cast<int>(S.rows());
  BatchFactor f;
  f.lbb = Eigen::MatrixXd::Zero(q, q);
  f.vars.assign(var0, var0 + q);  // s_i, final once the columns j < i are done
  Eigen::MatrixXd& L = f.lbb;
  std::vector<double> acc;  // the tile's sums, kTile·kGroup per group of rows
  const long t = prefix != nullptr ? prefix->cols() : 0;
  for (int j0 = 0; j0 < q; j0 += kTile) {
    const int nb = std::min(kTile, q - j0);
    const int first = j0 + 1;  // rows below the tile's first column
    const int groups = (q - first + kGroup - 1) / kGroup;
    acc.assign(static_cast<std::size_t>(std::max(groups, 0)) * kTile * kGroup, 0.0);
    const int nt = threads.for_work(2.0 * (q - first) * nb * std::max<long>(j0 + t, 1));
#pragma omp parallel for schedule(static) num_threads(nt)
    for (int gi = 0; gi < groups; ++gi) {
      const int i0 = first + gi * kGroup;
      tile_prefix(S, prefix, L, j0, nb, i0, std::min(kGroup, q - i0),
                  acc.data() + static_cast<std::size_t>(gi) * kTile * kGroup);
    }
    // Within the tile, column by column: the steps k ∈ [j0, j), then the division and σ².
    for (int b = 0; b < nb; ++b) {
      const int j = j0 + b;
      L(j, j) = pivot(noise[j], f.vars[static_cast<std::size_t>(j)], prior[j]);
      const double ljj = L(j, j);
      for (int i = j + 1; i < q; ++i) {
        const int gi = (i - first) / kGroup, c = (i - first) % kGroup;
        double a = acc[static_cast<std::size_t>(gi) * kTile * kGroup + b * kGroup + c];
        for (int k = j0; k < j; ++k) a = row_step(a, L(j, k), L(i, k));
        L(i, j) = a / ljj;
        f.vars[static_cast<std::size_t>(i)] =
            var_step(f.vars[static_cast<std::size_t>(i)], L(i, j));
      }
    }
  }
  return f;
}

}  // namespace gpb::detail
