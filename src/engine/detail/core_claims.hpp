// Core claims: every Context records the CPU threads it runs with in a per-user directory, so that
// a Context with "threads": 0 started beside other gpbandit processes takes only the cores they
// leave. The load average alone cannot do this: it lags by a minute, and two jobs started together
// each saw every core idle and ran twice as many threads as cores (Eigen's parallel products then
// spin-wait, a run ~2× slower than alone; bench/RESULTS.md, "Threads").
#pragma once

#include <string>

namespace gpb::detail {

/// The claims directory: GPBANDIT_CORE_CLAIMS_DIR when set ("" turns claims off), else
/// /tmp/gpbandit-cores-<uid>. It holds one file per process, named by its pid, with its start time
/// and its claim (the largest thread count of the live Contexts it made: a forked child does not
/// claim its parent's), and a ".lock" file.
std::string core_claims_dir();

/// Threads of the other live processes' claims in `dir` (files of processes that have ended are
/// removed). 0 when `dir` is "" or cannot be used.
int claimed_by_others(const std::string& dir);

/// Records `owner`'s claim and returns its thread count: `requested` when > 0, else
/// max(1, min(idle, cores − claimed_by_others)). The read of the others' claims and the write of
/// this process's file happen under the directory's lock, so two processes starting at once see
/// each other. Any failure to use the directory leaves claims off for this call (never throws).
int claim_threads(const void* owner, int requested, int idle, int cores) noexcept;

/// For an `owner` whose claim was automatic (requested 0): max(1, min(what it first resolved to,
/// cores − claimed_by_others)), recorded as its claim; 0 for any other owner (nothing changes).
int refresh_claim(const void* owner, int cores) noexcept;

/// Drops `owner`'s claim (the process's file then holds its other Contexts' largest claim, or is
/// removed).
void release_threads(const void* owner) noexcept;

/// `from`'s claim now belongs to `to` (a moved Context).
void move_claim(const void* from, const void* to) noexcept;

}  // namespace gpb::detail
