// Named loggers over spdlog: one per pass and per host component, all writing to stderr at the level the CLI
// sets (--log-level). Plugins log through the ABI and land here too.
#pragma once

#include <memory>
#include <string>

#include <spdlog/logger.h>

namespace kiln {

// The logger of that name, created on first use with the current level.
std::shared_ptr<spdlog::logger> Logger(const std::string& name);
// Sets the level of every logger, existing and future: "trace", "debug", "info", "warn", "error", "off".
// Returns false for an unknown level name.
bool SetLogLevel(const std::string& level);

}  // namespace kiln
