// Text from an input (a log line, a launch command) made safe to write inside a one-line
// comment of a file gpumem writes (a YAML scenario): a comment ends at the line's end, so a
// newline or another control character in the text would end it early and let the rest be
// read as content. Each is shown as '?'.
#ifndef GPUMEM_CORE_COMMENT_TEXT_H_
#define GPUMEM_CORE_COMMENT_TEXT_H_

#include <string>
#include <string_view>

namespace gpumem {

std::string comment_text(std::string_view text);

}  // namespace gpumem

#endif  // GPUMEM_CORE_COMMENT_TEXT_H_
