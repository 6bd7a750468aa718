#pragma once
// Everything of the fold kernels (docs/kernels.md).
#include "kbt/kernels/fold_hoister.hpp"
#include "kbt/kernels/fold_inputs.hpp"
#include "kbt/kernels/fold_request.hpp"
#include "kbt/kernels/fold_task.hpp"
#include "kbt/kernels/hoisting_plan.hpp"
#include "kbt/kernels/per_bar_fold.hpp"
#include "kbt/kernels/recursive_fold.hpp"
#include "kbt/kernels/recursive_ops.hpp"
#include "kbt/kernels/rolling_extremum.hpp"
#include "kbt/kernels/window_ops.hpp"
