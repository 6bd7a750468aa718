// The pointwise semantics header is callable inside Kokkos kernels and gives the
// same bits there as on the host, for every pointwise opcode and awkward operands.
#include <Kokkos_Core.hpp>
#include <kbt/lang/op_table.hpp>
#include <kbt/lang/scalar_ops.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <string>

#include "support/execution_spaces.hpp"
#include "test_lang_support.hpp"

using namespace kbt;
using kbt::test::NaN;

namespace {

const OpCode pointwise_ops[] = {
    OpCode::neg, OpCode::add, OpCode::sub, OpCode::mul, OpCode::div, OpCode::lt, OpCode::le,
    OpCode::gt, OpCode::ge, OpCode::eq, OpCode::ne, OpCode::logical_and, OpCode::logical_or,
    OpCode::logical_not, OpCode::abs, OpCode::sqrt, OpCode::log, OpCode::exp, OpCode::sign,
    OpCode::min, OpCode::max, OpCode::clip, OpCode::where, OpCode::isnan, OpCode::fillna};
const double operands[] = {0.0, -0.0, 1.0, -2.5, 0.3, 1e300, NaN};
constexpr int n_ops = sizeof(pointwise_ops) / sizeof(pointwise_ops[0]);
constexpr int n_vals = sizeof(operands) / sizeof(operands[0]);
constexpr int n_cases = n_ops * n_vals * n_vals * n_vals;

template <class Space>
struct ApplyAll {
  Kokkos::View<const int*, Space> ops;
  Kokkos::View<const double*, Space> vals;
  Kokkos::View<double*, Space> out;
  KOKKOS_INLINE_FUNCTION void operator()(int i) const {
    const int c = i % n_vals, b = (i / n_vals) % n_vals, a = (i / (n_vals * n_vals)) % n_vals;
    const int op = i / (n_vals * n_vals * n_vals);
    out(i) = ops::apply_pointwise(static_cast<OpCode>(ops(op)), vals(a), vals(b), vals(c));
  }
};

// Every pointwise opcode of every case on `Space`, copied back to the host.
template <class Space>
Kokkos::View<double*, Kokkos::HostSpace> apply_all_on() {
  using Mem = typename Space::memory_space;
  Kokkos::View<int*, Mem> ops("ops", n_ops);
  Kokkos::View<double*, Mem> vals("vals", n_vals), out("out", n_cases);
  auto h_ops = Kokkos::create_mirror_view(ops);
  auto h_vals = Kokkos::create_mirror_view(vals);
  for (int k = 0; k < n_ops; ++k) h_ops(k) = static_cast<int>(pointwise_ops[k]);
  for (int k = 0; k < n_vals; ++k) h_vals(k) = operands[k];
  Kokkos::deep_copy(ops, h_ops);
  Kokkos::deep_copy(vals, h_vals);
  Kokkos::parallel_for("apply_all", Kokkos::RangePolicy<Space>(0, n_cases), ApplyAll<Mem>{ops, vals, out});
  Kokkos::fence();
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
}

template <class Space>
class LangScalarOpsOnSpace : public ::testing::Test {};
TYPED_TEST_SUITE(LangScalarOpsOnSpace, kbt::test::ExecutionSpaces, kbt::test::SpaceNames);

}  // namespace

TYPED_TEST(LangScalarOpsOnSpace, KernelAndHostAgreeBitForBit) {
  const auto h_out = apply_all_on<TypeParam>();
  for (int i = 0; i < n_cases; ++i) {
    const int c = i % n_vals, b = (i / n_vals) % n_vals, a = (i / (n_vals * n_vals)) % n_vals;
    const OpCode op = pointwise_ops[i / (n_vals * n_vals * n_vals)];
    const double host = ops::apply_pointwise(op, operands[a], operands[b], operands[c]);
    EXPECT_EQ(std::memcmp(&host, &h_out(i), sizeof(double)), 0) << to_string(op) << " case " << i;
  }
}

TEST(LangScalarOps, TheCasesCoverEveryPointwiseOpOfTheOpTable) {
  int pointwise = 0;
  for (int code = 0; to_string(static_cast<OpCode>(code)) != std::string("?"); ++code) {  // every opcode
    const OpCode op = static_cast<OpCode>(code);
    if (op_info(op).family != OpFamily::pointwise) continue;
    ++pointwise;
    EXPECT_NE(std::find(std::begin(pointwise_ops), std::end(pointwise_ops), op), std::end(pointwise_ops))
        << to_string(op) << " is pointwise but not among the cases";
  }
  EXPECT_EQ(pointwise, n_ops);
}

TEST(LangScalarOps, EdgeValues) {
  EXPECT_TRUE(std::isnan(ops::div(1.0, 0.0)));
  EXPECT_TRUE(std::isnan(ops::div(0.0, -0.0)));
  EXPECT_TRUE(std::isnan(ops::log(0.0)));
  EXPECT_TRUE(std::isnan(ops::log(-1.0)));
  EXPECT_EQ(ops::apply_pointwise(OpCode::sign, -0.0, 0.0, 0.0), 0.0);
  EXPECT_EQ(ops::apply_pointwise(OpCode::where, 1.0, 7.0, 8.0), 7.0);
  EXPECT_EQ(ops::apply_pointwise(OpCode::where, 0.0, 7.0, 8.0), 8.0);
  EXPECT_TRUE(std::isnan(ops::apply_pointwise(OpCode::where, NaN, 7.0, 8.0)));
  EXPECT_EQ(ops::apply_pointwise(OpCode::where, -0.0, 7.0, 8.0), 8.0);
  // Comparisons, min and max are unknown when either operand is.
  for (const OpCode op : {OpCode::lt, OpCode::le, OpCode::gt, OpCode::ge, OpCode::eq, OpCode::min, OpCode::max}) {
    EXPECT_TRUE(std::isnan(ops::apply_pointwise(op, NaN, 1.0, 0.0))) << to_string(op);
    EXPECT_TRUE(std::isnan(ops::apply_pointwise(op, 1.0, NaN, 0.0))) << to_string(op);
  }
  EXPECT_EQ(ops::apply_pointwise(OpCode::gt, 2.0, 1.0, 0.0), 1.0);
  EXPECT_EQ(ops::apply_pointwise(OpCode::gt, 1.0, 1.0, 0.0), 0.0);
  EXPECT_EQ(ops::apply_pointwise(OpCode::le, 1.0, 1.0, 0.0), 1.0);
  EXPECT_FALSE(std::signbit(ops::apply_pointwise(OpCode::min, -0.0, 0.0, 0.0)));  // a tie returns b (+0)
  EXPECT_EQ(ops::apply_pointwise(OpCode::fillna, NaN, 3.0, 0.0), 3.0);
  EXPECT_EQ(kbt::op_info(OpCode::clip).operands, 3);
  EXPECT_EQ(kbt::op_info(OpCode::clip).family, kbt::OpFamily::pointwise);
  EXPECT_EQ(kbt::op_info(OpCode::rolling_mean).family, kbt::OpFamily::windowed);
  // float works too (fp32 mode): equality uses FLT_EPSILON.
  EXPECT_EQ(ops::apply_pointwise(OpCode::eq, 1.0f, 1.0f + 1e-8f, 0.0f), 1.0f);
}
