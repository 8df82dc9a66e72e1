// Your own function from C++: ask/tell with gpb::Optimizer over 4096 Sobol candidates in the unit
// square, expected improvement, ARD Matérn-5/2 kernel refitted every 5 evaluations (the function
// of python/examples/own_function.py). Exits 0 when the best value found is within 0.05 of the
// minimum (about -0.30 at (0.31, 0.60)).
#include <gpbandit/optimizer/optimizer.hpp>

#include <cmath>
#include <cstdio>
#include <vector>

double f(const Eigen::VectorXd& x) {  // your function: one point in, one number out (minimised)
  return (x[0] - 0.3) * (x[0] - 0.3) + 10 * (x[1] - 0.6) * (x[1] - 0.6) + 0.3 * std::sin(15 * x[0]);
}

int main() {
  gpb::OptimizerOptions o;
  o.domain = gpb::DomainSpec::sobol({0, 0}, {1, 1}, 4096);
  o.kernel = gpb::Kernel::ard(gpb::KernelType::Matern52, Eigen::Vector2d(0.2, 0.2));
  o.acquisition.kind = gpb::AcquisitionKind::ExpectedImprovement;  // or Ucb, Thompson, Random
  o.minimize = true;
  o.initial_points = 4;
  o.fit.every = 5;
  gpb::Optimizer opt(o);
  for (int round = 0; round < 15; ++round) {
    const gpb::AskResult a = opt.ask(2);  // a batch of 2: a.points is 2×2, a.indices candidates
    std::vector<double> y;
    for (int i = 0; i < a.points.rows(); ++i) y.push_back(f(a.points.row(i).transpose()));
    opt.tell(a.indices, y);  // or opt.tell(points, y) with any points, in any order
  }
  const gpb::BestObservation best = opt.best();
  const gpb::Prediction p = opt.predict(best.point.transpose());  // the model anywhere
  std::printf("best f = %.4f at (%.3f, %.3f) after %d evaluations; predicted %.4f\n", best.value,
              best.point[0], best.point[1], opt.num_observations(), p.mean[0]);
  return best.value < -0.25 ? 0 : 1;
}
