// The pool family: MolPAL's protocol run by run (family.hpp). A unit is one acquisition over a
// group of runs; each run draws its random initial batch from (seed, run) alone, so every
// acquisition starts from the same molecules (common random numbers), fits the output scale and
// noise by marginal likelihood, then alternates choosing a batch and one block update.
#include "pool/family.hpp"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <numeric>
#include <sstream>

#include "experiment/config_common.hpp"
#include "gpbandit/engine/hyperfit.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/error.hpp"
#include "pool/acquire.hpp"

namespace gpb::pool::detail {

namespace {

using gpb::detail::UnitRecord;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

/// Philox streams of a run: the initial batch (shared by every acquisition), then each
/// acquisition's own draws (Thompson samples, random batches).
constexpr std::uint32_t kInitStream = 0x5049;    // "PI"
constexpr std::uint32_t kPolicyStream = 0x5050;  // "PP" + policy index · kPolicyStride

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// `count` distinct candidates not yet evaluated, uniformly at random.
std::vector<int> random_new(std::vector<unsigned char>& evaluated, int count, Rng& rng) {
  std::vector<int> left;
  for (std::size_t a = 0; a < evaluated.size(); ++a) {
    if (evaluated[a] == 0) left.push_back(static_cast<int>(a));
  }
  GPB_EXPECTS(static_cast<int>(left.size()) >= count, "pool: not enough candidates left");
  std::vector<int> out;
  for (int i = 0; i < count; ++i) {  // partial Fisher–Yates
    const std::size_t j = i + static_cast<std::size_t>(rng.below(left.size() - i));
    std::swap(left[static_cast<std::size_t>(i)], left[j]);
    out.push_back(left[static_cast<std::size_t>(i)]);
  }
  return out;
}

/// The model of one run: the fitted kernel and noise, the centred rewards and the posterior.
struct Model {
  Kernel kernel = Kernel::tanimoto();
  double lambda = 0, mean = 0;
  std::unique_ptr<FinitePosterior> post;
  std::vector<int> history;
  std::vector<double> centred;
};

/// Fits (or takes) v, λ and the mean on the evaluated candidates, then builds the posterior with
/// them in one block update.
void build_model(const Config& c, const Context& ctx, const std::vector<int>& acquired, Model& m) {
  const Library& lib = *c.library;
  const int t = static_cast<int>(acquired.size());
  Eigen::VectorXd y(t);
  for (int i = 0; i < t; ++i)
    y[i] = lib.reward[static_cast<std::size_t>(acquired[static_cast<std::size_t>(i)])];
  if (c.fit == "none") {
    m.kernel = c.kernel;
    m.lambda = c.noise_variance;
    m.mean = y.mean();
  } else {
    Eigen::MatrixXd x(lib.domain.dim(), t);
    for (int i = 0; i < t; ++i) {
      x.col(i) = lib.domain.points().col(acquired[static_cast<std::size_t>(i)]);
    }
    const Eigen::MatrixXd k = kernel_matrix(ctx, c.kernel.with_variance(1.0), x, x);
    const ScaleNoiseFit fit = fit_scale_and_noise(k, y);
    m.kernel = c.kernel.with_variance(fit.signal_variance);
    m.lambda = std::max(fit.noise_variance, 1e-6 * fit.signal_variance);
    m.mean = fit.mean;
  }
  PosteriorOptions o;
  o.noise_variance = m.lambda;
  o.capacity = c.evaluations();
  m.post = std::make_unique<FinitePosterior>(ctx, m.kernel, lib.domain, 1, o);
  m.history = acquired;
  m.centred.resize(static_cast<std::size_t>(t));
  for (int i = 0; i < t; ++i) m.centred[static_cast<std::size_t>(i)] = y[i] - m.mean;
  m.post->observe_batch(t, m.history.data(), m.centred.data());
}

/// Adds a batch to the model's posterior (one block update).
void update_model(const Library& lib, const std::vector<int>& batch, Model& m) {
  std::vector<double> y;
  for (const int a : batch) y.push_back(lib.reward[static_cast<std::size_t>(a)] - m.mean);
  m.post->observe_batch(static_cast<int>(batch.size()), batch.data(), y.data());
  m.history.insert(m.history.end(), batch.begin(), batch.end());
  m.centred.insert(m.centred.end(), y.begin(), y.end());
}

std::string csv_rows(const std::string& label, int run, const RunResult& r) {
  std::ostringstream os;
  os.precision(10);
  for (const BatchRow& b : r.rows) {
    os << label << ',' << run << ',' << b.batch << ',' << b.evaluated << ',' << b.found.scores
       << ',' << b.found.molecules << ',' << b.found.best << ',' << b.fit_seconds << ','
       << b.acquire_seconds << ',' << b.update_seconds << ',' << b.acquire_cpu_seconds << '\n';
  }
  return os.str();
}

/// acquired.csv rows of one run: per batch, its candidates' indices in the order chosen (spaces).
std::string acquired_rows(const std::string& label, int run, const RunResult& r) {
  std::ostringstream os;
  std::size_t from = 0;
  for (const BatchRow& b : r.rows) {
    os << label << ',' << run << ',' << b.batch << ',';
    const auto to = static_cast<std::size_t>(b.evaluated);
    for (std::size_t i = from; i < to; ++i) os << (i > from ? " " : "") << r.acquired[i];
    os << '\n';
    from = to;
  }
  return os.str();
}

json run_json(std::uint32_t run, const RunResult& r) {
  json rows = json::array();
  for (const BatchRow& b : r.rows) {
    rows.push_back({b.batch, b.evaluated, b.found.scores, b.found.molecules, b.found.best,
                    b.fit_seconds, b.acquire_seconds, b.update_seconds});
  }
  return {{"run", run},
          {"rows", rows},
          {"signal_variance", r.signal_variance},
          {"noise_variance", r.noise_variance},
          {"mean", r.mean},
          {"recompute", r.recompute}};
}

}  // namespace

RunResult run_protocol(const Config& c, const Context& ctx, int p, std::uint64_t seed, int run) {
  const Library& lib = *c.library;
  const AcquisitionSpec& spec = c.policies[static_cast<std::size_t>(p)];
  const auto r = static_cast<std::uint32_t>(run);
  Rng init_rng(seed, r, kInitStream);
  Rng own(seed, r, kPolicyStream + static_cast<std::uint32_t>(p) * kPolicyStride);
  std::vector<unsigned char> evaluated(static_cast<std::size_t>(lib.domain.size()), 0);
  std::vector<int> acquired = random_new(evaluated, c.n_init, init_rng);
  for (const int a : acquired) evaluated[static_cast<std::size_t>(a)] = 1;
  RunResult out;
  out.rows.push_back({0, c.n_init, found_fractions(lib, acquired), 0, 0, 0});
  const bool model = spec.type != "random";
  Model m;
  Eigen::MatrixXd prior_factor;
  if (model) {
    const auto t0 = Clock::now();
    build_model(c, ctx, acquired, m);
    out.rows.back().update_seconds = seconds_since(t0);
  }
  for (int b = 1; b <= c.batches; ++b) {
    BatchRow row;
    row.batch = b;
    if (model && c.fit == "every_batch" && b > 1) {
      const auto t0 = Clock::now();
      build_model(c, ctx, acquired, m);
      row.fit_seconds = seconds_since(t0);
    }
    const auto t0 = Clock::now();
    const std::clock_t c0 = std::clock();
    std::vector<int> batch;
    if (model) {
      RunModel rm;
      rm.ctx = &ctx;
      rm.lib = &lib;
      rm.post = m.post.get();
      rm.kernel = m.kernel;
      rm.lambda = m.lambda;
      rm.history = &m.history;
      rm.centred = &m.centred;
      rm.evaluated = &evaluated;
      rm.prior_factor = &prior_factor;
      batch = acquire(spec, rm, c.batch, own);
    } else {
      batch = random_new(evaluated, c.batch, own);
    }
    row.acquire_seconds = seconds_since(t0);
    row.acquire_cpu_seconds = static_cast<double>(std::clock() - c0) / CLOCKS_PER_SEC;
    for (const int a : batch) {
      GPB_EXPECTS(evaluated[static_cast<std::size_t>(a)] == 0,
                  "pool: candidate " << a << " chosen twice");
      evaluated[static_cast<std::size_t>(a)] = 1;
    }
    acquired.insert(acquired.end(), batch.begin(), batch.end());
    row.evaluated = static_cast<int>(acquired.size());
    row.found = found_fractions(lib, acquired);
    if (model && b < c.batches && c.fit != "every_batch") {  // the last batch informs nothing
      const auto t1 = Clock::now();
      update_model(lib, batch, m);
      row.update_seconds = seconds_since(t1);
    }
    out.rows.push_back(row);
  }
  if (model) {
    out.signal_variance = m.kernel.variance();
    out.noise_variance = m.lambda;
    out.mean = m.mean;
    out.recompute = m.post->recompute_mode();
  }
  out.acquired = acquired;
  return out;
}

std::vector<std::string> PoolFamily::labels() const {
  return gpb::detail::labels_of(config_.policies);
}

std::string PoolFamily::type(int p) const {
  return config_.policies.at(static_cast<std::size_t>(p)).type;
}

std::string PoolFamily::runs_csv_header() const {
  return "policy,run,batch,evaluated,found_scores,found_molecules,best,fit_seconds,"
         "acquire_seconds,update_seconds,acquire_cpu_seconds\n";
}

std::vector<std::pair<std::string, std::string>> PoolFamily::extra_csv() const {
  return {{"acquired.csv", "policy,run,batch,indices\n"}};
}

gpb::detail::MemoryNeeds PoolFamily::memory(int ranks) const {
  const double n = static_cast<double>(config_.library->domain.size()) / std::max(ranks, 1);
  gpb::detail::MemoryNeeds need;
  need.bytes_per_run = 8.0 * n * config_.evaluations();
  need.model = "V = N·T·8 B per run (N = " + std::to_string(config_.library->domain.size()) +
               ", T = " + std::to_string(config_.evaluations()) + "; runs one at a time)";
  return need;
}

gpb::detail::UnitOutput PoolFamily::step(const gpb::detail::StepEnv& env, const void*, int p,
                                         const std::vector<std::uint32_t>& runs,
                                         const std::vector<UnitRecord>&) const {
  gpb::detail::UnitOutput out;
  json records = json::array();
  std::string acquired;
  const std::string& label = config_.policies[static_cast<std::size_t>(p)].label;
  for (std::size_t k = 0; k < runs.size(); ++k) {
    const int run = static_cast<int>(runs[k]);
    const RunResult r = run_protocol(config_, *env.ctx, p, env.seed, run);
    out.rows += csv_rows(label, run, r);
    acquired += acquired_rows(label, run, r);
    records.push_back(run_json(runs[k], r));
    if (env.tick) {
      env.tick(static_cast<int>(k) + 1, static_cast<int>(runs.size()), config_.batches + 1);
    }
  }
  out.record["runs"] = records;
  out.extra_rows.push_back(std::move(acquired));
  return out;
}

gpb::detail::PlotRequest PoolFamily::plot(const std::string& runs_csv) const {
  gpb::detail::PlotRequest r;
  r.file = "found.png";
  r.call.script = "plot_pool.py";
  r.call.before = {runs_csv, config_.settings.name};
  return r;
}

}  // namespace gpb::pool::detail

namespace gpb::detail {

std::shared_ptr<const Family> make_pool_family(const Checker& c, const nlohmann::json& root,
                                               ExperimentSettings settings) {
  return std::make_shared<pool::detail::PoolFamily>(
      pool::detail::parse_config(c, root, std::move(settings)));
}

}  // namespace gpb::detail
