#pragma once
// Everything of the fold kernels (docs/kernels.md).
#include <kbt/kernels/fold_hoister.hpp>
#include <kbt/kernels/detail/fold_inputs.hpp>
#include <kbt/kernels/fold_request.hpp>
#include <kbt/kernels/detail/fold_task.hpp>
#include <kbt/kernels/hoisting_plan.hpp>
#include <kbt/kernels/detail/per_bar_fold.hpp>
#include <kbt/kernels/detail/recursive_fold.hpp>
#include <kbt/kernels/detail/recursive_ops.hpp>
#include <kbt/kernels/detail/rolling_extremum.hpp>
#include <kbt/kernels/detail/window_ops.hpp>
