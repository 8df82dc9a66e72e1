/// @file batch_factor.hpp
/// The factor block of a batch of q rows (FinitePosterior::observe_batch): the Cholesky factor
/// L_bb of S + Λ (Λ = diag(λ_i), the rows' noise variances), computed with observe()'s per-element
/// steps (row_step, var_step, pivot), so that a block update appends the same factor rows, bit for
/// bit, as q single observations would.
#pragma once

#include <Eigen/Core>
#include <vector>

#include "engine/cpu/ops_cpu.hpp"

namespace gpb::detail {

/// Inputs: S (q×q, lower triangle read) = k(x_i, x_j) − Σ_{p<t} v_p[a_i] v_p[a_j], or k(x_j, x_i)
/// alone with `prefix` P (q×t, P(i, p) = v_p[a_i]) given, whose steps then open every element's
/// chain; var0[i] = σ²_t[a_i], the variance before the batch; prior[i] = k(x_i, x_i) (the pivot
/// floor's scale); noise[i] = λ_i. Output: lbb (q×q, lower; L[t+i, t+j]) and vars[i] =
/// σ²_{t+i−1}[a_i], clamped as var_step does. With the prefix, the values are those of q single
/// observations in recompute mode (column_of_rows over the t + i rows before each), bit for bit.
struct BatchFactor {
  Eigen::MatrixXd lbb;
  std::vector<double> vars;
};

/// The definition, row by row: for i = 0..q−1, for j < i, L(i, j) = (S(i, j) − Σ_{p<t} P(j, p)
/// P(i, p) − Σ_{k<j} L(j, k) L(i, k)) / L(j, j) with the sums taken in that order, term by term,
/// by row_step, σ² ← var_step(σ², L(i, j)), then L(i, i) = pivot(λ_i, σ², prior[i]). One dependent
/// chain per element and strided reads: O(q³/6 + q²t/2) steps at about 1 ns each.
BatchFactor factor_batch_by_rows(const Eigen::MatrixXd& S, const double* var0, const double* prior,
                                 const double* noise, const Eigen::MatrixXd* prefix = nullptr);

/// The same values bit for bit (every element sees the same steps in the same order, and the
/// build does not contract or reassociate), computed column by column in tiles: the steps with
/// k below a tile of columns run over groups of rows and columns at once (independent chains,
/// contiguous reads, each loaded value used by the whole tile) on `threads`, the rest within the
/// tile column by column.
BatchFactor factor_batch(const Eigen::MatrixXd& S, const double* var0, const double* prior,
                         const double* noise, Threads threads,
                         const Eigen::MatrixXd* prefix = nullptr);

}  // namespace gpb::detail
