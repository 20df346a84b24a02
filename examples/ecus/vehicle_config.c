/* Reader of vehicle system files (a small INI dialect, see vehicle.h), so
 * that a configuration can be kept in a file instead of command-line options.
 * Parses from a sized buffer (no NUL needed), fuzzed by fuzz/fuzz_vehicle_ini.c. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vehicle.h"

#define LINE_MAX_CHARS 512

static int parse_u64(const char *text, uint64_t max, uint64_t *out)
{
    if (!*text || *text == '-' || *text == '+')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || *end || v > max)
        return -1;
    *out = v;
    return 0;
}

static rtcosim_status set_key(const char *section, const char *key, const char *value,
                              const char *origin, unsigned line, rtcosim_ecu_vehicle_config *c,
                              rtcosim_run_options *run, rtcosim_error *err)
{
    uint64_t n;
    rtcosim_time_ns t;
#define BAD(what) rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%u: %s: %s, got '%s'", origin, line, \
                                    key, what, value)
    if (strcmp(section, "vehicle") == 0) {
        if (strcmp(key, "ecus") == 0) {
            if (parse_u64(value, 64, &n) || n == 0)
                return BAD("a number of ECUs in 1..64");
            c->ecus = (unsigned)n;
        } else if (strcmp(key, "bitrate") == 0) {
            if (parse_u64(value, 1000000, &n) || n == 0)
                return BAD("a bit rate in 1..1000000 bit/s");
            c->bitrate = (uint32_t)n;
        } else if (strcmp(key, "stuffing") == 0) {
            if (strcmp(value, "actual") == 0)
                c->stuffing = RTCOSIM_CAN_STUFFING_ACTUAL;
            else if (strcmp(value, "worst-case") == 0)
                c->stuffing = RTCOSIM_CAN_STUFFING_WORST_CASE;
            else
                return BAD("actual or worst-case");
        } else if (strcmp(key, "plants") == 0) {
            if (strcmp(value, "active") == 0)
                c->plant_mode = RTCOSIM_PLANT_ACTIVE;
            else if (strcmp(value, "passive") == 0)
                c->plant_mode = RTCOSIM_PLANT_PASSIVE;
            else
                return BAD("active or passive");
        } else if (strcmp(key, "plant_step") == 0) {
            if (rtcosim_time_parse_seconds(value, &t, NULL) != RTCOSIM_OK || t <= 0)
                return BAD("a positive number of seconds");
            c->plant_step = t;
        } else if (strcmp(key, "clock_hz") == 0) {
            if (parse_u64(value, UINT64_C(100000000000), &n) || n == 0)
                return BAD("a clock in 1..1e11 Hz");
            c->clock_hz = n;
        } else if (strcmp(key, "firmware") == 0) {
            /* ECU=PATH, PATH relative to the folder of the file */
            const char *eq = strchr(value, '='), *slash = strrchr(origin, '/');
            int dir = value[0] && eq && eq[1] && eq[1] != '/' && slash ? (int)(slash - origin) + 1 : 0;
            if (!eq || eq == value || !eq[1] || (size_t)(eq - value) >= sizeof c->firmware_ecu ||
                (size_t)dir + strlen(eq + 1) >= sizeof c->firmware_path)
                return BAD("ECU=PATH.elf with a short name and path");
            snprintf(c->firmware_ecu, sizeof c->firmware_ecu, "%.*s", (int)(eq - value), value);
            snprintf(c->firmware_path, sizeof c->firmware_path, "%.*s%s", dir, origin, eq + 1);
        } else if (strcmp(key, "sil") == 0) {
            /* ECU=PATH, PATH relative to the folder of the file */
            const char *eq = strchr(value, '='), *slash = strrchr(origin, '/');
            int dir = eq && eq[1] && eq[1] != '/' && slash ? (int)(slash - origin) + 1 : 0;
            char spec[1200];
            if (!eq || (size_t)dir + strlen(value) >= sizeof spec)
                return BAD("ECU=PATH.so with a short name and path");
            snprintf(spec, sizeof spec, "%.*s=%.*s%s", (int)(eq - value), value, dir, origin,
                     eq + 1);
            char where[1100];
            snprintf(where, sizeof where, "%s:%u: sil", origin, line);
            return rtcosim_ecu_vehicle_add_sil(c, spec, where, err);
        } else {
            return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%u: unknown key '%s' in [vehicle]",
                                     origin, line, key);
        }
    } else if (strcmp(section, "run") == 0) {
        if (strcmp(key, "scheduler") == 0) {
            if (rtcosim_scheduler_parse(value, &run->scheduler) != 0)
                return BAD("sequential, conservative, global, lockstep or speculative");
        } else if (strcmp(key, "threads") == 0) {
            if (parse_u64(value, 256, &n) || n == 0)
                return BAD("a number of threads in 1..256");
            run->threads = (unsigned)n;
        } else if (strcmp(key, "stop_time") == 0) {
            if (rtcosim_time_parse_seconds(value, &t, NULL) != RTCOSIM_OK || t <= 0)
                return BAD("a positive number of seconds");
            run->stop_time = t;
        } else if (strcmp(key, "seed") == 0) {
            if (parse_u64(value, UINT64_MAX, &n))
                return BAD("an unsigned integer");
            run->seed = n;
        } else {
            return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%u: unknown key '%s' in [run]",
                                     origin, line, key);
        }
    } else {
        return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%u: key '%s' outside a [vehicle] or"
                                 " [run] section", origin, line, key);
    }
#undef BAD
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_ecu_vehicle_add_sil(rtcosim_ecu_vehicle_config *c, const char *value,
                                           const char *origin, rtcosim_error *err)
{
    const char *eq = strchr(value, '=');
    if (!eq || eq == value || !eq[1] || (size_t)(eq - value) >= sizeof c->sil[0].ecu ||
        strlen(eq + 1) >= sizeof c->sil[0].path)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: expected ECU=PATH.so with a short"
                                 " name and path, got '%s'", origin, value);
    if (c->sil_count == RTCOSIM_VEHICLE_SIL_MAX)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: at most %d ECUs on shared objects", origin, RTCOSIM_VEHICLE_SIL_MAX);
    for (unsigned k = 0; k < c->sil_count; k++)
        if (strlen(c->sil[k].ecu) == (size_t)(eq - value) &&
            strncmp(c->sil[k].ecu, value, (size_t)(eq - value)) == 0)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: ECU '%s' named twice", origin,
                                     c->sil[k].ecu);
    snprintf(c->sil[c->sil_count].ecu, sizeof c->sil[0].ecu, "%.*s", (int)(eq - value), value);
    snprintf(c->sil[c->sil_count].path, sizeof c->sil[0].path, "%s", eq + 1);
    c->sil_count++;
    return RTCOSIM_OK;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

rtcosim_status rtcosim_ecu_vehicle_parse(const char *text, size_t size, const char *origin,
                                     rtcosim_ecu_vehicle_config *c, rtcosim_run_options *run,
                                     rtcosim_error *err)
{
    char section[32] = "";
    unsigned line = 0;
    size_t pos = 0;
    while (pos < size) {
        line++;
        size_t end = pos;
        while (end < size && text[end] != '\n')
            end++;
        if (end - pos >= LINE_MAX_CHARS)
            return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%u: line longer than %d characters",
                                     origin, line, LINE_MAX_CHARS - 1);
        if (memchr(text + pos, '\0', end - pos))
            return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%u: NUL byte in the line", origin,
                                     line);
        char buf[LINE_MAX_CHARS];
        memcpy(buf, text + pos, end - pos);
        buf[end - pos] = '\0';
        pos = end + 1;
        char *comment = strpbrk(buf, "#;");
        if (comment)
            *comment = '\0';
        char *s = trim(buf);
        if (!*s)
            continue;
        if (*s == '[') {
            char *close = strchr(s, ']');
            if (!close || *trim(close + 1))
                return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%u: malformed section header",
                                         origin, line);
            *close = '\0';
            char *name = trim(s + 1);
            if (strcmp(name, "vehicle") != 0 && strcmp(name, "run") != 0)
                return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%u: unknown section [%s]"
                                         " (vehicle, run)", origin, line, name);
            snprintf(section, sizeof section, "%s", name);
            continue;
        }
        char *eq = strchr(s, '=');
        if (!eq)
            return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%u: expected key = value", origin,
                                     line);
        *eq = '\0';
        char *key = trim(s), *value = trim(eq + 1);
        if (!*key || !*value)
            return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s:%u: expected key = value", origin,
                                     line);
        rtcosim_status st = set_key(section, key, value, origin, line, c, run, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_ecu_vehicle_load(const char *path, rtcosim_ecu_vehicle_config *c,
                                    rtcosim_run_options *run, rtcosim_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot open: %s", path, strerror(errno));
    char *text = NULL;
    size_t size = 0, capacity = 0;
    rtcosim_status st = RTCOSIM_OK;
    for (;;) {
        if (size == capacity) {
            if (capacity >= ((size_t)1 << 20)) {
                st = rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: larger than 1 MiB", path);
                break;
            }
            capacity = capacity ? 2 * capacity : 4096;
            char *t = realloc(text, capacity);
            if (!t) {
                st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
                break;
            }
            text = t;
        }
        size_t n = fread(text + size, 1, capacity - size, f);
        size += n;
        if (n == 0)
            break;
    }
    if (st == RTCOSIM_OK && ferror(f))
        st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: read error", path);
    fclose(f);
    if (st == RTCOSIM_OK)
        st = rtcosim_ecu_vehicle_parse(text, size, path, c, run, err);
    free(text);
    return st;
}
