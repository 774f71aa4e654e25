// An Explanation (explanation.h) as the user reads it: text or Markdown (each start-up's
// implied scenario, its logged-vs-predicted figures with error and tolerance, the verdict
// and diagnosis) or JSON with the same content for tools.
#ifndef GPUMEM_EXPLAIN_EXPLANATION_RENDER_H_
#define GPUMEM_EXPLAIN_EXPLANATION_RENDER_H_

#include <string>

#include "explain/explanation.h"

namespace gpumem {

std::string render_explanation_text(const Explanation& e, bool markdown);
std::string render_explanation_json(const Explanation& e);

}  // namespace gpumem

#endif  // GPUMEM_EXPLAIN_EXPLANATION_RENDER_H_
