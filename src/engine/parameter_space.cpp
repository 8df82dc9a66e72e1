// ParameterSpace: mixed radix indexing, constraints, the lazy feasible index and encodings.

#include "gpbandit/engine/parameter_space.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "gpbandit/error.hpp"

namespace gpb {
namespace {

constexpr long long kMaxRaw = 1LL << 62;

const char* type_name(Constraint::Type t) {
  switch (t) {
    case Constraint::Type::Linear:
      return "linear";
    case Constraint::Type::Mixture:
      return "mixture";
    case Constraint::Type::Exclusion:
      return "exclusion";
    default:
      return "distinct";
  }
}

/// Increments the odometer lv over parameters [0, count) (parameter 0 fastest); false on wrap.
bool step(std::vector<int>& lv, const std::vector<Parameter>& params, int count) {
  for (int p = 0; p < count; ++p) {
    if (++lv[static_cast<std::size_t>(p)] < params[static_cast<std::size_t>(p)].size()) return true;
    lv[static_cast<std::size_t>(p)] = 0;
  }
  return false;
}

}  // namespace

ParameterSpace::ParameterSpace(std::vector<Parameter> params, std::vector<Constraint> constraints)
    : params_(std::move(params)), constraints_(std::move(constraints)) {
  GPB_EXPECTS(!params_.empty(), "parameter space: needs at least one parameter");
  std::set<std::string> names;
  for (const Parameter& p : params_) {
    GPB_EXPECTS(!p.name.empty(), "parameter space: a parameter has no name");
    GPB_EXPECTS(names.insert(p.name).second,
                "parameter space: parameter name '" << p.name << "' appears twice");
    GPB_EXPECTS(p.size() >= 1, "parameter '" << p.name << "': has no levels");
    GPB_EXPECTS(p.numeric() || p.descriptors.size() == 0 ||
                    p.descriptors.rows() == static_cast<Eigen::Index>(p.labels.size()),
                "parameter '" << p.name << "': the descriptor table needs one row per label");
    radix_.push_back(raw_);
    GPB_EXPECTS(raw_ <= kMaxRaw / p.size(),
                "parameter space: the product of the parameters' sizes exceeds 2^62");
    raw_ *= p.size();
  }
  const int np = static_cast<int>(params_.size());
  ids_.resize(constraints_.size());
  for (std::size_t c = 0; c < constraints_.size(); ++c) {
    const Constraint& k = constraints_[c];
    const std::string where = "constraints[" + std::to_string(c) + "] (" + type_name(k.type) + ")";
    GPB_EXPECTS(!k.params.empty(), where << ": names no parameter");
    for (std::size_t i = 0; i < k.params.size(); ++i) {
      const int p = k.params[i];
      GPB_EXPECTS(p >= 0 && p < np,
                  where << ": parameter index " << p << " is not in [0, " << np << ")");
      const Parameter& par = params_[static_cast<std::size_t>(p)];
      const bool wants_numeric =
          k.type == Constraint::Type::Linear || k.type == Constraint::Type::Mixture;
      GPB_EXPECTS(k.type == Constraint::Type::Exclusion || par.numeric() == wants_numeric,
                  where << ": parameter '" << par.name << "' must be "
                        << (wants_numeric ? "numeric" : "categorical"));
      if (k.type == Constraint::Type::Linear || k.type == Constraint::Type::Mixture)
        GPB_EXPECTS(k.coefs.size() == k.params.size() && std::isfinite(k.rhs) &&
                        std::isfinite(k.tol) && k.tol >= 0,
                    where << ": needs one coefficient per parameter, a finite bound and tol >= 0");
      if (k.type == Constraint::Type::Exclusion) {
        GPB_EXPECTS(k.levels.size() == k.params.size(), where << ": one level set per parameter");
        for (int l : k.levels[i])
          GPB_EXPECTS(l >= 0 && l < par.size(), where << ": level " << l << " of parameter '"
                                                      << par.name << "' is not in [0, "
                                                      << par.size() << ")");
      }
    }
    if (k.type == Constraint::Type::Distinct) {
      std::map<std::string, int> id;
      for (int p : k.params) {
        std::vector<int> row;
        for (const auto& l : params_[static_cast<std::size_t>(p)].labels)
          row.push_back(id.emplace(l, static_cast<int>(id.size())).first->second);
        ids_[c].push_back(std::move(row));
      }
    }
  }
  build_encoders();
  build_index();
}

int ParameterSpace::parameter_index(const std::string& name) const {
  for (std::size_t p = 0; p < params_.size(); ++p)
    if (params_[p].name == name) return static_cast<int>(p);
  GPB_EXPECTS(false, "parameter space: no parameter named '" << name << "'");
  return -1;
}

bool ParameterSpace::holds(int ci, const int* lv, const double* values) const {
  const Constraint& c = constraints_[static_cast<std::size_t>(ci)];
  const std::size_t n = c.params.size();
  switch (c.type) {
    case Constraint::Type::Linear:
    case Constraint::Type::Mixture: {
      double s = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const int p = c.params[i];
        s +=
            c.coefs[i] *
            (values ? values[p]
                    : params_[static_cast<std::size_t>(p)].values[static_cast<std::size_t>(lv[p])]);
      }
      if (c.type == Constraint::Type::Linear) return s <= c.rhs + c.tol;
      return std::abs(s - c.rhs) <= c.tol;
    }
    case Constraint::Type::Exclusion:
      for (std::size_t i = 0; i < n; ++i) {
        const auto& set = c.levels[i];
        if (std::find(set.begin(), set.end(), lv[c.params[i]]) == set.end()) return true;
      }
      return false;
    default: {
      const auto& ids = ids_[static_cast<std::size_t>(ci)];
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = i + 1; j < n; ++j)
          if (ids[i][static_cast<std::size_t>(lv[c.params[i]])] ==
              ids[j][static_cast<std::size_t>(lv[c.params[j]])])
            return false;
      return true;
    }
  }
}

bool ParameterSpace::feasible(const int* levels) const {
  for (std::size_t c = 0; c < constraints_.size(); ++c)
    if (!holds(static_cast<int>(c), levels)) return false;
  return true;
}

bool ParameterSpace::feasible_values(const int* levels, const double* values) const {
  for (std::size_t c = 0; c < constraints_.size(); ++c)
    if (!holds(static_cast<int>(c), levels, values)) return false;
  return true;
}

bool ParameterSpace::block_may_hold(const int* lv) const {
  for (std::size_t ci = 0; ci < constraints_.size(); ++ci) {
    const Constraint& c = constraints_[ci];
    if (outer_only_[ci]) {
      if (!holds(static_cast<int>(ci), lv)) return false;
      continue;
    }
    if (c.type == Constraint::Type::Linear || c.type == Constraint::Type::Mixture) {
      double s = 0;  // the outer part of the sum; lo_/hi_ bound the inner part
      for (std::size_t i = 0; i < c.params.size(); ++i) {
        const int p = c.params[i];
        if (p >= inner_)
          s += c.coefs[i] *
               params_[static_cast<std::size_t>(p)].values[static_cast<std::size_t>(lv[p])];
      }
      if (s + lo_[ci] > c.rhs + c.tol) return false;
      if (c.type == Constraint::Type::Mixture && s + hi_[ci] < c.rhs - c.tol) return false;
    } else if (c.type == Constraint::Type::Exclusion) {
      continue;  // involves an inner parameter: decided per combination
    } else {
      const auto& ids = ids_[ci];  // duplicates among the outer slots already rule it out
      for (std::size_t i = 0; i < c.params.size(); ++i)
        for (std::size_t j = i + 1; j < c.params.size(); ++j)
          if (c.params[i] >= inner_ && c.params[j] >= inner_ &&
              ids[i][static_cast<std::size_t>(lv[c.params[i]])] ==
                  ids[j][static_cast<std::size_t>(lv[c.params[j]])])
            return false;
    }
  }
  return true;
}

long long ParameterSpace::count_block(long long block, std::vector<int>& lv) const {
  lv = levels_of_raw(block * block_);
  if (!block_may_hold(lv.data())) return 0;
  if (inner_cons_.empty()) return block_;
  long long n = 0;
  do {
    bool ok = true;
    for (int c : inner_cons_)
      if (!holds(c, lv.data())) {
        ok = false;
        break;
      }
    n += ok;
  } while (step(lv, params_, inner_));
  return n;
}

std::string ParameterSpace::describe(int ci) const {
  const Constraint& c = constraints_[static_cast<std::size_t>(ci)];
  std::ostringstream s;
  s << "constraints[" << ci << "] (" << type_name(c.type) << " over";
  for (int p : c.params) s << " '" << params_[static_cast<std::size_t>(p)].name << "'";
  s << ")";
  return s.str();
}

void ParameterSpace::build_index() {
  const int np = static_cast<int>(params_.size());
  if (constraints_.empty()) {  // everything feasible: one block
    inner_ = np;
    block_ = raw_;
    prefix_ = {0, raw_};
    feasible_ = raw_;
    return;
  }
  const double target = std::sqrt(static_cast<double>(raw_));
  inner_ = 0;
  block_ = 1;
  while (inner_ < np && static_cast<double>(block_) < target) {
    block_ *= params_[static_cast<std::size_t>(inner_)].size();
    ++inner_;
  }
  const std::size_t nc = constraints_.size();
  lo_.assign(nc, 0);
  hi_.assign(nc, 0);
  outer_only_.assign(nc, 1);
  inner_cons_.clear();
  for (std::size_t ci = 0; ci < nc; ++ci) {
    const Constraint& c = constraints_[ci];
    for (std::size_t i = 0; i < c.params.size(); ++i) {
      const int p = c.params[i];
      if (p >= inner_) continue;
      outer_only_[ci] = 0;
      if (c.type == Constraint::Type::Linear || c.type == Constraint::Type::Mixture) {
        const auto& v = params_[static_cast<std::size_t>(p)].values;
        const double a = c.coefs[i] * v.front(), b = c.coefs[i] * v.back();
        lo_[ci] += std::min(a, b);
        hi_[ci] += std::max(a, b);
      }
    }
    if (!outer_only_[ci]) inner_cons_.push_back(static_cast<int>(ci));
  }
  const long long blocks = raw_ / block_;
  prefix_.assign(static_cast<std::size_t>(blocks) + 1, 0);
  std::vector<int> lv;
  for (long long b = 0; b < blocks; ++b)
    prefix_[static_cast<std::size_t>(b) + 1] =
        prefix_[static_cast<std::size_t>(b)] + count_block(b, lv);
  feasible_ = prefix_.back();
  if (feasible_ == 0) {
    std::ostringstream s;
    for (std::size_t ci = 0; ci < nc; ++ci) s << (ci ? ", " : "") << describe(static_cast<int>(ci));
    GPB_EXPECTS(false, "parameter space: no combination of the "
                           << raw_ << " satisfies the constraints: " << s.str());
  }
}

void ParameterSpace::build_encoders() {
  dim_ = 0;
  for (const Parameter& p : params_) {
    const int s = p.size(), e = p.encoded_dim();
    Eigen::MatrixXd t = Eigen::MatrixXd::Zero(e, s);
    if (p.numeric()) {
      const double w = p.values.back() - p.values.front();
      for (int l = 0; l < s; ++l)
        t(0, l) = w > 0 ? (p.values[static_cast<std::size_t>(l)] - p.values.front()) / w : 0.0;
    } else if (p.descriptors.size() == 0) {
      t.setIdentity();
    } else {
      for (int j = 0; j < e; ++j) {
        const Eigen::VectorXd col = p.descriptors.col(j);
        const double mean = col.mean();
        const double sd = std::sqrt((col.array() - mean).square().mean());
        for (int l = 0; l < s; ++l) t(j, l) = sd > 0 ? (col(l) - mean) / sd : 0.0;
      }
    }
    enc_.push_back(std::move(t));
    dim_ += e;
  }
}

long long ParameterSpace::raw_of(long long k) const {
  GPB_EXPECTS(k >= 0 && k < feasible_,
              "parameter space: index " << k << " is not in [0, " << feasible_ << ")");
  if (constraints_.empty()) return k;
  const auto it = std::upper_bound(prefix_.begin(), prefix_.end(), k) - 1;
  const long long b = it - prefix_.begin();
  long long left = k - *it;  // feasible combinations of block b to pass over
  std::vector<int> lv = levels_of_raw(b * block_);
  long long j = 0;
  for (;; ++j) {
    if (feasible(lv.data()) && left-- == 0) break;
    step(lv, params_, inner_);
  }
  return b * block_ + j;
}

long long ParameterSpace::feasible_of(long long raw) const {
  GPB_EXPECTS(raw >= 0 && raw < raw_,
              "parameter space: raw index " << raw << " is not in [0, " << raw_ << ")");
  if (constraints_.empty()) return raw;
  std::vector<int> lv = levels_of_raw(raw);
  if (!feasible(lv.data())) return -1;
  const long long b = raw / block_;
  long long n = prefix_[static_cast<std::size_t>(b)];
  lv = levels_of_raw(b * block_);
  for (long long r = b * block_; r < raw; ++r) {
    n += feasible(lv.data());
    step(lv, params_, inner_);
  }
  return n;
}

std::vector<int> ParameterSpace::levels_of_raw(long long raw) const {
  GPB_EXPECTS(raw >= 0 && raw < raw_,
              "parameter space: raw index " << raw << " is not in [0, " << raw_ << ")");
  std::vector<int> lv(params_.size());
  for (std::size_t p = 0; p < params_.size(); ++p)
    lv[p] = static_cast<int>((raw / radix_[p]) % params_[p].size());
  return lv;
}

long long ParameterSpace::raw_of_levels(const std::vector<int>& levels) const {
  GPB_EXPECTS(
      levels.size() == params_.size(),
      "parameter space: " << levels.size() << " levels for " << params_.size() << " parameters");
  long long r = 0;
  for (std::size_t p = 0; p < params_.size(); ++p) {
    GPB_EXPECTS(levels[p] >= 0 && levels[p] < params_[p].size(),
                "parameter '" << params_[p].name << "': level " << levels[p] << " is not in [0, "
                              << params_[p].size() << ")");
    r += levels[p] * radix_[p];
  }
  return r;
}

void ParameterSpace::encode_levels(const int* levels, double* out) const {
  for (std::size_t p = 0; p < params_.size(); ++p) {
    const Eigen::MatrixXd& t = enc_[p];
    for (Eigen::Index j = 0; j < t.rows(); ++j) *out++ = t(j, levels[p]);
  }
}

Eigen::VectorXd ParameterSpace::encode(long long k) const {
  Eigen::VectorXd x(dim_);
  const std::vector<int> lv = combination(k);
  encode_levels(lv.data(), x.data());
  return x;
}

Eigen::MatrixXd ParameterSpace::encode_range(long long begin, long long end) const {
  GPB_EXPECTS(begin >= 0 && begin < end && end <= feasible_,
              "parameter space: range [" << begin << ", " << end << ") is empty or not within [0, "
                                         << feasible_ << ")");
  Eigen::MatrixXd out(dim_, end - begin);
  long long r = raw_of(begin);
  std::vector<int> lv = levels_of_raw(r);
  const int np = static_cast<int>(params_.size());
  for (long long col = 0; col < end - begin;) {
    const long long b = r / block_;
    if (prefix_[static_cast<std::size_t>(b) + 1] == prefix_[static_cast<std::size_t>(b)]) {
      r = (b + 1) * block_;  // a block with nothing feasible: skip it whole
      lv = levels_of_raw(r);
      continue;
    }
    if (feasible(lv.data())) encode_levels(lv.data(), out.col(col++).data());
    ++r;
    step(lv, params_, np);
  }
  return out;
}

std::vector<int> ParameterSpace::decode(const double* x) const {
  std::vector<int> lv(params_.size());
  for (std::size_t p = 0; p < params_.size(); ++p) {
    const Eigen::MatrixXd& t = enc_[p];
    const Eigen::Map<const Eigen::VectorXd> xp(x, t.rows());
    (t.colwise() - xp).colwise().squaredNorm().minCoeff(&lv[p]);
    x += t.rows();
  }
  return lv;
}

}  // namespace gpb
