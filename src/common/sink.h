// Where a library's lines go: libraries never print; the command that calls
// them passes a sink (usually one that writes the line to stderr), and an
// empty sink means silence.
#pragma once

#include <functional>
#include <string>

namespace cgmem {

using LineSink = std::function<void(const std::string& line)>;

}  // namespace cgmem
