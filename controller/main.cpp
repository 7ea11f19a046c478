// ctrl's entry point: every failure ends in one line and a distinct status.
#include <cstdio>
#include <exception>

#include "cli/Cli.h"
#include "cli/ExitStatus.h"
#include "session/StopSignals.h"

int main(int argc, char** argv) {
  ctrl::install_stop_signals();
  try {
    return ctrl::run_cli(argc, argv);
  } catch (const ctrl::UsageError& e) {
    std::fprintf(stderr, "ctrl: %s\n", e.what());
    return ctrl::kExitBadInput;
  } catch (const ctrl::InternalError& e) {
    std::fprintf(stderr, "ctrl: internal error: %s\n", e.what());
    return ctrl::kExitInternal;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ctrl: internal error: %s\n", e.what());
    return ctrl::kExitInternal;
  }
}
