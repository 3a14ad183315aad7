#include "detection/hungarian.hpp"

#include <cmath>
#include <stdexcept>

namespace gp::detect {

namespace {

// Min-cost matching of every row of an n x m matrix (n <= m); returns the column of each row.
std::vector<int> hungarian_rows(const std::vector<double>& a, int n, int m) {
  const double inf = std::numeric_limits<double>::infinity();
  // 1-based with a virtual column 0, as the classic formulation.
  std::vector<double> u(n + 1, 0.0), v(m + 1, 0.0);
  std::vector<int> row_of_column(m + 1, 0), way(m + 1, 0);
  for (int i = 1; i <= n; ++i) {
    row_of_column[0] = i;
    int j0 = 0;
    std::vector<double> min_to(m + 1, inf);
    std::vector<char> used(m + 1, 0);
    do {
      used[j0] = 1;
      const int i0 = row_of_column[j0];
      double delta = inf;
      int j1 = 0;
      for (int j = 1; j <= m; ++j) {
        if (used[j]) continue;
        const double cur = a[static_cast<std::size_t>(i0 - 1) * m + (j - 1)] - u[i0] - v[j];
        if (cur < min_to[j]) {
          min_to[j] = cur;
          way[j] = j0;
        }
        if (min_to[j] < delta) {
          delta = min_to[j];
          j1 = j;
        }
      }
      for (int j = 0; j <= m; ++j) {
        if (used[j]) {
          u[row_of_column[j]] += delta;
          v[j] -= delta;
        } else {
          min_to[j] -= delta;
        }
      }
      j0 = j1;
    } while (row_of_column[j0] != 0);
    do {
      const int j1 = way[j0];
      row_of_column[j0] = row_of_column[j1];
      j0 = j1;
    } while (j0 != 0);
  }
  std::vector<int> column_of_row(n, -1);
  for (int j = 1; j <= m; ++j)
    if (row_of_column[j] != 0) column_of_row[row_of_column[j] - 1] = j - 1;
  return column_of_row;
}

}  // namespace

Assignment solve_assignment(const std::vector<double>& cost, int rows, int columns, double max_cost) {
  if (rows < 0 || columns < 0 || cost.size() != static_cast<std::size_t>(rows) * columns)
    throw std::invalid_argument("assignment: cost matrix size does not match rows x columns");
  for (double c : cost)
    if (!std::isfinite(c)) throw std::invalid_argument("assignment: costs must be finite");
  Assignment result;
  std::vector<int> column_of_row(rows, -1);
  if (rows > 0 && columns > 0) {
    if (std::isfinite(max_cost)) {
      // Square (rows + columns) matrix: real pairs top-left, "row unmatched" top-right and
      // "column unmatched" bottom-left at max_cost / 2 each, bottom-right free. A gated pair
      // costs more than any complete matching can gain from it.
      const int n = rows + columns;
      double forbidden = std::fabs(max_cost) + 1.0;
      for (double c : cost) forbidden += std::fabs(c);
      std::vector<double> big(static_cast<std::size_t>(n) * n, 0.0);
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
          double& b = big[static_cast<std::size_t>(i) * n + j];
          if (i < rows && j < columns) {
            const double c = cost[static_cast<std::size_t>(i) * columns + j];
            b = c > max_cost ? forbidden : c;
          } else if (i < rows || j < columns) {
            b = max_cost / 2;
          }
        }
      const std::vector<int> col = hungarian_rows(big, n, n);
      for (int i = 0; i < rows; ++i)
        if (col[i] < columns && cost[static_cast<std::size_t>(i) * columns + col[i]] <= max_cost)
          column_of_row[i] = col[i];
    } else if (rows <= columns) {
      column_of_row = hungarian_rows(cost, rows, columns);
    } else {
      std::vector<double> transposed(cost.size());
      for (int i = 0; i < rows; ++i)
        for (int j = 0; j < columns; ++j)
          transposed[static_cast<std::size_t>(j) * rows + i] = cost[static_cast<std::size_t>(i) * columns + j];
      const std::vector<int> row_of_column = hungarian_rows(transposed, columns, rows);
      for (int j = 0; j < columns; ++j) column_of_row[row_of_column[j]] = j;
    }
  }
  std::vector<char> column_used(columns, 0);
  for (int i = 0; i < rows; ++i) {
    if (column_of_row[i] >= 0) {
      result.matches.emplace_back(i, column_of_row[i]);
      column_used[column_of_row[i]] = 1;
    } else {
      result.unmatched_rows.push_back(i);
    }
  }
  for (int j = 0; j < columns; ++j)
    if (!column_used[j]) result.unmatched_columns.push_back(j);
  return result;
}

}  // namespace gp::detect
