// Generated substitutes for the landmine SVM and MNIST NN tuning objectives (specs/fed-pne.md §9).
#include "gpbandit/xarmed/substitutes.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "gpbandit/error.hpp"
#include "gpbandit/rng.hpp"

#if GPB_HAS_LIBSVM
#include "objective/libsvm_loader.hpp"
#endif

namespace gpb::xarmed {

namespace {
constexpr std::uint32_t kLandmineStream = 0xfe0101u;
constexpr std::uint32_t kDigitsStream = 0xfe0102u;
constexpr std::uint32_t kFieldPickStream = 0xfe0103u;
constexpr std::uint32_t kMlpInitStream = 0xfe0104u;
constexpr int kFields = 29;  // the landmine data's 29 fields
}  // namespace

ClientData landmine_like_field(std::uint64_t seed, int field, int n) {
  GPB_EXPECTS(n >= 40, "landmine_like_field: n must be >= 40, got " << n);
  constexpr int p = 9;
  // Field-level parameters: class-shared shift, feature scales and cluster offsets.
  Rng fr(seed, static_cast<std::uint32_t>(field), kLandmineStream, 0);
  Eigen::VectorXd shift(p), scale(p);
  for (int a = 0; a < p; ++a) shift(a) = 0.7 * fr.normal();
  for (int a = 0; a < p; ++a) scale(a) = std::exp(0.3 * fr.normal());
  Eigen::MatrixXd centre(p, 3);  // positives: three clusters at distance ≈1.8 in 4 informative dims
  for (int k = 0; k < 3; ++k) {
    Eigen::VectorXd v = Eigen::VectorXd::Zero(p);
    for (int a = 0; a < 4; ++a) v(a) = fr.normal();
    centre.col(k) = 1.8 * v / v.norm();
  }
  const int n_pos = std::max(4, static_cast<int>(std::lround(0.06 * n)));
  Eigen::MatrixXd X(p, n);
  Eigen::VectorXi y(n);
  Rng r(seed, static_cast<std::uint32_t>(field), kLandmineStream, 1u << 20);
  for (int i = 0; i < n; ++i) {
    const bool pos = i < n_pos;
    y(i) = pos ? 1 : 0;
    const int k = static_cast<int>(r.below(3));
    for (int a = 0; a < p; ++a) {
      const double z = pos ? centre(a, k) + 0.45 * r.normal() : r.normal();
      X(a, i) = scale(a) * z + shift(a);
    }
  }
  // Stratified halves: alternate positives and negatives between train and test.
  ClientData d;
  std::vector<int> tr, te;
  for (int i = 0; i < n; ++i) ((i < n_pos ? i : i - n_pos) % 2 == 0 ? tr : te).push_back(i);
  d.train_x.resize(p, static_cast<Eigen::Index>(tr.size()));
  d.train_y.resize(static_cast<Eigen::Index>(tr.size()));
  d.test_x.resize(p, static_cast<Eigen::Index>(te.size()));
  d.test_y.resize(static_cast<Eigen::Index>(te.size()));
  for (std::size_t j = 0; j < tr.size(); ++j) {
    d.train_x.col(static_cast<Eigen::Index>(j)) = X.col(tr[j]);
    d.train_y(static_cast<Eigen::Index>(j)) = y(tr[j]);
  }
  for (std::size_t j = 0; j < te.size(); ++j) {
    d.test_x.col(static_cast<Eigen::Index>(j)) = X.col(te[j]);
    d.test_y(static_cast<Eigen::Index>(j)) = y(te[j]);
  }
  return d;
}

namespace {
// Seven-segment strokes in the unit square (x right, y down): a b c d e f g.
constexpr double kSeg[7][4] = {{0.25, 0.12, 0.75, 0.12}, {0.75, 0.12, 0.75, 0.5},
                               {0.75, 0.5, 0.75, 0.88},  {0.25, 0.88, 0.75, 0.88},
                               {0.25, 0.5, 0.25, 0.88},  {0.25, 0.12, 0.25, 0.5},
                               {0.25, 0.5, 0.75, 0.5}};
// Segments lit per digit (bit s = segment s).
constexpr int kDigitSegs[10] = {0b0111111, 0b0000110, 0b1011011, 0b1001111, 0b1100110,
                                0b1101101, 0b1111101, 0b0000111, 0b1111111, 0b1101111};

void render_glyph(int digit, Rng& r, double* px) {
  const double ang = 0.12 * r.normal(), sc = r.uniform(0.85, 1.1), sh = 0.1 * r.normal();
  const double tx = 0.04 * r.normal(), ty = 0.04 * r.normal(), w = r.uniform(0.06, 0.09);
  const double ca = std::cos(ang) * sc, sa = std::sin(ang) * sc;
  auto map = [&](double x, double y, double& u, double& v) {
    x -= 0.5, y -= 0.5;
    x += sh * y;
    u = 0.5 + ca * x - sa * y + tx;
    v = 0.5 + sa * x + ca * y + ty;
  };
  std::vector<double> seg;
  for (int s = 0; s < 7; ++s) {
    if (!(kDigitSegs[digit] >> s & 1)) continue;
    double u0, v0, u1, v1;
    map(kSeg[s][0] + 0.02 * r.normal(), kSeg[s][1] + 0.02 * r.normal(), u0, v0);
    map(kSeg[s][2] + 0.02 * r.normal(), kSeg[s][3] + 0.02 * r.normal(), u1, v1);
    seg.insert(seg.end(), {u0, v0, u1, v1});
  }
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) {
      const double x = (j + 0.5) / 8, y = (i + 0.5) / 8;
      double best = 1e9;
      for (std::size_t s = 0; s < seg.size(); s += 4) {
        const double dx = seg[s + 2] - seg[s], dy = seg[s + 3] - seg[s + 1];
        const double l2 = dx * dx + dy * dy;
        double t = l2 > 0 ? ((x - seg[s]) * dx + (y - seg[s + 1]) * dy) / l2 : 0.0;
        t = std::clamp(t, 0.0, 1.0);
        const double ex = x - seg[s] - t * dx, ey = y - seg[s + 1] - t * dy;
        best = std::min(best, ex * ex + ey * ey);
      }
      const double v = std::exp(-best / (2 * w * w)) + 0.1 * r.normal();
      px[i * 8 + j] = std::clamp(v, 0.0, 1.0);
    }
  }
}
}  // namespace

ClientData digits_like_shard(std::uint64_t seed, int client, int n_train, int n_test) {
  GPB_EXPECTS(n_train >= 10 && n_test >= 10, "digits_like_shard: need >= 10 train and test images");
  Rng r(seed, static_cast<std::uint32_t>(client), kDigitsStream, 0);
  ClientData d;
  auto fill = [&](int n, Eigen::MatrixXd& X, Eigen::VectorXi& y) {
    X.resize(64, n);
    y.resize(n);
    for (int i = 0; i < n; ++i) {
      y(i) = static_cast<int>(r.below(10));
      render_glyph(y(i), r, X.col(i).data());
    }
  };
  fill(n_train, d.train_x, d.train_y);
  fill(n_test, d.test_x, d.test_y);
  return d;
}

double auc_roc(const Eigen::VectorXd& score, const Eigen::VectorXi& label) {
  const Eigen::Index n = score.size();
  std::vector<Eigen::Index> idx(static_cast<std::size_t>(n));
  std::iota(idx.begin(), idx.end(), Eigen::Index{0});
  std::sort(idx.begin(), idx.end(),
            [&](Eigen::Index a, Eigen::Index b) { return score(a) < score(b); });
  double rank_sum = 0;
  long long npos = 0;
  for (Eigen::Index i = 0; i < n;) {
    Eigen::Index j = i;
    while (j + 1 < n &&
           score(idx[static_cast<std::size_t>(j + 1)]) == score(idx[static_cast<std::size_t>(i)]))
      ++j;
    const double avg = 0.5 * static_cast<double>(i + j) + 1;  // 1-based average rank
    for (Eigen::Index k = i; k <= j; ++k) {
      if (label(idx[static_cast<std::size_t>(k)]) == 1) rank_sum += avg, ++npos;
    }
    i = j + 1;
  }
  const long long nneg = static_cast<long long>(n) - npos;
  GPB_EXPECTS(npos > 0 && nneg > 0, "auc_roc: both classes must be present");
  return (rank_sum - 0.5 * static_cast<double>(npos) * static_cast<double>(npos + 1)) /
         (static_cast<double>(npos) * static_cast<double>(nneg));
}

#if GPB_HAS_LIBSVM
namespace {
void quiet(const char*) {}
std::vector<svm_node> svm_rows(const Eigen::MatrixXd& X) {
  const int p = static_cast<int>(X.rows());
  std::vector<svm_node> v(static_cast<std::size_t>(X.cols()) * (p + 1));
  for (Eigen::Index i = 0; i < X.cols(); ++i) {
    svm_node* row = &v[static_cast<std::size_t>(i) * (p + 1)];
    for (int a = 0; a < p; ++a) row[a] = svm_node{a + 1, X(a, i)};
    row[p] = svm_node{-1, 0.0};
  }
  return v;
}
}  // namespace

double svm_auc(const ClientData& d, double gamma, double C) {
  GPB_EXPECTS(gamma > 0 && C > 0, "svm_auc: gamma and C must be > 0");
  const gpb::detail::Libsvm& svm = gpb::detail::libsvm("objective.type: landmine_svm");
  svm.set_print_string_function(&quiet);
  const int p = static_cast<int>(d.train_x.rows());
  std::vector<svm_node> tr = svm_rows(d.train_x);
  std::vector<svm_node*> rows(static_cast<std::size_t>(d.train_x.cols()));
  std::vector<double> y(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i] = &tr[i * (p + 1)];
    y[i] = d.train_y(static_cast<Eigen::Index>(i)) == 1 ? 1.0 : -1.0;
  }
  svm_problem prob{static_cast<int>(rows.size()), y.data(), rows.data()};
  svm_parameter par{};
  par.svm_type = C_SVC;
  par.kernel_type = RBF;
  par.gamma = gamma;
  par.C = C;
  par.cache_size = 20;
  par.eps = 1e-3;
  par.shrinking = 1;
  if (const char* err = svm.check_parameter(&prob, &par)) {
    throw InvalidArgument(std::string("landmine_svm: libsvm rejects the parameters: ") + err);
  }
  svm_model* model = svm.train(&prob, &par);
  // Decision values are positive for model->label[0]; orient them so larger means label 1.
  const double sign = model->label[0] == 1 ? 1.0 : -1.0;
  const std::vector<svm_node> te = svm_rows(d.test_x);
  Eigen::VectorXd score(d.test_x.cols());
  for (Eigen::Index i = 0; i < score.size(); ++i) {
    double dec = 0;
    svm.predict_values(model, &te[static_cast<std::size_t>(i) * (p + 1)], &dec);
    score(i) = sign * dec;
  }
  svm.free_and_destroy_model(&model);
  return auc_roc(score, d.test_y);
}
#else
double svm_auc(const ClientData&, double, double) {
  throw InvalidArgument(
      "objective.type: landmine_svm needs libsvm, and this build has none (install libsvm-dev "
      "and re-run cmake)");
}
#endif

double mlp_accuracy(const ClientData& d, int batch, double lr, double wd, int epochs,
                    std::uint64_t init_seed) {
  GPB_EXPECTS(batch >= 1 && lr > 0 && wd >= 0 && epochs >= 1, "mlp_accuracy: bad hyperparameters");
  const int in = static_cast<int>(d.train_x.rows()), H = 64, K = 10;
  const int n = static_cast<int>(d.train_x.cols());
  Rng r(init_seed, 0, kMlpInitStream, 0);
  const double g1 = std::sqrt(6.0 / (in + H)), g2 = std::sqrt(6.0 / (H + K));
  Eigen::MatrixXd W1(H, in), W2(K, H);
  for (Eigen::Index i = 0; i < W1.size(); ++i) W1.data()[i] = r.uniform(-g1, g1);
  for (Eigen::Index i = 0; i < W2.size(); ++i) W2.data()[i] = r.uniform(-g2, g2);
  Eigen::VectorXd b1 = Eigen::VectorXd::Zero(H), b2 = Eigen::VectorXd::Zero(K);
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  batch = std::min(batch, n);
  Eigen::MatrixXd Xb, A, Z, P, G2, G1;
  bool diverged = false;
  for (int e = 0; e < epochs && !diverged; ++e) {
    for (int i = n - 1; i > 0; --i)
      std::swap(order[i], order[r.below(static_cast<std::uint64_t>(i + 1))]);
    for (int s = 0; s < n; s += batch) {
      const int bs = std::min(batch, n - s);
      Xb.resize(in, bs);
      for (int k = 0; k < bs; ++k)
        Xb.col(k) = d.train_x.col(order[static_cast<std::size_t>(s + k)]);
      Z = (W1 * Xb).colwise() + b1;
      A = Z.cwiseMax(0.0);
      P = (W2 * A).colwise() + b2;
      for (int k = 0; k < bs; ++k) {  // softmax, then P − onehot
        P.col(k).array() -= P.col(k).maxCoeff();
        P.col(k) = P.col(k).array().exp();
        P.col(k) /= P.col(k).sum();
        P(d.train_y(order[static_cast<std::size_t>(s + k)]), k) -= 1.0;
      }
      P /= bs;
      G2 = W2.transpose() * P;
      G1 = G2.cwiseProduct((Z.array() > 0).cast<double>().matrix());
      W2 -= lr * (P * A.transpose() + wd * W2);
      b2 -= lr * P.rowwise().sum();
      W1 -= lr * (G1 * Xb.transpose() + wd * W1);
      b1 -= lr * G1.rowwise().sum();
    }
    diverged = !W1.allFinite() || !W2.allFinite() || !b1.allFinite() || !b2.allFinite();
  }
  const Eigen::Index nt = d.test_x.cols();
  int correct = 0;
  if (diverged) {  // a diverged net predicts class 0 everywhere
    for (Eigen::Index i = 0; i < nt; ++i) correct += d.test_y(i) == 0;
    return static_cast<double>(correct) / static_cast<double>(nt);
  }
  const Eigen::MatrixXd out = (W2 * ((W1 * d.test_x).colwise() + b1).cwiseMax(0.0)).colwise() + b2;
  for (Eigen::Index i = 0; i < nt; ++i) {
    Eigen::Index k;
    out.col(i).maxCoeff(&k);
    correct += static_cast<int>(k) == d.test_y(i);
  }
  return static_cast<double>(correct) / static_cast<double>(nt);
}

namespace {

/// Shared machinery: per-client data built lazily, values cached per (client, x), global = mean
/// of the M local rewards, f* = 1 (assumed, as the spec does for the real-data objectives).
class CachedSubstitute : public FedObjective {
 public:
  CachedSubstitute(std::string name, Box box, std::uint64_t seed)
      : seed_(seed), name_(std::move(name)), box_(std::move(box)) {}
  std::string name() const override { return name_; }
  const Box& box() const override { return box_; }
  double fstar() const override { return 1.0; }
  double global(std::uint32_t run, int M, const double* x) const override {
    return mean_local(run, M, x);
  }
  double local(std::uint32_t, int m, int M, const double* x) const override {
    const int c = client_key(m, M);
    std::vector<double> key(x, x + box_.lo.size());
    key.push_back(c);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (auto it = cache_.find(key); it != cache_.end()) return it->second;
    }
    const double v = evaluate(data(c), c, x);
    std::lock_guard<std::mutex> lock(mu_);
    cache_.emplace(std::move(key), v);
    return v;
  }

 protected:
  /// Which data set client m of M uses (independent of the run: data and init are per seed).
  virtual int client_key(int m, int M) const = 0;
  virtual ClientData make_data(int key) const = 0;
  virtual double evaluate(const ClientData& d, int key, const double* x) const = 0;
  std::uint64_t seed_;

 private:
  const ClientData& data(int key) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = data_.find(key);
    if (it == data_.end()) it = data_.emplace(key, make_data(key)).first;
    return it->second;  // std::map nodes are stable
  }
  std::string name_;
  Box box_;
  mutable std::mutex mu_;
  mutable std::map<int, ClientData> data_;
  mutable std::map<std::vector<double>, double> cache_;
};

/// x = (log10 γ, log10 C) ∈ [−2, 1] × [−4, 1] (the spec's ranges on its log option).
class LandmineSvm final : public CachedSubstitute {
 public:
  explicit LandmineSvm(std::uint64_t seed)
      : CachedSubstitute("landmine-like substitute (generated)", Box{{-2.0, -4.0}, {1.0, 1.0}},
                         seed) {}

 protected:
  int client_key(int m, int M) const override {
    if (M <= kFields) return m;  // distinct fields
    Rng r(seed_, 0, kFieldPickStream, static_cast<std::uint64_t>(m));
    return static_cast<int>(r.below(kFields));  // with replacement
  }
  ClientData make_data(int key) const override { return landmine_like_field(seed_, key, 400); }
  double evaluate(const ClientData& d, int, const double* x) const override {
    return svm_auc(d, std::pow(10.0, x[0]), std::pow(10.0, x[1]));
  }
};

/// x = (batch ∈ [1, 100], log10 lr ∈ [−6, 0], log10 weight decay ∈ [−6, log10 0.5]).
class DigitsClassifier final : public CachedSubstitute {
 public:
  explicit DigitsClassifier(std::uint64_t seed)
      : CachedSubstitute("digits substitute for MNIST (generated)",
                         Box{{1.0, -6.0, -6.0}, {100.0, 0.0, std::log10(0.5)}}, seed) {}

 protected:
  int client_key(int m, int) const override { return m; }
  ClientData make_data(int key) const override { return digits_like_shard(seed_, key, 150, 30); }
  double evaluate(const ClientData& d, int key, const double* x) const override {
    return mlp_accuracy(d, static_cast<int>(std::floor(x[0])), std::pow(10.0, x[1]),
                        std::pow(10.0, x[2]), 10,
                        seed_ ^ (0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(key + 1)));
  }
};

}  // namespace

std::shared_ptr<const FedObjective> make_substitute(const ObjectiveSpec& spec) {
  GPB_EXPECTS(!spec.perturbed, "objective.perturbed: not available for " << spec.type);
  if (spec.type == "landmine_svm") {
#if !GPB_HAS_LIBSVM
    throw InvalidArgument(
        "objective.type: landmine_svm needs libsvm, and this build has none (install libsvm-dev "
        "and re-run cmake)");
#endif
    return std::make_shared<LandmineSvm>(spec.seed);
  }
  if (spec.type == "digits_classifier") return std::make_shared<DigitsClassifier>(spec.seed);
  throw InvalidArgument("objective.type: unknown '" + spec.type + "'");
}

}  // namespace gpb::xarmed
