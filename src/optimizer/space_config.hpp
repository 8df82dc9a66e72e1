/// @file space_config.hpp
/// The "parameters" domain of the optimizer config (internal): a ParameterSpace from JSON, its
/// inverse (saved states embed descriptor tables), and points by label (ask / tell CSVs).
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "experiment/config_checker.hpp"
#include "gpbandit/engine/parameter_space.hpp"

namespace gpb::detail {

/// The space of a `"domain": {"type": "parameters", "parameters": [...], "constraints": [...]}`
/// object (keys checked by the caller). Descriptor files are read relative to the config.
/// @throws InvalidArgument "<source>: domain.parameters[i].<key>: <what>" via the Checker.
std::shared_ptr<const ParameterSpace> parse_parameter_space(const Checker& c,
                                                            const nlohmann::json& o);

/// The domain object that parse_parameter_space turns back into `s` (descriptors inline).
nlohmann::json parameter_space_json(const ParameterSpace& s);

/// Levels of the combination whose values / labels are `cells` (one per parameter, as text).
/// @throws InvalidArgument naming `where` and the parameter for an unknown label or value.
std::vector<int> levels_of_text(const ParameterSpace& s, const std::vector<std::string>& cells,
                                const std::string& where);

/// The encoding of the point whose values / labels are `cells` (one per parameter, as text): a
/// numeric value need not be one of its parameter's (encode_value of space_values.hpp: a point off
/// the space, told as an extra observation), a label must be one of its parameter's.
/// @throws InvalidArgument naming `where` and the parameter for an unknown label or a cell that
/// is not a number.
Eigen::VectorXd encode_text(const ParameterSpace& s, const std::vector<std::string>& cells,
                            const std::string& where);

/// CSV text of encoded points (q×d rows) by label: a header of the parameter names (and "y"
/// when `y` is given), then one row per point with each parameter's value or label.
std::string labelled_csv(const ParameterSpace& s, const Eigen::MatrixXd& rows,
                         const std::vector<double>* y = nullptr);

/// Encoded rows (q×d) of a CSV written as labelled_csv writes it (the header names every
/// parameter once, in any order; extra columns such as "y" are ignored).
/// A numeric cell off its parameter's list encodes a point off the space (encode_text).
/// @throws InvalidArgument naming file:line for an unknown label, a cell that is not a number
/// or a missing column;
/// IoError if unreadable.
Eigen::MatrixXd read_labelled_points(const ParameterSpace& s, const std::string& path);

}  // namespace gpb::detail
