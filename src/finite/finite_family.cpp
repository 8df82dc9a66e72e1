// The finite-domain family: how one policy steps a group of runs over a finite domain.
//
// A group's objective values f are computed once (prepare) and shared by every policy of the
// group (common random numbers). Each policy's rows are run-major, so runs.csv's bytes do not
// depend on how runs were grouped.
#include "finite/finite_family.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "engine/detail/shard.hpp"
#include "gpbandit/engine/posterior.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/privacy/laplace.hpp"
#include "gpbandit/privacy/noise_source.hpp"
#include "gpbandit/rng.hpp"

namespace gpb::detail {

namespace {

using nlohmann::json;

/// Stream of the seeded (simulation-only) privacy source; never used by the secure default.
constexpr std::uint32_t kPrivacyStream = 7;

/// Checks a policy's selection before it is used.
void check_selection(const Selection& sel, const std::string& label, int runs, int q, int n) {
  if (sel.runs != runs || sel.q != q ||
      sel.chosen.size() != static_cast<std::size_t>(runs) * static_cast<std::size_t>(q)) {
    std::ostringstream os;
    os << "policy '" << label << "' selected " << sel.runs << "x" << sel.q << " candidates ("
       << sel.chosen.size() << " values), expected " << runs << "x" << q;
    throw Error(os.str());
  }
  for (int j : sel.chosen) {
    if (j < 0 || j >= n) {
      throw Error("policy '" + label + "' selected candidate " + std::to_string(j) +
                  " outside the domain [0, " + std::to_string(n) + ")");
    }
  }
}

/// The user-side CTL of one run: mechanism and noise source (secure unless the config asks for
/// seeded simulation).
struct RunPrivatizer {
  std::unique_ptr<privacy::CtlMechanism> ctl;
  std::unique_ptr<privacy::NoiseSource> source;
};

/// CTL per run for a policy that asks for it (empty when it does not).
std::vector<RunPrivatizer> make_privatizers(const ExperimentConfig& cfg, const Policy& policy,
                                            const FiniteGroup& g, std::uint64_t seed, int p) {
  std::vector<RunPrivatizer> out;
  for (std::size_t r = 0; r < g.run_ids.size(); ++r) {
    const auto req = policy.ldp_request(static_cast<int>(r));
    if (!req) {
      if (!out.empty()) throw Error("policy asks for CTL on some runs only");
      continue;
    }
    RunPrivatizer z;
    z.ctl = std::make_unique<privacy::CtlMechanism>(req->B, req->R, req->epsilon, req->clip,
                                                    cfg.laplace_inverse_cdf
                                                        ? privacy::LaplaceSampler::InverseCdf
                                                        : privacy::LaplaceSampler::Snapping);
    z.source = cfg.privacy_seeded
                   ? privacy::make_seeded_source(seed, g.run_ids[r],
                                                 stream_of(static_cast<StreamId>(kPrivacyStream),
                                                           static_cast<std::uint32_t>(p)))
                   : privacy::make_secure_source();
    out.push_back(std::move(z));
  }
  return out;
}

/// summary.json's description of the CTL of a policy's group (its first group is reported).
json privacy_info(const std::vector<RunPrivatizer>& priv) {
  json info;
  info["epsilon"] = priv.front().ctl->epsilon();
  info["guarantee"] = priv.front().ctl->guarantee();
  info["noise_source"] = priv.front().source->describe();
  json scales = json::array();
  for (const auto& z : priv) scales.push_back(z.ctl->scale());
  info["laplace_scale_per_run"] = scales;
  return info;
}

/// Sharded run: every rank takes the writer's rewards (secure privacy noise differs between
/// processes; the posteriors' replicated factor state must not), bit for bit.
void share_writer_rewards(const Communicator& comm, std::vector<double>& y) {
  if (!comm.sharded()) return;
  if (comm.rank() != 0) std::fill(y.begin(), y.end(), 0.0);
  share_owned(comm, y.data(), static_cast<int>(y.size()), "rewards");
}

PolicyEnv policy_env(const ExperimentConfig& cfg, const StepEnv& env, const FiniteGroup& g, int p) {
  PolicyEnv e;
  e.ctx = env.ctx;
  e.domain = &cfg.domain;
  e.kernel = cfg.kernel;
  e.run_ids = g.run_ids;
  e.horizon = cfg.horizon;
  e.seed = env.seed;
  e.policy_index = static_cast<std::uint32_t>(p);
  e.noise_variance = cfg.noise_variance;
  e.random_ties = cfg.random_ties;
  e.f_sup = g.fsup;
  e.instance = instance_constants(cfg);
  return e;
}

/// Per-round communication of a policy's units (each records bytes, collectives, seconds, rounds
/// of its own); null when none was sharded (e.g. all resumed from a one-rank checkpoint).
json unit_comm(const std::vector<const UnitRecord*>& units, double* bytes, double* rounds) {
  double b = 0, c = 0, s = 0, r = 0;
  for (const UnitRecord* u : units) {
    if (!u->record.contains("mpi")) continue;
    const json& m = u->record["mpi"];
    b += m.at("bytes").get<double>();
    c += m.at("collectives").get<double>();
    s += m.at("seconds").get<double>();
    r += m.at("rounds").get<double>();
  }
  *bytes += b;
  *rounds += r;
  if (r == 0) return nullptr;
  return {
      {"bytes_per_round", b / r}, {"collectives_per_round", c / r}, {"communication_seconds", s}};
}

/// summary.json's "mpi": ranks, each rank's slice of the domain, bytes communicated per round
/// (per rank: the payload each rank reduces or gathers; every policy's own under "policies").
json mpi_summary(const Communicator& comm, const Domain& dom, const std::string& dom_type,
                 const std::string& why,
                 const std::vector<std::vector<const UnitRecord*>>& by_policy, json& policies) {
  const int n = dom.size();
  json slices = json::array();
  for (int q = 0; q < comm.size(); ++q) {
    const auto [b, e] = comm.slice(n, q);
    slices.push_back(e - b);
  }
  double bytes = 0, rounds = 0;
  for (std::size_t p = 0; p < by_policy.size(); ++p) {
    policies[p]["mpi"] = unit_comm(by_policy[p], &bytes, &rounds);
  }
  json m = {{"ranks", comm.size()}, {"slice_sizes", slices}};
  if (dom.is_slice()) {
    const std::string how = dom.is_grid()       ? ""
                            : dom_type == "npy" ? "; each rank read its rows of the .npy file"
                                                : "; the points read by rank 0 and scattered";
    m["sharded"] =
        "V, mu, sigma^2 of every posterior, the domain's points and f (per slice" + how + ")";
  } else {
    m["sharded"] =
        "V, mu, sigma^2 of every posterior; the domain's points and f whole on every "
        "rank: " +
        (why.empty() ? std::string("the config was read for one rank") : why);
  }
  m["bytes_per_round"] = rounds > 0 ? json(bytes / rounds) : json(nullptr);
  return m;
}

}  // namespace

InstanceConstants instance_constants(const ExperimentConfig& cfg) {
  const auto rc = cfg.objective->reward_constants();
  return rc ? *rc : noise_instance_constants(cfg.noise);
}

FiniteFamily::FiniteFamily(ExperimentConfig config) : config_(std::move(config)) {
  if (!config_.objective) throw InvalidArgument(config_.source + ": objective: required");
  if (config_.policies.empty()) throw InvalidArgument(config_.source + ": policies: required");
}

std::vector<std::string> FiniteFamily::labels() const {
  return labels_of(config_.policies);
}

std::string FiniteFamily::type(int p) const {
  return config_.policies.at(static_cast<std::size_t>(p)).type;
}

MemoryNeeds FiniteFamily::memory(int ranks) const {
  MemoryNeeds m;
  const int n = config_.domain.size();
  const std::string t = ", T = " + std::to_string(config_.horizon) + ")";
  if (ranks <= 1) {
    m.bytes_per_run = FinitePosterior::incremental_bytes(1, n, config_.horizon);
    m.model = "V = R·N·T·8 B (N = " + std::to_string(n) + t;
    return m;
  }
  const int held = (n + ranks - 1) / ranks;  // the largest slice: ⌈N/K⌉
  m.bytes_per_run = FinitePosterior::incremental_bytes(1, held, config_.horizon);
  m.model =
      "V = R·⌈N/K⌉·T·8 B per rank (N = " + std::to_string(n) + ", K = " + std::to_string(ranks) + t;
  return m;
}

bool shardable_policy(const std::string& type) {
  static const char* const kShardable[] = {"gp_ucb",      "batch_gp_ucb", "tgp_ucb",
                                           "ldp_tgp_ucb", "po_gp_ucb",    "random"};
  return std::find(std::begin(kShardable), std::end(kShardable), type) != std::end(kShardable);
}

void FiniteFamily::check_ranks(int ranks) const {
  if (ranks <= 1) return;
  const int n = config_.domain.size();
  if (ranks > n) {
    throw InvalidArgument(config_.source + ": domain: " + std::to_string(ranks) +
                          " MPI ranks for N = " + std::to_string(n) +
                          " candidates: every rank needs at least one (run with at most " +
                          std::to_string(n) + " ranks)");
  }
  for (std::size_t p = 0; p < config_.policies.size(); ++p) {
    const PolicySpec& spec = config_.policies[p];
    if (shardable_policy(spec.type)) continue;
    throw InvalidArgument(config_.source + ": policies[" + std::to_string(p) + "] ('" + spec.label +
                          "', " + spec.type +
                          ") cannot be sharded over MPI ranks: its Nyström dictionary needs the "
                          "whole domain on one process; run this config without --mpi, or "
                          "without that policy");
  }
}

std::string FiniteFamily::whole_domain(int ranks) const {
  if (ranks <= 1 || config_.domain.is_slice()) return {};
  return config_.whole_domain_reason.empty() ? std::string("the config was read for one rank")
                                             : config_.whole_domain_reason;
}

std::shared_ptr<const void> FiniteFamily::prepare(const StepEnv& env,
                                                  const std::vector<std::uint32_t>& runs) const {
  auto g = std::make_shared<FiniteGroup>();
  const ExperimentConfig& cfg = config_;
  const Domain& dom = cfg.domain;  // the whole domain, or this rank's slice of a grid
  if (dom.is_slice()) {
    const Communicator& comm = env.ctx->communicator();
    const auto [b, e] = comm.slice(dom.size());
    if (b != dom.slice_begin() || e != dom.slice_end()) {
      throw InvalidArgument(cfg.source + ": domain: this process built candidates [" +
                            std::to_string(dom.slice_begin()) + ", " +
                            std::to_string(dom.slice_end()) + ") but rank " +
                            std::to_string(comm.rank()) + " of " + comm.describe() + " holds [" +
                            std::to_string(b) + ", " + std::to_string(e) + ")");
    }
  }
  // Per run: max f with its lowest candidate, and max |f|; a slice's are merged over the ranks
  // (merge_records: the higher value, ties to the lower index, as maxCoeff on the whole f), with
  // the first non-finite candidate in nan_index, so that every rank fails alike.
  std::vector<UcbRecord> best(2 * runs.size());
  for (std::size_t k = 0; k < runs.size(); ++k) {
    g->run_ids.push_back(runs[k]);
    Eigen::VectorXd f = cfg.objective->values(*env.ctx, dom, env.seed, runs[k]);
    if (f.size() != dom.points().cols()) {
      throw NumericalError("objective '" + cfg.objective->name() +
                           "' gave the wrong number of values for run " + std::to_string(runs[k]));
    }
    UcbRecord& top = best[2 * k];
    UcbRecord& sup = best[2 * k + 1];
    for (Eigen::Index j = 0; j < f.size(); ++j) {
      if (!std::isfinite(f[j])) {
        top.nan_index = static_cast<double>(dom.slice_begin() + j);
        break;
      }
    }
    if (top.nan_index < 0) {
      Eigen::Index at = 0;
      top.score = f.maxCoeff(&at);
      top.index = static_cast<double>(dom.slice_begin() + at);
      sup.score = f.cwiseAbs().maxCoeff();
      sup.index = 0;
    }
    g->f.push_back(std::move(f));
  }
  if (dom.is_slice()) {
    env.ctx->communicator().impl().allreduce_ucb(best.data(), static_cast<int>(best.size()),
                                                 "objective maxima");
  }
  for (std::size_t k = 0; k < runs.size(); ++k) {
    if (best[2 * k].nan_index >= 0) {
      throw NumericalError("objective '" + cfg.objective->name() +
                           "' gave non-finite values for run " + std::to_string(runs[k]) +
                           " (first at candidate " +
                           std::to_string(static_cast<long long>(best[2 * k].nan_index)) + ")");
    }
    g->fstar.push_back(best[2 * k].score);
    g->xstar.push_back(static_cast<int>(best[2 * k].index));
    g->fsup.push_back(best[2 * k + 1].score);
  }
  return g;
}

namespace {

/// f at each run's chosen candidates (run-major, R·q values). A slice holds only its own
/// candidates' f: their owners contribute them and one bitwise-OR reduction (share_owned)
/// gives every rank all of them, bit for bit.
std::vector<double> chosen_values(const Communicator& comm, const Domain& dom, const FiniteGroup& g,
                                  const Selection& sel, int runs, int q) {
  std::vector<double> out(static_cast<std::size_t>(runs) * q, 0.0);
  for (int k = 0; k < runs; ++k) {
    const Eigen::VectorXd& f = g.f[static_cast<std::size_t>(k)];
    for (int i = 0; i < q; ++i) {
      const int j = sel.at(k, i);
      if (j >= dom.slice_begin() && j < dom.slice_end()) {
        out[static_cast<std::size_t>(k) * q + i] = f[j - dom.slice_begin()];
      }
    }
  }
  if (dom.is_slice()) share_owned(comm, out.data(), static_cast<int>(out.size()), "f at choices");
  return out;
}

}  // namespace

UnitOutput FiniteFamily::step(const StepEnv& env, const void* group, int p,
                              const std::vector<std::uint32_t>& /*runs*/,
                              const std::vector<UnitRecord>& /*earlier*/) const {
  const ExperimentConfig& cfg = config_;
  const FiniteGroup& g = *static_cast<const FiniteGroup*>(group);
  const PolicySpec& spec = cfg.policies[static_cast<std::size_t>(p)];
  const PolicyEnv penv = policy_env(cfg, env, g, p);
  std::unique_ptr<Policy> policy = make_policy(spec, penv);
  UnitOutput out;
  const std::string info = policy->info_json();
  if (!info.empty()) out.record["policy_info"] = json::parse(info);
  // User side: the learner only ever sees CTL-privatised rewards (DESIGN §1, §5).
  std::vector<RunPrivatizer> priv = make_privatizers(cfg, *policy, g, env.seed, p);
  if (!priv.empty()) out.record["privacy"] = privacy_info(priv);

  const int runs = penv.runs();
  const bool dataset = cfg.objective->domain().has_value();
  const std::uint32_t stream = stream_of(dataset ? StreamId::Bootstrap : StreamId::Noise);
  std::vector<Rng> rngs;
  for (std::uint32_t id : g.run_ids) rngs.emplace_back(env.seed, id, stream);

  const Communicator& comm = env.ctx->communicator();  // sharded posteriors (--mpi), or one rank
  const CommStats comm0 = comm.stats();
  GroupRecorder rec(spec.label, g.run_ids, g.fstar, cfg.horizon);
  const int batch = std::max(1, policy->batch_size());
  const int rounds = (cfg.horizon + batch - 1) / batch;
  int done = 0;
  for (int r = 1; done < cfg.horizon; ++r) {
    Round round;
    round.index = r;
    round.done = done;
    round.q = std::min(std::max(1, policy->batch_size()), cfg.horizon - done);
    const Selection sel = policy->select(round);
    check_selection(sel, spec.label, runs, round.q, cfg.domain.size());
    const std::vector<double> fsel = chosen_values(comm, cfg.domain, g, sel, runs, round.q);
    Rewards rewards;
    rewards.y.resize(sel.chosen.size());
    for (int k = 0; k < runs; ++k) {
      for (int i = 0; i < round.q; ++i) {
        const int j = sel.at(k, i);
        const double fj = fsel[static_cast<std::size_t>(k) * round.q + i];
        double y = cfg.objective->reward(j, fj, cfg.noise, rngs[static_cast<std::size_t>(k)]);
        if (!priv.empty()) {
          auto& z = priv[static_cast<std::size_t>(k)];
          y = z.ctl->privatize(y, *z.source);  // runs.csv records what the learner sees
        }
        rewards.y[static_cast<std::size_t>(k) * round.q + i] = y;
      }
    }
    share_writer_rewards(comm, rewards.y);
    for (int k = 0; k < runs; ++k) {
      for (int i = 0; i < round.q; ++i) {
        const int j = sel.at(k, i);
        const std::size_t at = static_cast<std::size_t>(k) * round.q + i;
        rec.record(k, r, j, fsel[at], rewards.y[at]);
      }
    }
    policy->observe(sel, rewards);
    done += round.q;
    if (env.tick) env.tick(std::min(r, rounds), rounds, round.q);
  }
  out.rows = rec.rows();
  json records = json::array();
  std::vector<RunRecord> rr = rec.records();
  for (std::size_t k = 0; k < rr.size(); ++k) {
    rr[k].f_sup = g.fsup[k];
    rr[k].x_star = g.xstar[k];
    records.push_back(to_json(rr[k]));
  }
  out.record["runs"] = records;
  if (comm.sharded()) {  // what this unit communicated (the same payload on every rank)
    const CommStats c = comm.stats();
    out.record["mpi"] = {{"bytes", c.bytes - comm0.bytes},
                         {"collectives", c.collectives - comm0.collectives},
                         {"seconds", c.seconds - comm0.seconds},
                         {"rounds", rounds}};
  }
  return out;
}

PlotRequest FiniteFamily::plot(const std::string& runs_csv) const {
  PlotRequest r;
  r.file = "regret.png";
  r.call.script = "plot_regret.py";
  r.call.before = {runs_csv};
  r.call.after = {"--title", config_.name};
  return r;
}

FamilySummary FiniteFamily::summarize(const StepEnv& env,
                                      const std::vector<std::vector<const UnitRecord*>>& by_policy,
                                      const std::string& /*backend*/) const {
  FamilySummary out = summarize_finite(config_, env.runs, by_policy);
  if (env.comm != nullptr && env.comm->size() > 1) {
    const json root = json::parse(config_.config_json, nullptr, false);
    const json dom = root.is_object() ? root.value("domain", json()) : json();
    const std::string dom_type = dom.is_object() ? dom.value("type", std::string()) : "";
    out.fields["mpi"] = mpi_summary(*env.comm, config_.domain, dom_type,
                                    config_.whole_domain_reason, by_policy, out.policies);
  }
  return out;
}

std::shared_ptr<const Family> make_finite_family(ExperimentConfig config) {
  return std::make_shared<FiniteFamily>(std::move(config));
}

}  // namespace gpb::detail
