// The "parameters" domain of the optimizer config: JSON <-> ParameterSpace, and points by label.
#include "optimizer/space_config.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "gpbandit/engine/space_values.hpp"
#include "gpbandit/error.hpp"

namespace gpb::detail {
namespace {

using nlohmann::json;

void only(const Checker& c, const json& o, const std::string& path,
          const std::set<std::string>& allowed) {
  if (!o.is_object()) c.fail(path, "expected an object, got " + describe_value(o));
  for (const auto& [key, value] : o.items()) {
    (void)value;
    if (!allowed.count(key))
      c.fail(path + "." + key,
             "unknown key (allowed: " + join({allowed.begin(), allowed.end()}) + ")");
  }
}

const json& need(const Checker& c, const json& o, const std::string& key, const std::string& path,
                 const std::string& type) {
  if (!o.contains(key)) c.fail(path + "." + key, "required");
  c.check_type(o[key], type, path + "." + key);
  return o[key];
}

std::vector<std::string> strings(const Checker& c, const json& v, const std::string& field) {
  if (!v.is_array() || v.empty()) c.fail(field, "expected a non-empty array of strings");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string())
      c.fail(field + "[" + std::to_string(i) + "]",
             "expected a string, got " + describe_value(v[i]));
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\"");
  const auto e = s.find_last_not_of(" \t\r\"");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) out.push_back(trim(cell));
  if (!line.empty() && line.back() == ',') out.emplace_back();
  return out;
}

/// A descriptor CSV: a header line, then `label,x1,...,xk` per label.
std::map<std::string, std::vector<double>> read_descriptor_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw IoError(path + ": cannot open the descriptor table");
  std::map<std::string, std::vector<double>> rows;
  std::string line;
  std::size_t width = 0;
  for (int no = 1; std::getline(in, line); ++no) {
    if (trim(line).empty() || no == 1) continue;  // the header
    const std::vector<std::string> cells = split(line);
    const std::string at = path + ":" + std::to_string(no);
    GPB_EXPECTS(cells.size() >= 2, at << ": expected a label and at least one number");
    GPB_EXPECTS(width == 0 || cells.size() == width,
                at << ": has " << cells.size() << " cells, expected " << width);
    width = cells.size();
    std::vector<double> x;
    for (std::size_t j = 1; j < cells.size(); ++j) {
      char* end = nullptr;
      const double v = std::strtod(cells[j].c_str(), &end);
      GPB_EXPECTS(!cells[j].empty() && *end == '\0' && std::isfinite(v),
                  at << ": cell " << j + 1 << " '" << cells[j] << "' is not a finite number");
      x.push_back(v);
    }
    GPB_EXPECTS(rows.emplace(cells[0], std::move(x)).second,
                at << ": label '" << cells[0] << "' appears twice");
  }
  return rows;
}

Parameter parse_categorical(const Checker& c, const json& p, const std::string& f,
                            const std::string& name) {
  only(c, p, f, {"name", "type", "labels", "encoding"});
  std::vector<std::string> labels = strings(c, need(c, p, "labels", f, "array"), f + ".labels");
  if (!p.contains("encoding") || p["encoding"] == "onehot")
    return c.guarded(f, [&] { return Parameter::categorical(name, labels); });
  const json& e = p["encoding"];
  if (!e.is_object() || !e.contains("descriptors") || e.size() != 1)
    c.fail(f + ".encoding",
           "expected \"onehot\" or {\"descriptors\": \"file.csv\" or {label: "
           "[numbers]}}, got " +
               describe_value(e));
  const json& d = e["descriptors"];
  std::map<std::string, std::vector<double>> table;
  if (d.is_string()) {
    const std::string path = c.data_path(e, "descriptors", f + ".encoding.descriptors");
    table = c.guarded(f + ".encoding.descriptors", [&] { return read_descriptor_csv(path); });
  } else if (d.is_object()) {
    for (const auto& [label, row] : d.items()) {
      c.check_type(row, "number[]", f + ".encoding.descriptors." + label);
      table[label] = row.get<std::vector<double>>();
    }
  } else {
    c.fail(f + ".encoding.descriptors", "expected a CSV path or an object {label: [numbers]}");
  }
  Eigen::MatrixXd m;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const auto it = table.find(labels[i]);
    if (it == table.end())
      c.fail(f + ".encoding.descriptors", "no row for label '" + labels[i] + "'");
    if (i == 0)
      m.resize(static_cast<Eigen::Index>(labels.size()),
               static_cast<Eigen::Index>(it->second.size()));
    if (static_cast<Eigen::Index>(it->second.size()) != m.cols() || m.cols() == 0)
      c.fail(f + ".encoding.descriptors", "label '" + labels[i] + "' has " +
                                              std::to_string(it->second.size()) +
                                              " descriptors, expected " + std::to_string(m.cols()));
    for (Eigen::Index j = 0; j < m.cols(); ++j)
      m(static_cast<Eigen::Index>(i), j) = it->second[static_cast<std::size_t>(j)];
  }
  return c.guarded(f, [&] { return Parameter::categorical(name, labels, m); });
}

Parameter parse_parameter(const Checker& c, const json& p, const std::string& f) {
  if (!p.is_object()) c.fail(f, "expected an object, got " + describe_value(p));
  const std::string name = need(c, p, "name", f, "string").get<std::string>();
  const std::string type = need(c, p, "type", f, "string").get<std::string>();
  if (type == "categorical") return parse_categorical(c, p, f, name);
  if (type == "numerical") {
    only(c, p, f, {"name", "type", "values"});
    const json& v = need(c, p, "values", f, "number[]");
    return c.guarded(
        f, [&] { return Parameter::numerical_discrete(name, v.get<std::vector<double>>()); });
  }
  if (type == "integer") {
    only(c, p, f, {"name", "type", "lower", "upper", "step"});
    const long long lo = need(c, p, "lower", f, "integer").get<long long>();
    const long long hi = need(c, p, "upper", f, "integer").get<long long>();
    const long long st = p.contains("step") ? need(c, p, "step", f, "integer").get<long long>() : 1;
    return c.guarded(f, [&] { return Parameter::integer(name, lo, hi, st); });
  }
  if (type == "continuous") {
    only(c, p, f, {"name", "type", "lower", "upper", "count"});
    const double lo = need(c, p, "lower", f, "number").get<double>();
    const double hi = need(c, p, "upper", f, "number").get<double>();
    const long long n =
        p.contains("count") ? need(c, p, "count", f, "integer").get<long long>() : 5;
    if (n < 1 || n > 1'000'000) c.fail(f + ".count", "must be in [1, 10^6]");
    return c.guarded(f, [&] { return Parameter::continuous(name, lo, hi, static_cast<int>(n)); });
  }
  c.fail(f + ".type",
         "must be one of categorical, numerical, integer, continuous, got '" + type + "'");
}

int param_of(const Checker& c, const std::vector<Parameter>& ps, const json& v,
             const std::string& f) {
  if (!v.is_string()) c.fail(f, "expected a parameter name, got " + describe_value(v));
  for (std::size_t i = 0; i < ps.size(); ++i)
    if (ps[i].name == v.get<std::string>()) return static_cast<int>(i);
  c.fail(f, "no parameter named '" + v.get<std::string>() + "'");
}

std::vector<int> params_of(const Checker& c, const std::vector<Parameter>& ps, const json& o,
                           const std::string& f) {
  const json& v = need(c, o, "params", f, "array");
  std::vector<int> out;
  for (std::size_t i = 0; i < v.size(); ++i)
    out.push_back(param_of(c, ps, v[i], f + ".params[" + std::to_string(i) + "]"));
  return out;
}

/// The level of parameter p whose value or label is `v` (a JSON string or number).
int level_of(const Checker& c, const Parameter& p, const json& v, const std::string& f) {
  for (int l = 0; l < p.size(); ++l) {
    if (!p.numeric() && v.is_string() &&
        v.get<std::string>() == p.labels[static_cast<std::size_t>(l)])
      return l;
    if (p.numeric() && v.is_number() && v.get<double>() == p.values[static_cast<std::size_t>(l)])
      return l;
  }
  c.fail(f, describe_value(v) + " is not a " + (p.numeric() ? "value" : "label") +
                " of parameter '" + p.name + "'");
}

Constraint parse_constraint(const Checker& c, const std::vector<Parameter>& ps, const json& o,
                            const std::string& f) {
  if (!o.is_object()) c.fail(f, "expected an object, got " + describe_value(o));
  const std::string type = need(c, o, "type", f, "string").get<std::string>();
  if (type == "linear") {
    only(c, o, f, {"type", "params", "coefs", "rhs", "tol"});
    std::vector<int> idx = params_of(c, ps, o, f);
    auto coefs = need(c, o, "coefs", f, "number[]").get<std::vector<double>>();
    const double rhs = need(c, o, "rhs", f, "number").get<double>();
    const double tol = o.contains("tol") ? need(c, o, "tol", f, "number").get<double>() : 1e-9;
    return c.guarded(f, [&] { return Constraint::linear(idx, coefs, rhs, tol); });
  }
  if (type == "mixture") {
    only(c, o, f, {"type", "params", "total", "tol"});
    std::vector<int> idx = params_of(c, ps, o, f);
    const double tot = o.contains("total") ? need(c, o, "total", f, "number").get<double>() : 1.0;
    const double tol = o.contains("tol") ? need(c, o, "tol", f, "number").get<double>() : 1e-6;
    return c.guarded(f, [&] { return Constraint::mixture(idx, tot, tol); });
  }
  if (type == "distinct") {
    only(c, o, f, {"type", "params"});
    std::vector<int> idx = params_of(c, ps, o, f);
    return c.guarded(f, [&] { return Constraint::distinct(idx); });
  }
  if (type == "exclude") {
    only(c, o, f, {"type", "when"});
    const json& w = need(c, o, "when", f, "object");
    if (w.empty()) c.fail(f + ".when", "must name at least one parameter");
    std::vector<int> idx;
    std::vector<std::vector<int>> levels;
    for (const auto& [name, set] : w.items()) {
      const std::string g = f + ".when." + name;
      const int p = param_of(c, ps, json(name), g);
      idx.push_back(p);
      const json arr = set.is_array() ? set : json::array({set});
      std::vector<int> lv;
      for (const json& v : arr) lv.push_back(level_of(c, ps[static_cast<std::size_t>(p)], v, g));
      levels.push_back(std::move(lv));
    }
    return c.guarded(f, [&] { return Constraint::exclusion(idx, levels); });
  }
  c.fail(f + ".type", "must be one of linear, mixture, exclude, distinct, got '" + type + "'");
}

}  // namespace

std::shared_ptr<const ParameterSpace> parse_parameter_space(const Checker& c, const json& o) {
  const json& ps = need(c, o, "parameters", "domain", "array");
  if (ps.empty()) c.fail("domain.parameters", "must not be empty");
  std::vector<Parameter> params;
  for (std::size_t i = 0; i < ps.size(); ++i)
    params.push_back(parse_parameter(c, ps[i], "domain.parameters[" + std::to_string(i) + "]"));
  std::vector<Constraint> cons;
  if (o.contains("constraints")) {
    const json& cs = need(c, o, "constraints", "domain", "array");
    for (std::size_t i = 0; i < cs.size(); ++i)
      cons.push_back(
          parse_constraint(c, params, cs[i], "domain.constraints[" + std::to_string(i) + "]"));
  }
  return c.guarded("domain", [&] {
    return std::make_shared<const ParameterSpace>(std::move(params), std::move(cons));
  });
}

json parameter_space_json(const ParameterSpace& s) {
  json params = json::array();
  const auto& ps = s.parameters();
  for (const Parameter& p : ps) {
    json j{{"name", p.name}};
    switch (p.type) {
      case Parameter::Type::Categorical: {
        j["type"] = "categorical";
        j["labels"] = p.labels;
        if (p.descriptors.size() > 0) {
          json table = json::object();
          for (std::size_t i = 0; i < p.labels.size(); ++i) {
            const Eigen::VectorXd row = p.descriptors.row(static_cast<Eigen::Index>(i));
            table[p.labels[i]] = std::vector<double>(row.data(), row.data() + row.size());
          }
          j["encoding"] = {{"descriptors", table}};
        }
        break;
      }
      case Parameter::Type::Continuous:
        j["type"] = "continuous";
        j["lower"] = p.lower;
        j["upper"] = p.upper;
        j["count"] = p.size();
        break;
      case Parameter::Type::Integer:
        j["type"] = "integer";
        j["lower"] = static_cast<long long>(p.values.front());
        j["upper"] = static_cast<long long>(p.values.back());
        j["step"] = p.size() > 1 ? static_cast<long long>(p.values[1] - p.values[0]) : 1;
        break;
      default:
        j["type"] = "numerical";
        j["values"] = p.values;
    }
    params.push_back(std::move(j));
  }
  json cons = json::array();
  for (const Constraint& k : s.constraints()) {
    json names = json::array();
    for (int p : k.params) names.push_back(ps[static_cast<std::size_t>(p)].name);
    switch (k.type) {
      case Constraint::Type::Linear:
        cons.push_back({{"type", "linear"},
                        {"params", names},
                        {"coefs", k.coefs},
                        {"rhs", k.rhs},
                        {"tol", k.tol}});
        break;
      case Constraint::Type::Mixture:
        cons.push_back({{"type", "mixture"}, {"params", names}, {"total", k.rhs}, {"tol", k.tol}});
        break;
      case Constraint::Type::Distinct:
        cons.push_back({{"type", "distinct"}, {"params", names}});
        break;
      default: {
        json when = json::object();
        for (std::size_t i = 0; i < k.params.size(); ++i) {
          const Parameter& p = ps[static_cast<std::size_t>(k.params[i])];
          json set = json::array();
          for (int l : k.levels[i])
            set.push_back(p.numeric() ? json(p.values[static_cast<std::size_t>(l)])
                                      : json(p.labels[static_cast<std::size_t>(l)]));
          when[p.name] = set;
        }
        cons.push_back({{"type", "exclude"}, {"when", when}});
      }
    }
  }
  return {{"type", "parameters"}, {"parameters", params}, {"constraints", cons}};
}

std::vector<int> levels_of_text(const ParameterSpace& s, const std::vector<std::string>& cells,
                                const std::string& where) {
  const auto& ps = s.parameters();
  GPB_EXPECTS(cells.size() == ps.size(), where << ": has " << cells.size()
                                               << " values, expected one per parameter ("
                                               << ps.size() << ")");
  std::vector<int> lv;
  for (std::size_t p = 0; p < ps.size(); ++p) {
    const std::string cell = trim(cells[p]);
    int found = -1;
    for (int l = 0; l < ps[p].size() && found < 0; ++l) {
      if (!ps[p].numeric()) {
        if (cell == ps[p].labels[static_cast<std::size_t>(l)]) found = l;
      } else {
        char* end = nullptr;
        const double v = std::strtod(cell.c_str(), &end);
        if (!cell.empty() && *end == '\0' && v == ps[p].values[static_cast<std::size_t>(l)])
          found = l;
      }
    }
    GPB_EXPECTS(found >= 0, where << ": '" << cell << "' is not a "
                                  << (ps[p].numeric() ? "value" : "label") << " of parameter '"
                                  << ps[p].name << "'");
    lv.push_back(found);
  }
  return lv;
}

Eigen::VectorXd encode_text(const ParameterSpace& s, const std::vector<std::string>& cells,
                            const std::string& where) {
  const auto& ps = s.parameters();
  GPB_EXPECTS(cells.size() == ps.size(), where << ": has " << cells.size()
                                               << " values, expected one per parameter ("
                                               << ps.size() << ")");
  std::vector<int> lv(ps.size(), 0);
  std::vector<std::size_t> off_list;  // numeric parameters whose value is not one of theirs
  std::vector<double> value(ps.size(), 0.0);
  for (std::size_t p = 0; p < ps.size(); ++p) {
    const std::string cell = trim(cells[p]);
    if (!ps[p].numeric()) {
      const auto it = std::find(ps[p].labels.begin(), ps[p].labels.end(), cell);
      GPB_EXPECTS(it != ps[p].labels.end(),
                  where << ": '" << cell << "' is not a label of parameter '" << ps[p].name
                        << "' (a label outside the list has no encoding)");
      lv[p] = static_cast<int>(it - ps[p].labels.begin());
      continue;
    }
    char* end = nullptr;
    const double v = std::strtod(cell.c_str(), &end);
    GPB_EXPECTS(!cell.empty() && *end == '\0' && std::isfinite(v),
                where << ": '" << cell << "' is not a number (parameter '" << ps[p].name << "')");
    const auto it = std::find(ps[p].values.begin(), ps[p].values.end(), v);
    if (it != ps[p].values.end()) {
      lv[p] = static_cast<int>(it - ps[p].values.begin());
    } else {
      off_list.push_back(p);
      value[p] = v;
    }
  }
  Eigen::VectorXd x(s.encoded_dim());
  s.encode_levels(lv.data(), x.data());
  for (const std::size_t p : off_list) {
    const int ip = static_cast<int>(p);
    x[feature_offset(s, ip)] = encode_value(s, ip, value[p]);
  }
  return x;
}

std::string labelled_csv(const ParameterSpace& s, const Eigen::MatrixXd& rows,
                         const std::vector<double>* y) {
  std::ostringstream out;
  const auto& ps = s.parameters();
  for (std::size_t p = 0; p < ps.size(); ++p) out << (p ? "," : "") << ps[p].name;
  out << (y ? ",y\n" : "\n");
  out.precision(17);
  for (Eigen::Index i = 0; i < rows.rows(); ++i) {
    const Eigen::VectorXd x = rows.row(i).transpose();
    const std::vector<int> lv = s.decode(x.data());
    for (std::size_t p = 0; p < ps.size(); ++p) {
      out << (p ? "," : "") << value_text(s, static_cast<int>(p), x.data(), lv[p]);
    }
    if (y) out << "," << (*y)[static_cast<std::size_t>(i)];
    out << "\n";
  }
  return out.str();
}

Eigen::MatrixXd read_labelled_points(const ParameterSpace& s, const std::string& path) {
  std::ifstream in(path);
  if (!in) throw IoError(path + ": cannot open the points file");
  std::string line;
  GPB_EXPECTS(std::getline(in, line), path << ": empty (expected a header of parameter names)");
  const std::vector<std::string> head = split(line);
  const auto& ps = s.parameters();
  std::vector<std::size_t> col(ps.size());
  for (std::size_t p = 0; p < ps.size(); ++p) {
    const auto it = std::find(head.begin(), head.end(), ps[p].name);
    GPB_EXPECTS(it != head.end(), path << ":1: no column named '" << ps[p].name
                                       << "' (the header must name every parameter)");
    col[p] = static_cast<std::size_t>(it - head.begin());
  }
  std::vector<Eigen::VectorXd> pts;
  for (int no = 2; std::getline(in, line); ++no) {
    if (trim(line).empty()) continue;
    const std::vector<std::string> cells = split(line);
    const std::string at = path + ":" + std::to_string(no);
    GPB_EXPECTS(cells.size() == head.size(),
                at << ": has " << cells.size() << " cells, expected " << head.size());
    std::vector<std::string> mine;
    for (std::size_t p = 0; p < ps.size(); ++p) mine.push_back(cells[col[p]]);
    pts.push_back(encode_text(s, mine, at));
  }
  GPB_EXPECTS(!pts.empty(), path << ": no points");
  Eigen::MatrixXd rows(static_cast<Eigen::Index>(pts.size()), s.encoded_dim());
  for (std::size_t i = 0; i < pts.size(); ++i)
    rows.row(static_cast<Eigen::Index>(i)) = pts[i].transpose();
  return rows;
}

}  // namespace gpb::detail
