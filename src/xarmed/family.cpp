// The X-armed family: one method over a group of runs, in process or over MPI.
//
// Fed-PNE advances the group's runs in lockstep through a client pool (in-process, or the MPI
// clients on ranks 1..Q); the baselines run the group's runs in parallel. Each run's rows and
// numbers do not depend on which runs share its group.
#include "xarmed/family.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "gpbandit/error.hpp"
#include "gpbandit/xarmed/mpi_runtime.hpp"

namespace gpb::xarmed {

namespace {

using nlohmann::json;

/// Everything recorded for one run of one method.
struct RunOut {
  std::uint32_t run = 0;
  std::vector<double> regret;  // per round
  int rounds = 0, broadcasts = 0;
  long long info = 0;
  std::uint64_t bytes_down = 0, bytes_up = 0;
  long long rebuilds = 0, expansions = 0;  // HCT only
  std::vector<PhaseRecord> phases;
};

std::string g17(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

std::vector<RunOut> run_baseline(const MethodSpec& m, const FedObjective& f, const XConfig& c,
                                 std::uint64_t seed, const std::vector<std::uint32_t>& runs,
                                 int threads) {
  std::vector<RunOut> out(runs.size());
  const long long R = static_cast<long long>(runs.size());
#pragma omp parallel for schedule(dynamic) num_threads(threads)
  for (long long j = 0; j < R; ++j) {
    const std::uint32_t r = runs[static_cast<std::size_t>(j)];
    BaselineRun b;
    if (m.type == "hct") b = run_hct(f, m.hct, c.clients, c.horizon, c.noise, seed, r);
    if (m.type == "fed1-ucb") b = run_fed1_ucb(f, m.fed1, c.clients, c.horizon, c.noise, seed, r);
    if (is_gp_mesh(m)) b = run_gp_ucb_mesh(f, m.gp, c.clients, c.horizon, c.noise, seed, r);
    if (m.type == "random") b = run_random(f, c.clients, c.horizon, seed, r);
    RunOut& o = out[static_cast<std::size_t>(j)];
    o.run = r;
    o.regret = std::move(b.regret);
    o.rounds = b.rounds;
    o.rebuilds = b.rebuilds;
    o.expansions = b.expansions;
  }
  return out;
}

std::vector<RunOut> from_fed(std::vector<FedPneRun>&& res) {
  std::vector<RunOut> out;
  for (FedPneRun& fr : res) {
    RunOut o;
    o.run = fr.run;
    o.regret = std::move(fr.regret);
    o.rounds = fr.rounds;
    o.broadcasts = fr.broadcasts;
    o.info = fr.info_per_client;
    o.bytes_down = fr.bytes_down;
    o.bytes_up = fr.bytes_up;
    o.phases = std::move(fr.phases);
    out.push_back(std::move(o));
  }
  return out;
}

/// runs.csv rows of one run: every round when T ≤ 20000, else ~1000 sampled rounds.
std::string run_rows(const std::string& label, long long T, const RunOut& r) {
  std::string s;
  const long long stride = T <= 20000 ? 1 : (T + 999) / 1000;
  double cum = 0;
  for (long long t = 0; t < static_cast<long long>(r.regret.size()); ++t) {
    cum += r.regret[static_cast<std::size_t>(t)];
    if ((t + 1) % stride == 0 || t + 1 == T) {
      s += std::to_string(r.run) + "," + label + "," + std::to_string(t + 1) + "," +
           g17(r.regret[static_cast<std::size_t>(t)]) + "," + g17(cum) + "\n";
    }
  }
  return s;
}

std::string phase_rows(const std::string& label, const RunOut& r) {
  std::ostringstream os;
  for (const PhaseRecord& p : r.phases) {
    os << r.run << ',' << label << ',' << p.phase << ',' << p.depth << ',' << p.nodes << ','
       << p.t_m << ',' << p.rounds << ',' << p.survivors << ',' << (p.truncated ? 1 : 0) << ','
       << p.bytes_down << ',' << p.bytes_up << '\n';
  }
  return os.str();
}

/// The rounds at which summary.json samples the mean regret curve (≈ 100 of them, and T).
std::vector<long long> curve_rounds(long long T) {
  std::vector<long long> at;
  const long long step = std::max(1LL, T / 100);
  for (long long t = step; t < T; t += step) at.push_back(t);
  at.push_back(T);
  return at;
}

json run_record(const RunOut& r, long long T) {
  double total = 0;
  std::vector<double> curve;
  const std::vector<long long> at = curve_rounds(T);
  std::size_t k = 0;
  for (long long t = 0; t < static_cast<long long>(r.regret.size()); ++t) {
    total += r.regret[static_cast<std::size_t>(t)];
    if (k < at.size() && t + 1 == at[k]) {
      curve.push_back(total);
      ++k;
    }
  }
  return {{"run", r.run},
          {"regret", total},
          {"rounds", r.rounds},
          {"broadcasts", r.broadcasts},
          {"info", r.info},
          {"bytes_down", r.bytes_down},
          {"bytes_up", r.bytes_up},
          {"rebuilds", r.rebuilds},
          {"expansions", r.expansions},
          {"curve", curve}};
}

}  // namespace

XArmedFamily::XArmedFamily(XConfig config) : config_(std::move(config)) {}

std::vector<std::string> XArmedFamily::labels() const {
  return gpb::detail::labels_of(config_.methods);
}

std::string XArmedFamily::type(int p) const {
  return config_.methods.at(static_cast<std::size_t>(p)).type;
}

std::string XArmedFamily::runs_csv_header() const {
  return "run,policy,round,instant_regret,cumulative_regret\n";
}

std::vector<std::pair<std::string, std::string>> XArmedFamily::extra_csv() const {
  return {{"phases.csv",
           "run,policy,phase,depth,nodes,t_m,rounds,survivors,truncated,bytes_down,bytes_up\n"}};
}

bool XArmedFamily::steps_on(int p, const gpb::detail::StepEnv& env) const {
  const MethodSpec& m = config_.methods[static_cast<std::size_t>(p)];
  if (env.mpi && (is_fed_pne(m) || is_gp_mesh(m))) return true;  // every rank takes part
  return env.comm->rank() == 0;
}

std::shared_ptr<const FedObjective> XArmedFamily::objective(std::uint64_t seed) const {
  return objectives_.get(seed, [this](std::uint64_t s) {
    ObjectiveSpec spec = config_.objective;
    spec.seed = s;
    return make_objective(spec);
  });
}

gpb::detail::UnitOutput XArmedFamily::step(const gpb::detail::StepEnv& env, const void*, int p,
                                           const std::vector<std::uint32_t>& runs,
                                           const std::vector<gpb::detail::UnitRecord>&) const {
  const XConfig& c = config_;
  const MethodSpec& m = c.methods[static_cast<std::size_t>(p)];
  const auto f = objective(env.seed);
  const bool root = env.comm->rank() == 0;
  gpb::detail::UnitOutput out;
  std::vector<RunOut> res;
  FedPneParams fp = m.fed;
  fp.noise = c.noise;
  fp.pull_seed = env.seed;
  if (is_fed_pne(m) && env.mpi) {
    if (!root) {
      (void)mpi::serve_clients(fp, f, c.clients, env.seed, runs);
      return out;
    }
    auto pool = mpi::make_server_pool(c.clients, c.mpi_timeout_s);
    res = from_fed(run_fed_pne(fp, *f, c.clients, c.horizon, runs, *pool));
    mpi::stop_clients(*pool);
    out.record["mpi_bytes"] = pool->measured_bytes();
    if (fp.dp) {
      out.record["privacy"] = fp.privacy_seeded ? "seeded simulation (Philox) — NOT private"
                                                : "secure (getrandom + ChaCha20)";
    }
  } else if (is_gp_mesh(m) && env.mpi) {  // the posterior sharded over every rank
    for (std::uint32_t r : runs) {
      BaselineRun b =
          mpi::run_gp_ucb_mesh_sharded(*f, m.gp, c.clients, c.horizon, c.noise, env.seed, r);
      RunOut o;
      o.run = r;
      o.regret = std::move(b.regret);
      res.push_back(std::move(o));
    }
    if (!root) return out;
  } else if (is_fed_pne(m)) {
    InProcessPool pool(fp, f, c.clients, env.seed, runs, env.ctx->threads());
    res = from_fed(run_fed_pne(fp, *f, c.clients, c.horizon, runs, pool));
    out.record["privacy"] = pool.privacy_description();
  } else {
    res = run_baseline(m, *f, c, env.seed, runs, env.ctx->threads());
  }
  json records = json::array();
  std::string phases;
  for (std::size_t k = 0; k < res.size(); ++k) {
    out.rows += run_rows(m.label, c.horizon, res[k]);
    phases += phase_rows(m.label, res[k]);
    records.push_back(run_record(res[k], c.horizon));
    if (env.tick) env.tick(static_cast<int>(k) + 1, static_cast<int>(res.size()), 1);
  }
  out.extra_rows.push_back(std::move(phases));
  out.record["runs"] = records;
  return out;
}

gpb::detail::FamilySummary XArmedFamily::summarize(
    const gpb::detail::StepEnv& env,
    const std::vector<std::vector<const gpb::detail::UnitRecord*>>& by_policy,
    const std::string&) const {
  return summarize_xarmed(config_, *objective(env.seed), env.comm->size(), env.mpi, by_policy);
}

gpb::detail::PlotRequest XArmedFamily::plot(const std::string& runs_csv) const {
  gpb::detail::PlotRequest r;
  r.file = "regret.png";
  r.call.script = "plot_regret.py";
  r.call.before = {runs_csv};
  r.call.after = {"--title", config_.settings.name};
  if (config_.horizon > 20000) r.skip_reason = "T > 20000 (runs.csv holds sampled rounds)";
  return r;
}

}  // namespace gpb::xarmed
