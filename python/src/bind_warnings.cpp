// The library's warnings (gpbandit/io/log.hpp) as Python warnings: gpbandit.PerformanceWarning
// (a RuntimeWarning: recompute mode, a split lockstep group) and gpbandit.ModelWarning (a
// UserWarning: a suggestion that repeats an observed candidate).
//
// A binding that may warn runs its C++ call inside a WarningCollector: the handler then only
// records the warning (no Python call while the GIL is released, from whatever thread), and the
// collector issues the recorded warnings through warnings.warn once the call has returned and the
// GIL is held again, so that `warnings.simplefilter("error")` raises at the caller like any other
// warning, after the call's work is done. The warning names the user's line: the innermost Python
// frame outside the gpbandit package (the public methods reach the bindings through gpbandit's own
// frames: optimizer.py, minimize.py, the _strict.py wrappers, so no fixed stacklevel fits them
// all). The collector is per thread and per call, and the Optimizer hands each call only the
// warnings that call raised, so one thread's warning never surfaces on another thread's call. A
// warning outside any collector (a C++ thread of the user's, say) takes the GIL and is issued at
// once; if a filter turns it into an error there, the error is printed (sys.unraisablehook) instead
// of crossing C++ frames.
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

/// The gpbandit package's folder with a trailing '/' (GIL held; found once, from the module).
const std::string& package_prefix() {
  static const std::string prefix = [] {
    const py::object os_path = py::module_::import("os.path");
    const py::object file = py::module_::import("gpbandit._gpbandit").attr("__file__");
    return py::str(os_path.attr("dirname")(os_path.attr("abspath")(file))).cast<std::string>() +
           "/";
  }();
  return prefix;
}

/// warnings.warn's stacklevel that names the innermost frame outside the package (GIL held).
int caller_stacklevel() {
  const std::string& prefix = package_prefix();
  const py::object abspath = py::module_::import("os.path").attr("abspath");
  int level = 1;
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed
  Py_XINCREF(frame);
  while (frame != nullptr) {
    const auto code =
        py::reinterpret_steal<py::object>(reinterpret_cast<PyObject*>(PyFrame_GetCode(frame)));
    const std::string file = py::str(abspath(code.attr("co_filename"))).cast<std::string>();
    if (file.compare(0, prefix.size(), prefix) != 0) break;
    ++level;
    PyFrameObject* back = PyFrame_GetBack(frame);  // new reference (or null)
    Py_DECREF(frame);
    frame = back;
  }
  Py_XDECREF(frame);
  return level;
}

void warn_at_caller(WarningKind kind, const std::string& text) {
  int level = 1;
  try {
    level = caller_stacklevel();
  } catch (const py::error_already_set&) {
    PyErr_Clear();  // no frames to walk (e.g. during shutdown): the innermost one
  }
  if (PyErr_WarnEx(category(kind), text.c_str(), level) != 0) throw py::error_already_set();
}

void handle(WarningKind kind, const std::string& text) {
  if (t_collector != nullptr) {
    t_collector->record(kind, text);
    return;
  }
  if (Py_IsInitialized() == 0) return;
  py::gil_scoped_acquire gil;
  try {
    warn_at_caller(kind, text);
  } catch (py::error_already_set& e) {
    e.restore();
    PyErr_WriteUnraisable(nullptr);
  }
}

}  // namespace

WarningCollector::WarningCollector() : previous_(t_collector) {
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
  for (const auto& [kind, text] : recorded) warn_at_caller(kind, text);
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
