// RKHS-norm-bounded synthetic objective (specs/ldp-bo.md §6.1):
// f = Σ_{i<m} a_i k(·, s_i), a_i ~ U[−1, 1], s_i uniform over the domain's candidates.

#include <algorithm>
#include <utility>
#include <vector>

#include "gpbandit/engine/ops.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/objective/objective.hpp"
#include "objective/blocks.hpp"

namespace gpb {
namespace {

/// Doubles of K(chunk, S) built at a time (bounds memory to 64 MiB per block).
constexpr Eigen::Index kBlockDoubles = Eigen::Index{8} << 20;

class RkhsObjective final : public Objective {
 public:
  RkhsObjective(Kernel kernel, int support, bool fixed)
      : kernel_(std::move(kernel)), support_(support), fixed_(fixed) {}

  std::string name() const override { return "rkhs"; }

  /// Draws, from Rng(seed, run, Objective) with run 0 when fixed: a_0..a_{m−1} = uniform(−1, 1)
  /// first, then s_0..s_{m−1} = below(N). Evaluated as K(D, S)·a in blocks of candidates of the
  /// whole domain (a slice gets the same bits: values_in_blocks).
  /// O(N·m·d) time, O(m·min(N, block)) memory.
  Eigen::VectorXd values(const Context& ctx, const Domain& domain, std::uint64_t seed,
                         std::uint32_t run) const override {
    const Eigen::Index n = domain.size();
    Rng rng(seed, fixed_ ? 0u : run, stream_of(StreamId::Objective));
    Eigen::VectorXd a(support_);
    for (int i = 0; i < support_; ++i) a(i) = rng.uniform(-1.0, 1.0);
    std::vector<long long> support(static_cast<std::size_t>(support_));
    for (long long& s : support)
      s = static_cast<long long>(rng.below(static_cast<std::uint64_t>(n)));
    // A slice of a non-grid domain fetches the support points from their owners (a collective).
    const Eigen::MatrixXd centres = detail::points_at(ctx.communicator(), domain, support);
    const Eigen::Index block = std::max<Eigen::Index>(1, kBlockDoubles / support_);
    return detail::values_in_blocks(
        ctx, domain, block,
        [&](const Eigen::Ref<const Eigen::MatrixXd>& points, Eigen::Ref<Eigen::VectorXd> out) {
          const Eigen::MatrixXd k = kernel_matrix(ctx, kernel_, points, centres);
          out.noalias() = k * a;
        });
  }

 private:
  Kernel kernel_;
  int support_;
  bool fixed_;
};

}  // namespace

std::unique_ptr<Objective> make_rkhs_objective(const Kernel& kernel, int support, bool fixed) {
  GPB_EXPECTS(support >= 1, "objective.support (RKHS m) must be >= 1, got " << support);
  return std::make_unique<RkhsObjective>(kernel, support, fixed);
}

}  // namespace gpb
