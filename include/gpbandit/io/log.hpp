/// @file log.hpp
/// Warnings of the library: the one hook through which the engine, the pipeline and the optimizer
/// say that something works but not as well as it could (a posterior that recomputes instead of
/// keeping V, a lockstep group split by the memory budget, a suggestion that repeats an observed
/// candidate). The default handler writes one line "gpbandit: warning: ..." to stderr; a program
/// can route them elsewhere (the Python module turns them into `warnings.warn`).
///
/// Thread safety: every function here may be called from any thread; a handler may be called
/// from several threads at once and must be thread-safe itself.
#pragma once

#include <functional>
#include <string>

namespace gpb {

/// What a warning is about.
enum class WarningKind {
  Performance,  ///< correct results, more time or memory than needed (recompute mode, splits)
  Model,        ///< the model or the acquisition behaves in a way the user may not expect
};

/// "performance" or "model".
const char* warning_kind_name(WarningKind kind);

/// Receives every warning: its kind and one line of text (no trailing newline). It may throw;
/// the exception then propagates out of the call that warned, after that call's work is done
/// or before it started (warnings are emitted at points where the object is consistent).
using WarningHandler = std::function<void(WarningKind, const std::string&)>;

/// Installs `handler` for every later warning of the process (an empty function restores the
/// default, stderr) and returns the previous one (empty for the default).
WarningHandler set_warning_handler(WarningHandler handler);

/// Emits a warning through the installed handler.
void warn(WarningKind kind, const std::string& message);

/// Warnings emitted so far by this process (all kinds), e.g. for tests.
long long warning_count();

}  // namespace gpb
