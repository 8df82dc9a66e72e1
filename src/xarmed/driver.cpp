// Running an X-armed (Fed-PNE family) experiment: in process or over MPI; outputs on rank 0.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "experiment/atomic_file.hpp"
#include "experiment/plot.hpp"
#include "gpbandit/build_config.hpp"
#include "gpbandit/context.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/xarmed/experiment.hpp"
#include "gpbandit/xarmed/mpi_runtime.hpp"

namespace gpb::xarmed {

using nlohmann::json;

namespace {

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

struct MethodOut {
  std::vector<RunOut> runs;
  double seconds = 0;
  std::uint64_t mpi_bytes = 0;
  std::string privacy = "none";
};

bool is_fed_pne(const MethodSpec& m) {
  return m.type == "fed-pne" || m.type == "dp-fed-pne";
}

std::pair<double, double> mean_sd(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  const double mu = v.empty() ? 0 : s / static_cast<double>(v.size());
  double q = 0;
  for (double x : v) q += (x - mu) * (x - mu);
  return {mu, v.size() > 1 ? std::sqrt(q / static_cast<double>(v.size() - 1)) : 0.0};
}

std::string g17(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

MethodOut run_baseline(const MethodSpec& m, const FedObjective& f, const XConfig& c,
                       const std::vector<std::uint32_t>& runs, int threads) {
  MethodOut out;
  out.runs.resize(runs.size());
  const long long R = static_cast<long long>(runs.size());
#pragma omp parallel for schedule(dynamic) num_threads(threads)
  for (long long j = 0; j < R; ++j) {
    const std::uint32_t r = runs[static_cast<std::size_t>(j)];
    BaselineRun b;
    if (m.type == "hct") b = run_hct(f, m.hct, c.clients, c.horizon, c.noise, c.seed, r);
    if (m.type == "fed1-ucb") b = run_fed1_ucb(f, m.fed1, c.clients, c.horizon, c.noise, c.seed, r);
    if (m.type == "gp-ucb") b = run_gp_ucb_mesh(f, m.gp, c.clients, c.horizon, c.noise, c.seed, r);
    if (m.type == "random") b = run_random(f, c.clients, c.horizon, c.seed, r);
    RunOut& o = out.runs[static_cast<std::size_t>(j)];
    o.run = r;
    o.regret = std::move(b.regret);
    o.rounds = b.rounds;
    o.rebuilds = b.rebuilds;
    o.expansions = b.expansions;
  }
  return out;
}

void copy_fed(MethodOut& out, std::vector<FedPneRun>&& res) {
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
    out.runs.push_back(std::move(o));
  }
}

/// runs.csv: every round when T ≤ 20000, else ~1000 sampled rounds (the summary is exact).
std::string runs_csv(const XConfig& c, const std::vector<MethodOut>& outs) {
  std::string s = "run,policy,round,instant_regret,cumulative_regret\n";
  const long long T = c.horizon;
  const long long stride = T <= 20000 ? 1 : (T + 999) / 1000;
  for (std::size_t i = 0; i < outs.size(); ++i) {
    for (const RunOut& r : outs[i].runs) {
      double cum = 0;
      for (long long t = 0; t < static_cast<long long>(r.regret.size()); ++t) {
        cum += r.regret[static_cast<std::size_t>(t)];
        if ((t + 1) % stride == 0 || t + 1 == T) {
          s += std::to_string(r.run) + "," + c.methods[i].label + "," + std::to_string(t + 1) +
               "," + g17(r.regret[static_cast<std::size_t>(t)]) + "," + g17(cum) + "\n";
        }
      }
    }
  }
  return s;
}

/// Mean and sd over runs of the cumulative regret at ≈ 100 equally spaced rounds (and T), so that
/// plots can be redrawn from summary.json alone.
json regret_curve(const std::vector<RunOut>& runs, long long T) {
  std::vector<long long> at;
  const long long step = std::max(1LL, T / 100);
  for (long long t = step; t < T; t += step) at.push_back(t);
  at.push_back(T);
  std::vector<std::vector<double>> cum(at.size());
  for (const RunOut& r : runs) {
    double c = 0;
    std::size_t k = 0;
    for (long long t = 0; t < static_cast<long long>(r.regret.size()) && k < at.size(); ++t) {
      c += r.regret[static_cast<std::size_t>(t)];
      if (t + 1 == at[k]) cum[k++].push_back(c);
    }
  }
  json rounds = json::array(), mean = json::array(), sd = json::array();
  for (std::size_t k = 0; k < at.size(); ++k) {
    const auto [m, s] = mean_sd(cum[k]);
    rounds.push_back(at[k]);
    mean.push_back(m);
    sd.push_back(s);
  }
  return {{"rounds", rounds}, {"mean", mean}, {"sd", sd}};
}

std::string phases_csv(const XConfig& c, const std::vector<MethodOut>& outs) {
  std::string s =
      "run,policy,phase,depth,nodes,t_m,rounds,survivors,truncated,bytes_down,bytes_up\n";
  for (std::size_t i = 0; i < outs.size(); ++i) {
    for (const RunOut& r : outs[i].runs) {
      for (const PhaseRecord& p : r.phases) {
        std::ostringstream os;
        os << r.run << ',' << c.methods[i].label << ',' << p.phase << ',' << p.depth << ','
           << p.nodes << ',' << p.t_m << ',' << p.rounds << ',' << p.survivors << ','
           << (p.truncated ? 1 : 0) << ',' << p.bytes_down << ',' << p.bytes_up << '\n';
        s += os.str();
      }
    }
  }
  return s;
}

int run_impl(XConfig c, const XRunOptions& opt) {
  if (opt.runs) c.runs = *opt.runs;
  if (opt.seed) {
    c.seed = *opt.seed;
    c.objective.seed = c.seed;
  }
  ContextOptions co;
  co.backend = Backend::Cpu;
  co.threads = opt.threads.value_or(0);
  const Context ctx(co);  // threads of the per-run loops and of Eigen
  mpi::World world;
  if (opt.mpi) world = mpi::init();
  const bool root = world.rank == 0;
  const std::string out_dir = opt.out_dir.empty() ? "results/" + c.name : opt.out_dir;
  if (root) detail::ensure_writable_directory(out_dir);
  const auto f = make_objective(c.objective);
  std::vector<std::uint32_t> runs(static_cast<std::size_t>(c.runs));
  for (int r = 0; r < c.runs; ++r)
    runs[static_cast<std::size_t>(r)] = static_cast<std::uint32_t>(r);
  std::vector<MethodOut> outs;
  for (const MethodSpec& m : c.methods) {
    const auto t0 = std::chrono::steady_clock::now();
    MethodOut mo;
    if (is_fed_pne(m) && opt.mpi) {
      if (root) {
        auto pool = mpi::make_server_pool(c.clients, c.mpi_timeout_s);
        FedPneParams p = m.fed;
        p.noise = c.noise;
        p.pull_seed = c.seed;
        copy_fed(mo, run_fed_pne(p, *f, c.clients, c.horizon, runs, *pool));
        mpi::stop_clients(*pool);
        mo.mpi_bytes = pool->measured_bytes();
        if (p.dp)
          mo.privacy = p.privacy_seeded ? "seeded simulation (Philox) — NOT private"
                                        : "secure (getrandom + ChaCha20)";
      } else {
        FedPneParams p = m.fed;
        p.noise = c.noise;
        p.pull_seed = c.seed;
        (void)mpi::serve_clients(p, f, c.clients, c.seed, runs);
      }
    } else if (m.type == "gp-ucb" && opt.mpi) {  // the posterior sharded over every rank
      for (std::uint32_t r : runs) {
        BaselineRun b =
            mpi::run_gp_ucb_mesh_sharded(*f, m.gp, c.clients, c.horizon, c.noise, c.seed, r);
        RunOut o;
        o.run = r;
        o.regret = std::move(b.regret);
        mo.runs.push_back(std::move(o));
      }
    } else if (is_fed_pne(m)) {
      if (!root) continue;
      FedPneParams p = m.fed;
      p.noise = c.noise;
      p.pull_seed = c.seed;
      InProcessPool pool(p, f, c.clients, c.seed, runs, ctx.threads());
      copy_fed(mo, run_fed_pne(p, *f, c.clients, c.horizon, runs, pool));
      mo.privacy = pool.privacy_description();
    } else {
      if (!root) continue;
      mo = run_baseline(m, *f, c, runs, ctx.threads());
    }
    mo.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (root) {
      if (opt.progress) {
        std::fprintf(stderr, "gpbandit: %s done (%.2f s)\n", m.label.c_str(), mo.seconds);
      }
      outs.push_back(std::move(mo));
    }
  }
  if (!root) return 0;
  // ---------------------------------------------------------------- outputs
  const std::string runs_path = out_dir + "/runs.csv", phases_path = out_dir + "/phases.csv",
                    summary_path = out_dir + "/summary.json", png = out_dir + "/regret.png";
  detail::write_file_atomic(runs_path, runs_csv(c, outs));
  detail::write_file_atomic(phases_path, phases_csv(c, outs));
  json s;
  s["gpbandit_version"] = GPB_VERSION;
  s["experiment"] = "fed-pne";
  s["name"] = c.name;
  s["runs"] = c.runs;
  s["seed"] = c.seed;
  s["horizon"] = c.horizon;
  s["clients"] = c.clients;
  s["objective"] = f->name();
  s["fstar"] = f->fstar();
  s["runtime"] =
      opt.mpi ? "mpi (" + std::to_string(world.size) + " ranks: server on rank 0)" : "in-process";
  s["regret_kind"] =
      "per-client average cumulative regret for federated methods, cumulative regret on f for "
      "centralised ones (hct, gp-ucb)";
  s["config"] = json::parse(c.config_json);
  json methods = json::array();
  std::printf("%-16s  %-28s  %-16s  %9s\n", "method", "regret at T (mean ± sd)", "rounds (mean)",
              "seconds");
  for (std::size_t i = 0; i < outs.size(); ++i) {
    const MethodOut& mo = outs[i];
    std::vector<double> fin, rounds, info, down, up;
    for (const RunOut& r : mo.runs) {
      double cum = 0;
      for (double v : r.regret) cum += v;
      fin.push_back(cum);
      rounds.push_back(r.rounds);
      info.push_back(static_cast<double>(r.info));
      down.push_back(static_cast<double>(r.bytes_down));
      up.push_back(static_cast<double>(r.bytes_up));
    }
    const auto [fm, fs] = mean_sd(fin);
    const auto [rm, rs] = mean_sd(rounds);
    json e;
    e["label"] = c.methods[i].label;
    e["type"] = c.methods[i].type;
    e["regret_mean"] = fm;
    e["regret_sd"] = fs;
    e["regret_per_run"] = fin;
    e["rounds_mean"] = rm;
    e["rounds_sd"] = rs;
    e["seconds"] = mo.seconds;
    e["curve"] = regret_curve(mo.runs, c.horizon);
    if (c.methods[i].type == "hct") {
      std::vector<double> rb, ex;
      for (const RunOut& r : mo.runs) {
        rb.push_back(static_cast<double>(r.rebuilds));
        ex.push_back(static_cast<double>(r.expansions));
      }
      e["reexpand"] = c.methods[i].hct.rebuild ? "rebuild" : "keep";
      e["rebuilds_mean"] = mean_sd(rb).first;
      e["expansions_mean"] = mean_sd(ex).first;
    }
    if (is_fed_pne(c.methods[i])) {
      e["info_per_client_mean"] = mean_sd(info).first;
      e["bytes_down_logical_mean"] = mean_sd(down).first;
      e["bytes_up_logical_mean"] = mean_sd(up).first;
      e["broadcasts_mean"] = [&] {
        std::vector<double> b;
        for (const RunOut& r : mo.runs) b.push_back(r.broadcasts);
        return mean_sd(b).first;
      }();
      if (opt.mpi) e["bytes_mpi_measured_total"] = mo.mpi_bytes;
      const FedPneParams& p = c.methods[i].fed;
      e["params"] = {{"k", p.k},
                     {"nu", p.nu},
                     {"rho", p.rho},
                     {"c", p.c},
                     {"c1", p.c1},
                     {"delta_conf", p.delta_conf > 0 ? p.delta_conf : 1.0 / c.clients},
                     {"depth_offset", p.depth_offset}};
      if (p.dp) {
        e["privacy"] = {{"dp_epsilon", p.dp_epsilon},
                        {"dp_delta", p.dp_delta},
                        {"sigma_dp", dp_sigma(p.dp_epsilon, p.dp_delta)},
                        {"noise_source", mo.privacy}};
      }
    }
    methods.push_back(e);
    char cum[64];
    std::snprintf(cum, sizeof cum, "%.4g ± %.3g", fm, fs);
    std::printf("%-16s  %-28s  %-16.3g  %9.2f\n", c.methods[i].label.c_str(), cum, rm, mo.seconds);
  }
  s["methods"] = methods;
  detail::write_file_atomic(summary_path, s.dump(2) + "\n");
  std::printf("\nruns.csv:     %s\nphases.csv:   %s\nsummary.json: %s\n", runs_path.c_str(),
              phases_path.c_str(), summary_path.c_str());
  if (opt.plot && c.horizon <= 20000) {
    const detail::PlotOutcome po = detail::draw_regret_plot(runs_path, png, c.name, "");
    std::printf("regret.png:   %s\n", po.plotted ? png.c_str() : po.message.c_str());
  }
  std::fflush(stdout);
  return 0;
}

}  // namespace

int run_xarmed_command(const std::string& config_path, const XRunOptions& opt) {
  if (!opt.mpi) return run_impl(load_xarmed_config(config_path), opt);
  // MPI: validate before MPI_Init; only rank 0 reports a bad config (the others exit 2 quietly).
  const char* env_rank = std::getenv("OMPI_COMM_WORLD_RANK");
  const bool env_root = env_rank == nullptr || std::string(env_rank) == "0";
  XConfig c;
  try {
    c = load_xarmed_config(config_path);
  } catch (const InvalidArgument&) {
    if (env_root) throw;
    return 2;
  }
  int code = 0;
  try {
    code = run_impl(c, opt);
  } catch (const std::exception& e) {
    const mpi::World w = mpi::init();
    std::string msg = e.what();
    for (char& ch : msg) {
      if (ch == '\n') ch = ' ';
    }
    std::cout.flush();
    std::fflush(stdout);
    std::cerr << "gpbandit: error: " << (w.rank == 0 ? "" : "rank " + std::to_string(w.rank) + ": ")
              << msg << std::endl;
    mpi::abort_all(dynamic_cast<const InvalidArgument*>(&e) ? 2 : 1);
  }
  mpi::finalize();
  return code;
}

}  // namespace gpb::xarmed
