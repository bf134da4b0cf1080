// Errors raised inside the host. Every failure a user can cause maps to one documented exit code; the CLI
// (and the embedding API, as a status) turns a kiln::Error into that code and its one-line message.
#pragma once

#include <stdexcept>
#include <string>

namespace kiln {

// The exit codes of `kiln`, documented in README.md. Never renumber: scripts depend on them.
enum class ExitCode : int {
  kOk = 0,
  kUsage = 1,         // bad command line
  kInvalidModel = 2,  // the model or an input file is unreadable or invalid
  kConfig = 3,        // a pipeline file or an option value is wrong
  kPlugin = 4,        // a plugin failed to load, register or run
  kInternal = 5,      // a verification failure or a bug in Kiln
};

class Error : public std::runtime_error {
 public:
  Error(ExitCode code, std::string message) : std::runtime_error(std::move(message)), code_(code) {}
  ExitCode code() const { return code_; }

 private:
  ExitCode code_;
};

// Shorthands: `throw ModelError(path + ": truncated")`.
inline Error UsageError(std::string m) { return Error(ExitCode::kUsage, std::move(m)); }
inline Error ModelError(std::string m) { return Error(ExitCode::kInvalidModel, std::move(m)); }
inline Error ConfigError(std::string m) { return Error(ExitCode::kConfig, std::move(m)); }
inline Error PluginError(std::string m) { return Error(ExitCode::kPlugin, std::move(m)); }
inline Error InternalError(std::string m) { return Error(ExitCode::kInternal, std::move(m)); }

}  // namespace kiln
