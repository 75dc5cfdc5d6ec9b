#include "error.hpp"

namespace mha {

void fail(const char* file, int line, const std::string& msg) {
    std::string where = file;
    auto slash = where.find_last_of('/');
    if (slash != std::string::npos) where = where.substr(slash + 1);
    throw Error(msg + " (" + where + ":" + std::to_string(line) + ")");
}

}  // namespace mha
