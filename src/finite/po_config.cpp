// Config pieces of the PO-GP-UCB experiments: the po_data objective and the po_gp_ucb policy's
// parameters (specs/po-gp-ucb.md §2, §3, §6, §7).
#include "finite/po_config.hpp"

#include <climits>
#include <cmath>
#include <filesystem>

#include "experiment/registry_internal.hpp"
#include "gpbandit/engine/projection.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/objective/po_data.hpp"
#include "gpbandit/privacy/po_curator.hpp"

namespace gpb::detail {

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

[[noreturn]] void fail(const std::string& source, const std::string& field,
                       const std::string& what) {
  throw InvalidArgument(source + ": " + field + ": " + what);
}

/// Integer field in [lo, hi] (type already checked).
long long int_in(const json& o, const std::string& key, long long lo, long long hi,
                 const std::string& source, const std::string& field) {
  const long long v = o.at(key).get<long long>();
  if (v < lo || v > hi) {
    fail(source, field,
         "must lie in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
             std::to_string(v));
  }
  return v;
}

}  // namespace

std::vector<RegistryEntry> po_registry_entries() {
  return {{"objective",
           "po_data",
           "a PO-GP-UCB data set (specs/po-gp-ucb.md s7) after the s2 pipeline (log output, "
           "standardise, ML fit, isotropic, centre, max norm 25); prescribes its domain, SE "
           "kernel and noise variance; loan_like/property_like are seeded look-alikes, not "
           "the paper's data",
           {{"source", "string", kRequired,
             "branin | loan_like | property_like | property_hedonic | csv"},
            {"path", "path", "(csv only)", "CSV with header x1,...,xd,y (y raw, before the log)"},
            {"n", "integer", "36000 | 2004", "rows of loan_like | property_like(_hedonic)"},
            {"data_seed", "integer", "0", "seed of the look-alike generator and the ML fit"},
            {"log_output", "boolean", "true", "y <- ln y (step 1)"},
            {"minimise", "boolean", "source's",
             "y <- -y after the log (branin, property_*: true; loan_like, csv: false)"},
            {"fit", "string", "source's", "ard | iso (property_*: iso; others: ard)"},
            {"mle_rows", "integer", "2000", "rows used by the ML fit (>= 2; spec D7)"},
            {"mle_starts", "integer", "5", "random L-BFGS starts besides the default (>= 0)"},
            {"preprocess_order", "string", "\"centre_then_scale\"",
             "centre_then_scale | scale_then_centre (spec D3)"},
            {"max_norm", "number", "25", "largest row norm after scaling (> 0)"}}}};
}

std::shared_ptr<const Objective> build_po_data_objective(const json& obj, const std::string& source,
                                                         const std::string& base_dir) {
  const std::string src = obj.at("source").get<std::string>();
  const bool property = src == "property_like" || src == "property_hedonic";
  if (src != "branin" && src != "loan_like" && !property && src != "csv") {
    fail(source, "objective.source",
         "must be branin, loan_like, property_like, property_hedonic or csv, got '" + src + "'");
  }
  if (src != "csv" && obj.contains("path")) {
    fail(source, "objective.path", "only allowed with source csv");
  }
  if (src != "loan_like" && !property && obj.contains("n")) {
    fail(source, "objective.n", "only allowed with source loan_like or property_*");
  }
  PoPreprocessOptions o;
  o.log_output = obj.value("log_output", true);
  o.minimise = obj.value("minimise", src == "branin" || property);
  const std::string fit = obj.value("fit", property ? "iso" : "ard");
  if (fit != "ard" && fit != "iso")
    fail(source, "objective.fit", "must be ard or iso, got '" + fit + "'");
  o.fit.ard = fit == "ard";
  const std::string order = obj.value("preprocess_order", "centre_then_scale");
  if (order != "centre_then_scale" && order != "scale_then_centre") {
    fail(source, "objective.preprocess_order",
         "must be centre_then_scale or scale_then_centre, got '" + order + "'");
  }
  o.centre_first = order == "centre_then_scale";
  o.max_norm = obj.value("max_norm", 25.0);
  if (!(o.max_norm > 0) || !std::isfinite(o.max_norm)) {
    fail(source, "objective.max_norm", "must be finite and > 0, got " + obj.at("max_norm").dump());
  }
  const auto seed =
      static_cast<std::uint64_t>(obj.contains("data_seed") ? int_in(obj, "data_seed", 0, LLONG_MAX,
                                                                    source, "objective.data_seed")
                                                           : 0);
  o.fit.seed = seed;
  if (obj.contains("mle_rows")) {
    o.fit.max_rows =
        static_cast<int>(int_in(obj, "mle_rows", 2, INT_MAX, source, "objective.mle_rows"));
  }
  if (obj.contains("mle_starts")) {
    o.fit.random_starts =
        static_cast<int>(int_in(obj, "mle_starts", 0, 1000, source, "objective.mle_starts"));
  }
  const auto wrap = [&](const std::string& field, auto&& f) -> decltype(f()) {
    try {
      return f();
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(source + ": " + field + ": " + e.what());
    } catch (const IoError& e) {
      throw IoError(source + ": " + field + ": " + e.what());
    }
  };
  XyTable table;
  if (src == "branin") {
    table = branin_grid_table();
  } else if (src == "loan_like") {
    const int n = obj.contains("n")
                      ? static_cast<int>(int_in(obj, "n", 2, 200000, source, "objective.n"))
                      : 36000;
    table = loan_like_table(n, seed);
  } else if (property) {
    const int n = obj.contains("n")
                      ? static_cast<int>(int_in(obj, "n", 2, 20000, source, "objective.n"))
                      : 2004;
    table = src == "property_like" ? property_like_table(n, seed) : property_hedonic_table(n, seed);
  } else {
    if (!obj.contains("path")) fail(source, "objective.path", "required with source csv");
    fs::path p = obj.at("path").get<std::string>();
    if (p.empty()) fail(source, "objective.path", "must not be empty");
    if (p.is_relative()) p = fs::path(base_dir) / p;
    std::error_code ec;
    if (!fs::exists(p, ec)) fail(source, "objective.path", "data file not found: " + p.string());
    table = wrap("objective.path",
                 [&] { return read_xy_csv(p.lexically_normal().string(), o.log_output); });
  }
  PoPreprocessed pre = wrap("objective", [&] { return po_preprocess(table, o); });
  const std::string label = src == "csv" ? fs::path(table.label).stem().string() : src;
  return make_po_table_objective(std::move(pre), label);
}

void check_po_gp_ucb_params(const json& p, const std::string& path, const std::string& source,
                            const Domain& domain) {
  const int n = domain.size();
  const bool curator = p.value("curator", true);
  if (curator && !p.contains("epsilon")) {
    fail(source, path + ".epsilon", "required (the paper's epsilon that sets omega; > 0)");
  }
  if (!curator) {
    for (const char* k : {"epsilon", "delta", "r", "omega_form", "calibrate_to"}) {
      if (p.contains(k)) {
        fail(source, path + "." + k, "not used by the non-private baseline (curator: false)");
      }
    }
  }
  if (p.contains("epsilon")) {
    const double e = p.at("epsilon").get<double>();
    if (!(e > 0) || !std::isfinite(e)) {
      fail(source, path + ".epsilon", "must be finite and > 0, got " + p.at("epsilon").dump());
    }
  }
  if (p.contains("delta")) {
    const double d = p.at("delta").get<double>();
    if (!(d > 0 && d < 1)) {
      fail(source, path + ".delta", "must lie in (0, 1), got " + p.at("delta").dump());
    }
  }
  if (p.contains("r")) int_in(p, "r", 0, n, source, path + ".r");
  if (p.contains("n_init")) int_in(p, "n_init", 0, n, source, path + ".n_init");
  if (p.contains("omega_form")) {
    const std::string f = p.at("omega_form").get<std::string>();
    if (f != "sqrt_r_log" && f != "literal") {
      fail(source, path + ".omega_form", "must be sqrt_r_log or literal, got '" + f + "'");
    }
  }
  if (p.contains("calibrate_to")) {
    const double c = p.at("calibrate_to").get<double>();
    if (!(c >= 0) || !std::isfinite(c)) {
      fail(source, path + ".calibrate_to",
           "must be finite and >= 0 (0 = off), got " + p.at("calibrate_to").dump());
    }
  }
  if (curator) {
    const Eigen::MatrixXd X = domain.points().transpose();
    const Context ctx({Backend::Cpu});
    const Eigen::VectorXd s = singular_spectrum(ctx, privacy::centre_rows(X)).values;
    if (X.rows() <= X.cols() || !(s(s.size() - 1) > 1e-7 * s(0))) {
      fail(source, "domain",
           "rank-deficient after centring (n = " + std::to_string(X.rows()) + ", d = " +
               std::to_string(X.cols()) + ", sigma_min = " + std::to_string(s(s.size() - 1)) +
               "); po_gp_ucb's ELSE branch would depend on an arbitrary null-space basis "
               "(spec D13): drop the duplicated or constant column");
    }
  }
}

PoGpUcbOptions parse_po_gp_ucb(const json& p, const std::string& label) {
  PoGpUcbOptions o;
  o.use_curator = p.value("curator", true);
  o.curator.epsilon = p.value("epsilon", 1.0);
  o.curator.delta = p.value("delta", o.curator.delta);
  o.curator.r = p.value("r", 0);
  const std::string form = p.value("omega_form", std::string("sqrt_r_log"));
  if (form != "sqrt_r_log" && form != "literal") {
    throw InvalidArgument("policy " + label + ".omega_form: expected sqrt_r_log | literal, got '" +
                          form + "'");
  }
  o.curator.omega_form =
      form == "literal" ? privacy::OmegaForm::Literal : privacy::OmegaForm::SqrtRLog;
  o.n_init = p.value("n_init", 1);
  o.exclude_queried = p.value("exclude_queried", false);
  o.calibrate_to = p.value("calibrate_to", 0.0);
  return o;
}

}  // namespace gpb::detail
