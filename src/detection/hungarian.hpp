#pragma once
// Optimal assignment (Kuhn-Munkres with shortest augmenting paths and potentials, O(n^2 m)) for
// rectangular cost matrices, with an optional gate: a pair costing more than max_cost is never
// made, and leaving a row and a column unmatched costs max_cost (as lapjv's cost_limit), so a
// gated pair never displaces a cheaper overall matching.
#include <limits>
#include <utility>
#include <vector>

namespace gp::detect {

struct Assignment {
  std::vector<std::pair<int, int>> matches;  // (row, column), rows increasing
  std::vector<int> unmatched_rows, unmatched_columns;
};

// cost: rows x columns, row-major (rows or columns may be 0). Costs must be finite.
Assignment solve_assignment(const std::vector<double>& cost, int rows, int columns,
                            double max_cost = std::numeric_limits<double>::infinity());

}  // namespace gp::detect
