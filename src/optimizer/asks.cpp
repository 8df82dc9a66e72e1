// The Optimizer's outstanding asks: matching told points to them within a tolerance, refusing
// points outside the candidates' bounding box, releasing (forgetting) asks, and the warnings of
// ask() (a repeated candidate, recompute mode).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <limits>
#include <sstream>
#include <thread>
#include <utility>

#include "gpbandit/engine/parameter_space.hpp"
#include "gpbandit/error.hpp"
#include "optimizer/state.hpp"

namespace gpb {

namespace {

std::string coords(const double* x, int d) {
  std::string s = "(";
  char buf[32];
  for (int j = 0; j < d; ++j) {
    std::snprintf(buf, sizeof buf, "%.6g", x[j]);
    s += (j > 0 ? ", " : "") + std::string(buf);
  }
  return s + ")";
}

/// The allowed deviation on axis j around coordinate c: tol · max(extent, |c|), or tol · max(1,
/// |c|) on an axis where every candidate has the same coordinate.
double slack(double tol, double extent, double c) {
  return tol * std::max(extent > 0 ? extent : 1.0, std::abs(c));
}

}  // namespace

int Optimizer::State::match_ask(const double* x) const {
  if (opt.match_tolerance <= 0) return -1;
  int best = -1;
  double best_dist = std::numeric_limits<double>::infinity();
  for (const OutstandingAsk& a : outstanding) {
    const double* c = point(a.candidate);  // a candidate, or a refined point off the set
    double dist = 0;                       // max over axes of |x − c| relative to the axis' slack
    for (int j = 0; j < d && dist <= 1; ++j) {
      const double allowed = slack(opt.match_tolerance, box_hi[j] - box_lo[j], c[j]);
      const double dev = std::abs(x[j] - c[j]);
      dist = std::max(dist, allowed > 0 ? dev / allowed : (dev > 0 ? 2.0 : 0.0));
    }
    if (dist <= 1 && dist < best_dist) {
      best = a.candidate;
      best_dist = dist;
    }
  }
  return best;
}

void Optimizer::State::refuse_fingerprint_points(const char* what) const {
  GPB_EXPECTS(!domain.is_fingerprint(),
              what << ": the candidates are fingerprints, which are given by index "
                      "(tell(indices, y), tell_failed(indices), predict_candidates()), not "
                      "by coordinates");
}

void Optimizer::State::check_inside(const Eigen::Ref<const Eigen::MatrixXd>& points,
                                    const char* what) const {
  if (opt.allow_outside) return;
  for (Eigen::Index i = 0; i < points.rows(); ++i) {
    for (int j = 0; j < d; ++j) {
      const double v = points(i, j), extent = box_hi[j] - box_lo[j];
      const double lo = box_lo[j] - slack(opt.match_tolerance, extent, box_lo[j]);
      const double hi = box_hi[j] + slack(opt.match_tolerance, extent, box_hi[j]);
      if (v >= lo && v <= hi) continue;
      const Eigen::VectorXd row = points.row(i).transpose();
      std::ostringstream os;
      os << what << ": point " << i << " = " << coords(row.data(), d)
         << " lies outside the candidates' bounding box: coordinate " << j << " = " << v
         << (v < lo ? " < " : " > ") << (v < lo ? box_lo[j] : box_hi[j])
         << " (the candidates span [" << box_lo[j] << ", " << box_hi[j] << "] on that axis); "
         << "check its units and column order, or allow it (allow_outside = true)";
      throw InvalidArgument(os.str());
    }
  }
}

void Optimizer::State::drop_asks(std::vector<std::size_t> positions) {
  std::sort(positions.begin(), positions.end());
  for (auto it = positions.rbegin(); it != positions.rend(); ++it) {
    if (outstanding[*it].slot >= 0) dirty = true;  // a pending row: rebuild without it
    outstanding.erase(outstanding.begin() + static_cast<std::ptrdiff_t>(*it));
  }
}

void Optimizer::State::warn_repeats(const std::vector<int>& chosen) {
  for (const int c : chosen) {
    const auto times = std::count(obs_point.begin(), obs_point.end(), c);
    if (times == 0) continue;
    std::ostringstream os;
    os << "ask: suggests candidate " << c;
    if (!domain.is_fingerprint()) os << " = " << coords(point(c), d);  // words say nothing
    os << ", already observed " << times << (times == 1 ? " time" : " times")
       << " (the acquisition prefers measuring it again: this adds nothing for a noise-free "
          "function; consider a smaller noise_variance, fitting the hyperparameters, or "
          "acquisition 'ei')";
    queue_warning(WarningKind::Model, os.str());
  }
}

void Optimizer::State::warn_recompute(int capacity) {
  if (warned_recompute || !post || !post->recompute_mode()) return;
  warned_recompute = true;
  const double need = FinitePosterior::incremental_bytes(1, post->size(), capacity);
  std::ostringstream os;
  os.precision(3);
  if (domain.streams_points()) {
    os << "optimizer: the parameter space's " << n << " combinations are streamed (their "
       << "encodings computed chunk by chunk, never held): materialised they need "
       << Optimizer::space_bytes(*domain.space()) / 1e6 << " MB, more than the memory budget of "
       << static_cast<double>(ctx->memory_budget_bytes()) / 1e6
       << " MB; every ask recomputes the posterior over every combination, O(N·t²) (raise "
          "memory_budget_mb / memory_budget_bytes to hold them)";
    queue_warning(WarningKind::Performance, os.str());
    return;
  }
  os << "optimizer: the posterior over " << post->size() << " points runs in recompute mode: V "
     << "(capacity " << capacity << " rows) needs " << need / 1e6 << " MB, more than the "
     << "memory budget of " << static_cast<double>(ctx->memory_budget_bytes()) / 1e6
     << " MB; every ask then costs O(N·t²) instead of O(N·t) (raise memory_budget_mb / "
        "memory_budget_bytes, or lower capacity)";
  queue_warning(WarningKind::Performance, os.str());
}

void Optimizer::State::queue_warning(WarningKind kind, std::string text) {
  queued.push_back({std::this_thread::get_id(), kind, std::move(text)});
}

void Optimizer::State::flush_warnings() {
  std::vector<QueuedWarning> mine;
  {
    const std::lock_guard<std::mutex> lock(mu);
    const auto here = std::this_thread::get_id();
    const auto others = std::stable_partition(
        queued.begin(), queued.end(), [&](const QueuedWarning& w) { return w.thread != here; });
    mine.assign(std::make_move_iterator(others), std::make_move_iterator(queued.end()));
    queued.erase(others, queued.end());
  }
  for (const QueuedWarning& w : mine) warn(w.kind, w.text);
}

// ---------------------------------------------------------------- Optimizer::forget

int Optimizer::forget_all() {
  const std::lock_guard<std::mutex> lock(s_->mu);
  State& s = *s_;
  std::vector<std::size_t> all(s.outstanding.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  s.drop_asks(all);
  return static_cast<int>(all.size());
}

namespace {

/// Position in `asks` of the first ask of candidate c not yet taken, or npos.
std::size_t take_ask(const std::vector<OutstandingAsk>& asks, std::vector<bool>& taken, int c) {
  for (std::size_t k = 0; k < asks.size(); ++k) {
    if (!taken[k] && asks[k].candidate == c) {
      taken[k] = true;
      return k;
    }
  }
  return static_cast<std::size_t>(-1);
}

std::string outstanding_list(const std::vector<OutstandingAsk>& asks) {
  if (asks.empty()) return "none is outstanding";
  std::string s = "outstanding: ";
  for (std::size_t k = 0; k < asks.size() && k < 10; ++k) {
    s += (k > 0 ? ", " : "") + std::to_string(asks[k].candidate);
  }
  return s + (asks.size() > 10 ? ", …" : "");
}

}  // namespace

int Optimizer::forget(const std::vector<int>& indices) {
  const std::lock_guard<std::mutex> lock(s_->mu);
  State& s = *s_;
  std::vector<bool> taken(s.outstanding.size(), false);
  std::vector<std::size_t> positions;
  for (std::size_t i = 0; i < indices.size(); ++i) {
    const std::size_t k = take_ask(s.outstanding, taken, indices[i]);
    GPB_EXPECTS(k != static_cast<std::size_t>(-1),
                "forget: index[" << i << "] = " << indices[i] << " has no outstanding ask ("
                                 << outstanding_list(s.outstanding) << ")");
    positions.push_back(k);
  }
  s.drop_asks(positions);
  return static_cast<int>(positions.size());
}

int Optimizer::forget(const Eigen::Ref<const Eigen::MatrixXd>& points) {
  const std::lock_guard<std::mutex> lock(s_->mu);
  State& s = *s_;
  GPB_EXPECTS(points.rows() == 0 || points.cols() == s.d,
              "forget: points have " << points.cols() << " coordinates, the domain has " << s.d);
  std::vector<bool> taken(s.outstanding.size(), false);
  std::vector<std::size_t> positions;
  Eigen::VectorXd x(s.d);
  for (Eigen::Index i = 0; i < points.rows(); ++i) {
    x = points.row(i).transpose();
    GPB_EXPECTS(x.allFinite(), "forget: point " << i << " has a non-finite coordinate");
    int c = s.find_point(x.data());
    if (c < 0 || c >= s.n) c = s.match_ask(x.data());
    const std::size_t k = c >= 0 ? take_ask(s.outstanding, taken, c) : static_cast<std::size_t>(-1);
    GPB_EXPECTS(k != static_cast<std::size_t>(-1), "forget: point "
                                                       << i << " = " << coords(x.data(), s.d)
                                                       << " matches no outstanding ask ("
                                                       << outstanding_list(s.outstanding) << ")");
    positions.push_back(k);
  }
  s.drop_asks(positions);
  return static_cast<int>(positions.size());
}

}  // namespace gpb
