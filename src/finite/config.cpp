// Experiment config: parsing and strict validation.
//
// ---------------------------------------------------------------------------------------------
// Config format (JSON; // and /* */ comments are allowed; unknown keys are errors at every level)
//
//   {
//     "experiment": "finite",    // the family: "finite" (or absent), "pool", "dp-gibo",
//                                // "fed-pne"; the other families' keys: `gpbandit list config`
//     "name": "demo",            // output folder name, [A-Za-z0-9._-]+; default: the config
//                                // file's stem (or "experiment")
//     "description": "...",      // free text, ignored; default ""
//     "seed": 0,                 // master seed (integer in [0, 2^64 - 1]); default 0
//     "runs": 10,                // independent runs per policy (>= 1); default 10
//     "T": 200,                  // evaluations per run (>= 1); default 100
//     "lockstep": 0,             // runs advanced together; a checkpoint follows each group;
//                                // 0 = as many as fit memory_budget_mb and ~2 minutes of work
//     "backend": "auto",         // "auto" | "cpu" | "cuda"; default "auto"
//     "memory_budget_mb": 4096,  // posterior buffers (> 0): V = R·N·T·8 B for R runs in
//                                // lockstep; over it: smaller groups, then recompute mode;
//                                // default: 4096 on the CPU, 75% of free device memory on CUDA
//     "threads": 0,              // CPU threads, 0 = the idle cores; default 0
//     "tie_break": "random",     // "random" | "lowest" (argmax ties); default "random"
//     "noise_variance": 0.01,    // lambda of the surrogate GP (> 0); default 0.01
//     "privacy_noise": "secure", // "secure" | "seeded" (LDP noise; seeded = NOT private)
//     "laplace_sampler": "snapping", // "snapping" | "inverse_cdf" (the paper's sampler)
//     "domain":    REQUIRED (must be absent for a dataset objective)
//         {"type": "grid", "lower": [0, 0], "upper": [1, 1], "counts": [50, 50]}
//             lower <= upper, counts >= 1, all three the same length (d)
//       | {"type": "csv", "path": "pts.csv"}      one candidate per row (optional header)
//       | {"type": "npy", "path": "pts.npy"}      N x d array (numpy.save); under --mpi each rank
//                                               reads only its rows
//       | {"type": "indices", "n": 100}           points 0..n-1 (for a precomputed kernel)
//       | {"type": "fingerprints", "path": "fp.npy", "kind": "bits" | "counts", "bits": 0}
//             packed uint64 words or dense 0/1 / counts per row (tanimoto / minmax kernels)
//       | {"type": "molecules", "file": "lib.csv.gz", "smiles": "smiles", "cache": "fingerprints",
//          "fingerprint": {"type": "atom_pair", "bits": 2048, "min_length": 1, "max_length": 3,
//                          "counts": false} | {"type": "morgan", "radius": 2, ...}}
//             featurised once by `python3 -m gpbandit.chem featurize CONFIG` (RDKit)
//     "kernel":    default {"type": "se"} (must be absent for a dataset objective)
//         {"type": "se" | "matern12" | "matern32" | "matern52",
//          "lengthscale": 1 (> 0; or an array of d values > 0, one per axis: ARD),
//          "variance": 1 (> 0)}
//       | {"type": "linear", "variance": 1 (> 0), "offset": 0 (>= 0)}
//       | {"type": "polynomial", "degree": 2 (>= 1), "variance": 1 (> 0), "offset": 1 (>= 0)}
//       | {"type": "precomputed", "path": "K.csv"}  N x N symmetric matrix; the domain must be
//                                                   {"type": "indices", "n": N}
//       | {"type": "tanimoto" | "minmax", "variance": 1 (> 0)}   fingerprint domains only
//       | {"combine": "product" | "sum", "type": "matern52" (of the parts), "variance": 1
//          (product), "parts": [{"features": [begin, end), "type", "lengthscale" (a number or
//          one per feature), "ard": true, "variance" (sum: 1/parts)}, ...]}
//             stationary parts on contiguous feature ranges covering the domain: v·Π k_p or
//             Σ v_p·k_p (docs/spaces.md)
//     "objective": REQUIRED
//         {"type": "rkhs", "support": 100 (>= 1), "fixed": false}
//       | {"type": "gp_sample", "features": 0 (>= 0; 0 = exact), "fixed": false,
//          "kronecker": false (exact draw on a grid by Kronecker factors; se kernel)}
//       | {"type": "branin"}                          (2-d domain)
//       | {"type": "hartmann6"}                       (6-d domain)
//       | {"type": "lookup", "file": "lib.csv" (default: the molecules domain's), "column":
//          "score", "minimize": false}            one value per candidate, in file order
//       | {"type": "dataset", "path": "data.csv", "correlation": false, "skip_columns": 0,
//          "kernel_path": "train.csv", "kernel_skip_columns": 0}   (kernel from a separate file)
//             arms = columns; prescribes its own domain and kernel, so "domain" and "kernel"
//             must be absent, and "noise" must be absent or {"type": "none"}
//       | {"type": "po_data", "source": "branin" | "loan_like" | "property_like"
//                                      | "property_hedonic" | "csv",
//          "path": "xy.csv" (csv: header x1..xd,y), "n", "data_seed": 0, "log_output": true,
//          "minimise", "fit": "ard" | "iso", "mle_rows": 2000, "mle_starts": 5,
//          "preprocess_order": "centre_then_scale", "max_norm": 25}
//             specs/po-gp-ucb.md s2/s7 (loan_like, property_*: seeded look-alikes); like
//             "dataset" it prescribes domain, kernel and (unless given) noise_variance
//     "noise":     default {"type": "none"}
//         {"type": "none"} | {"type": "gaussian", "sd": 0.1 (>= 0)}
//       | {"type": "uniform", "R": 1 (>= 0)} | {"type": "student_t", "nu": 3 (> 0), "scale": 1}
//       | {"type": "pareto", "alpha": 3 (> 1), "scale": 1} | {"type": "laplace", "scale": 1}
//     "policies":  REQUIRED, non-empty; "label" defaults to the type and must be unique
//         {"type": "gp_ucb", "label": "GP-UCB", "beta": BETA}
//       | {"type": "batch_gp_ucb", "q": 5 (>= 1; <= N when distinct), "distinct": false,
//          "beta": BETA}
//       | {"type": "random"}
//       | {"type": "tgp_ucb" | "ldp_tgp_ucb" | "ata_gp_ucb" | "ldp_ata_gp_ucb" | "moma_gp_ucb"
//          | "ldp_moma_gp_ucb", "preset": "practical" | "theory", "delta": 0.1, "alpha": 1,
//          "B", "R", "v", "c" (> 0, optional overrides), "eps_nys": 0.1 (ATA, MoMA),
//          "epsilon" (> 0, required for ldp_*), "ctl_clip": true, "moment_source": "auto",
//          "gamma": "info_gain" | "log_t" (TGP), "ata_level": "current" | "per_sample" (ATA),
//          "k_groups": 0, "median": "lower" | "midpoint", "moma_exponent": "arxiv" | "aaai"}
//         (specs/ldp-bo.md; T must be >= MoMA's k)
//       | {"type": "po_gp_ucb", "epsilon": (> 0, required unless "curator": false), "delta": 1e-5
//          (in (0,1)), "r": 0 (0 = the spec's largest passing r; <= N), "omega_form":
//          "sqrt_r_log" | "literal", "curator": true (false = the non-private baseline over X),
//          "n_init": 1, "exclude_queried": false, "calibrate_to": 0 (> 0: rescale epsilons to
//          the data's sigma_min), "beta": BETA}
//         (specs/po-gp-ucb.md: GP-UCB over a random projection of the domain; NOT a DP claim
//          when n > d; the domain must not be rank-deficient after centring)
//       gp_ucb also takes "ldp": {"epsilon": > 0, "B": > 0, "R": > 0, "clip": true}
//       BETA, default {"type": "srinivas"}:
//         {"type": "srinivas", "delta": 0.1 (in (0,1)), "scale": 1 (> 0)}
//       | {"type": "igp_ucb", "delta": 0.1, "B": 1 (>= 0), "R": 0.1 (>= 0), "scale": 1}
//       | {"type": "constant", "value": 4 (> 0), "scale": 1}
//   }
//
// Relative paths resolve against the config file's directory. Every problem is reported as one
// line "<file>: <field path>: <what>" (JSON syntax errors as "<file>:<line>:<column>: ...", data
// file errors keep the loader's "<path>:<line>: ..."). `gpbandit list` prints the same table.
// ---------------------------------------------------------------------------------------------
#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "dist/domain_scatter.hpp"
#include "experiment/config_checker.hpp"
#include "experiment/config_common.hpp"
#include "experiment/fingerprint_domain.hpp"
#include "experiment/kernel_config.hpp"
#include "experiment/registry_internal.hpp"
#include "finite/finite_family.hpp"
#include "finite/po_config.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/experiment/experiment.hpp"
#include "io/npy.hpp"
#include "objective/sampling.hpp"

namespace gpb {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using detail::check_gp_ucb_ldp;
using detail::check_heavy;
using detail::Checker;
using detail::describe_value;
using detail::InstanceInfo;
using detail::join;

// ---------------------------------------------------------------- sections

/// Refuses a domain whose posterior cannot fit the memory budget even for one run in recompute
/// mode (8·d + 40 bytes per candidate: the points, the prior variance, μ, σ² and f), before
/// anything of that size is allocated.
void check_domain_fits(const Checker& c, const std::string& field, double n, int d,
                       std::size_t budget) {
  const double per = 8.0 * d + 40.0, bytes = n * per;
  if (bytes <= static_cast<double>(budget)) return;
  std::ostringstream os;
  os.precision(4);
  os << "N = " << static_cast<long long>(n) << " candidates need at least " << bytes / 1e9
     << " GB for the posterior of one run (" << per
     << " B per candidate: the points, prior variance, mean, variance and f), more than "
        "memory_budget_mb = "
     << (budget >> 20) << " (" << static_cast<double>(budget) / 1e9
     << " GB) allows; use fewer candidates or raise memory_budget_mb";
  c.fail(field, os.str());
}

/// Why a config's finite domain cannot be built as one rank's slice (empty: it can). A slice needs
/// a grid, or a CSV or .npy file when `csv_scatter` (rank 0 reads a CSV file and scatters the
/// slices; every rank reads its own rows of a .npy file), an objective
/// that evaluates a slice bit for bit as the whole domain does (rkhs, branin, hartmann6, gp_sample
/// with random Fourier features) and policies whose only N-sized state is the sharded
/// FinitePosterior. Anything malformed is left to the validator (whole domain).
std::string whole_domain_reason(const json& root, bool csv_scatter) {
  const auto type_of = [](const json& j) -> std::string {
    return j.is_object() && j.contains("type") && j.at("type").is_string()
               ? j.at("type").get<std::string>()
               : std::string();
  };
  const std::string dom = root.contains("domain") ? type_of(root.at("domain")) : "";
  if (dom != "grid" && !((dom == "csv" || dom == "npy") && csv_scatter)) {
    return "domain type '" + dom + "' is not a grid" +
           (csv_scatter ? ", a CSV or a .npy file (only those are built per rank)"
                        : " (only a grid is built per rank; a CSV or .npy file under gpbandit "
                          "run --mpi)");
  }
  const json obj = root.value("objective", json());
  const std::string o = type_of(obj);
  const auto flag = [&](const char* k) { return obj.contains(k) && obj.at(k) == json(true); };
  const bool rff = o == "gp_sample" && obj.contains("features") && obj.at("features").is_number() &&
                   obj.at("features").get<double>() > 0 && !flag("kronecker");
  if (o != "rkhs" && o != "branin" && o != "hartmann6" && !rff) {
    return "objective '" + o + "' needs every candidate (an exact draw)";
  }
  const json pol = root.value("policies", json());
  if (!pol.is_array()) return "policies is not an array";
  for (const json& p : pol) {
    const std::string t = type_of(p);
    if (t == "po_gp_ucb") return "policy po_gp_ucb projects every candidate";
    if (!detail::shardable_policy(t)) return "policy '" + t + "' holds the whole domain";
  }
  return {};
}

Domain build_domain(const Checker& c, const json& d, std::string* type_out, std::size_t budget,
                    DomainShard shard) {
  const RegistryEntry& e = c.typed_entry(d, "domain", "domain");
  c.check_keys(d, e, "domain", true);
  *type_out = e.name;
  if (e.name == "fingerprints" || e.name == "molecules") {
    Domain dom = detail::load_fingerprint_domain(c, d, "domain");
    check_domain_fits(c, "domain", static_cast<double>(dom.size()), dom.dim(), budget);
    return dom;
  }
  if (e.name == "indices") {
    const int n = static_cast<int>(c.integer(d, "n", "domain.n", 1, INT_MAX));
    check_domain_fits(c, "domain.n", n, 1, budget);
    return c.guarded("domain", [&] { return Domain::indices(n); });
  }
  if (e.name == "csv") {
    if (shard.ranks > 1 && shard.communicator) {
      // Rank 0 alone opens the file; it reports a missing one from inside the collective.
      const std::string path = c.data_path(d, "path", "domain.path", false);
      const Communicator comm = shard.communicator();
      if (comm.rank() != shard.rank || comm.size() != shard.ranks) {
        c.fail("domain.path",
               "cannot scatter: the communicator is rank " + std::to_string(comm.rank()) + " of " +
                   std::to_string(comm.size()) + ", not rank " + std::to_string(shard.rank) +
                   " of " + std::to_string(shard.ranks));
      }
      return c.guarded("domain.path", [&] { return detail::scatter_csv_domain(comm, path); });
    }
    const std::string path = c.data_path(d, "path", "domain.path");
    return c.guarded("domain.path", [&] { return Domain::from_csv(path); });
  }
  if (e.name == "npy") {
    if (shard.ranks > 1 && shard.communicator) {
      // Every rank reads its own rows; a rank that cannot is named by the others.
      const std::string path = c.data_path(d, "path", "domain.path", false);
      const Communicator comm = shard.communicator();
      Domain slice =
          c.guarded("domain.path", [&] { return detail::read_npy_domain_slice(comm, path); });
      check_domain_fits(c, "domain.path", static_cast<double>(slice.points().cols()), slice.dim(),
                        budget);
      return slice;
    }
    const std::string path = c.data_path(d, "path", "domain.path");
    const auto shape = c.guarded("domain.path", [&] { return detail::npy_points_shape(path); });
    check_domain_fits(c, "domain.path", static_cast<double>(shape.first),
                      static_cast<int>(std::min<std::int64_t>(shape.second, INT_MAX)), budget);
    return c.guarded("domain.path", [&] { return Domain::from_npy(path); });
  }
  const json& lo = d["lower"];
  const json& up = d["upper"];
  const json& ct = d["counts"];
  if (lo.empty()) c.fail("domain.lower", "must have at least one value");
  if (up.size() != lo.size()) {
    c.fail("domain.upper", "has " + std::to_string(up.size()) + " values but domain.lower has " +
                               std::to_string(lo.size()));
  }
  if (ct.size() != lo.size()) {
    c.fail("domain.counts", "has " + std::to_string(ct.size()) + " values but domain.lower has " +
                                std::to_string(lo.size()));
  }
  std::vector<double> lower, upper;
  std::vector<int> counts;
  double n_total = 1;
  for (std::size_t i = 0; i < lo.size(); ++i) {
    const std::string idx = "[" + std::to_string(i) + "]";
    lower.push_back(lo[i].get<double>());
    upper.push_back(up[i].get<double>());
    if (!(lower.back() <= upper.back())) {
      c.fail("domain.upper" + idx,
             "must be >= domain.lower" + idx + " = " + lo[i].dump() + ", got " + up[i].dump());
    }
    const long long n = ct[i].get<long long>();
    if (n < 1)
      c.fail("domain.counts" + idx, "must be >= 1 (N = 0 is impossible), got " + ct[i].dump());
    if (n > INT_MAX) c.fail("domain.counts" + idx, "too large, got " + ct[i].dump());
    counts.push_back(static_cast<int>(n));
    n_total *= static_cast<double>(n);
  }
  if (n_total > INT_MAX) {
    std::ostringstream os;
    os << "N = " << n_total << " candidates exceeds the limit " << INT_MAX;
    c.fail("domain.counts", os.str());
  }
  if (shard.ranks > 1 && shard.ranks <= n_total) {  // more ranks than N: check_ranks refuses
    const std::pair<long long, long long> r =       // not a structured binding: the lambda takes it
        Communicator::slice_of(static_cast<long long>(n_total), shard.rank, shard.ranks);
    const long long b = r.first, e = r.second;
    check_domain_fits(c, "domain.counts", static_cast<double>(e - b), static_cast<int>(lo.size()),
                      budget);
    return c.guarded("domain", [&] { return Domain::grid_slice(lower, upper, counts, b, e); });
  }
  check_domain_fits(c, "domain.counts", n_total, static_cast<int>(lo.size()), budget);
  return c.guarded("domain", [&] { return Domain::grid(lower, upper, counts); });
}

Kernel build_kernel(const Checker& c, const json& k, std::string* path_out) {
  const RegistryEntry& e = c.typed_entry(k, "kernel", "kernel");
  c.check_keys(k, e, "kernel", true);
  const json o = Checker::with_defaults(k, e);
  if (e.name == "precomputed") {
    *path_out = c.data_path(o, "path", "kernel.path");
    Kernel kern =
        c.guarded("kernel.path", [&] { return Kernel::precomputed(read_csv_matrix(*path_out)); });
    c.guarded("kernel.path", [&] { check_positive_semidefinite(*kern.matrix(), *path_out); });
    return kern;
  }
  if (e.name == "tanimoto" || e.name == "minmax") {
    const double v = c.positive(o, "variance", "kernel.variance");
    return e.name == "tanimoto" ? Kernel::tanimoto(v) : Kernel::minmax(v);
  }
  if (e.name == "linear" || e.name == "polynomial") {
    const double v = c.positive(o, "variance", "kernel.variance");
    const double off = c.non_negative(o, "offset", "kernel.offset");
    if (e.name == "linear") return c.guarded("kernel", [&] { return Kernel::linear(v, off); });
    const int deg = static_cast<int>(c.integer(o, "degree", "kernel.degree", 1, 64));
    return c.guarded("kernel", [&] { return Kernel::polynomial(deg, v, off); });
  }
  const Eigen::VectorXd l = detail::lengthscales(c, o, "kernel.lengthscale");
  const double v = c.positive(o, "variance", "kernel.variance");
  const KernelType t = parse_kernel_type(e.name);
  return c.guarded("kernel", [&] { return Kernel::ard(t, l, v); });
}

NoiseModel build_noise(const Checker& c, const json& n) {
  const RegistryEntry& e = c.typed_entry(n, "noise", "noise");
  c.check_keys(n, e, "noise", true);
  const json o = Checker::with_defaults(n, e);
  NoiseModel m;
  if (e.name == "gaussian") {
    m.kind = NoiseModel::Kind::Gaussian;
    m.scale = c.non_negative(o, "sd", "noise.sd");
  } else if (e.name == "uniform") {
    m.kind = NoiseModel::Kind::Uniform;
    m.scale = c.non_negative(o, "R", "noise.R");
  } else if (e.name == "student_t") {
    m.kind = NoiseModel::Kind::StudentT;
    m.nu = c.positive(o, "nu", "noise.nu");
    m.scale = c.non_negative(o, "scale", "noise.scale");
  } else if (e.name == "pareto") {
    m.kind = NoiseModel::Kind::Pareto;
    m.alpha = Checker::number(o, "alpha");
    if (!(m.alpha > 1)) c.fail("noise.alpha", "must be > 1, got " + o["alpha"].dump());
    m.scale = c.non_negative(o, "scale", "noise.scale");
  } else if (e.name == "laplace") {
    m.kind = NoiseModel::Kind::Laplace;
    m.scale = c.non_negative(o, "scale", "noise.scale");
  }
  c.guarded("noise", [&] { m.validate(); });
  return m;
}

std::shared_ptr<const Objective> build_objective(const Checker& c, const json& obj,
                                                 const Kernel& kernel, const Domain& domain) {
  const RegistryEntry& e = c.typed_entry(obj, "objective", "objective");
  const json o = Checker::with_defaults(obj, e);
  if (e.name == "rkhs") {
    const int m = static_cast<int>(c.integer(o, "support", "objective.support", 1, INT_MAX));
    const bool fixed = o["fixed"].get<bool>();
    return c.guarded("objective", [&] { return make_rkhs_objective(kernel, m, fixed); });
  }
  if (e.name == "gp_sample") {
    const int m = static_cast<int>(c.integer(o, "features", "objective.features", 0, INT_MAX));
    const bool fixed = o["fixed"].get<bool>();
    const bool kron = o["kronecker"].get<bool>();
    if (kron && !detail::grid_axes(domain)) {
      c.fail("objective.kronecker", "needs a grid domain (type grid), the points are not one");
    }
    return c.guarded("objective", [&] { return make_gp_sample_objective(kernel, m, fixed, kron); });
  }
  const int need = e.name == "branin" ? 2 : 6;
  if (domain.dim() != need) {
    c.fail("objective", e.name + " needs a " + std::to_string(need) +
                            "-d domain, got d = " + std::to_string(domain.dim()));
  }
  if (e.name == "branin") return c.guarded("objective", [] { return make_branin_objective(); });
  return c.guarded("objective", [] { return make_hartmann6_objective(); });
}

std::shared_ptr<const Objective> build_dataset(const Checker& c, const json& obj) {
  const RegistryEntry& e = c.typed_entry(obj, "objective", "objective");
  const json o = Checker::with_defaults(obj, e);
  const std::string path = c.data_path(o, "path", "objective.path");
  const int skip =
      static_cast<int>(c.integer(o, "skip_columns", "objective.skip_columns", 0, INT_MAX));
  const bool corr = o["correlation"].get<bool>();
  Eigen::MatrixXd data =
      c.guarded("objective.path", [&] { return read_csv_matrix(path, nullptr, skip); });
  const std::string label = fs::path(path).stem().string();
  if (o.contains("kernel_path")) {
    const std::string kpath = c.data_path(o, "kernel_path", "objective.kernel_path");
    const int kskip = o.contains("kernel_skip_columns")
                          ? static_cast<int>(c.integer(o, "kernel_skip_columns",
                                                       "objective.kernel_skip_columns", 0, INT_MAX))
                          : skip;
    Eigen::MatrixXd kdata =
        c.guarded("objective.kernel_path", [&] { return read_csv_matrix(kpath, nullptr, kskip); });
    if (kdata.cols() != data.cols()) {
      c.fail("objective.kernel_path", kpath + " has " + std::to_string(kdata.cols()) +
                                          " columns (after skipping " + std::to_string(kskip) +
                                          ") but " + path + " has " + std::to_string(data.cols()) +
                                          "; both must have one column per arm");
    }
    return c.guarded("objective.kernel_path", [&] {
      return make_dataset_objective(std::move(data), std::move(kdata), corr, label);
    });
  }
  return c.guarded("objective.path",
                   [&] { return make_dataset_objective(std::move(data), corr, label); });
}

json build_beta(const Checker& c, const json& b, const std::string& path) {
  const RegistryEntry& e = c.typed_entry(b, "beta", path);
  c.check_keys(b, e, path, true);
  json o = Checker::with_defaults(b, e);
  if (o.contains("delta")) {
    const double d = o["delta"].get<double>();
    if (!(d > 0 && d < 1)) c.fail(path + ".delta", "must be in (0, 1), got " + o["delta"].dump());
  }
  if (o.contains("B")) c.non_negative(o, "B", path + ".B");
  if (o.contains("R")) c.non_negative(o, "R", path + ".R");
  if (o.contains("value")) c.positive(o, "value", path + ".value");
  c.positive(o, "scale", path + ".scale");
  return o;
}

bool valid_label(const std::string& s) {
  if (s.empty()) return false;
  for (unsigned char ch : s) {
    if (ch < 0x20 || ch == ',' || ch == '"' || ch == 0x7f) return false;
  }
  return true;
}

std::vector<PolicySpec> build_policies(const Checker& c, const json& arr, int n_candidates,
                                       const InstanceInfo& info) {
  if (arr.empty()) c.fail("policies", "must list at least one policy");
  std::vector<PolicySpec> out;
  for (std::size_t i = 0; i < arr.size(); ++i) {
    const std::string path = "policies[" + std::to_string(i) + "]";
    const RegistryEntry& e = c.typed_entry(arr[i], "policy", path);
    c.check_keys(arr[i], e, path, true);
    json o = Checker::with_defaults(arr[i], e);
    PolicySpec spec;
    spec.type = e.name;
    spec.label = o.contains("label") ? o["label"].get<std::string>() : e.name;
    if (!valid_label(spec.label)) {
      c.fail(path + ".label", "must be non-empty without commas, quotes or control characters");
    }
    for (std::size_t k = 0; k < out.size(); ++k) {
      if (out[k].label == spec.label) {
        c.fail(path + ".label", "duplicate label '" + spec.label + "' (also policies[" +
                                    std::to_string(k) + "]); labels must be unique");
      }
    }
    o["label"] = spec.label;
    if (o.contains("q")) {
      const long long q = c.integer(o, "q", path + ".q", 1, INT_MAX);
      if (o.value("distinct", false) && q > n_candidates) {
        c.fail(path + ".q", "must be <= N = " + std::to_string(n_candidates) +
                                " when distinct, got " + std::to_string(q));
      }
    }
    if (o.contains("beta")) o["beta"] = build_beta(c, o["beta"], path + ".beta");
    if (e.name == "gp_ucb" && o.contains("ldp")) check_gp_ucb_ldp(c, o["ldp"], path + ".ldp", info);
    if (e.name == "po_gp_ucb") {
      detail::check_po_gp_ucb_params(arr[i], path, c.source(), *info.domain);
    }
    if (e.name.find("tgp_ucb") != std::string::npos ||
        e.name.find("ata_gp_ucb") != std::string::npos ||
        e.name.find("moma_gp_ucb") != std::string::npos) {
      check_heavy(c, o, path, e.name, info);
    }
    spec.params_json = o.dump();
    out.push_back(std::move(spec));
  }
  return out;
}

void read_scalars(const Checker& c, const json& root, ExperimentConfig& cfg) {
  static_cast<ExperimentSettings&>(cfg) = detail::read_settings(c, root, "finite");
  const json& e = root;
  if (e.contains("T")) cfg.horizon = static_cast<int>(c.integer(e, "T", "T", 1, INT_MAX));
  if (e.contains("tie_break")) {
    const std::string t = e["tie_break"].get<std::string>();
    if (t != "random" && t != "lowest") {
      c.fail("tie_break", "must be random or lowest, got '" + t + "'");
    }
    cfg.random_ties = t == "random";
  }
  if (e.contains("noise_variance")) {
    cfg.noise_variance = c.positive(e, "noise_variance", "noise_variance");
  }
  if (e.contains("laplace_sampler")) {
    const std::string t = e["laplace_sampler"].get<std::string>();
    if (t != "snapping" && t != "inverse_cdf") {
      c.fail("laplace_sampler", "must be snapping or inverse_cdf, got '" + t + "'");
    }
    cfg.laplace_inverse_cdf = t == "inverse_cdf";
  }
}

}  // namespace

ExperimentConfig parse_experiment_config(const std::string& json_text, const std::string& source,
                                         const std::string& base_dir, DomainShard shard) {
  const Checker c(source, base_dir.empty() ? "." : base_dir);
  const json root = detail::parse_json_text(json_text, source);
  if (!root.is_object())
    c.fail_plain("expected a JSON object at top level, got " + describe_value(root));
  if (detail::family_of(c, root) != "finite") {
    c.fail("experiment", "a " + root.at("experiment").get<std::string>() +
                             " config: load it with gpb::load_experiment (as `gpbandit run` does)");
  }

  ExperimentConfig cfg;
  cfg.source = source;
  cfg.config_json = root.dump();
  read_scalars(c, root, cfg);

  const json& objective = root.at("objective");
  const bool po_data =
      objective.is_object() && objective.contains("type") && objective.at("type") == "po_data";
  const bool dataset = po_data || (objective.is_object() && objective.contains("type") &&
                                   objective.at("type") == "dataset");
  if (!dataset && !root.contains("domain")) c.fail("domain", "required");
  if (dataset) {
    c.check_keys(objective, c.typed_entry(objective, "objective", "objective"), "objective", true);
    if (root.contains("domain")) {
      c.fail("domain",
             "must be absent for a dataset objective (the data set prescribes its domain)");
    }
    if (root.contains("kernel")) {
      c.fail("kernel",
             "must be absent for a dataset objective (the data set prescribes its kernel)");
    }
    if (root.contains("noise") && root.at("noise").value("type", json()) != "none") {
      c.fail("noise",
             "must be absent or {\"type\": \"none\"} for a dataset objective (its rewards "
             "are resampled rows)");
    }
    if (root.contains("noise")) build_noise(c, root.at("noise"));
    const RegistryEntry& oe = c.typed_entry(objective, "objective", "objective");
    const std::string base = base_dir.empty() ? "." : base_dir;
    cfg.objective = po_data ? detail::build_po_data_objective(Checker::with_defaults(objective, oe),
                                                              source, base)
                            : build_dataset(c, objective);
    const auto nv = cfg.objective->surrogate_noise_variance();
    if (nv && !root.contains("noise_variance")) cfg.noise_variance = *nv;
    const auto dom = cfg.objective->domain();
    const auto ker = cfg.objective->kernel();
    if (!dom || !ker) throw Error("dataset objective did not prescribe its domain and kernel");
    cfg.domain = *dom;
    cfg.kernel = *ker;
  } else {
    std::string domain_type, kernel_path;
    if (shard.ranks > 1) {
      cfg.whole_domain_reason = whole_domain_reason(root, static_cast<bool>(shard.communicator));
      if (!cfg.whole_domain_reason.empty()) shard = DomainShard{};
    }
    cfg.domain =
        build_domain(c, root.at("domain"), &domain_type, detail::validation_budget(cfg), shard);
    const json kernel = root.contains("kernel") ? root.at("kernel") : json{{"type", "se"}};
    cfg.kernel = detail::is_composite_kernel_json(kernel)
                     ? detail::parse_composite_kernel(c, kernel, nullptr, cfg.domain.dim())
                     : build_kernel(c, kernel, &kernel_path);
    if (cfg.kernel.is_ard() && cfg.kernel.ard_dim() != cfg.domain.dim()) {
      c.fail("kernel.lengthscale", "has " + std::to_string(cfg.kernel.ard_dim()) +
                                       " values (ARD) but the domain has dimension " +
                                       std::to_string(cfg.domain.dim()));
    }
    if (cfg.kernel.type() == KernelType::Precomputed) {
      if (domain_type != "indices") {
        c.fail("domain.type",
               "must be 'indices' with a precomputed kernel, got '" + domain_type + "'");
      }
      const auto k = cfg.kernel.matrix()->rows();
      if (k != cfg.domain.size()) {
        c.fail("domain.n", "must equal the size of the precomputed kernel matrix (" + kernel_path +
                               " is " + std::to_string(k) + "x" + std::to_string(k) + "), got " +
                               std::to_string(cfg.domain.size()));
      }
    }
    c.check_keys(objective, c.typed_entry(objective, "objective", "objective"), "objective", true);
    cfg.noise = root.contains("noise") ? build_noise(c, root.at("noise")) : NoiseModel{};
    if (cfg.kernel.fingerprint() != cfg.domain.is_fingerprint()) {
      c.fail("kernel.type", cfg.domain.is_fingerprint()
                                ? "the candidates are fingerprints: use tanimoto (bits) or minmax "
                                  "(counts)"
                                : kernel_type_name(cfg.kernel.type()) +
                                      std::string(" needs a fingerprints or molecules domain"));
    }
    if (objective.value("type", std::string()) == "lookup") {
      cfg.objective = make_lookup_objective(detail::load_lookup_rewards(
          c, objective, root.at("domain"), "objective", cfg.domain.size()));
    } else {
      if (cfg.domain.is_fingerprint() && objective.value("type", std::string()) != "rkhs" &&
          objective.value("type", std::string()) != "gp_sample") {
        c.fail("objective.type",
               "fingerprint candidates take a lookup, rkhs or gp_sample "
               "objective (the others need coordinates)");
      }
      cfg.objective = build_objective(c, objective, cfg.kernel, cfg.domain);
    }
  }
  if (dataset && shard.ranks > 1) cfg.whole_domain_reason = "the data set prescribes its domain";
  check_domain_fits(c, dataset ? "objective" : "domain",
                    static_cast<double>(cfg.domain.points().cols()), cfg.domain.dim(),
                    detail::validation_budget(cfg));
  InstanceInfo info;
  info.horizon = cfg.horizon;
  info.domain = &cfg.domain;
  const auto rc = cfg.objective->reward_constants();
  info.noise_bound = rc ? rc->noise_bound : noise_instance_constants(cfg.noise).noise_bound;
  cfg.policies = build_policies(c, root.at("policies"), cfg.domain.size(), info);
  for (std::size_t i = 0; i < cfg.policies.size(); ++i) {
    if (cfg.policies[i].type != "po_gp_ucb") continue;
    const std::string path = "policies[" + std::to_string(i) + "].type";
    if (cfg.domain.is_fingerprint()) {
      c.fail(path, "po_gp_ucb projects coordinates; fingerprint candidates have none");
    } else if (!cfg.kernel.stationary()) {
      // The curator's transform preserves distances only, so the modeller's kernel must be a
      // function of ‖x − x'‖: a composite (per-parameter) or precomputed kernel is not.
      c.fail(path,
             "po_gp_ucb needs a stationary kernel (its transform keeps distances, not "
             "coordinates), got " +
                 cfg.kernel.describe());
    }
  }
  return cfg;
}

ExperimentConfig load_experiment_config(const std::string& path, DomainShard shard) {
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  if (!in || fs::is_directory(path, ec)) {
    throw IoError("cannot read config file '" + path + "'");
  }
  std::ostringstream os;
  os << in.rdbuf();
  std::string base = fs::path(path).parent_path().string();
  return parse_experiment_config(os.str(), path, base.empty() ? "." : base, shard);
}

}  // namespace gpb
