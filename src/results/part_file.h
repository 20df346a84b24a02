/* Temporary files beside a result being finished (<file>.dz.part while an
 * .mf4 file's records are compressed, <file>.part while a .mat file is
 * rewritten): removed by rtcosim_recorder_flush_all_signal_safe (a second
 * Ctrl-C, a crash) while registered, so that no half-written copy is left
 * beside the result. Not public. */
#ifndef RTCOSIM_RESULTS_PART_FILE_H
#define RTCOSIM_RESULTS_PART_FILE_H

#pragma GCC visibility push(hidden)

/* path (kept, not copied: valid until unregistered) registered before the
 * file is created; the slot to unregister, or -1 when all are taken. */
int result_part_register(const char *path);
void result_part_unregister(int slot);

#pragma GCC visibility pop

#endif
