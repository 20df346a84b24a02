/* What describe.c shares with the FMI 1.0 writer (describe_fmi1.c): the open
 * output, XML attribute writers, and the build-failing error exit. */
#ifndef RTCOSIM_MODEL_DESCRIBE_H
#define RTCOSIM_MODEL_DESCRIBE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

extern FILE *out;
void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void put_escaped(const char *s);
void attr(const char *name, const char *value);     /* nothing when value is NULL */
void attr_double(const char *name, double value);   /* shortest round-trip text */
/* The variable's min/max attributes from the model's range table, if listed. */
void attr_range(uint32_t value_reference);

/* Writes an FMI 1.0 description: model exchange, or co-simulation
 * stand-alone (FMI for Co-Simulation 1.0 section 2, Implementation). */
void describe_fmi1(const char *model_identifier, bool model_exchange);

#endif
