// SIGINT and SIGTERM before a session reads them, and signals inherited as
// ignored.
//
// From main's first line until the main thread's first Tracer blocks them
// (Tracer.h: from then on they are read from its signalfd and stop the
// run with its report), a SIGINT or SIGTERM ends ctrl at once: one line,
// the report files it created removed (no 0-byte --json), exit 2 (nothing
// was checked). Before, the default action killed ctrl by the signal and
// left the files behind.
//
// A SIGINT or SIGTERM that ctrl inherits as ignored (a background job of a
// non-interactive shell, nohup-like wrappers) stays ignored for the whole
// run, as shells expect: it used to be dropped during start-up and honoured
// once a Tracer had blocked it.
#pragma once

namespace ctrl {

// Called first in main.
void install_stop_signals();
// The main thread's Tracer reads SIGINT and SIGTERM from now on.
void stop_signals_taken();
// Whether `sig` was inherited as ignored (Tracer does not stop for it).
bool stop_signal_ignored(int sig);
// A file ctrl created and removes if stopped before writing it; forgotten
// again by forget_on_stop (written, or removed by its owner).
void remove_on_stop(const char* path);
void forget_on_stop(const char* path);

}  // namespace ctrl
