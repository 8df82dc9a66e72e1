// A CSV domain over K ranks (issue #19): read once by rank 0 and scattered; a .npy domain read
// per slice by every rank (issue #29); the points of other
// ranks' candidates fetched from their owners; rkhs and random-Fourier-feature objectives on the
// slices bit for bit the whole domain's; the config building the slice. K ranks are threads of
// this process (Communicator::in_process), the same collectives MPI runs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "dist/domain_scatter.hpp"
#include "gpbandit/comm/communicator.hpp"
#include "gpbandit/engine/context.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/experiment/experiment.hpp"
#include "gpbandit/objective/objective.hpp"
#include "gpbandit/rng.hpp"
#include "io/npy.hpp"
#include "objective/blocks.hpp"
#include "slice_check.hpp"

namespace {

namespace fs = std::filesystem;
using gpb::test::expect_same_bits;
using nlohmann::json;

/// Runs fn(comm, q) on K threads, one per in-process rank; returns what each threw (null: none).
std::vector<std::exception_ptr> on_ranks(int k,
                                         const std::function<void(gpb::Communicator, int)>& fn) {
  const std::vector<gpb::Communicator> comms = gpb::Communicator::in_process(k, 20.0);
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(k));
  std::vector<std::thread> threads;
  for (int q = 0; q < k; ++q) {
    threads.emplace_back([&, q] {
      try {
        fn(comms[static_cast<std::size_t>(q)], q);
      } catch (...) {
        errors[static_cast<std::size_t>(q)] = std::current_exception();
      }
    });
  }
  for (std::thread& t : threads) t.join();
  return errors;
}

std::string message(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return x.what();
  }
  return {};
}

gpb::Context context_on(const gpb::Communicator& comm) {
  gpb::ContextOptions opt;
  opt.backend = gpb::Backend::Cpu;
  opt.threads = 1;
  opt.communicator = comm;
  return gpb::Context(opt);
}

/// A d × n domain of irregular points (not a grid), written to `path` as CSV with a header.
Eigen::MatrixXd write_points(const std::string& path, int d, int n, std::uint64_t seed) {
  gpb::Rng rng(seed, 0, 0);
  Eigen::MatrixXd p(d, n);
  for (Eigen::Index j = 0; j < p.size(); ++j) p.data()[j] = rng.uniform(-2.0, 3.0);
  std::ofstream out(path);
  for (int i = 0; i < d; ++i) out << (i ? "," : "") << "x" << i;
  out << "\n";
  char buf[64];
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < d; ++i) {
      std::snprintf(buf, sizeof buf, "%.17g", p(i, j));
      out << (i ? "," : "") << buf;
    }
    out << "\n";
  }
  return p;
}

class DomainScatter : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("gpb_scatter_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

TEST_F(DomainScatter, EveryRankGetsItsSliceOfTheFile) {
  const std::string path = file("pts.csv");
  const Eigen::MatrixXd p = write_points(path, 3, 23, 5);
  const gpb::Domain whole = gpb::Domain::from_csv(path);
  ASSERT_TRUE(whole.points() == p);
  for (int k : {1, 2, 3, 4, 23}) {
    std::vector<gpb::Domain> got(static_cast<std::size_t>(k), gpb::Domain::indices(1));
    const auto errors = on_ranks(k, [&](gpb::Communicator c, int q) {
      got[static_cast<std::size_t>(q)] = gpb::detail::scatter_csv_domain(c, path);
    });
    for (int q = 0; q < k; ++q) {
      ASSERT_FALSE(errors[static_cast<std::size_t>(q)]) << message(errors[q]);
      const gpb::Domain& s = got[static_cast<std::size_t>(q)];
      const auto [b, e] = gpb::Communicator::slice_of(23, q, k);
      EXPECT_EQ(s.size(), 23);
      EXPECT_EQ(s.slice_begin(), b) << "K = " << k << ", rank " << q;
      EXPECT_EQ(s.slice_end(), e);
      EXPECT_TRUE(s.points() == p.middleCols(b, e - b)) << "K = " << k << ", rank " << q;
    }
  }
}

TEST_F(DomainScatter, RankZeroReportsABadFileAndEveryRankStops) {
  const std::string path = file("bad.csv");
  {
    std::ofstream out(path);
    out << "x,y\n1,2\n3,4\n5\n7,8\n";  // line 4 is ragged
  }
  auto errors = on_ranks(
      3, [&](gpb::Communicator c, int) { (void)gpb::detail::scatter_csv_domain(c, path); });
  ASSERT_TRUE(errors[0] && errors[1] && errors[2]);
  EXPECT_NE(message(errors[0]).find("bad.csv:4"), std::string::npos) << message(errors[0]);
  EXPECT_NE(message(errors[1]).find("rank 0 could not read"), std::string::npos);
  errors = on_ranks(2, [&](gpb::Communicator c, int) {
    (void)gpb::detail::scatter_csv_domain(c, file("missing.csv"));
  });
  EXPECT_NE(message(errors[0]).find("missing.csv"), std::string::npos) << message(errors[0]);
  EXPECT_TRUE(errors[1]);
  write_points(path, 2, 3, 1);  // 3 candidates for 4 ranks
  errors = on_ranks(
      4, [&](gpb::Communicator c, int) { (void)gpb::detail::scatter_csv_domain(c, path); });
  for (const auto& e : errors)
    EXPECT_NE(message(e).find("4 MPI ranks for N = 3 candidates"), std::string::npos) << message(e);
}

TEST_F(DomainScatter, PointsOfOtherRanksComeFromTheirOwners) {
  const Eigen::MatrixXd p = write_points(file("p.csv"), 2, 30, 9);
  // Rank q wants ranges of its own, a neighbour's and every rank's; rank 1 wants none.
  const std::vector<std::vector<std::pair<long long, long long>>> want{
      {{0, 30}, {12, 13}}, {}, {{3, 17}, {29, 30}, {20, 21}}, {{9, 11}}};
  std::vector<Eigen::MatrixXd> got(4);
  const auto errors = on_ranks(4, [&](gpb::Communicator c, int q) {
    const auto [b, e] = c.slice(30);
    const gpb::Domain s = gpb::Domain::from_slice(p.middleCols(b, e - b), b, 30);
    got[static_cast<std::size_t>(q)] =
        gpb::detail::points_of_ranges(c, s, want[static_cast<std::size_t>(q)]);
  });
  for (int q = 0; q < 4; ++q) {
    ASSERT_FALSE(errors[static_cast<std::size_t>(q)]) << message(errors[q]);
    Eigen::Index at = 0;
    for (const auto& [b, e] : want[static_cast<std::size_t>(q)]) {
      EXPECT_TRUE(got[q].middleCols(at, e - b) == p.middleCols(b, e - b))
          << "rank " << q << " range [" << b << ", " << e << ")";
      at += e - b;
    }
    EXPECT_EQ(at, got[q].cols());
  }
}

/// f on the K slices of the CSV domain (each rank evaluating its own) equals f on the whole
/// domain, bit for bit.
void expect_scattered_values_match(const std::string& path, int k, const gpb::Objective& f,
                                   const std::string& what) {
  const gpb::Domain whole = gpb::Domain::from_csv(path);
  const Eigen::VectorXd all = f.values(context_on(gpb::Communicator()), whole, 17, 2);
  std::vector<Eigen::VectorXd> part(static_cast<std::size_t>(k));
  const auto errors = on_ranks(k, [&](gpb::Communicator c, int q) {
    const gpb::Domain s = gpb::detail::scatter_csv_domain(c, path);
    part[static_cast<std::size_t>(q)] = f.values(context_on(c), s, 17, 2);
  });
  for (int q = 0; q < k; ++q) {
    ASSERT_FALSE(errors[static_cast<std::size_t>(q)]) << what << ": " << message(errors[q]);
    const auto [b, e] = gpb::Communicator::slice_of(whole.size(), q, k);
    ASSERT_EQ(part[q].size(), e - b) << what;
    expect_same_bits(all, part[q], b,
                     what + ", rank " + std::to_string(q) + " of " + std::to_string(k));
  }
}

TEST_F(DomainScatter, BlockObjectivesOnScatteredSlicesAreTheWholeDomains) {
  const std::string path = file("dom.csv");
  write_points(path, 2, 437, 3);
  const gpb::Kernel kern = gpb::Kernel::se(0.7, 1.0);
  for (int k : {2, 3, 4}) {
    // One block of 437 candidates straddles every slice: each rank fetches the rest of it, and
    // the support points of rkhs from their owners.
    expect_scattered_values_match(path, k, *gpb::make_rkhs_objective(kern, 30, false), "rkhs");
    expect_scattered_values_match(path, k, *gpb::make_gp_sample_objective(kern, 64, false), "rff");
    expect_scattered_values_match(path, k, *gpb::make_branin_objective(), "branin");
  }
}

TEST_F(DomainScatter, SmallBlocksStraddlingTheCuts) {
  // A block function that depends on every point of its block: a wrong or missing halo point
  // changes the value of each candidate of the block.
  const std::string path = file("dom.csv");
  write_points(path, 2, 41, 4);
  const gpb::Domain whole = gpb::Domain::from_csv(path);
  const auto fn = [](const Eigen::Ref<const Eigen::MatrixXd>& pts,
                     Eigen::Ref<Eigen::VectorXd> out) {
    out = pts.row(0).transpose().array() + pts.row(1).sum();
  };
  for (Eigen::Index block : {1, 4, 7, 40, 41, 100}) {
    const Eigen::VectorXd all =
        gpb::detail::values_in_blocks(context_on(gpb::Communicator()), whole, block, fn);
    std::vector<Eigen::VectorXd> part(5);
    const auto errors = on_ranks(5, [&](gpb::Communicator c, int q) {
      const gpb::Domain s = gpb::detail::scatter_csv_domain(c, path);
      part[static_cast<std::size_t>(q)] =
          gpb::detail::values_in_blocks(context_on(c), s, block, fn);
    });
    for (int q = 0; q < 5; ++q) {
      ASSERT_FALSE(errors[static_cast<std::size_t>(q)]) << message(errors[q]);
      expect_same_bits(all, part[q], gpb::Communicator::slice_of(41, q, 5).first,
                       "block " + std::to_string(block) + ", rank " + std::to_string(q));
    }
  }
}

TEST_F(DomainScatter, ConfigScattersACsvDomainOnlyWithACommunicator) {
  const std::string path = file("dom.csv");
  const Eigen::MatrixXd p = write_points(path, 2, 70, 6);
  const json j = json::parse(R"({
    "name": "scatter", "seed": 1, "runs": 1, "T": 5, "backend": "cpu",
    "domain": {"type": "csv", "path": "dom.csv"},
    "kernel": {"type": "se", "lengthscale": 0.3},
    "objective": {"type": "rkhs", "support": 4},
    "policies": [{"type": "gp_ucb", "label": "GP-UCB"}, {"type": "random", "label": "random"}]
  })");
  const auto parse = [&](gpb::DomainShard s) {
    return gpb::parse_experiment_config(j.dump(), "cfg.json", dir_.string(), s);
  };
  gpb::ExperimentConfig c = parse({1, 3, {}});  // no communicator: whole, and why
  EXPECT_FALSE(c.domain.is_slice());
  EXPECT_NE(c.whole_domain_reason.find("a CSV file under gpbandit run --mpi"), std::string::npos)
      << c.whole_domain_reason;
  std::vector<gpb::Domain> got(3, gpb::Domain::indices(1));
  std::vector<std::string> why(3);
  const auto errors = on_ranks(3, [&](gpb::Communicator comm, int q) {
    const gpb::ExperimentConfig cq = parse({q, 3, [comm] { return comm; }});
    got[static_cast<std::size_t>(q)] = cq.domain;
    why[static_cast<std::size_t>(q)] = cq.whole_domain_reason;
  });
  for (int q = 0; q < 3; ++q) {
    ASSERT_FALSE(errors[static_cast<std::size_t>(q)]) << message(errors[q]);
    const auto [b, e] = gpb::Communicator::slice_of(70, q, 3);
    EXPECT_TRUE(why[static_cast<std::size_t>(q)].empty()) << why[q];
    EXPECT_EQ(got[q].slice_begin(), b);
    EXPECT_TRUE(got[q].points() == p.middleCols(b, e - b));
  }
  // A communicator that is not the shard's ranks is refused, naming both.
  const auto wrong = on_ranks(2, [&](gpb::Communicator comm, int q) {
    (void)parse({q, 3, [comm] { return comm; }});
  });
  EXPECT_NE(message(wrong[0]).find("domain.path: cannot scatter"), std::string::npos)
      << message(wrong[0]);
}

TEST_F(DomainScatter, EveryRankReadsItsRowsOfANpyFile) {
  // C order (one read per rank) and Fortran order (d reads), 23 candidates over K ranks: each
  // rank's slice is bit for bit the whole file's columns.
  const Eigen::MatrixXd p = write_points(file("pts.csv"), 3, 23, 7);
  gpb::test::write_file(file("c.npy"), gpb::detail::npy_bytes(p.transpose()));
  const std::string f_order = file("f.npy");
  ASSERT_EQ(gpb::test::run_command("python3 -c \"import numpy as np; np.save('" + f_order +
                                   "', np.asfortranarray(np.load('" + file("c.npy") + "')))\"")
                .exit_code,
            0);
  for (const std::string& path : {file("c.npy"), f_order}) {
    EXPECT_TRUE(gpb::Domain::from_npy(path).points() == p) << path;
    for (int k : {1, 2, 3, 23}) {
      std::vector<gpb::Domain> got(static_cast<std::size_t>(k), gpb::Domain::indices(1));
      const auto errors = on_ranks(k, [&](gpb::Communicator c, int q) {
        got[static_cast<std::size_t>(q)] = gpb::detail::read_npy_domain_slice(c, path);
      });
      for (int q = 0; q < k; ++q) {
        ASSERT_FALSE(errors[static_cast<std::size_t>(q)]) << message(errors[q]);
        const auto [b, e] = gpb::Communicator::slice_of(23, q, k);
        const gpb::Domain& d = got[static_cast<std::size_t>(q)];
        EXPECT_EQ(d.size(), 23);
        EXPECT_EQ(d.slice_begin(), b);
        EXPECT_TRUE(d.points() == p.middleCols(b, e - b)) << path << " K = " << k << " q = " << q;
      }
    }
  }
}

TEST_F(DomainScatter, ANpyFileOneRankCannotReadFailsOnEveryRankWithItsReason) {
  // A NaN in rank 2's rows: every rank throws the same message, naming the file and the row.
  Eigen::MatrixXd p = write_points(file("pts.csv"), 2, 12, 3);
  p(1, 10) = NAN;
  gpb::test::write_file(file("nan.npy"), gpb::detail::npy_bytes(p.transpose()));
  auto errors = on_ranks(
      3, [&](gpb::Communicator c, int) { gpb::detail::read_npy_domain_slice(c, file("nan.npy")); });
  for (const auto& e : errors) {
    ASSERT_TRUE(e);
    EXPECT_TRUE(gpb::test::contains(message(e), "nan.npy: row 10, column 1 is not finite"))
        << message(e);
  }
  // More ranks than candidates, and a missing file: refused on every rank.
  gpb::test::write_file(file("two.npy"), gpb::detail::npy_bytes(Eigen::MatrixXd::Ones(2, 2)));
  errors = on_ranks(
      3, [&](gpb::Communicator c, int) { gpb::detail::read_npy_domain_slice(c, file("two.npy")); });
  for (const auto& e : errors) {
    EXPECT_TRUE(gpb::test::contains(message(e), "3 MPI ranks for N = 2 candidates")) << message(e);
  }
  errors = on_ranks(2, [&](gpb::Communicator c, int) {
    gpb::detail::read_npy_domain_slice(c, file("missing.npy"));
  });
  for (const auto& e : errors) {
    EXPECT_TRUE(gpb::test::contains(message(e), "missing.npy': No such file or directory"))
        << message(e);
  }
}

}  // namespace
