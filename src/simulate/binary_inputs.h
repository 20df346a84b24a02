/* Binary inputs from hex cells of an input table (binary_inputs.c). */
#ifndef RTCOSIM_SIMULATE_BINARY_INPUTS_H
#define RTCOSIM_SIMULATE_BINARY_INPUTS_H

#include <stdint.h>

#include "rtcosim/component.h"
#include "rtcosim/csv.h"

/* Decodes the text columns columns[0..count) (variables names[k]) of every
 * row into cells[row * count + k], the bytes in one block *bytes; both
 * allocated (the caller frees them, also on failure). */
rtcosim_status simulate_binary_decode(const rtcosim_csv *table, const size_t *columns,
                                      const char *const *names, size_t count,
                                      rtcosim_binary **cells, uint8_t **bytes, rtcosim_error *err);

#endif
