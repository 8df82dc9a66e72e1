// Bindings of the fingerprint pieces: Domain.from_fingerprints and its accessors, the Tanimoto
// and MinMax kernels, fingerprint_kernel_matrix, TanimotoFeatures, fit_scale_and_noise and the
// molecule caches of a config (what `python3 -m gpbandit.chem featurize` writes).
#include <pybind11/eigen.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "bindings.hpp"
#include "gpbandit/engine/context.hpp"
#include "gpbandit/engine/domain.hpp"
#include "gpbandit/engine/fingerprint.hpp"
#include "gpbandit/engine/fingerprint_features.hpp"
#include "gpbandit/engine/hyperfit.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/ops.hpp"
#include "gpbandit/error.hpp"
#include "gpbandit/experiment/molecules.hpp"

namespace gpb::python {
namespace {

/// Fingerprints from a 2-D array: uint64 = packed words (bits only), bool or integers = dense
/// values (0/1 for bits, counts for counts).
Fingerprints fingerprints_arg(const py::handle& a, int bits, const std::string& kind_name,
                              const char* what) {
  const FingerprintKind kind = parse_fingerprint_kind(kind_name);
  const py::array arr = py::array::ensure(a);
  if (!arr || arr.ndim() != 2) {
    throw InvalidArgument(std::string(what) + ": expected a 2-D array (one row per fingerprint)");
  }
  const long long n = arr.shape(0), cols = arr.shape(1);
  const py::dtype dt = arr.dtype();
  if (dt.kind() == 'u' && dt.itemsize() == 8) {
    if (kind != FingerprintKind::Bits) {
      throw InvalidArgument(std::string(what) +
                            ": uint64 words are packed bit fingerprints; "
                            "give count fingerprints as one integer per "
                            "position");
    }
    const auto w = py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>::ensure(a);
    std::vector<std::uint64_t> words(w.data(), w.data() + w.size());
    return Fingerprints::from_words(std::move(words), n,
                                    bits > 0 ? bits : static_cast<int>(64 * cols), kind);
  }
  if (dt.kind() != 'u' && dt.kind() != 'i' && dt.kind() != 'b') {
    throw py::type_error(std::string(what) +
                         ": expected uint64 words or bool/integer values, "
                         "got dtype " +
                         std::string(py::str(dt)));
  }
  if (bits > 0 && bits != cols) {
    throw InvalidArgument(std::string(what) + ": " + std::to_string(cols) +
                          " columns but bits = " + std::to_string(bits));
  }
  const auto v = py::array_t<std::int64_t, py::array::c_style | py::array::forcecast>::ensure(a);
  return Fingerprints::from_dense(v.data(), n, static_cast<int>(cols), kind);
}

/// The packed words of a fingerprint domain's held candidates (N × W uint64, a copy).
py::array_t<std::uint64_t> domain_words(const Domain& d) {
  if (!d.is_fingerprint()) throw InvalidArgument("domain: the candidates are not fingerprints");
  const long long n = d.points().cols(), w = d.dim();
  py::array_t<std::uint64_t> out({n, w});
  std::memcpy(out.mutable_data(), d.points().data(), sizeof(std::uint64_t) * n * w);
  return out;
}

/// Fingerprint rows as the d×n double matrix the engine ops take (the words bit for bit).
Eigen::MatrixXd as_points(const Fingerprints& fp) {
  Eigen::MatrixXd p(fp.words(), fp.size());
  std::memcpy(p.data(), fp.data().data(), sizeof(std::uint64_t) * fp.data().size());
  return p;
}

py::list molecule_caches_py(const std::string& path) {
  py::list out;
  for (const MoleculeCache& c : molecule_caches(path)) {
    py::dict d;
    d["file"] = c.file;
    d["smiles"] = c.smiles;
    d["fingerprint"] = c.fingerprint;
    d["npy"] = c.npy;
    d["json"] = c.json;
    out.append(d);
  }
  return out;
}

}  // namespace

void bind_fingerprint(py::module_& m) {
  auto domain = py::reinterpret_borrow<py::class_<Domain>>(m.attr("Domain"));
  domain
      .def_static(
          "from_fingerprints",
          [](const py::handle& a, int bits, const std::string& kind) {
            return Domain::fingerprints(fingerprints_arg(a, bits, kind, "fingerprints"));
          },
          py::arg("fingerprints"), py::arg("bits") = 0, py::arg("kind") = "bits",
          "Candidates that are molecular fingerprints, for the tanimoto (kind 'bits') and minmax "
          "(kind 'counts') kernels: uint64 packed words (N × ⌈bits/64⌉, as gpbandit.chem "
          "returns; bits = 0: 64 per word) or dense bool/integer values (N × bits: 0/1, or "
          "counts clipped to 255)")
      .def_static(
          "from_fingerprint_slice",
          [](const py::handle& a, long long begin, long long n_total, int bits,
             const std::string& kind) {
            return Domain::fingerprint_slice(fingerprints_arg(a, bits, kind, "fingerprints"), begin,
                                             n_total);
          },
          py::arg("fingerprints"), py::arg("begin"), py::arg("n_total"), py::arg("bits") = 0,
          py::arg("kind") = "bits",
          "The fingerprints of candidates [begin, begin + len(fingerprints)) of an n_total-"
          "candidate domain, as a slice for a sharded FinitePosterior: give each MPI rank the "
          "candidates [⌊n_total·r/K⌋, ⌊n_total·(r+1)/K⌋) it holds, so no rank keeps the whole "
          "pool (arguments as from_fingerprints)")
      .def_property_readonly(
          "fingerprint_kind",
          [](const Domain& d) {
            return d.is_fingerprint() ? fingerprint_kind_name(d.fingerprint_kind()) : "";
          },
          "'bits' or 'counts' for fingerprints ('' for coordinates)")
      .def_property_readonly("is_fingerprint", &Domain::is_fingerprint,
                             "True when the candidates are packed fingerprints")
      .def_property_readonly("fingerprint_bits", &Domain::fingerprint_bits,
                             "Positions per fingerprint (0 for coordinates)")
      .def("fingerprint_words", &domain_words,
           "The packed words of the candidates, N × W uint64 (a copy)");
  auto kernel = py::reinterpret_borrow<py::class_<Kernel>>(m.attr("Kernel"));
  kernel
      .def_static("tanimoto", &Kernel::tanimoto, py::arg("variance") = 1.0,
                  "Tanimoto kernel v·|a∧b|/|a∨b| on bit fingerprints (Domain.from_fingerprints)")
      .def_static("minmax", &Kernel::minmax, py::arg("variance") = 1.0,
                  "MinMax kernel v·Σmin/Σmax on count fingerprints");
  m.def(
      "fingerprint_kernel_matrix",
      [](const Context& ctx, const Kernel& k, const py::handle& a, const py::handle& b, int bits,
         const std::string& kind) {
        const Fingerprints fa = fingerprints_arg(a, bits, kind, "A");
        const Fingerprints fb = fingerprints_arg(b, fa.bits(), kind, "B");
        GPB_EXPECTS(k.fingerprint(),
                    "kernel: expected the tanimoto or minmax kernel, got " << k.describe());
        return kernel_matrix(ctx, k, as_points(fa), as_points(fb));
      },
      py::arg("context"), py::arg("kernel"), py::arg("A"), py::arg("B"), py::arg("bits") = 0,
      py::arg("kind") = "bits",
      "K(A, B) for fingerprint rows A (n × ...) and B (m × ...), in any form "
      "Domain.from_fingerprints takes; returns n×m (SIMD popcount on the CPU, __popcll on CUDA)");
  py::class_<TanimotoFeatures>(m, "TanimotoFeatures",
                               "MinHash random features of the Tanimoto kernel (bit "
                               "fingerprints) and the MinMax kernel (counts): "
                               "E[φ(x)·φ(y)] = k(x, y), φ(x)·φ(x) = 1")
      .def(py::init<int, int, std::uint64_t>(), py::arg("bits"), py::arg("features"),
           py::arg("seed") = 0,
           "Random features for fingerprints of `bits` positions: `features` MinHash "
           "features drawn from `seed`")
      .def_property_readonly("size", &TanimotoFeatures::size, "Number of features m")
      .def(
          "features",
          [](const TanimotoFeatures& f, const Domain& d) {
            return f.features(d, d.slice_begin(), d.slice_end());
          },
          py::arg("domain"), "Φ over the domain's candidates: N × m, entries ±1/√m")
      .def("apply", &TanimotoFeatures::apply, py::arg("domain"), py::arg("W"),
           py::arg("threads") = 0, "Φ(D)·W (N × b) without holding Φ")
      .def("__repr__", [](const TanimotoFeatures& f) {
        return "<gpbandit.TanimotoFeatures m=" + std::to_string(f.size()) + ">";
      });
  py::class_<ScaleNoiseFit>(m, "ScaleNoiseFit", "Output scale and noise by marginal likelihood")
      .def_readonly("mean", &ScaleNoiseFit::mean, "m, the sample mean of y")
      .def_readonly("signal_variance", &ScaleNoiseFit::signal_variance, "v, the output scale")
      .def_readonly("noise_variance", &ScaleNoiseFit::noise_variance, "λ, the noise variance")
      .def_readonly("log_likelihood", &ScaleNoiseFit::log_likelihood,
                    "log p(y | v, λ) at the maximum found")
      .def("__repr__", [](const ScaleNoiseFit& f) {
        std::ostringstream o;
        o << "<gpbandit.ScaleNoiseFit mean=" << f.mean << " signal_variance=" << f.signal_variance
          << " noise_variance=" << f.noise_variance << " log_likelihood=" << f.log_likelihood
          << ">";
        return o.str();
      });
  m.def("fit_scale_and_noise", &fit_scale_and_noise, py::arg("K"), py::arg("y"),
        py::arg("ratio_lower") = 1e-4, py::arg("ratio_upper") = 1e2,
        "v and λ of y ~ N(mean(y), v·K + λI) by marginal likelihood, K fixed (e.g. Tanimoto)");
  m.def("_molecule_caches", &molecule_caches_py, py::arg("path"),
        "The fingerprint caches a config's molecules domain reads (gpbandit.chem)");
}

}  // namespace gpb::python
