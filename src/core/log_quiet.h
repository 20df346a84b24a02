/* Warnings of the calling thread held back for a while: a file read again
 * after it was read and checked once (a system's table at build, after its
 * load warned) says nothing twice. Errors still reach the handler. Nests.
 * Not part of the public API. */
#ifndef RTCOSIM_CORE_LOG_QUIET_H
#define RTCOSIM_CORE_LOG_QUIET_H

#pragma GCC visibility push(hidden)

void log_quiet_begin(void);
void log_quiet_end(void);

#pragma GCC visibility pop

#endif
