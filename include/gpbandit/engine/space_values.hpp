/// @file space_values.hpp
/// Values of a ParameterSpace's numeric parameters that are not on their lists: the encoding of
/// a measurement off the space (an extra observation, docs/spaces.md "Observations off the
/// space") and the value back from an encoding.
#pragma once

#include <string>

#include "gpbandit/engine/parameter_space.hpp"

namespace gpb {

/// The encoded feature of `value` for numeric (numerical or integer) parameter p of `space`,
/// also of a value not in its list: the affine map of its levels, (value − first) / (last −
/// first), 0 when the parameter has one value. For a listed value it equals that level's
/// encoding bit for bit (the same formula). O(1).
/// @throws InvalidArgument for p out of range, a categorical parameter (a label off its list
/// has no encoding) or a non-finite value.
double encode_value(const ParameterSpace& space, int p, double value);

/// The value of numeric parameter p whose encoded feature is `feature`: the listed value whose
/// encoding is exactly `feature`, else the inverse of encode_value — of the doubles within 16
/// ulps of it that encode to exactly `feature`, the one with the shortest decimal text, so that
/// a value told off the list (0.08, 97) comes back as typed. The first value for a one-value
/// parameter. O(levels of p).
/// @throws InvalidArgument for p out of range or a categorical parameter.
double value_of_feature(const ParameterSpace& space, int p, double feature);

/// The text of parameter p's value in encoding x (encoded_dim() values) at its nearest level
/// `level` (ParameterSpace::decode): the label, the listed value, or a value off the list
/// (number_text of value_of_feature: a continuous parameter refined between its grid values).
std::string value_text(const ParameterSpace& space, int p, const double* x, int level);

/// Whether the point whose encoding is x (encoded_dim() features) satisfies every constraint of
/// `space`: categoricals at their nearest labels (ParameterSpace::decode), numeric parameters at
/// the values their features encode, also off their lists (a continuous parameter refined
/// between its grid values), by the affine map's inverse (value_of_feature's search for the
/// shortest text is not needed for a sum checked within a tolerance). O(Σ levels + constraints).
bool feasible_at(const ParameterSpace& space, const double* x);

/// Moves the continuous parameters (two or more grid values) of the point whose encoding is x
/// onto every mixture constraint that involves one: the sum's residual, total − Σ value, spread
/// over those parameters equally in value, each kept inside its box (a few passes, so a member
/// stopped by its bound leaves the rest to the others); the other parameters are not moved. A
/// mixture that cannot be met so stays broken (feasible_at then says so). O(Σ mixture sizes).
void project_onto_mixtures(const ParameterSpace& space, double* x);

/// Offset of parameter p's features within an encoding (the features of the parameters before
/// it). @throws InvalidArgument for p out of range.
int feature_offset(const ParameterSpace& space, int p);

}  // namespace gpb
