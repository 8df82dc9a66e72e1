// gpb::Optimizer: construction, ask, tell and the bookkeeping of its one FinitePosterior (see
// src/optimizer/state.hpp for how the posterior follows the observations and asks).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <utility>

#include "engine/detail/quiet_recompute.hpp"
#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/parameter_space.hpp"
#include "gpbandit/error.hpp"
#include "optimizer/state.hpp"

namespace gpb {

namespace {

/// Philox stream of the acquisition's own draws (the tie-break stream is the policies' one).
constexpr std::uint32_t kPolicyStream = static_cast<std::uint32_t>(StreamId::Policy);

std::unique_ptr<Context> make_context(const ContextOptions& o) {
  if (o.backend == Backend::Cuda && Context::cuda_compiled() && Context::cuda_device_count() == 0) {
    throw InvalidArgument(
        "backend 'cuda' requested but no CUDA device is available (use cpu or auto)");
  }
  return std::make_unique<Context>(o);
}

/// tell's known noise variances: none, or one per value of y, each ≥ 0 and finite or NaN.
void check_noise(const std::vector<double>& noise, std::size_t m) {
  GPB_EXPECTS(noise.empty() || noise.size() == m,
              "tell: " << noise.size() << " noise variances for " << m << " values of y");
  for (std::size_t i = 0; i < noise.size(); ++i) {
    GPB_EXPECTS(std::isnan(noise[i]) || (std::isfinite(noise[i]) && noise[i] >= 0),
                "tell: noise[" << i << "] = " << noise[i]
                               << " must be >= 0 and finite (or NaN: not known)");
  }
}

/// Value i's known noise variance (NaN when none was given).
double noise_at(const std::vector<double>& noise, std::size_t i) {
  return noise.empty() ? std::numeric_limits<double>::quiet_NaN() : noise[i];
}

void check_acquisition(const AcquisitionOptions& a) {
  if (a.kind == AcquisitionKind::Ucb) a.beta.validate();
  GPB_EXPECTS(std::isfinite(a.xi) && a.xi >= 0,
              "acquisition.xi must be >= 0 and finite, got " << a.xi);
  GPB_EXPECTS(a.exact_max >= 1, "acquisition.exact_max must be >= 1, got " << a.exact_max);
  GPB_EXPECTS(a.features >= 1, "acquisition.features must be >= 1, got " << a.features);
}

void check_options(const OptimizerOptions& o, const Domain& dom) {
  GPB_EXPECTS(std::isfinite(o.noise_variance) && o.noise_variance > 0,
              "noise_variance must be > 0 and finite, got " << o.noise_variance);
  GPB_EXPECTS(o.kernel.type() != KernelType::Precomputed,
              "kernel: the optimizer takes se, matern12/32/52, linear or polynomial kernels "
              "(precomputed matrices have no points to tell or predict at)");
  if (dom.is_fingerprint()) {
    const bool counts = dom.fingerprint_kind() == FingerprintKind::Counts;
    GPB_EXPECTS(o.kernel.type() == (counts ? KernelType::MinMax : KernelType::Tanimoto),
                "kernel: a fingerprint domain of "
                    << (counts ? "counts takes the minmax" : "bits takes the tanimoto")
                    << " kernel, got " << o.kernel.describe());
  } else {
    GPB_EXPECTS(!o.kernel.fingerprint(),
                "kernel: " << o.kernel.describe()
                           << " needs a fingerprint domain (DomainSpec::from_fingerprints)");
  }
  GPB_EXPECTS(!o.kernel.is_ard() || o.kernel.ard_dim() == dom.dim(),
              "kernel.lengthscale has " << o.kernel.ard_dim()
                                        << " values (ARD) but the domain has dimension "
                                        << dom.dim());
  GPB_EXPECTS(!o.kernel.composite() || o.kernel.input_dim() == dom.dim(),
              "kernel.parts cover " << o.kernel.input_dim()
                                    << " features but the domain has dimension " << dom.dim());
  check_acquisition(o.acquisition);
  GPB_EXPECTS(o.initial_points >= 0, "initial_points must be >= 0, got " << o.initial_points);
  GPB_EXPECTS(o.capacity >= 1, "capacity must be >= 1, got " << o.capacity);
  const FitOptions& f = o.fit;
  GPB_EXPECTS(f.every >= 0, "fit.every must be >= 0, got " << f.every);
  GPB_EXPECTS(f.min_observations >= 2,
              "fit.min_observations must be >= 2, got " << f.min_observations);
  GPB_EXPECTS(f.restarts >= 0, "fit.restarts must be >= 0, got " << f.restarts);
  GPB_EXPECTS(f.max_rows >= 2, "fit.max_rows must be >= 2, got " << f.max_rows);
  GPB_EXPECTS(o.match_tolerance >= 0 && o.match_tolerance < 1,
              "match_tolerance must be in [0, 1), got " << o.match_tolerance);
  GPB_EXPECTS(f.restarts_every >= 1, "fit.restarts_every must be >= 1, got " << f.restarts_every);
  GPB_EXPECTS(
      std::isfinite(f.lengthscale_prior_loc) && std::abs(f.lengthscale_prior_loc) <= 20,
      "fit.lengthscale_prior_loc must be finite, in [-20, 20], got " << f.lengthscale_prior_loc);
  GPB_EXPECTS(std::isfinite(f.lengthscale_prior_log_d) && std::abs(f.lengthscale_prior_log_d) <= 10,
              "fit.lengthscale_prior_log_d must be finite, in [-10, 10], got "
                  << f.lengthscale_prior_log_d);
  GPB_EXPECTS(f.lengthscale_prior_scale > 0 && f.lengthscale_prior_scale <= 100,
              "fit.lengthscale_prior_scale must be in (0, 100], got " << f.lengthscale_prior_scale);
  GPB_EXPECTS(std::isfinite(f.noise_floor) && f.noise_floor > 0 && f.noise_floor < 0.5,
              "fit.noise_floor must be in (0, 0.5), got " << f.noise_floor);
  GPB_EXPECTS(f.warp_knee > 0 && f.warp_knee < 1,
              "fit.warp_knee must be in (0, 1), got " << f.warp_knee);
  GPB_EXPECTS(std::isfinite(f.mean_shift) && f.mean_shift >= 0 && f.mean_shift <= 10,
              "fit.mean_shift must be in [0, 10], got " << f.mean_shift);
  const RefineOptions& r = o.refine;
  GPB_EXPECTS(r.local_points >= 0, "refine.local_points must be >= 0, got " << r.local_points);
  GPB_EXPECTS(r.centres >= 0, "refine.centres must be >= 0, got " << r.centres);
  GPB_EXPECTS(r.starts >= 0, "refine.starts must be >= 0, got " << r.starts);
  GPB_EXPECTS(r.iterations >= 1, "refine.iterations must be >= 1, got " << r.iterations);
  GPB_EXPECTS(r.coordinate_points >= 0,
              "refine.coordinate_points must be >= 0, got " << r.coordinate_points);
  GPB_EXPECTS(std::isfinite(r.face_tolerance) && r.face_tolerance >= 0,
              "refine.face_tolerance must be finite and >= 0, got " << r.face_tolerance);
}

/// Whether the Optimizer streams the parameter space of `spec`: when its materialised form
/// (Optimizer::space_bytes) exceeds the Context's memory budget (docs/spaces.md, "Streaming").
bool space_streams(const DomainSpec& spec, std::size_t budget) {
  return spec.kind == DomainSpec::Kind::Parameters && spec.space &&
         Optimizer::space_bytes(*spec.space) > static_cast<double>(budget);
}

/// Refuses, before anything is allocated, a parameter space whose Optimizer would not fit the
/// host memory available now: materialised (space_bytes) or, when `streamed`, with only its
/// per-candidate state (streamed_space_bytes). The check is skipped where memory cannot be read.
void check_space_fits(const DomainSpec& spec, bool streamed) {
  if (spec.kind != DomainSpec::Kind::Parameters || !spec.space) return;
  const double need =
      streamed ? Optimizer::streamed_space_bytes(*spec.space) : Optimizer::space_bytes(*spec.space);
  const std::size_t avail = available_host_memory();
  if (avail == 0 || need <= static_cast<double>(avail)) return;
  std::ostringstream os;
  os.precision(3);
  os << "domain.parameters: the space has " << spec.space->size() << " feasible combinations of "
     << spec.space->encoded_dim() << " encoded features; ";
  if (streamed) {
    os << "even streamed (encodings computed chunk by chunk, never held), an Optimizer over it "
          "holds "
       << Optimizer::kStreamedBytesPerCandidate
       << " bytes of posterior state per combination (the kernel diagonal, mean, variance, "
          "scores and exclusion mask) and the space's index: ";
  } else {
    os << "an Optimizer over it holds their encodings twice (the domain and the posterior) and "
          "33 bytes of posterior state per combination: ";
  }
  os << need / 1e9 << " GB, more than the " << static_cast<double>(avail) / 1e9
     << " GB of memory available. Shrink the space (constraints, fewer levels, descriptor "
        "tables with fewer columns than one-hot labels) or score it in blocks without an "
        "Optimizer (ParameterSpace::encode_range, as bench/space_scale.py does)";
  throw InvalidArgument(os.str());
}

/// The box of the domain (its bounds, or the candidates' bounding box), as lower corner and
/// per-axis extent (1 where the extent is 0).
void unit_box(const DomainSpec& spec, const Domain& dom, Eigen::VectorXd& lower,
              Eigen::VectorXd& width) {
  if (dom.is_fingerprint()) {  // words, not coordinates: nothing is scaled
    lower = Eigen::VectorXd::Zero(dom.dim());
    width = Eigen::VectorXd::Ones(dom.dim());
    return;
  }
  if (spec.kind == DomainSpec::Kind::Points || spec.kind == DomainSpec::Kind::Parameters) {
    lower = dom.lower();  // the candidates' bounding box (also of a streamed space)
    width = dom.upper() - lower;
  } else {
    lower = Eigen::Map<const Eigen::VectorXd>(spec.lower.data(), dom.dim());
    width = Eigen::Map<const Eigen::VectorXd>(spec.upper.data(), dom.dim()) - lower;
  }
  for (Eigen::Index k = 0; k < width.size(); ++k) {
    if (!(width[k] > 0)) width[k] = 1.0;
  }
  if (spec.kind == DomainSpec::Kind::Parameters) {  // a continuous parameter's box: [0, 1] encoded
    for (const int a : spec.refinable_axes()) lower[a] = 0.0, width[a] = 1.0;
  }
}

/// 64-bit hash of d coordinates (−0 and +0 hash alike, as they compare equal).
std::uint64_t hash_point(const double* x, int d) {
  std::uint64_t h = 1469598103934665603ull;
  for (int i = 0; i < d; ++i) {
    const double v = x[i] + 0.0;
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    h = (h ^ bits) * 1099511628211ull;
    h ^= h >> 29;
  }
  return h;
}

}  // namespace

// ---------------------------------------------------------------- State

Optimizer::State::State(OptimizerOptions options) : opt(std::move(options)) {
  ctx = make_context(opt.context);
  const bool stream = space_streams(opt.domain, ctx->memory_budget_bytes());
  check_space_fits(opt.domain, stream);
  if (stream) {
    GPB_EXPECTS(opt.acquisition.kind != AcquisitionKind::Thompson,
                "acquisition.kind: thompson needs every candidate's encoding (a prior draw over "
                "them), but this parameter space is streamed (its "
                    << space_bytes(*opt.domain.space) / 1e9
                    << " GB materialised exceed the memory budget); use ucb, ei, pi or random");
    if (ctx->backend() == Backend::Cuda && opt.context.backend == Backend::Auto) {
      ContextOptions cpu = opt.context;  // the CUDA posterior does not stream: auto means CPU
      cpu.backend = Backend::Cpu;
      ctx = make_context(cpu);
    }
    domain = Domain::streamed_space(opt.domain.space);
  } else {
    domain = opt.domain.build();
  }
  n = domain.size();
  d = domain.dim();
  check_options(opt, domain);
  unit_box(opt.domain, domain, unit_lower, unit_width);
  // A whole parameter space, streamed or held: find_point decodes candidates; only extras are
  // hashed (hashing 10⁷ held encodings would cost seconds and a table of N entries).
  if (decodes_points()) indexed_points = n;
  if (domain.streams_points()) {
    box_lo = domain.lower();
    box_hi = domain.upper();
  } else if (domain.is_fingerprint()) {  // no coordinates: points are told by index
    box_lo = box_hi = Eigen::VectorXd::Zero(d);
  } else {
    const Eigen::MatrixXd& pts = domain.points();
    box_lo = pts.rowwise().minCoeff();
    box_hi = pts.rowwise().maxCoeff();
  }
  if (opt.domain.kind != DomainSpec::Kind::Points &&
      opt.domain.kind != DomainSpec::Kind::Parameters &&
      opt.domain.kind != DomainSpec::Kind::Fingerprints) {  // a box's refinement reaches its bounds
    box_lo = box_lo.cwiseMin(Eigen::Map<const Eigen::VectorXd>(opt.domain.lower.data(), d));
    box_hi = box_hi.cwiseMax(Eigen::Map<const Eigen::VectorXd>(opt.domain.upper.data(), d));
  }
  free_axes = opt.domain.refinable_axes();
  for (const int a : free_axes) {  // so does a continuous parameter's: [0, 1] encoded
    box_lo[a] = std::min(box_lo[a], 0.0);
    box_hi[a] = std::max(box_hi[a], 1.0);
  }
  tiebreak.emplace_back(opt.seed, 0, stream_of(StreamId::TieBreak, 0));
  policy = Rng(opt.seed, 0, kPolicyStream);
  rebuild();
}

const double* Optimizer::State::point(int p) const {
  if (p >= n) return extras.data() + static_cast<std::size_t>(p - n) * d;
  if (!domain.streams_points()) return domain.point(p);
  auto it = encoded.find(p);  // nodes never move: the pointer stays valid
  if (it == encoded.end()) it = encoded.emplace(p, domain.space()->encode(p)).first;
  return it->second.data();
}

bool Optimizer::State::decodes_points() const {
  return domain.space() != nullptr && domain.space()->size() == n;
}

int Optimizer::State::find_point(const double* x) {
  if (decodes_points()) {  // the candidate whose levels x encodes, if x is exactly it
    const ParameterSpace& sp = *domain.space();
    const std::vector<int> lv = sp.decode(x);
    if (sp.feasible(lv.data())) {
      const long long k = sp.feasible_of(sp.raw_of_levels(lv));
      if (k >= 0 && std::equal(x, x + d, point(static_cast<int>(k)))) return static_cast<int>(k);
    }
  }
  const int total = n + num_extras();
  for (; indexed_points < total; ++indexed_points) {
    point_index.emplace(hash_point(point(indexed_points), d), indexed_points);
  }
  const auto range = point_index.equal_range(hash_point(x, d));
  int best = -1;
  for (auto it = range.first; it != range.second; ++it) {
    if (std::equal(x, x + d, point(it->second)) && (best < 0 || it->second < best)) {
      best = it->second;
    }
  }
  return best;
}

void Optimizer::State::apply(const PosteriorOp& op) {
  switch (op.kind) {
    case PosteriorOp::Kind::Observe: {
      const int p = obs_point[static_cast<std::size_t>(op.value)];
      const double g = model_y(op.value);
      const double lam = model_noise(op.value);
      post->observe(&p, &g, std::isnan(lam) ? nullptr : &lam);
      break;
    }
    case PosteriorOp::Kind::Pending:
      post->add_pending(&op.value);
      break;
    case PosteriorOp::Kind::Resolve: {
      std::vector<double> g;
      for (int id : op.ids) g.push_back(model_y(id));
      post->resolve_pending(g.data());
      break;
    }
  }
  log.push_back(op);
}

Eigen::MatrixXd Optimizer::State::posterior_points() const {
  Eigen::MatrixXd pts(d, n + post_extras);
  pts.leftCols(n) = domain.points();
  for (int e = 0; e < post_extras; ++e) {
    pts.col(n + e) = Eigen::Map<const Eigen::VectorXd>(point(n + e), d);
  }
  return pts;
}

void Optimizer::State::rebuild() {
  reset_posterior(num_extras());
  for (int i = 0; i < num_obs(); ++i) apply({PosteriorOp::Kind::Observe, i, {}});
  dirty = false;
}

void Optimizer::State::reset_posterior(int extras_in_posterior) {
  post_extras = extras_in_posterior;
  PosteriorOptions po;
  po.noise_variance = opt.noise_variance;
  po.capacity = std::max(opt.capacity, num_obs() + static_cast<int>(outstanding.size()) + 1);
  post.reset();
  {
    const detail::QuietRecompute quiet;  // said once per Optimizer, below
    if (post_extras == 0) {
      post = std::make_unique<FinitePosterior>(*ctx, opt.kernel, domain, 1, po);
    } else if (domain.streams_points()) {  // the space's combinations, then the extras held
      post = std::make_unique<FinitePosterior>(*ctx, opt.kernel, domain, 1, po);
      post->add_candidates(Eigen::Map<const Eigen::MatrixXd>(extras.data(), d, post_extras));
    } else {
      post = std::make_unique<FinitePosterior>(*ctx, opt.kernel,
                                               Domain::from_points(posterior_points()), 1, po);
    }
  }
  warn_recompute(po.capacity);
  log.clear();
  slot_answer.clear();
  unposted.clear();
  for (OutstandingAsk& a : outstanding) a.slot = -1;
}

void Optimizer::State::sync(bool for_ask) {
  if (dirty) rebuild();
  if (!slot_answer.empty()) {
    const auto answered =
        std::count_if(slot_answer.begin(), slot_answer.end(), [](int id) { return id >= 0; });
    // A pending row was added with λ: an answer with a known noise needs the row rebuilt.
    const bool noisy = std::any_of(slot_answer.begin(), slot_answer.end(), [this](int id) {
      return id >= 0 && !std::isnan(model_noise(id));
    });
    if (answered == static_cast<long>(slot_answer.size()) && !noisy) {
      apply({PosteriorOp::Kind::Resolve, 0, slot_answer});
      slot_answer.clear();
    } else if (answered > 0) {
      rebuild();  // only some pending rows have answers: the log cannot express that
    }
  }
  if (!unposted.empty()) {
    bool fits = slot_answer.empty();  // observe() needs no pending rows
    for (int id : unposted) fits = fits && obs_point[static_cast<std::size_t>(id)] < post->size();
    if (fits) {
      for (int id : unposted) apply({PosteriorOp::Kind::Observe, id, {}});
      unposted.clear();
    } else {
      rebuild();
    }
  }
  if (!for_ask) return;
  for (OutstandingAsk& a : outstanding) {
    if (a.slot >= 0) continue;
    apply({PosteriorOp::Kind::Pending, a.candidate, {}});
    a.slot = static_cast<int>(slot_answer.size());
    slot_answer.push_back(-1);
  }
}

int Optimizer::State::add_extra(const double* x) {
  const int p = n + num_extras();
  extras.insert(extras.end(), x, x + d);
  if (!dirty && post && post_extras == num_extras() - 1) {  // grow the posterior by it
    post->add_candidates(Eigen::Map<const Eigen::MatrixXd>(x, d, 1));
    ++post_extras;
  }
  return p;
}

double Optimizer::State::model_noise(int i, const detail::OutputWarp& w, double scale) const {
  if (obs_noise.empty()) return std::numeric_limits<double>::quiet_NaN();
  const double v = obs_noise[static_cast<std::size_t>(i)];
  if (std::isnan(v)) return v;
  const double s = w.slope(sign() * obs_y[static_cast<std::size_t>(i)]) / scale;
  return std::max(v * s * s, opt.fit.noise_floor);
}

Eigen::VectorXd Optimizer::State::known_noise(const detail::OutputWarp& w, double scale) const {
  const bool any =
      std::any_of(obs_noise.begin(), obs_noise.end(), [](double v) { return !std::isnan(v); });
  if (!any) return {};
  Eigen::VectorXd out(num_obs());
  for (int i = 0; i < num_obs(); ++i) out[i] = model_noise(i, w, scale);
  return out;
}

void Optimizer::State::record(const double* x, double y, int p, double noise) {
  const int id = num_obs();
  obs_x.insert(obs_x.end(), x, x + d);
  obs_y.push_back(y);
  if (!std::isnan(noise) || !obs_noise.empty()) {  // from the first known noise on, one per obs
    obs_noise.resize(static_cast<std::size_t>(id), std::numeric_limits<double>::quiet_NaN());
    obs_noise.push_back(noise);
  }
  obs_point.push_back(p);
  update_trust_region(y);
  const auto it = std::find_if(outstanding.begin(), outstanding.end(),
                               [p](const OutstandingAsk& a) { return a.candidate == p; });
  if (it != outstanding.end() && it->slot >= 0) {
    slot_answer[static_cast<std::size_t>(it->slot)] = id;
  } else {
    unposted.push_back(id);
  }
  if (it != outstanding.end()) outstanding.erase(it);
}

void Optimizer::State::standardization(double& offset, double& scale, detail::OutputWarp& w,
                                       bool plain) const {
  offset = 0.0;
  scale = 1.0;
  w = detail::OutputWarp();
  const int t = num_obs();
  if (t == 0) return;
  std::vector<double> g(static_cast<std::size_t>(t));
  for (std::size_t i = 0; i < g.size(); ++i) g[i] = sign() * obs_y[i];
  if (opt.fit.warp && !plain) {
    w = detail::OutputWarp::choose(g, opt.fit.warp_knee);
    for (double& v : g) v = w.forward(v);
  }
  if (!opt.fit.normalize) return;
  double sum = 0.0;
  for (double v : g) sum += v;
  offset = sum / t;
  double ss = 0.0;
  for (double v : g) ss += (v - offset) * (v - offset);
  const double sd = std::sqrt(ss / t);
  scale = sd > 0 && std::isfinite(sd) ? sd : 1.0;
}

void Optimizer::State::to_y_units(Eigen::VectorXd& mean, Eigen::VectorXd& variance) const {
  if (warp.identity()) {
    mean = (sign() * (y_offset + y_scale * mean.array())).matrix();
    variance *= y_scale * y_scale;
    return;
  }
  for (Eigen::Index i = 0; i < mean.size(); ++i) {  // the warp's inverse; variance to first order
    const double g = warp.inverse(y_offset + y_scale * mean[i]);
    const double s = y_scale / warp.slope(g);
    mean[i] = sign() * g;
    variance[i] *= s * s;
  }
}

void Optimizer::State::mark_failed(int p) {
  if (std::find(failed.begin(), failed.end(), p) == failed.end()) failed.push_back(p);
  const auto it = std::find_if(outstanding.begin(), outstanding.end(),
                               [p](const OutstandingAsk& a) { return a.candidate == p; });
  if (it == outstanding.end()) return;
  if (it->slot >= 0) dirty = true;  // its pending row can only leave by a rebuild
  outstanding.erase(it);
}

void Optimizer::State::maybe_refit() {
  const FitOptions& f = opt.fit;
  const int t = num_obs();
  if (fits == 0 && (f.normalize || f.warp) && f.every > 0 && t > 0) {  // fits will come: now
    double offset = 0, scale = 1;
    detail::OutputWarp w;
    standardization(offset, scale, w);
    offset -= f.mean_shift * scale;  // the prior mean (FitOptions::mean_shift)
    if (offset != y_offset || scale != y_scale || w != warp) {
      y_offset = offset;
      y_scale = scale;
      warp = w;
      dirty = true;
      thompson.invalidate();
    }
  }
  if (f.every <= 0 || t < std::max(2, f.min_observations) || t - obs_at_last_fit < f.every) return;
  try {
    fit();
    last_fit_error.clear();
  } catch (const Error& e) {
    last_fit_error = e.what();
    obs_at_last_fit = t;
  }
}

// ---------------------------------------------------------------- Optimizer

double Optimizer::space_bytes(const ParameterSpace& space) {
  const double n = static_cast<double>(space.size());
  return n * (16.0 * space.encoded_dim() + 33.0);
}

double Optimizer::streamed_space_bytes(const ParameterSpace& space) {
  return static_cast<double>(space.size()) * kStreamedBytesPerCandidate +
         static_cast<double>(space.index_bytes());
}

bool Optimizer::streams() const {
  return s_->domain.streams_points();
}

Optimizer::Optimizer(OptimizerOptions options) : s_(std::make_unique<State>(std::move(options))) {
  s_->flush_warnings();
}
Optimizer::Optimizer(std::unique_ptr<State> state) : s_(std::move(state)) {}
Optimizer::~Optimizer() = default;
Optimizer::Optimizer(Optimizer&&) noexcept = default;
Optimizer& Optimizer::operator=(Optimizer&&) noexcept = default;

AskResult Optimizer::ask(int q) {
  State& s = *s_;
  std::unique_lock<std::mutex> lock(s.mu);
  GPB_EXPECTS(q >= 1 && q <= s.n, "ask: q must be in [1, N = " << s.n << "], got " << q);
  if (s.opt.distinct) {
    std::vector<int> asked;
    for (const OutstandingAsk& a : s.outstanding) asked.push_back(a.candidate);
    std::sort(asked.begin(), asked.end());
    const int free =
        s.n - static_cast<int>(std::unique(asked.begin(), asked.end()) - asked.begin());
    GPB_EXPECTS(q <= free, "ask: q = " << q << " but only " << free << " of the " << s.n
                                       << " candidates are not outstanding (distinct asks)");
  }
  s.sync(true);
  const int total = s.post->size();
  std::vector<std::uint8_t> excluded;
  const bool observed = s.opt.exclude_observed && !s.obs_point.empty();
  if (total > s.n || (s.opt.distinct && !s.outstanding.empty()) || (s.opt.distinct && q > 1) ||
      !s.failed.empty() || observed) {
    excluded.assign(static_cast<std::size_t>(total), 0);
    std::fill(excluded.begin() + s.n, excluded.end(), std::uint8_t{1});
    for (const int p : s.failed) excluded[static_cast<std::size_t>(p)] = 1;
    if (s.opt.distinct) {
      for (const OutstandingAsk& a : s.outstanding)
        excluded[static_cast<std::size_t>(a.candidate)] = 1;
    }
    if (observed) {
      for (const int p : s.obs_point) excluded[static_cast<std::size_t>(p)] = 1;
    }
  }
  if (s.opt.exclude_observed) {
    const auto free = std::count(excluded.begin(), excluded.begin() + (excluded.empty() ? 0 : s.n),
                                 std::uint8_t{0});
    const long long left = excluded.empty() ? s.n : static_cast<long long>(free);
    GPB_EXPECTS(q <= left, "ask: q = " << q << " but only " << left << " of the " << s.n
                                       << " candidates are neither observed, failed nor "
                                          "outstanding (exclude_observed)");
  }
  AskResult out;
  out.points.resize(q, s.d);
  for (int i = 0; i < q; ++i) {
    const int c = s.choose(excluded);
    out.indices.push_back(c < s.n ? c : -1);
    out.points.row(i) = Eigen::Map<const Eigen::VectorXd>(s.point(c), s.d).transpose();
    s.outstanding.push_back({c, -1});
    ++s.asks_served;
    if (!excluded.empty() && s.opt.distinct) excluded[static_cast<std::size_t>(c)] = 1;
    if (q > 1) {  // GP-BUCB: every point of a batch is hallucinated, as batch_gp_ucb does
      s.apply({PosteriorOp::Kind::Pending, c, {}});
      s.outstanding.back().slot = static_cast<int>(s.slot_answer.size());
      s.slot_answer.push_back(-1);
    }
  }
  s.warn_repeats(out.indices);
  lock.unlock();
  s.flush_warnings();  // the state is complete: a handler that throws loses nothing
  return out;
}

void Optimizer::tell(const std::vector<int>& indices, const std::vector<double>& y,
                     const std::vector<double>& noise) {
  State& s = *s_;
  const std::lock_guard<std::mutex> lock(s.mu);
  GPB_EXPECTS(indices.size() == y.size(),
              "tell: " << indices.size() << " indices but " << y.size() << " values of y");
  check_noise(noise, y.size());
  for (std::size_t i = 0; i < y.size(); ++i) {
    GPB_EXPECTS(indices[i] >= 0 && indices[i] < s.n, "tell: index[" << i << "] = " << indices[i]
                                                                    << " is out of range [0, "
                                                                    << s.n << ")");
    GPB_EXPECTS(std::isfinite(y[i]), "tell: y[" << i << "] = " << y[i] << " is not finite");
  }
  for (std::size_t i = 0; i < y.size(); ++i) {
    s.record(s.point(indices[i]), y[i], indices[i], noise_at(noise, i));
  }
  s.maybe_refit();
}

void Optimizer::tell(const Eigen::Ref<const Eigen::MatrixXd>& points, const std::vector<double>& y,
                     const std::vector<double>& noise) {
  State& s = *s_;
  const std::lock_guard<std::mutex> lock(s.mu);
  s.refuse_fingerprint_points("tell");
  GPB_EXPECTS(points.rows() == static_cast<Eigen::Index>(y.size()),
              "tell: " << points.rows() << " points but " << y.size() << " values of y");
  check_noise(noise, y.size());
  GPB_EXPECTS(points.rows() == 0 || points.cols() == s.d,
              "tell: points have " << points.cols() << " coordinates, the domain has " << s.d);
  for (Eigen::Index i = 0; i < points.rows(); ++i) {
    for (Eigen::Index j = 0; j < points.cols(); ++j) {
      GPB_EXPECTS(std::isfinite(points(i, j)),
                  "tell: point " << i << ", coordinate " << j << " is not finite");
    }
    GPB_EXPECTS(std::isfinite(y[static_cast<std::size_t>(i)]),
                "tell: y[" << i << "] = " << y[static_cast<std::size_t>(i)] << " is not finite");
  }
  s.check_inside(points, "tell");
  Eigen::VectorXd x(s.d);
  for (Eigen::Index i = 0; i < points.rows(); ++i) {
    x = points.row(i).transpose();
    int p = s.find_point(x.data());
    if (p < 0) {  // not a known point: the answer to an ask, told with fewer digits?
      const int c = s.match_ask(x.data());
      if (c >= 0) {
        p = c;
        x = Eigen::Map<const Eigen::VectorXd>(s.point(c), s.d);
      }
    }
    if (p < 0) p = s.add_extra(x.data());  // a new point off the candidate set
    s.record(x.data(), y[static_cast<std::size_t>(i)], p,
             noise_at(noise, static_cast<std::size_t>(i)));
  }
  s.maybe_refit();
}

void Optimizer::tell_failed(const Eigen::Ref<const Eigen::MatrixXd>& points) {
  State& s = *s_;
  const std::lock_guard<std::mutex> lock(s.mu);
  GPB_EXPECTS(
      points.rows() == 0 || points.cols() == s.d,
      "tell_failed: points have " << points.cols() << " coordinates, the domain has " << s.d);
  s.refuse_fingerprint_points("tell_failed");
  GPB_EXPECTS(points.allFinite(), "tell_failed: a point has a non-finite coordinate");
  Eigen::VectorXd x(s.d);
  for (Eigen::Index i = 0; i < points.rows(); ++i) {
    x = points.row(i).transpose();
    int p = s.find_point(x.data());
    if (p < 0) p = s.add_extra(x.data());
    s.mark_failed(p);
  }
}

void Optimizer::tell_failed(const std::vector<int>& indices) {
  State& s = *s_;
  const std::lock_guard<std::mutex> lock(s.mu);
  for (std::size_t i = 0; i < indices.size(); ++i) {
    GPB_EXPECTS(indices[i] >= 0 && indices[i] < s.n, "tell_failed: index["
                                                         << i << "] = " << indices[i]
                                                         << " is out of range [0, " << s.n << ")");
  }
  for (const int p : indices) s.mark_failed(p);
}

Eigen::MatrixXd Optimizer::failed_points() const {
  const State& s = *s_;
  const std::lock_guard<std::mutex> lock(s.mu);
  Eigen::MatrixXd out(static_cast<Eigen::Index>(s.failed.size()), s.d);
  for (std::size_t i = 0; i < s.failed.size(); ++i) {
    out.row(static_cast<Eigen::Index>(i)) =
        Eigen::Map<const Eigen::VectorXd>(s.point(s.failed[i]), s.d).transpose();
  }
  return out;
}

namespace {

/// The model's prediction at the d×m points, in the units of y (the caller holds the lock).
Prediction predict_locked(Optimizer::State& s, const Eigen::Ref<const Eigen::MatrixXd>& points) {
  s.sync(false);
  Prediction p;
  s.predict_model(points, s.post->rows() - s.post->pending(), p.mean, p.variance);
  s.to_y_units(p.mean, p.variance);
  return p;
}

}  // namespace

Prediction Optimizer::predict(const Eigen::Ref<const Eigen::MatrixXd>& points) const {
  State& s = *s_;
  Prediction p;
  {
    const std::lock_guard<std::mutex> lock(s.mu);
    s.refuse_fingerprint_points("predict");
    GPB_EXPECTS(points.cols() == s.d,
                "predict: points have " << points.cols() << " coordinates, the domain has " << s.d);
    GPB_EXPECTS(points.allFinite(), "predict: the points have a non-finite coordinate");
    p = predict_locked(s, points.transpose());
  }
  s.flush_warnings();
  return p;
}

Prediction Optimizer::predict_candidates() const {
  State& s = *s_;
  Prediction p;
  {
    const std::lock_guard<std::mutex> lock(s.mu);
    s.sync(false);
    if (s.post->pending() > 0 && s.domain.streams_points()) {  // block by block
      p.mean.resize(s.n);
      p.variance.resize(s.n);
      constexpr int kBlock = 65536;
      for (int b = 0; b < s.n; b += kBlock) {
        const int len = std::min(kBlock, s.n - b);
        const Prediction part = predict_locked(s, s.domain.points_of(b, b + len));
        p.mean.segment(b, len) = part.mean;
        p.variance.segment(b, len) = part.variance;
      }
    } else if (s.post->pending() > 0) {
      p = predict_locked(s, s.domain.points());
    } else {
      // σ² first: in recompute mode its pass fills μ too.
      p.variance = Eigen::Map<const Eigen::VectorXd>(s.post->variance(0), s.n);
      p.mean = Eigen::Map<const Eigen::VectorXd>(s.post->mean(0), s.n);
      s.to_y_units(p.mean, p.variance);
    }
  }
  s.flush_warnings();
  return p;
}

void Optimizer::set_acquisition(const AcquisitionOptions& acquisition) {
  State& s = *s_;
  std::lock_guard<std::mutex> lock(s.mu);
  check_acquisition(acquisition);
  GPB_EXPECTS(acquisition.kind != AcquisitionKind::Thompson || !s.domain.streams_points(),
              "acquisition.kind: thompson needs every candidate's encoding, but this parameter "
              "space is streamed; use ucb, ei, pi or random");
  s.opt.acquisition = acquisition;
}

const OptimizerOptions& Optimizer::options() const {
  return s_->opt;
}
Kernel Optimizer::kernel() const {
  const std::lock_guard<std::mutex> lock(s_->mu);
  return s_->opt.kernel;
}
double Optimizer::noise_variance() const {
  const std::lock_guard<std::mutex> lock(s_->mu);
  return s_->opt.noise_variance;
}
const Domain& Optimizer::domain() const {
  return s_->domain;
}
const Context& Optimizer::context() const {
  return *s_->ctx;
}
int Optimizer::num_observations() const {
  const std::lock_guard<std::mutex> lock(s_->mu);
  return s_->num_obs();
}
Eigen::MatrixXd Optimizer::observed_points() const {
  const std::lock_guard<std::mutex> lock(s_->mu);
  return Eigen::Map<const Eigen::MatrixXd>(s_->obs_x.data(), s_->d, s_->num_obs()).transpose();
}
std::vector<double> Optimizer::observed_values() const {
  const std::lock_guard<std::mutex> lock(s_->mu);
  return s_->obs_y;
}
std::vector<double> Optimizer::observed_noise() const {
  const std::lock_guard<std::mutex> lock(s_->mu);
  std::vector<double> out = s_->obs_noise;
  out.resize(s_->obs_y.size(), std::numeric_limits<double>::quiet_NaN());
  return out;
}
std::vector<int> Optimizer::observed_indices() const {
  const std::lock_guard<std::mutex> lock(s_->mu);
  std::vector<int> out;
  for (int p : s_->obs_point) out.push_back(p < s_->n ? p : -1);
  return out;
}
std::vector<int> Optimizer::pending() const {
  const std::lock_guard<std::mutex> lock(s_->mu);
  std::vector<int> out;
  for (const OutstandingAsk& a : s_->outstanding)
    out.push_back(a.candidate < s_->n ? a.candidate : -1);
  return out;
}
BestObservation Optimizer::best() const {
  const State& s = *s_;
  const std::lock_guard<std::mutex> lock(s.mu);
  GPB_EXPECTS(s.num_obs() > 0, "best: no observation has been told yet");
  int b = 0;
  for (int i = 1; i < s.num_obs(); ++i) {
    if (s.sign() * s.obs_y[static_cast<std::size_t>(i)] >
        s.sign() * s.obs_y[static_cast<std::size_t>(b)]) {
      b = i;
    }
  }
  BestObservation out;
  out.point =
      Eigen::Map<const Eigen::VectorXd>(s.obs_x.data() + static_cast<std::size_t>(b) * s.d, s.d);
  out.value = s.obs_y[static_cast<std::size_t>(b)];
  const int p = s.obs_point[static_cast<std::size_t>(b)];
  out.index = p < s.n ? p : -1;
  out.observation = b;
  return out;
}
int Optimizer::fits() const {
  const std::lock_guard<std::mutex> lock(s_->mu);
  return s_->fits;
}
std::string Optimizer::last_fit_error() const {
  const std::lock_guard<std::mutex> lock(s_->mu);
  return s_->last_fit_error;
}
double Optimizer::y_offset() const {
  const std::lock_guard<std::mutex> lock(s_->mu);
  return s_->y_offset;
}
double Optimizer::y_scale() const {
  const std::lock_guard<std::mutex> lock(s_->mu);
  return s_->y_scale;
}

}  // namespace gpb
