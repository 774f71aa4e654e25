// What every report says about the constants a prediction used: fitted to probe traces of
// the GPU ("calibrated: calibration h200-sxm-141gb-torch"), or not, and then what they are —
// the published figures alone, or with PyTorch's own costs taken from another GPU's
// torch-probe calibration (cli/calibration_choice.cc). One wording for the summary, plan,
// sweep and picture, so that no report calls borrowed constants "published figures only".
#ifndef GPUMEM_RUNTIME_CONSTANTS_NOTE_H_
#define GPUMEM_RUNTIME_CONSTANTS_NOTE_H_

#include <string>
#include <string_view>

namespace gpumem {

// What uncalibrated constants are: "published figures only", or their name when something
// was added to the published figures.
std::string uncalibrated_source(std::string_view constants_name);

// "not calibrated: <source>, predictions may be off by hundreds of MiB".
std::string not_calibrated_note(std::string_view constants_name);

}  // namespace gpumem

#endif  // GPUMEM_RUNTIME_CONSTANTS_NOTE_H_
