// The library's warnings (gpbandit/io/log.hpp) as Python warnings: gpbandit.PerformanceWarning
// (a RuntimeWarning: recompute mode, a split lockstep group) and gpbandit.ModelWarning (a
// UserWarning: a suggestion that repeats an observed candidate).
//
// A binding that may warn runs its C++ call inside a WarningCollector: the handler then only
// records the warning (no Python call while the GIL is released, from whatever thread), and the
// collector issues the recorded warnings through warnings.warn once the call has returned and the
// GIL is held again, so that `warnings.simplefilter("error")` raises at the caller like any other
// warning, after the call's work is done. A warning outside any collector (a C++ thread of the
// user's, say) takes the GIL and is issued at once; if a filter turns it into an error there, the
// error is printed (sys.unraisablehook) instead of crossing C++ frames.
#include <string>
#include <utility>
#include <vector>

#include "bindings.hpp"
#include "gpbandit/io/log.hpp"

namespace gpb::python {
namespace {

PyObject* g_performance = nullptr;  // the two categories live as long as the interpreter
PyObject* g_model = nullptr;

thread_local WarningCollector* t_collector = nullptr;

PyObject* category(WarningKind kind) {
  return kind == WarningKind::Performance ? g_performance : g_model;
}

void handle(WarningKind kind, const std::string& text) {
  if (t_collector != nullptr) {
    t_collector->record(kind, text);
    return;
  }
  if (Py_IsInitialized() == 0) return;
  py::gil_scoped_acquire gil;
  if (PyErr_WarnEx(category(kind), text.c_str(), 1) != 0) PyErr_WriteUnraisable(nullptr);
}

}  // namespace

WarningCollector::WarningCollector(int stacklevel)
    : stacklevel_(stacklevel), previous_(t_collector) {
  t_collector = this;
}

WarningCollector::~WarningCollector() {
  if (active_) t_collector = previous_;
}

void WarningCollector::record(WarningKind kind, const std::string& text) {
  recorded_.emplace_back(kind, text);
}

void WarningCollector::emit() {
  if (active_) t_collector = previous_;  // warnings.warn may run Python code calling gpbandit
  active_ = false;
  auto recorded = std::move(recorded_);
  recorded_.clear();
  for (const auto& [kind, text] : recorded) {
    if (PyErr_WarnEx(category(kind), text.c_str(), stacklevel_) != 0) {
      throw py::error_already_set();
    }
  }
}

void bind_warnings(py::module_& m) {
  const py::object type = py::module_::import("builtins").attr("type");
  const py::object builtins = py::module_::import("builtins");
  py::dict ns;
  ns["__module__"] = "gpbandit";
  ns["__doc__"] =
      "The engine works correctly but slower than it could: a posterior in recompute mode (its V "
      "does not fit the memory budget), a lockstep group split by the budget";
  g_performance = type("PerformanceWarning", py::make_tuple(builtins.attr("RuntimeWarning")), ns)
                      .release()
                      .ptr();
  ns["__doc__"] =
      "The model or the acquisition behaves in a way you may not expect: a suggestion that "
      "repeats an observed candidate";
  g_model = type("ModelWarning", py::make_tuple(builtins.attr("UserWarning")), ns).release().ptr();
  py::setattr(m, "PerformanceWarning", g_performance);
  py::setattr(m, "ModelWarning", g_model);
  set_warning_handler(handle);
}

}  // namespace gpb::python
