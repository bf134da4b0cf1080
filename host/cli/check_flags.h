// The flags of the commands that run models to compare them (verify, bisect): where the inputs come from and
// the tolerances, with the same names, defaults and help everywhere.
#pragma once

#include <CLI/CLI.hpp>

namespace kiln::cli {

// `Args` has inputs_dir, seed, dims, rtol and atol members.
template <class Args>
void AddInputAndToleranceFlags(CLI::App* cmd, Args& a) {
  cmd->add_option("--inputs-dir", a.inputs_dir, "Inputs as input_<i>.pb files (default: random inputs)");
  cmd->add_option("--seed", a.seed, "Seed for random inputs (default 0)");
  cmd->add_option("--dim", a.dims, "NAME=VALUE for a symbolic dimension of the random inputs (repeatable)");
  cmd->add_option("--rtol", a.rtol, "Relative tolerance (default 1e-3)");
  cmd->add_option("--atol", a.atol, "Absolute tolerance (default 1e-5)");
}

}  // namespace kiln::cli
