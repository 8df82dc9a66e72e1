// Slices of a non-grid domain over a Communicator's ranks (see detail/domain_scatter.hpp).
#include "dist/domain_scatter.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>

#include "comm/communicator_impl.hpp"
#include "gpbandit/error.hpp"
#include "io/npy.hpp"

namespace gpb::detail {

namespace {

/// d·count as an int element count of one collective, or a message naming `what`.
int element_count(long long d, long long count, const char* what) {
  GPB_EXPECTS(d * count <= INT_MAX, what << ": " << count << " points of dimension " << d
                                         << " exceed one MPI message (2^31 − 1 doubles)");
  return static_cast<int>(d * count);
}

}  // namespace

Domain scatter_csv_domain(const Communicator& comm, const std::string& path) {
  const int k = comm.size(), q = comm.rank();
  Domain whole = Domain::indices(1);  // rank 0's file; a placeholder elsewhere
  std::exception_ptr failure;
  // {read, N, d} from rank 0; the others offer INT_MIN, so the maximum is rank 0's.
  int head[3] = {INT_MIN, INT_MIN, INT_MIN};
  if (q == 0) {
    try {
      whole = Domain::from_csv(path);
      head[0] = 1;
      head[1] = whole.size();
      head[2] = whole.dim();
    } catch (...) {
      failure = std::current_exception();
      head[0] = 0;
    }
  }
  comm.impl().allreduce_max(head, 3, "the CSV domain's size");
  if (failure) std::rethrow_exception(failure);
  if (head[0] != 1) {
    throw InvalidArgument(path + ": rank 0 could not read the domain (it reports why)");
  }
  const long long n = head[1], d = head[2];
  if (k > n) {
    throw InvalidArgument(std::to_string(k) + " MPI ranks for N = " + std::to_string(n) +
                          " candidates: every rank needs at least one (run with at most " +
                          std::to_string(n) + " ranks)");
  }
  std::vector<int> counts(static_cast<std::size_t>(k));
  for (int r = 0; r < k; ++r) {
    const auto [b, e] = Communicator::slice_of(n, r, k);
    counts[static_cast<std::size_t>(r)] = element_count(d, e - b, "domain slice");
  }
  (void)element_count(d, n, "domain");  // rank 0's displacements are ints too
  const auto [b, e] = comm.slice(n);
  Eigen::MatrixXd mine(d, e - b);
  comm.impl().scatterv(q == 0 ? whole.points().data() : nullptr, counts.data(), mine.data(),
                       "the CSV domain's slices");
  whole = Domain::indices(1);  // rank 0 frees the file's points
  return Domain::from_slice(std::move(mine), b, n);
}

namespace {

/// Every rank's outcome of one step (`failure` set where it threw), agreed on: when any rank
/// failed, every rank throws InvalidArgument with the message of the lowest failing rank (its
/// first 1023 bytes, delivered by one bitwise-OR reduction), so that whichever rank reports it
/// prints the real reason. One allreduce, two when a rank failed.
void agree_on_failure(const Communicator& comm, const std::exception_ptr& failure,
                      const char* what) {
  const int k = comm.size();
  int lowest = failure ? k - comm.rank() : 0;  // the maximum names the lowest failing rank
  comm.impl().allreduce_max(&lowest, 1, what);
  if (lowest == 0) return;
  constexpr std::size_t kWords = 128;
  std::vector<std::uint64_t> words(kWords, 0);
  if (k - lowest == comm.rank()) {
    std::string message;
    try {
      std::rethrow_exception(failure);
    } catch (const std::exception& e) {
      message = e.what();
    }
    std::memcpy(words.data(), message.data(), std::min(message.size(), kWords * 8 - 1));
  }
  comm.impl().allreduce_or(words.data(), static_cast<int>(kWords), what);
  const char* text = reinterpret_cast<const char*>(words.data());
  throw InvalidArgument(std::string(text, strnlen(text, kWords * 8 - 1)));
}

}  // namespace

Domain read_npy_domain_slice(const Communicator& comm, const std::string& path) {
  const int k = comm.size();
  std::exception_ptr failure;
  long long n = 0, d = 0;
  try {
    const auto shape = npy_points_shape(path);
    GPB_EXPECTS(shape.first <= INT_MAX,
                path << ": N = " << shape.first << " candidates exceeds the limit " << INT_MAX);
    GPB_EXPECTS(shape.second <= INT_MAX, path << ": d = " << shape.second << " is too large");
    n = shape.first;
    d = shape.second;
  } catch (...) {
    failure = std::current_exception();
  }
  agree_on_failure(comm, failure, "the .npy domain's header");
  // Every rank must see the same file: the maxima of (N, d) and of (−N, −d) agree then.
  int shape[4] = {static_cast<int>(n), static_cast<int>(d), -static_cast<int>(n),
                  -static_cast<int>(d)};
  comm.impl().allreduce_max(shape, 4, "the .npy domain's shape");
  if (shape[0] != -shape[2] || shape[1] != -shape[3]) {
    throw InvalidArgument(path + ": the ranks see different files (N from " +
                          std::to_string(-shape[2]) + " to " + std::to_string(shape[0]) +
                          "); put it on a file system every rank shares");
  }
  if (k > n) {
    throw InvalidArgument(std::to_string(k) + " MPI ranks for N = " + std::to_string(n) +
                          " candidates: every rank needs at least one (run with at most " +
                          std::to_string(n) + " ranks)");
  }
  const auto [b, e] = comm.slice(n);
  Eigen::MatrixXd mine;
  try {
    mine = read_npy_points(path, b, e);
  } catch (...) {
    failure = std::current_exception();
  }
  agree_on_failure(comm, failure, "the .npy domain's slices");
  return Domain::from_slice(std::move(mine), b, n);
}

Eigen::MatrixXd points_of_ranges(const Communicator& comm, const Domain& domain,
                                 const std::vector<std::pair<long long, long long>>& ranges) {
  const long long n = domain.size(), d = domain.dim();
  long long width = 0;
  for (const auto& [b, e] : ranges) {
    GPB_EXPECTS(0 <= b && b < e && e <= n, "domain: candidates [" << b << ", " << e
                                                                  << ") are empty or not within "
                                                                  << "[0, " << n << ")");
    width += e - b;
  }
  Eigen::MatrixXd out(d, width);
  if (!needs_owners(domain)) {
    Eigen::Index at = 0;
    for (const auto& [b, e] : ranges) {
      out.middleCols(at, e - b) = domain.points_of(b, e);
      at += e - b;
    }
    return out;
  }
  const auto [mb, me] = comm.slice(n);
  GPB_EXPECTS(comm.sharded() && domain.slice_begin() == mb && domain.slice_end() == me,
              "domain: the slice [" << domain.slice_begin() << ", " << domain.slice_end()
                                    << ") is not rank " << comm.rank() << "'s [" << mb << ", " << me
                                    << ") of " << comm.describe()
                                    << "; its other candidates cannot be fetched");
  // Every rank's ranges, then one reduction in which each owner writes the columns it holds.
  const int k = comm.size();
  std::vector<int> nranges(static_cast<std::size_t>(k));
  const int mine = static_cast<int>(ranges.size());
  comm.impl().allgather(&mine, 1, nranges.data(), "the ranges of candidates wanted");
  std::vector<int> counts(static_cast<std::size_t>(k));
  long long all_ranges = 0, first = 0;  // first: this rank's first range among all
  for (int r = 0; r < k; ++r) {
    counts[static_cast<std::size_t>(r)] = 2 * nranges[static_cast<std::size_t>(r)];
    if (r == comm.rank()) first = all_ranges;
    all_ranges += nranges[static_cast<std::size_t>(r)];
  }
  std::vector<double> my_bounds, bounds(static_cast<std::size_t>(2 * all_ranges));
  for (const auto& [b, e] : ranges) {
    my_bounds.push_back(static_cast<double>(b));  // exact: N < 2^31
    my_bounds.push_back(static_cast<double>(e));
  }
  comm.impl().allgatherv(my_bounds.data(), counts.data(), bounds.data(),
                         "the ranges of candidates wanted");
  long long total = 0, my_at = 0;  // columns of every range, and where this rank's start
  for (long long i = 0; i < all_ranges; ++i) {
    if (i == first) my_at = total;
    total += static_cast<long long>(bounds[2 * i + 1] - bounds[2 * i]);
  }
  std::vector<std::uint64_t> words(
      static_cast<std::size_t>(element_count(d, total, "candidates fetched")), 0);
  long long at = 0;
  for (long long i = 0; i < all_ranges; ++i) {
    const auto b = static_cast<long long>(bounds[2 * i]),
               e = static_cast<long long>(bounds[2 * i + 1]);
    const long long lo = std::max(b, mb), hi = std::min(e, me);
    if (lo < hi) {
      std::memcpy(words.data() + (at + lo - b) * d, domain.point(static_cast<int>(lo)),
                  sizeof(double) * static_cast<std::size_t>((hi - lo) * d));
    }
    at += e - b;
  }
  comm.impl().allreduce_or(words.data(), static_cast<int>(words.size()),
                           "the points of candidates other ranks hold");
  if (width > 0) {
    std::memcpy(out.data(), words.data() + my_at * d,
                sizeof(double) * static_cast<std::size_t>(width * d));
  }
  return out;
}

Eigen::MatrixXd points_at(const Communicator& comm, const Domain& domain,
                          const std::vector<long long>& indices) {
  std::vector<std::pair<long long, long long>> ranges;
  ranges.reserve(indices.size());
  for (const long long a : indices) ranges.emplace_back(a, a + 1);
  return points_of_ranges(comm, domain, ranges);
}

}  // namespace gpb::detail
