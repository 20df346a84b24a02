/* Writing CAN logs (can_log.h) in candump -l and Vector ASC format, exactly
 * as the standard readers parse them: no fields of our own, so that
 * can-utils, python-can and Vector's viewers read every frame back. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "rtcosim/can_log.h"

rtcosim_can_log_format rtcosim_can_log_format_of(const char *path)
{
    size_t n = path ? strlen(path) : 0;
    if (n >= 4 && path[n - 4] == '.' && tolower((unsigned char)path[n - 3]) == 'a' &&
        tolower((unsigned char)path[n - 2]) == 's' && tolower((unsigned char)path[n - 1]) == 'c')
        return RTCOSIM_CAN_LOG_ASC;
    return RTCOSIM_CAN_LOG_CANDUMP;
}

/* Nanoseconds to whole microseconds, rounded to nearest (times are >= 0 in a log). */
static int64_t to_us(rtcosim_time_ns t)
{
    return t >= 0 ? (t + 500) / 1000 : -((-t + 500) / 1000);
}

static void write_candump(FILE *f, const rtcosim_can_log_entry *e, const char *bus)
{
    int64_t us = to_us(e->end);
    fprintf(f, "(%010" PRId64 ".%06" PRId64 ") %s %0*" PRIX32 "#", us / 1000000, us % 1000000, bus,
            e->frame.extended ? 8 : 3, e->frame.id);
    for (unsigned k = 0; k < e->frame.dlc && k < RTCOSIM_CAN_DATA_MAX; k++)
        fprintf(f, "%02X", e->frame.data[k]);
    fputc('\n', f);
}

/* ASC has a wall-clock date; a simulation starts at the epoch. */
#define ASC_DATE "Thu Jan 1 12:00:00.000 am 1970"

static void write_asc(FILE *f, const rtcosim_can_log_entry *e)
{
    char id[16];
    snprintf(id, sizeof id, "%" PRIX32 "%s", e->frame.id, e->frame.extended ? "x" : "");
    int64_t us = to_us(e->end);
    fprintf(f, "%4" PRId64 ".%06" PRId64 " 1  %-15s Rx   d %u", us / 1000000, us % 1000000, id,
            (unsigned)e->frame.dlc);
    for (unsigned k = 0; k < e->frame.dlc && k < RTCOSIM_CAN_DATA_MAX; k++)
        fprintf(f, " %02X", e->frame.data[k]);
    fputc('\n', f);
}

rtcosim_status rtcosim_can_log_write(const rtcosim_can_log_entry *entries, size_t count,
                                     const char *bus_name, rtcosim_can_log_format format,
                                     const char *path, rtcosim_error *err)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot write the CAN log", path);
    if (format == RTCOSIM_CAN_LOG_ASC)
        fprintf(f, "date " ASC_DATE "\nbase hex  timestamps absolute\ninternal events logged\n"
                   "// version 9.0.0\nBegin Triggerblock " ASC_DATE "\n"
                   "   0.000000 Start of measurement\n");
    for (size_t i = 0; i < count; i++) {
        if (format == RTCOSIM_CAN_LOG_ASC)
            write_asc(f, &entries[i]);
        else
            write_candump(f, &entries[i], bus_name);
    }
    if (format == RTCOSIM_CAN_LOG_ASC)
        fprintf(f, "End TriggerBlock\n");
    if (ferror(f) | (fclose(f) != 0))
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: writing the CAN log failed", path);
    return RTCOSIM_OK;
}
