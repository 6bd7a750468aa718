#pragma once
// The files of a labelling job (docs/results.md "Label files"): the labels
// HDF5 file, and on request a CSV with one row per event and setting.

#include <kbt/core/atomic_output.hpp>
#include <kbt/data/bar_data.hpp>
#include <kbt/label/label_job.hpp>
#include <kbt/output/results.hpp>

#include <string>

namespace kbt {

// Into out.temp_path(); the caller commits. Root attribute complete = 1 last.
void write_labels_hdf5(AtomicOutput& out, const BarData& bars, const LabelJobResult& labels,
                       const std::string& config_yaml, const RunProfile& profile);

// setting,profit_take,stop,horizon,symbol,time,side,volatility,label,barrier,touch_time,touch_bar,ret
// for every event (barrier != none), settings slowest, then symbols, then bars.
void write_labels_csv(AtomicOutput& out, const BarData& bars, const LabelJobResult& labels);

// "<path without .h5>_labels.csv"
std::string labels_csv_path_for(const std::string& h5_path);

// The name of a barrier code in files and tables: none, profit, stop, vertical.
const char* barrier_name(std::int8_t barrier);

}  // namespace kbt
