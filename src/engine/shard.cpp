// The backend-independent half of a sharded FinitePosterior (see detail/shard.hpp).
#include "engine/detail/shard.hpp"

#include <cmath>
#include <cstring>

#include "engine/cpu/ops_cpu.hpp"
#include "gpbandit/error.hpp"

namespace gpb::detail {

Shard make_shard(const Communicator& comm, const Domain& domain) {
  Shard s;
  s.comm = comm;
  s.total = domain.size();
  const int k = comm.size();
  GPB_EXPECTS(k <= s.total, "posterior: " << k << " ranks for a domain of " << s.total
                                          << " candidates; every rank needs at least one "
                                          << "candidate (run with at most " << s.total
                                          << " ranks)");
  const auto [b, e] = comm.slice(s.total);
  s.begin = static_cast<int>(b);
  s.end = static_cast<int>(e);
  GPB_EXPECTS(
      !domain.is_slice() || (domain.slice_begin() == s.begin && domain.slice_end() == s.end),
      "posterior: the domain holds candidates ["
          << domain.slice_begin() << ", " << domain.slice_end() << ") but rank " << comm.rank()
          << " of " << k << " holds [" << s.begin << ", " << s.end << ")");
  return s;
}

Eigen::MatrixXd shard_points(const Shard& shard, const Domain& domain) {
  if (domain.streams_points()) return Eigen::MatrixXd(domain.dim(), 0);  // computed per chunk
  if (domain.is_slice() || !shard.sharded()) return domain.points();
  return domain.points().middleCols(shard.begin, shard.local_size());
}

void share_owned(const Communicator& comm, double* buf, int count, const char* what) {
  if (!comm.sharded() || count == 0) return;
  static_assert(sizeof(double) == sizeof(std::uint64_t), "doubles are 64-bit words");
  std::vector<std::uint64_t> words(static_cast<std::size_t>(count));
  std::memcpy(words.data(), buf, sizeof(double) * static_cast<std::size_t>(count));
  comm.impl().allreduce_or(words.data(), count, what);
  std::memcpy(buf, words.data(), sizeof(double) * static_cast<std::size_t>(count));
}

namespace {

/// The one-rank checks of ucb_argmax_cpu (check_ucb_best), on the global record.
void check_record(const UcbRecord& g, double width) {
  GPB_EXPECTS(g.nan_index < 0, "ucb_argmax: the UCB score of candidate "
                                   << static_cast<long long>(g.nan_index) << " is NaN (mean "
                                   << g.nan_mean << ", variance " << g.nan_var << ", width "
                                   << width << ")");
  GPB_EXPECTS(g.index >= 0, "ucb_argmax: every candidate is excluded");
}

}  // namespace

std::vector<UcbChoice> reduce_ucb_choices(const Shard& shard, std::vector<UcbRecord> local,
                                          const double* width, std::vector<Rng>* tiebreak,
                                          const KthTie& kth_tie) {
  const int R = static_cast<int>(local.size());
  std::vector<UcbRecord> global = local;
  if (shard.sharded()) shard.comm.impl().allreduce_ucb(global.data(), R, "ucb_argmax");
  std::vector<UcbChoice> out(static_cast<std::size_t>(R));
  std::vector<int> need, rank_k;  // runs whose choice is a later tie, and that tie's rank k
  for (int r = 0; r < R; ++r) {
    const UcbRecord& g = global[static_cast<std::size_t>(r)];
    check_record(g, width[r]);
    UcbBest best;
    best.score = g.score;
    best.index = static_cast<int>(g.index);
    best.ties = static_cast<int>(g.ties);
    Rng* tb = tiebreak != nullptr ? &(*tiebreak)[static_cast<std::size_t>(r)] : nullptr;
    const int k = tie_rank(best, tb);
    out[static_cast<std::size_t>(r)] = UcbChoice{best.index, best.score, best.ties};
    if (k > 0) {
      need.push_back(r);
      rank_k.push_back(k);
    }
  }
  if (need.empty()) return out;
  const int m = static_cast<int>(need.size()), K = shard.comm.size(), me = shard.comm.rank();
  std::vector<int> mine(static_cast<std::size_t>(m)), all(static_cast<std::size_t>(m) * K);
  for (int i = 0; i < m; ++i) {
    const UcbRecord& l = local[static_cast<std::size_t>(need[i])];
    const UcbRecord& g = global[static_cast<std::size_t>(need[i])];
    mine[static_cast<std::size_t>(i)] =
        l.index >= 0 && l.score == g.score ? static_cast<int>(l.ties) : 0;
  }
  if (shard.sharded()) {
    shard.comm.impl().allgather(mine.data(), m, all.data(), "ucb_argmax ties");
  } else {
    all = mine;
  }
  std::vector<int> chosen(static_cast<std::size_t>(m), -1);
  for (int i = 0; i < m; ++i) {
    int before = 0;  // ties held by lower ranks
    for (int q = 0; q < me; ++q) before += all[static_cast<std::size_t>(q) * m + i];
    const int kk = rank_k[static_cast<std::size_t>(i)] - before;
    if (kk >= 0 && kk < mine[static_cast<std::size_t>(i)]) {
      chosen[static_cast<std::size_t>(i)] =
          kth_tie(need[static_cast<std::size_t>(i)], global[need[i]].score, kk);
    }
  }
  if (shard.sharded()) shard.comm.impl().allreduce_max(chosen.data(), m, "ucb_argmax tie");
  for (int i = 0; i < m; ++i)
    out[static_cast<std::size_t>(need[i])].index = chosen[static_cast<std::size_t>(i)];
  return out;
}

void gather_slices(const Shard& shard, const double* local, std::vector<double>& all) {
  all.resize(static_cast<std::size_t>(shard.total));
  const int K = shard.comm.size();
  std::vector<int> counts(static_cast<std::size_t>(K));
  for (int q = 0; q < K; ++q) {
    const auto [b, e] = shard.comm.slice(shard.total, q);
    counts[static_cast<std::size_t>(q)] = static_cast<int>(e - b);
  }
  shard.comm.impl().allgatherv(local, counts.data(), all.data(), "gather of mean/variance");
}

}  // namespace gpb::detail
