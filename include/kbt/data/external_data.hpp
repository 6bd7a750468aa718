#pragma once
// Whether a data file may pull values from other files (docs/data-format.md
// "Other files"): HDF5 external links and virtual datasets. Refused unless
// the user allows it, because kbt should read only the file it is given.
// When followed, the data digest still identifies the run's data: it is
// taken of the values read, wherever they live.

namespace kbt {

enum class ExternalData {
  refuse,  // default: an external link or a virtual dataset is a data_format error
  follow   // `external_data: follow` (config) or `kbt data inspect --follow-external`
};

}  // namespace kbt
