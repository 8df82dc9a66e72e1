/// @file kernel_config.hpp
/// Composite kernels in a config (internal): `"kernel": {"combine": "product" | "sum", "parts":
/// [...]}` and its inverse for saved states. One parser for the optimizer config (parts by
/// parameter names or feature ranges) and the experiment config (feature ranges).
#pragma once

#include <nlohmann/json.hpp>

#include "experiment/config_checker.hpp"
#include "gpbandit/engine/kernel.hpp"
#include "gpbandit/engine/parameter_space.hpp"

namespace gpb::detail {

/// True when the kernel object asks for a composite kernel (it has "combine" or "parts").
bool is_composite_kernel_json(const nlohmann::json& o);

/// The product or sum a composite kernel object describes on a domain of dimension `dim`: parts
/// name "parameters" (only when `space`, the domain's parameter space, is not null; unnamed
/// parameters get a part of kernel.type each) or "features" [begin, end) (any domain; they must
/// then cover every feature).
/// @throws InvalidArgument "<source>: kernel.<field>: <what>" via the Checker.
Kernel parse_composite_kernel(const Checker& c, const nlohmann::json& o,
                              const ParameterSpace* space, long long dim);

/// The object parse_composite_kernel turns back into `k` (parts by "features").
nlohmann::json composite_kernel_json(const Kernel& k);

}  // namespace gpb::detail
