// Downstream use of an installed libgpbandit: GP-UCB by hand over a 1-D grid, through the public
// headers only. Prints the version, the backend and the best candidate found; exits 0 when the
// search lands within one grid step of the maximiser of f(x) = -(x - 0.3)^2.
#include <gpbandit/build_config.hpp>
#include <gpbandit/engine/context.hpp>
#include <gpbandit/engine/domain.hpp>
#include <gpbandit/engine/kernel.hpp>
#include <gpbandit/engine/posterior.hpp>

#include <cmath>
#include <cstdio>

int main() {
  const gpb::Context ctx(gpb::ContextOptions{});
  const gpb::Domain domain = gpb::Domain::grid({0.0}, {1.0}, {101});
  const gpb::Kernel kernel = gpb::Kernel::se(0.2);
  gpb::PosteriorOptions opt;
  opt.noise_variance = 1e-4;
  gpb::FinitePosterior post(ctx, kernel, domain, /*runs=*/1, opt);

  const auto f = [&](int j) {
    const double x = domain.point(j)[0];
    return -(x - 0.3) * (x - 0.3);
  };
  int best = 0;
  for (int t = 0; t < 15; ++t) {
    const double width = 2.0;
    const gpb::UcbChoice c = post.ucb_argmax(&width, nullptr, nullptr)[0];
    const double y = f(c.index);
    post.observe(&c.index, &y);
    if (t == 0 || y > f(best)) best = c.index;
  }
  const double x_best = domain.point(best)[0];
  std::printf("gpbandit %s, backend %s: best x = %.2f after 15 evaluations\n", GPB_VERSION,
              ctx.describe().c_str(), x_best);
  return std::abs(x_best - 0.3) <= 0.011 ? 0 : 1;
}
