// What `kiln info` prints: IR version, opsets, node counts with and without subgraphs, the op-type histogram,
// inputs and outputs with shapes, initializer count and bytes. Also the before/after counts of a compile report.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace kiln {

class Model;

nlohmann::json ModelSummary(const Model& model);
std::string ModelSummaryText(const nlohmann::json& summary);

}  // namespace kiln
