// Core claims: a Context with "threads": 0 takes only the cores other live processes have not
// claimed; claims follow the Context (moves, destruction); ended processes' claims are dropped.
#include <gtest/gtest.h>

#include <omp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>

#include "engine/detail/core_claims.hpp"
#include "gpbandit/engine/context.hpp"
#include "test_support.hpp"

namespace {

using gpb::detail::claim_threads;
using gpb::detail::claimed_by_others;
using gpb::detail::release_threads;
using gpb::test::TempDir;

// Every test uses its own claims directory (the default one is shared by every process).
class CoreClaims : public ::testing::Test {
 protected:
  void SetUp() override { ::setenv("GPBANDIT_CORE_CLAIMS_DIR", dir_.path().c_str(), 1); }
  void TearDown() override { ::unsetenv("GPBANDIT_CORE_CLAIMS_DIR"); }
  std::string file_of(long pid) const { return dir_.file(std::to_string(pid)); }
  // The thread count in a process's claim file, -1 when there is none.
  int claim_in_file(long pid) const {
    std::ifstream in(file_of(pid));
    unsigned long long started = 0;
    int threads = -1;
    return (in >> started >> threads) ? threads : -1;
  }
  TempDir dir_;
};

// A child process that claims for two owners and then does what the parent writes to it:
// 'b' releases the second owner, 'x' exits without releasing anything.
class Child {
 public:
  Child(int first, int second) {
    int up[2], down[2];
    EXPECT_EQ(::pipe(up), 0);
    EXPECT_EQ(::pipe(down), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(up[0]);
      ::close(down[1]);
      static int a, b;
      claim_threads(&a, first, 0, 64);
      claim_threads(&b, second, 0, 64);
      char c = 'r';
      for (;;) {
        if (::write(up[1], &c, 1) != 1 || ::read(down[0], &c, 1) != 1 || c == 'x') ::_exit(0);
        if (c == 'b') release_threads(&b);
      }
    }
    ::close(up[1]);
    ::close(down[0]);
    to_ = down[1];
    from_ = up[0];
    wait_ready();
  }
  ~Child() {
    tell('x');
    ::close(to_);
    ::close(from_);
    ::waitpid(pid_, nullptr, 0);
  }
  void tell(char c) {
    if (::write(to_, &c, 1) != 1) ADD_FAILURE() << "child gone";
    if (c != 'x') wait_ready();
  }
  long pid() const { return pid_; }

 private:
  void wait_ready() {
    char c = 0;
    ASSERT_EQ(::read(from_, &c, 1), 1);
  }
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
};

TEST_F(CoreClaims, AutomaticThreadsAreWhatOthersLeave) {
  const Child child(3, 5);  // its claim is its largest: 5
  EXPECT_EQ(claim_in_file(child.pid()), 5);
  EXPECT_EQ(claimed_by_others(dir_.path()), 5);
  int owner = 0;
  EXPECT_EQ(claim_threads(&owner, 0, 8, 8), 3);  // 8 cores, 5 claimed
  EXPECT_EQ(claim_threads(&owner, 0, 2, 8), 2);  // the load leaves fewer
  EXPECT_EQ(claim_threads(&owner, 0, 8, 4), 1);  // claims exceed the cores: one thread
  EXPECT_EQ(claim_threads(&owner, 6, 1, 4), 6);  // an explicit count is kept
  EXPECT_EQ(claim_in_file(::getpid()), 6);       // and claimed
  release_threads(&owner);
  EXPECT_EQ(claim_in_file(::getpid()), -1);
}

// The child is forked after this process claimed: it must not claim this process's Contexts again.
TEST_F(CoreClaims, AnAutomaticClaimFollowsTheOthersUpToItsFirstCount) {
  using gpb::detail::refresh_claim;
  int automatic = 0, fixed = 0, unknown = 0;
  EXPECT_EQ(claim_threads(&automatic, 0, 6, 8), 6);  // alone: 6 idle of 8 cores
  EXPECT_EQ(claim_threads(&fixed, 2, 6, 8), 2);
  {
    Child child(3, 5);
    EXPECT_EQ(refresh_claim(&automatic, 8), 3);  // 8 − 5
    EXPECT_EQ(claim_in_file(::getpid()), 3);
    child.tell('b');
    EXPECT_EQ(refresh_claim(&automatic, 8), 5);  // 8 − 3
    EXPECT_EQ(refresh_claim(&fixed, 8), 0);      // an explicit count never changes
    EXPECT_EQ(refresh_claim(&unknown, 8), 0);
  }
  EXPECT_EQ(refresh_claim(&automatic, 8), 6);  // not above its first count
  release_threads(&automatic);
  release_threads(&fixed);
}

TEST_F(CoreClaims, RefreshKeepsAnExplicitCount) {
  gpb::ContextOptions o;
  o.backend = gpb::Backend::Cpu;
  o.threads = 2;
  gpb::Context ctx(o);
  const Child child(omp_get_num_procs(), 1);
  ctx.refresh_threads();
  EXPECT_EQ(ctx.threads(), 2);
}

TEST_F(CoreClaims, ReleaseLowersAProcesssClaimAndEndedProcessesAreDropped) {
  long pid = 0;
  {
    Child child(3, 5);
    pid = child.pid();
    child.tell('b');  // releases the 5
    EXPECT_EQ(claimed_by_others(dir_.path()), 3);
  }  // exits without releasing the 3: its file stays until someone reads the directory
  EXPECT_EQ(claim_in_file(pid), 3);
  EXPECT_EQ(claimed_by_others(dir_.path()), 0);
  EXPECT_EQ(claim_in_file(pid), -1);  // removed by the reader
}

TEST_F(CoreClaims, AReusedPidIsNotTheClaimant) {
  // The parent process is alive, but it did not start at tick 1: the claim is stale.
  { std::ofstream(file_of(::getppid())) << "1 7\n"; }
  { std::ofstream(dir_.file("not-a-pid")) << "1 7\n"; }  // ignored
  EXPECT_EQ(claimed_by_others(dir_.path()), 0);
  EXPECT_EQ(claim_in_file(::getppid()), -1);
}

TEST_F(CoreClaims, TheClaimFollowsTheContext) {
  gpb::ContextOptions o;
  o.backend = gpb::Backend::Cpu;
  o.threads = 2;
  {
    gpb::Context a(o);
    EXPECT_EQ(claim_in_file(::getpid()), 2);
    gpb::Context b(std::move(a));
    o.threads = 1;
    gpb::Context c(o);
    EXPECT_EQ(claim_in_file(::getpid()), 2);  // the largest of 2 and 1
    c = std::move(b);                         // c's 1 is released, b's 2 moves to c
    EXPECT_EQ(claim_in_file(::getpid()), 2);
    { const gpb::Context d(std::move(c)); }  // takes the claim and ends
    EXPECT_EQ(claim_in_file(::getpid()), -1);
  }
  EXPECT_EQ(claim_in_file(::getpid()), -1);
}

// Through the Context (on a loaded machine the load average alone may already give 1 thread;
// AutomaticThreadsAreWhatOthersLeave is the exact check).
TEST_F(CoreClaims, ADefaultContextLeavesOthersTheirCores) {
  if (std::getenv("OMP_NUM_THREADS") != nullptr) GTEST_SKIP() << "OMP_NUM_THREADS decides";
  const int cores = omp_get_num_procs();
  const Child child(cores, 1);  // another process claims every core
  const gpb::Context ctx;
  EXPECT_EQ(ctx.threads(), 1);
  EXPECT_EQ(claim_in_file(::getpid()), 1);
}

TEST_F(CoreClaims, WithoutAUsableDirectoryNothingIsClaimed) {
  int owner = 0;
  ::setenv("GPBANDIT_CORE_CLAIMS_DIR", "", 1);  // off
  EXPECT_EQ(claim_threads(&owner, 0, 3, 8), 3);
  { std::ofstream(dir_.file("plain")) << "x"; }
  ::setenv("GPBANDIT_CORE_CLAIMS_DIR", dir_.file("plain").c_str(), 1);  // not a directory
  EXPECT_EQ(claim_threads(&owner, 0, 3, 8), 3);
  EXPECT_EQ(claim_threads(&owner, 2, 3, 8), 2);
  EXPECT_EQ(claimed_by_others(dir_.file("plain")), 0);
  release_threads(&owner);  // nothing to release
}

}  // namespace
