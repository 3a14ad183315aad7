// Hungarian assignment: small cases with known answers and a brute-force check on random 6x6.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "detection/hungarian.hpp"

using namespace gp::detect;

namespace {

double total_cost(const Assignment& a, const std::vector<double>& cost, int columns) {
  double sum = 0;
  for (auto [r, c] : a.matches) sum += cost[static_cast<std::size_t>(r) * columns + c];
  return sum;
}

}  // namespace

TEST_CASE("hungarian: known square and rectangular cases", "[detection]") {
  // Greedy would take (0,0)=1 then (1,1)=10; optimal is (0,1)+(1,0) = 2 + 3.
  const std::vector<double> square = {1, 2, 3, 10};
  auto a = solve_assignment(square, 2, 2);
  REQUIRE(a.matches.size() == 2);
  CHECK(a.matches[0] == std::make_pair(0, 1));
  CHECK(a.matches[1] == std::make_pair(1, 0));

  // 3x3: optimum rows (0->1, 1->0, 2->2) = 1 + 2 + 2 = 5.
  const std::vector<double> three = {4, 1, 3, 2, 0, 5, 3, 2, 2};
  a = solve_assignment(three, 3, 3);
  CHECK(total_cost(a, three, 3) == Approx(5));

  // 2 rows x 3 columns: column 1 stays unmatched.
  const std::vector<double> wide = {5, 9, 1, 2, 8, 7};
  a = solve_assignment(wide, 2, 3);
  REQUIRE(a.matches.size() == 2);
  CHECK(a.matches[0] == std::make_pair(0, 2));
  CHECK(a.matches[1] == std::make_pair(1, 0));
  CHECK(a.unmatched_columns == std::vector<int>{1});
  CHECK(a.unmatched_rows.empty());

  // 3 rows x 1 column: the cheapest row wins.
  const std::vector<double> tall = {0.7, 0.2, 0.9};
  a = solve_assignment(tall, 3, 1);
  REQUIRE(a.matches.size() == 1);
  CHECK(a.matches[0] == std::make_pair(1, 0));
  CHECK(a.unmatched_rows == std::vector<int>{0, 2});

  a = solve_assignment({}, 0, 4);
  CHECK(a.matches.empty());
  CHECK(a.unmatched_columns.size() == 4);
  CHECK_THROWS_AS(solve_assignment({1, 2, 3}, 2, 2), std::invalid_argument);
}

TEST_CASE("hungarian: the gate drops pairs above max_cost", "[detection]") {
  // IoU-distance style: row 0 fits column 0 well; row 1 fits nothing under 0.5.
  const std::vector<double> cost = {0.1, 0.9, 0.8, 0.6};
  auto a = solve_assignment(cost, 2, 2, 0.5);
  REQUIRE(a.matches.size() == 1);
  CHECK(a.matches[0] == std::make_pair(0, 0));
  CHECK(a.unmatched_rows == std::vector<int>{1});
  CHECK(a.unmatched_columns == std::vector<int>{1});
  // Without the gate, the cheapest full matching 0.1 + 0.6 pairs row 1 with column 1.
  CHECK(solve_assignment(cost, 2, 2).matches.size() == 2);
  // A gated pair never forces a worse choice: (0,1)=0.3 and (1,0)=0.3 beat (0,0)=0.2 alone.
  const std::vector<double> swap = {0.2, 0.3, 0.3, 0.9};
  a = solve_assignment(swap, 2, 2, 0.5);
  REQUIRE(a.matches.size() == 2);
  CHECK(a.matches[0] == std::make_pair(0, 1));
  CHECK(a.matches[1] == std::make_pair(1, 0));
}

TEST_CASE("hungarian: matches brute force on random 6x6, with and without a gate", "[detection]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  const int n = 6;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> cost(n * n);
    for (double& c : cost) c = uniform(rng);
    const double gate = 0.25 + 0.5 * uniform(rng);
    // Brute force over permutations; with a gate, a pair above it costs the gate (both ends
    // unmatched), which is what the gated solver minimises.
    std::vector<int> perm(n);
    std::iota(perm.begin(), perm.end(), 0);
    double best = 1e9, best_gated = 1e9;
    do {
      double s = 0, g = 0;
      for (int i = 0; i < n; ++i) {
        const double c = cost[i * n + perm[i]];
        s += c;
        g += std::min(c, gate);
      }
      best = std::min(best, s);
      best_gated = std::min(best_gated, g);
    } while (std::next_permutation(perm.begin(), perm.end()));

    const Assignment plain = solve_assignment(cost, n, n);
    REQUIRE(plain.matches.size() == static_cast<std::size_t>(n));
    CHECK(total_cost(plain, cost, n) == Approx(best).epsilon(1e-9));

    const Assignment gated = solve_assignment(cost, n, n, gate);
    double objective = total_cost(gated, cost, n) + gate * (n - static_cast<double>(gated.matches.size()));
    for (auto [r, c] : gated.matches) CHECK(cost[r * n + c] <= gate);
    CHECK(objective == Approx(best_gated).epsilon(1e-9));
  }
}

TEST_CASE("hungarian: rectangular random cases against brute force", "[detection]") {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  for (int trial = 0; trial < 100; ++trial) {
    const int rows = 4, columns = 6;
    std::vector<double> cost(rows * columns);
    for (double& c : cost) c = uniform(rng);
    std::vector<int> perm(columns);
    std::iota(perm.begin(), perm.end(), 0);
    double best = 1e9;
    do {
      double s = 0;
      for (int i = 0; i < rows; ++i) s += cost[i * columns + perm[i]];
      best = std::min(best, s);
    } while (std::next_permutation(perm.begin(), perm.end()));
    CHECK(total_cost(solve_assignment(cost, rows, columns), cost, columns) == Approx(best).epsilon(1e-9));
    // The transpose (6 rows x 4 columns) has the same optimum.
    std::vector<double> t(cost.size());
    for (int i = 0; i < rows; ++i)
      for (int j = 0; j < columns; ++j) t[j * rows + i] = cost[i * columns + j];
    const Assignment ta = solve_assignment(t, columns, rows);
    CHECK(ta.matches.size() == static_cast<std::size_t>(rows));
    CHECK(total_cost(ta, t, rows) == Approx(best).epsilon(1e-9));
  }
}
