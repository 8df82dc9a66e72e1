// Launchers of the fused UCB argmax (kernels/ucb_argmax.cuh): two-stage reduction over R runs,
// then, for runs with exact ties that need a random tie-break, a tie count per block and a scan of
// the one block holding the chosen tie. Scratch comes from the Context's workspace.
#include <vector>

#include "engine/cuda/launch.hpp"
#include "engine/cuda/resources.hpp"
#include "engine/detail/argmax_span.hpp"
#include "gpbandit/error.hpp"
#include "ucb_argmax.cuh"

namespace gpb::cuda {

namespace {
/// Carves 8-byte-aligned pieces out of the workspace.
class Carver {
 public:
  explicit Carver(double* base) : base_(reinterpret_cast<unsigned char*>(base)) {}
  template <class T>
  T* take(std::size_t n) {
    T* p = reinterpret_cast<T*>(base_ + used_);
    used_ += (n * sizeof(T) + 7) / 8 * 8;
    return p;
  }
  static std::size_t doubles(std::size_t bytes) { return (bytes + 7) / 8; }

 private:
  unsigned char* base_;
  std::size_t used_ = 0;
};

int blocks_for(int n) {
  return detail::span_blocks(n, kernels::kArgmaxSpan);
}
}  // namespace

void device_ucb_argmax(const Context& ctx, const double* mean, const double* var, int n, int runs,
                       const double* width, const std::uint8_t* excluded, DeviceBest* out) {
  GPB_EXPECTS(runs >= 1 && runs <= 65535, "ucb_argmax (cuda): runs must be in [1, 65535]");
  cudaStream_t s = stream_of(ctx);
  const int blocks = blocks_for(n);
  const std::size_t parts = static_cast<std::size_t>(runs) * blocks;
  const std::size_t bytes = (parts + runs) * sizeof(kernels::Best) + 16;
  Carver c(workspace(ctx, Carver::doubles(bytes)));
  kernels::Best* partial = c.take<kernels::Best>(parts);
  kernels::Best* result = c.take<kernels::Best>(static_cast<std::size_t>(runs));
  kernels::ucb_argmax_partial<<<dim3(blocks, runs), kernels::kArgmaxThreads, 0, s>>>(
      mean, var, n, width, excluded, partial);
  check_launch("ucb_argmax_partial kernel launch");
  kernels::ucb_argmax_final<<<runs, kernels::kArgmaxThreads, 0, s>>>(partial, blocks, result);
  check_launch("ucb_argmax_final kernel launch");
  std::vector<kernels::Best> host(static_cast<std::size_t>(runs));
  copy_to_host(host.data(), result, host.size(), s);
  for (int r = 0; r < runs; ++r) {
    const kernels::Best& b = host[static_cast<std::size_t>(r)];
    out[r].score = b.score;
    out[r].index = b.index;
    out[r].ties = b.ties;
    out[r].nan_index = b.nan_index == INT_MAX ? -1 : b.nan_index;
  }
}

void device_select_ties(const Context& ctx, const double* mean, const double* var, int n,
                        const double* width, const std::uint8_t* excluded, int count,
                        const int* runs_h, const double* target_h, const int* rank_h,
                        int* chosen_h) {
  if (count == 0) return;
  GPB_EXPECTS(count <= 65535, "ucb_argmax (cuda): at most 65535 runs");
  cudaStream_t s = stream_of(ctx);
  const int blocks = blocks_for(n);
  const std::size_t cells = static_cast<std::size_t>(count) * blocks;
  const std::size_t k = static_cast<std::size_t>(count);
  const std::size_t bytes =
      cells * sizeof(int) + k * (3 * sizeof(int) + sizeof(double) + sizeof(int)) + 64;
  Carver c(workspace(ctx, Carver::doubles(bytes)));
  double* target = c.take<double>(k);
  int* runs = c.take<int>(k);
  int* block = c.take<int>(k);
  int* rank = c.take<int>(k);
  int* chosen = c.take<int>(k);
  int* counts = c.take<int>(cells);
  copy_to_device(target, target_h, k, s);
  copy_to_device(runs, runs_h, k, s);
  kernels::count_ties<<<dim3(blocks, count), kernels::kArgmaxThreads, 0, s>>>(
      mean, var, n, width, excluded, runs, target, counts);
  check_launch("count_ties kernel launch");
  std::vector<int> counts_h(cells);
  copy_to_host(counts_h.data(), counts, cells, s);
  std::vector<int> block_h(k), local_h(k), init(k, -1);
  for (std::size_t i = 0; i < k; ++i) {
    int left = rank_h[i], b = 0;
    while (b < blocks && left >= counts_h[i * blocks + b]) left -= counts_h[i * blocks + b++];
    if (b == blocks) throw Error("internal: ucb_argmax (cuda) tie rank beyond the tie count");
    block_h[i] = b;
    local_h[i] = left;
  }
  copy_to_device(block, block_h.data(), k, s);
  copy_to_device(rank, local_h.data(), k, s);
  copy_to_device(chosen, init.data(), k, s);
  kernels::select_kth_tie<<<count, kernels::kArgmaxThreads, 0, s>>>(
      mean, var, n, width, excluded, runs, target, block, rank, chosen);
  check_launch("select_kth_tie kernel launch");
  copy_to_host(chosen_h, chosen, k, s);
  for (std::size_t i = 0; i < k; ++i) {
    if (chosen_h[i] < 0) throw Error("internal: ucb_argmax (cuda) found no tie of the chosen rank");
  }
}

}  // namespace gpb::cuda
