// Fed-PNE over MPI: server on rank 0, client blocks on ranks 1..Q (specs/fed-pne.md §12).
#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <sstream>
#include <thread>

#include "gpbandit/error.hpp"
#include "gpbandit/xarmed/mpi_runtime.hpp"

namespace gpb::xarmed::mpi {

namespace {
constexpr int kTagRequest = 11, kTagReply = 12;
constexpr std::uint64_t kStep = 0, kStop = 1;

/// Rank 0's side of the transport.
class ServerPool final : public ClientPool {
 public:
  ServerPool(int M, double timeout_s, int size) : M_(M), timeout_s_(timeout_s), size_(size) {}

  void exchange(const std::vector<const PhaseRequest*>& reqs,
                std::vector<std::vector<double>>& means) override {
    ++step_;
    // One packed message: [kind, step, n, then per request: slot, phase, depth, t_m,
    // rounds_left, truncated, K, nodes...].
    std::vector<std::uint64_t> msg{kStep, step_, 0};
    std::size_t live = 0;
    for (std::size_t j = 0; j < reqs.size(); ++j) {
      const PhaseRequest* q = reqs[j];
      if (!q) continue;
      ++msg[2];
      msg.insert(msg.end(), {j, q->phase, q->depth, q->t_m, q->rounds_left,
                             static_cast<std::uint64_t>(q->truncated), q->nodes.size()});
      msg.insert(msg.end(), q->nodes.begin(), q->nodes.end());
      if (!q->truncated) live += q->nodes.size();
    }
    means.assign(reqs.size(), {});
    for (std::size_t j = 0; j < reqs.size(); ++j) {
      if (reqs[j] && !reqs[j]->truncated)
        means[j].resize(static_cast<std::size_t>(M_) * reqs[j]->nodes.size());
    }
    std::vector<MPI_Request> sends, recvs;
    std::vector<int> recv_rank;
    std::vector<std::vector<double>> bufs;
    for (int r = 1; r < size_; ++r) {
      const auto [lo, hi] = client_block(M_, r, size_);
      if (lo >= hi) continue;
      MPI_Request s;
      MPI_Isend(msg.data(), static_cast<int>(msg.size()), MPI_UINT64_T, r, kTagRequest,
                MPI_COMM_WORLD, &s);
      sends.push_back(s);
      bytes_ += msg.size() * sizeof(std::uint64_t);
      if (live > 0) {
        bufs.emplace_back(live * static_cast<std::size_t>(hi - lo));
        MPI_Request q;
        MPI_Irecv(bufs.back().data(), static_cast<int>(bufs.back().size()), MPI_DOUBLE, r,
                  kTagReply, MPI_COMM_WORLD, &q);
        recvs.push_back(q);
        recv_rank.push_back(r);
      }
    }
    wait_all(sends, nullptr, "request");
    wait_all(recvs, &recv_rank, "reply");
    // Unpack: per rank, per live request in order, per client of the block, K means.
    std::size_t b = 0;
    for (int r = 1; r < size_; ++r) {
      const auto [lo, hi] = client_block(M_, r, size_);
      if (lo >= hi || live == 0) continue;
      const std::vector<double>& buf = bufs[b++];
      bytes_ += buf.size() * sizeof(double);
      std::size_t at = 0;
      for (std::size_t j = 0; j < reqs.size(); ++j) {
        if (!reqs[j] || reqs[j]->truncated) continue;
        const std::size_t K = reqs[j]->nodes.size();
        for (int m = lo; m < hi; ++m) {
          std::copy(
              buf.begin() + static_cast<std::ptrdiff_t>(at),
              buf.begin() + static_cast<std::ptrdiff_t>(at + K),
              means[j].begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(m) * K));
          at += K;
        }
      }
    }
  }

  std::uint64_t measured_bytes() const override { return bytes_; }

  void stop() {
    const std::uint64_t msg[3] = {kStop, ++step_, 0};
    std::vector<MPI_Request> sends;
    for (int r = 1; r < size_; ++r) {
      MPI_Request s;
      MPI_Isend(msg, 3, MPI_UINT64_T, r, kTagRequest, MPI_COMM_WORLD, &s);
      sends.push_back(s);
    }
    wait_all(sends, nullptr, "stop");
  }

 private:
  /// Polls every request until done or the deadline; names the first rank still missing.
  void wait_all(std::vector<MPI_Request>& rq, const std::vector<int>* ranks, const char* what) {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s_);
    std::vector<bool> done(rq.size(), false);
    std::size_t left = rq.size();
    while (left > 0) {
      for (std::size_t i = 0; i < rq.size(); ++i) {
        if (done[i]) continue;
        int flag = 0;
        MPI_Test(&rq[i], &flag, MPI_STATUS_IGNORE);
        if (flag) {
          done[i] = true;
          --left;
        }
      }
      if (left == 0) break;
      if (std::chrono::steady_clock::now() > deadline) {
        int rank = -1;
        for (std::size_t i = 0; i < rq.size(); ++i) {
          if (!done[i]) {
            rank = ranks ? (*ranks)[i] : static_cast<int>(i) + 1;
            break;
          }
        }
        std::ostringstream os;
        os << "MPI: client rank " << rank << " stopped responding (no " << what << " within "
           << timeout_s_ << " s at exchange step " << step_ << ")";
        throw Error(os.str());
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }

  int M_;
  double timeout_s_;
  int size_;
  std::uint64_t step_ = 0, bytes_ = 0;
};

}  // namespace

std::pair<int, int> client_block(int M, int rank, int size) {
  const int Q = size - 1;
  const int per = (M + Q - 1) / Q;
  const int lo = std::min(M, (rank - 1) * per), hi = std::min(M, rank * per);
  return {lo, hi};
}

std::unique_ptr<ClientPool> make_server_pool(int M, double timeout_s) {
  const World w = init();
  GPB_EXPECTS(w.size >= 2, "--mpi: needs at least 2 ranks (server + clients), got "
                               << w.size << " (run under mpirun -np N)");
  GPB_EXPECTS(timeout_s > 0, "mpi_timeout_s: must be > 0, got " << timeout_s);
  return std::make_unique<ServerPool>(M, timeout_s, w.size);
}

void stop_clients(ClientPool& pool) {
  dynamic_cast<ServerPool&>(pool).stop();
}

std::string serve_clients(const FedPneParams& p, std::shared_ptr<const FedObjective> f, int M,
                          std::uint64_t seed, const std::vector<std::uint32_t>& runs) {
  const World w = init();
  const auto [lo, hi] = client_block(M, w.rank, w.size);
  auto part = std::make_shared<const Partition>(f->box(), p.k, p.partition_seed);
  // clients[j][m − lo] for run slot j.
  std::vector<std::vector<std::unique_ptr<FedPneClient>>> clients(runs.size());
  for (std::size_t j = 0; j < runs.size(); ++j) {
    for (int m = lo; m < hi; ++m) {
      clients[j].push_back(std::make_unique<FedPneClient>(
          p, f, part, seed, runs[j], m, M, make_client_privacy(p, seed, runs[j], m)));
    }
  }
  std::string privacy = "none";
  if (!clients.empty() && !clients[0].empty() && clients[0][0]->privacy()) {
    privacy = clients[0][0]->privacy()->describe();
  }
  const char* fr = std::getenv("GPB_FAULT_RANK");
  const char* fs = std::getenv("GPB_FAULT_STEP");
  const char* fm = std::getenv("GPB_FAULT_MODE");
  const int fault_rank = fr ? std::atoi(fr) : -1;
  const std::uint64_t fault_step = fs ? std::strtoull(fs, nullptr, 10) : 0;
  for (;;) {
    MPI_Status st;
    MPI_Probe(0, kTagRequest, MPI_COMM_WORLD, &st);
    int count = 0;
    MPI_Get_count(&st, MPI_UINT64_T, &count);
    std::vector<std::uint64_t> msg(static_cast<std::size_t>(count));
    MPI_Recv(msg.data(), count, MPI_UINT64_T, 0, kTagRequest, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (msg.at(0) == kStop) break;
    if (w.rank == fault_rank && msg[1] == fault_step) {
      if (fm && std::string(fm) == "exit") std::_Exit(3);
      for (;;) std::this_thread::sleep_for(std::chrono::seconds(1));  // hang
    }
    std::vector<double> reply;
    std::size_t at = 3;
    bool live = false;
    for (std::uint64_t n = 0; n < msg[2]; ++n) {
      PhaseRequest q;
      const std::size_t j = msg.at(at);
      q.phase = static_cast<std::uint32_t>(msg.at(at + 1));
      q.depth = static_cast<std::uint32_t>(msg.at(at + 2));
      q.t_m = msg.at(at + 3);
      q.rounds_left = msg.at(at + 4);
      q.truncated = msg.at(at + 5) != 0;
      const std::size_t K = msg.at(at + 6);
      at += 7;
      q.nodes.assign(msg.begin() + static_cast<std::ptrdiff_t>(at),
                     msg.begin() + static_cast<std::ptrdiff_t>(at + K));
      at += K;
      GPB_EXPECTS(j < clients.size(), "MPI client: bad run slot " << j);
      if (q.truncated) continue;
      live = true;
      for (auto& c : clients[j]) {
        const std::vector<double> mu = c->play(q);
        reply.insert(reply.end(), mu.begin(), mu.end());
      }
    }
    if (live && lo < hi) {
      MPI_Send(reply.data(), static_cast<int>(reply.size()), MPI_DOUBLE, 0, kTagReply,
               MPI_COMM_WORLD);
    }
  }
  return privacy;
}

}  // namespace gpb::xarmed::mpi
