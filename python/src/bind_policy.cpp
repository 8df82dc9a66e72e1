// Bindings of the policies: any policy of the registry built by name (gpbandit.make_policy in
// Python validates the parameter names first), then select() / observe() rounds driven from
// Python.
#include <pybind11/stl.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/experiment/experiment.hpp"
#include "gpbandit/policy/policy.hpp"

namespace gpb::python {
namespace {

/// A policy with the Python objects its PolicyEnv points into (Context, Domain) kept alive.
struct PyPolicy {
  py::object ctx_ref, domain_ref;
  PolicyEnv env;
  std::unique_ptr<Policy> policy;
  int last_q = 0;
};

std::unique_ptr<PyPolicy> build(const std::string& type, const std::string& params_json,
                                const py::object& ctx, const py::object& domain,
                                const Kernel& kernel, int runs, int horizon, std::uint64_t seed,
                                double noise_variance, bool random_ties,
                                const std::vector<double>& f_sup, double noise_bound,
                                double noise_moment, double reward_moment,
                                const std::string& label) {
  GPB_EXPECTS(runs >= 1, "runs: must be ≥ 1, got " << runs);
  GPB_EXPECTS(horizon >= 1, "horizon: must be ≥ 1, got " << horizon);
  GPB_EXPECTS(f_sup.empty() || static_cast<int>(f_sup.size()) == runs,
              "f_sup: expected " << runs << " values (one per run), got " << f_sup.size());
  auto p = std::make_unique<PyPolicy>();
  p->ctx_ref = ctx;
  p->domain_ref = domain;
  p->env.ctx = &ctx.cast<const Context&>();
  p->env.domain = &domain.cast<const Domain&>();
  p->env.kernel = kernel;
  for (int r = 0; r < runs; ++r) p->env.run_ids.push_back(static_cast<std::uint32_t>(r));
  p->env.horizon = horizon;
  p->env.seed = seed;
  p->env.noise_variance = noise_variance;
  p->env.random_ties = random_ties;
  p->env.f_sup = f_sup;
  p->env.instance.noise_bound = noise_bound;
  p->env.instance.noise_moment = noise_moment;
  p->env.instance.reward_moment = reward_moment;
  WarningCollector warnings;  // a posterior in recompute mode says so (gpbandit.make_policy)
  p->policy = make_policy(PolicySpec{type, label.empty() ? type : label, params_json}, p->env);
  warnings.emit();
  return p;
}

}  // namespace

void bind_policy(py::module_& m) {
  py::class_<PyPolicy>(m, "Policy", "A bandit algorithm advancing R runs in lockstep")
      .def_property_readonly(
          "name", [](const PyPolicy& p) { return p.policy->name(); }, "The policy's label")
      .def_property_readonly(
          "runs", [](const PyPolicy& p) { return p.env.runs(); }, "R, the runs in lockstep")
      .def_property_readonly(
          "batch_size", [](const PyPolicy& p) { return p.policy->batch_size(); },
          "Candidates chosen per run and round by default (q)")
      .def(
          "select",
          [](PyPolicy& p, int round, int done, int q) {
            GPB_EXPECTS(round >= 1, "round: must be >= 1, got " << round);
            GPB_EXPECTS(done >= 0, "done: must be >= 0, got " << done);
            GPB_EXPECTS(q >= 0, "q: must be >= 0, got " << q);
            Round r;
            r.index = round;
            r.done = done;
            r.q = q > 0 ? q : p.policy->batch_size();
            Selection s = p.policy->select(r);
            p.last_q = s.q;
            py::array_t<int> out({s.runs, s.q});
            std::copy(s.chosen.begin(), s.chosen.end(), out.mutable_data());
            return out;
          },
          py::arg("round"), py::arg("done"), py::arg("q") = 0,
          "Chooses q candidates per run for round `round` (1-based) after `done` evaluations "
          "(q = 0: the policy's batch size); returns an R×q int32 array of candidate indices")
      .def(
          "observe",
          [](PyPolicy& p, const py::handle& chosen, const py::handle& rewards) {
            const auto runs = static_cast<std::size_t>(p.env.runs());
            const auto c = index_arg(chosen, 0, p.env.domain->size(), "chosen");
            if (c.empty() || c.size() % runs != 0) {
              throw InvalidArgument(
                  "chosen: expected an R×q array with R = " + std::to_string(runs) + ", got " +
                  std::to_string(c.size()) + " elements");
            }
            const auto y = real_arg(rewards, c.size(), "rewards (R×q)");
            Selection s;
            s.runs = static_cast<int>(runs);
            s.q = static_cast<int>(c.size() / runs);
            s.chosen = c;
            Rewards rw;
            rw.y.assign(y.data(), y.data() + c.size());
            p.policy->observe(s, rw);
          },
          py::arg("chosen"), py::arg("rewards"),
          "Feeds back the rewards (R×q, laid out like select()'s result). For local-DP policies "
          "the rewards must already be privatised (see ldp_request and CtlMechanism)")
      .def(
          "ldp_request",
          [](const PyPolicy& p, int run) -> py::object {
            GPB_EXPECTS(run >= 0 && run < p.env.runs(),
                        "run: must be in [0, " << p.env.runs() << "), got " << run);
            const auto r = p.policy->ldp_request(run);
            if (!r) return py::none();
            py::dict d;
            d["B"] = r->B;
            d["R"] = r->R;
            d["epsilon"] = r->epsilon;
            d["clip"] = r->clip;
            return std::move(d);
          },
          py::arg("run") = 0,
          "For local-DP policies, the CTL parameters (B, R, epsilon, clip) to apply to run's "
          "rewards before observe(); None otherwise")
      .def("__repr__", [](const PyPolicy& p) {
        return "<gpbandit.Policy " + p.policy->name() + " runs=" + std::to_string(p.env.runs()) +
               " q=" + std::to_string(p.policy->batch_size()) + ">";
      });

  m.def("_make_policy", &build, py::arg("type"), py::arg("params_json"), py::arg("context"),
        py::arg("domain"), py::arg("kernel"), py::arg("runs"), py::arg("horizon"), py::arg("seed"),
        py::arg("noise_variance"), py::arg("random_ties"), py::arg("f_sup"), py::arg("noise_bound"),
        py::arg("noise_moment"), py::arg("reward_moment"), py::arg("label"),
        "Builds a registered policy from its JSON parameters (use gpbandit.make_policy)");
}

}  // namespace gpb::python
