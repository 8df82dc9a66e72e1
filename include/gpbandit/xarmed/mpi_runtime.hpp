/// @file mpi_runtime.hpp
/// The MPI runtime of Fed-PNE (specs/fed-pne.md §12): rank 0 is the server, ranks 1..Q host the
/// clients in contiguous blocks of ⌈M/Q⌉. Only node lists go down and per-node means come up.
/// The server receives with MPI_Irecv + MPI_Test polling against a deadline, so a client rank that
/// dies or hangs makes it fail with "client rank K stopped responding" instead of hanging.
/// In builds without MPI every function throws Error("built without MPI").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpbandit/comm/mpi_runtime.hpp"
#include "gpbandit/xarmed/baselines.hpp"
#include "gpbandit/xarmed/fed_pne.hpp"

namespace gpb::xarmed::mpi {

// The process runtime (init, finalize, abort_all) is the communicator layer's.
using gpb::mpi::abort_all;
using gpb::mpi::finalize;
using gpb::mpi::init;
using gpb::mpi::World;

/// Rank 0's transport: one packed request message per client rank per step, replies polled until
/// `timeout_s`. measured_bytes() counts the payload bytes actually sent and received.
/// @throws InvalidArgument if the world has fewer than 2 ranks.
std::unique_ptr<ClientPool> make_server_pool(int M, double timeout_s);
/// Tells every client rank that the current Fed-PNE method is over.
void stop_clients(ClientPool& pool);

/// The loop of a client rank for one Fed-PNE method: answers requests for its block of clients of
/// every run in `runs` until the server says stop. Returns the privacy source description.
/// Fault injection for tests: env GPB_FAULT_RANK=K, GPB_FAULT_STEP=s, GPB_FAULT_MODE=hang|exit
/// make rank K stop answering (hang) or die (_Exit(3)) at exchange step s.
std::string serve_clients(const FedPneParams& p, std::shared_ptr<const FedObjective> f, int M,
                          std::uint64_t seed, const std::vector<std::uint32_t>& runs);

/// GP-UCB on the Fed1-UCB mesh with the FinitePosterior sharded over every rank of
/// MPI_COMM_WORLD (run_gp_ucb_mesh with Communicator::world(); collective, every rank gets the
/// same result). Same choices and regret as run_gp_ucb_mesh on one rank.
/// @throws InvalidArgument in a build without MPI.
BaselineRun run_gp_ucb_mesh_sharded(const FedObjective& f, const GpUcbParams& p, int M, long long T,
                                    double noise, std::uint64_t seed, std::uint32_t run);

/// The clients hosted by `rank` (≥ 1) of `size` ranks: [first, last).
std::pair<int, int> client_block(int M, int rank, int size);

}  // namespace gpb::xarmed::mpi
