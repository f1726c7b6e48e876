// Owns the `cudamaster` command line entry point. Subcommands live in src/cudamaster/commands/,
// one file each, registered in src/cudamaster/cli.cpp.
#pragma once

namespace cudamaster {

// Parses argv, runs the chosen subcommand, returns the process exit code. Never throws.
int cudamaster_main(int argc, char** argv);

}  // namespace cudamaster
