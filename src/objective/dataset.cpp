// A data set as a bandit (specs/ldp-bo.md §6.2–6.3): arms = columns, f = column means,
// kernel = empirical covariance or Pearson correlation, rewards = a resampled row.

#include <cmath>
#include <utility>

#include "gpbandit/error.hpp"
#include "gpbandit/objective/objective.hpp"

namespace gpb {
namespace {

/// Checks the data; columns are named 1-based in messages, like CSV columns.
void check_data(const Eigen::MatrixXd& data, const std::string& label) {
  GPB_EXPECTS(data.rows() >= 2, label << ": need at least 2 rows (samples), got " << data.rows());
  GPB_EXPECTS(data.cols() >= 1, label << ": need at least 1 column (arm), got 0");
  for (Eigen::Index j = 0; j < data.cols(); ++j) {
    for (Eigen::Index i = 0; i < data.rows(); ++i) {
      GPB_EXPECTS(std::isfinite(data(i, j)), label << ": row " << i + 1 << ", column " << j + 1
                                                   << " is not finite (" << data(i, j) << ")");
    }
    GPB_EXPECTS(data.col(j).maxCoeff() > data.col(j).minCoeff(),
                label << ": column " << j + 1
                      << " has zero variance (constant column; correlation undefined)");
  }
}

/// Sample covariance (n − 1) of the columns, or their Pearson correlation (columns z-scored with
/// the sample sd first). Exactly symmetric; unit diagonal for the correlation. O(n·c²).
Eigen::MatrixXd column_covariance(const Eigen::MatrixXd& data, bool correlation) {
  const double denom = static_cast<double>(data.rows() - 1);
  Eigen::MatrixXd centred = data.rowwise() - data.colwise().mean();
  if (correlation) {
    for (Eigen::Index j = 0; j < centred.cols(); ++j) {
      centred.col(j) /= std::sqrt(centred.col(j).squaredNorm() / denom);
    }
  }
  Eigen::MatrixXd k = (centred.transpose() * centred) / denom;
  k = (0.5 * (k + k.transpose())).eval();
  if (correlation) k.diagonal().setOnes();
  return k;
}

class DatasetObjective final : public Objective {
 public:
  DatasetObjective(Eigen::MatrixXd data, const Eigen::MatrixXd& kernel_data, bool correlation,
                   std::string label)
      : data_(std::move(data)),
        means_(data_.colwise().mean().transpose()),
        kernel_(Kernel::precomputed(column_covariance(kernel_data, correlation))),
        label_(std::move(label)) {
    const Eigen::MatrixXd eta = data_.rowwise() - means_.transpose();
    constants_.noise_bound = eta.cwiseAbs().maxCoeff();
    constants_.noise_moment = eta.squaredNorm() / static_cast<double>(eta.size());
    constants_.reward_moment = data_.squaredNorm() / static_cast<double>(data_.size());
  }

  std::string name() const override { return label_; }

  /// The column means (the domain must have one candidate per column).
  Eigen::VectorXd values(const Context&, const Domain& domain, std::uint64_t,
                         std::uint32_t) const override {
    GPB_EXPECTS(domain.size() == means_.size(), label_ << ": the domain has " << domain.size()
                                                       << " candidates but the data set has "
                                                       << means_.size() << " columns (arms)");
    return means_.segment(domain.slice_begin(), domain.points().cols());  // a slice: its part
  }

  /// data(row, j) with row = rng.below(rows) (one draw; `fj` and `noise` are not used).
  double reward(int j, double fj, const NoiseModel& noise, Rng& rng) const override {
    (void)fj;
    (void)noise;
    GPB_EXPECTS(j >= 0 && j < data_.cols(),
                label_ << ": arm " << j << " out of range [0, " << data_.cols() << ")");
    const auto row = static_cast<Eigen::Index>(rng.below(static_cast<std::uint64_t>(data_.rows())));
    return data_(row, j);
  }

  std::optional<Domain> domain() const override {
    return Domain::indices(static_cast<int>(data_.cols()));
  }
  std::optional<Kernel> kernel() const override { return kernel_; }
  std::optional<InstanceConstants> reward_constants() const override { return constants_; }

 private:
  InstanceConstants constants_;
  Eigen::MatrixXd data_;
  Eigen::VectorXd means_;
  Kernel kernel_;
  std::string label_;
};

}  // namespace

std::unique_ptr<Objective> make_dataset_objective(Eigen::MatrixXd data, bool correlation,
                                                  const std::string& label) {
  check_data(data, label);
  const Eigen::MatrixXd kernel_data = data;
  return std::make_unique<DatasetObjective>(std::move(data), kernel_data, correlation, label);
}

std::unique_ptr<Objective> make_dataset_objective(Eigen::MatrixXd data, Eigen::MatrixXd kernel_data,
                                                  bool correlation, const std::string& label) {
  check_data(data, label);
  check_data(kernel_data, label + " (kernel data)");
  GPB_EXPECTS(kernel_data.cols() == data.cols(),
              label << ": the kernel data has " << kernel_data.cols()
                    << " columns but the data set has " << data.cols() << " (arms)");
  return std::make_unique<DatasetObjective>(std::move(data), kernel_data, correlation, label);
}

}  // namespace gpb
