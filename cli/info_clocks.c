/* The FMI 3.0 clock part of `rtcosim info`: each <Clock> with its type,
 * interval, shift, priority and flags (FMI 3.0 section 2.4.7.3), the variables
 * each clock owns (`clocks`), and Binary variables' maxSize and mimeType, so
 * that a user sees which partitions an SE FMU has and when they tick. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "rtcosim/fmu_clocks.h"

static void append(char *text, size_t size, const char *fmt, const char *a, double x)
{
    size_t used = strlen(text);
    if (used < size)
        snprintf(text + used, size - used, fmt, a, x);
}

static void print_clock(const rtcosim_component *c, const rtcosim_fmu_clock *k)
{
    const rtcosim_variable *v = rtcosim_component_variable(c, k->variable);
    char text[256] = "";
    if (k->has_interval) {
        append(text, sizeof text, "%sinterval %g s", "", k->interval);
        if (k->shift > 0)
            append(text, sizeof text, "%s, shift %g s", "", k->shift);
    }
    if (k->resolution) {
        size_t used = strlen(text);
        snprintf(text + used, sizeof text - used,
                 "%sintervalCounter %" PRIu64 ", shiftCounter %" PRIu64 ", resolution %" PRIu64,
                 text[0] ? ", " : "", k->interval_counter, k->shift_counter, k->resolution);
    }
    if (k->has_priority) {
        size_t used = strlen(text);
        snprintf(text + used, sizeof text - used, "%spriority %" PRIu32, text[0] ? ", " : "",
                 k->priority);
    }
    if (k->can_be_deactivated)
        append(text, sizeof text, "%scan be deactivated", text[0] ? ", " : "", 0);
    if (k->supports_fraction)
        append(text, sizeof text, "%ssupports fractions", text[0] ? ", " : "", 0);
    printf("  %-20s %-6s %-9s %s\n", v->name, rtcosim_causality_name(v->causality),
           rtcosim_fmi_clock_kind_name(k->kind), text);
}

void cli_info_print_clocks(const rtcosim_component *c)
{
    const rtcosim_fmu_clocks *k = rtcosim_fmu_clocks_of(c);
    if (!k)
        return;
    if (k->clock_count) {
        printf("\nclocks (%zu):\n", k->clock_count);
        for (size_t i = 0; i < k->clock_count; i++)
            print_clock(c, &k->clocks[i]);
    }
    size_t n = rtcosim_component_variable_count(c);
    if (k->clocked_start && k->clocked_start[n]) {
        printf("\nclocked variables:\n");
        for (size_t i = 0; i < n; i++) {
            if (k->clocked_start[i] == k->clocked_start[i + 1])
                continue;
            printf("  %-20s", rtcosim_component_variable(c, i)->name);
            for (size_t j = k->clocked_start[i]; j < k->clocked_start[i + 1]; j++)
                printf(" %s", rtcosim_component_variable(c, k->clocks[k->clocked[j]].variable)->name);
            printf("\n");
        }
    }
    bool heading = false;
    for (size_t i = 0; k->binary_max_size && i < n; i++) {
        const rtcosim_variable *v = rtcosim_component_variable(c, i);
        if (v->type != RTCOSIM_TYPE_BINARY)
            continue;
        if (!heading)
            printf("\nBinary variables:\n");
        heading = true;
        char max[32] = "no maxSize";
        if (k->binary_max_size[i] != SIZE_MAX)
            snprintf(max, sizeof max, "maxSize %zu", k->binary_max_size[i]);
        printf("  %-20s %s, mimeType %s\n", v->name, max,
               k->mime_types[i] ? k->mime_types[i] : "application/octet-stream");
    }
}
