// CValgrind — the measured region's markers for Valgrind's callgrind, and the CPU features that
// select libc's routines (part of an instruction count's fingerprint).
//
// Outside Valgrind every marker is a few no-op instructions. Built without Valgrind's headers
// (Debian's `valgrind` package), the markers do nothing and bb_markers_built() says so.
#ifndef BLOCKBENCH_CVALGRIND_H
#define BLOCKBENCH_CVALGRIND_H

/// 1 when the markers were built with Valgrind's client requests.
int bb_markers_built(void);
/// 1 when the process runs under Valgrind.
int bb_running_on_valgrind(void);
/// Callgrind: instrument from here on, counting from zero (run with --instr-atstart=no, and end
/// each region with a mark).
void bb_callgrind_begin(void);
/// Callgrind: write the counts since the last mark (or begin) as one part labelled `label`, then
/// count from zero again.
void bb_callgrind_mark(const char *label);
/// Callgrind: stop instrumenting (what follows runs at Valgrind's base speed and is not counted).
void bb_callgrind_end(void);
/// Callgrind: stop counting what runs, or count it again (the caches are still simulated while
/// nothing is counted). Called in pairs, so that a mark is never made while nothing is counted.
void bb_callgrind_toggle(void);
/// The CPU features (as the running process sees them: under Valgrind, its emulated CPU) that
/// libc's string and memory routines are chosen by, as a space-separated list of names, into
/// `buffer` of `size` bytes.
void bb_cpu_features(char *buffer, unsigned long size);
/// The C library's version ("2.36"; "unknown" where it cannot say).
const char *bb_libc_version(void);

#endif
