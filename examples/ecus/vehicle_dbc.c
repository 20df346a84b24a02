/* The CAN database of a vehicle of N ECUs (rtcosim events --dbc-out).
 * vehicle.dbc describes group 0; ECU i is of kind i % 4 (its node's place in
 * the BU_ list: Engine, Transmission, Brake, Body) and of group g = i / 4,
 * named with g after its kind (engine1), and sends each of its messages at
 * the message's id + g. The database of N ECUs is vehicle.dbc's text with,
 * for every group g > 0 and every message whose sender is among the N,
 * a copy of the message (BO_ id + g, named with g: EngineData1, sent by
 * Engine1, its signals received by the nodes of its group that exist) and
 * of the lines that name it by id (CM_, BA_, VAL_), each beside its
 * original; the BU_ line lists the nodes of the N ECUs. Lines of any other
 * kind are kept once. With N below 4, the messages and nodes of the missing
 * kinds are left out of group 0 too. The messages (id, name, size, sender)
 * come from the DBC reader; the text around them is copied line by line. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/dbc.h"
#include "vehicle.h"

enum { KINDS = 4, NODE_MAX = 64 };

/* The node names of the BU_ line, in order (the kinds). */
typedef struct nodes {
    char name[KINDS][NODE_MAX];
    unsigned count;
} nodes;

static int kind_of(const nodes *nd, const char *name, size_t len)
{
    for (unsigned k = 0; k < nd->count; k++)
        if (strlen(nd->name[k]) == len && strncmp(nd->name[k], name, len) == 0)
            return (int)k;
    return -1;
}

static bool exists(size_t ecus, unsigned g, int kind)
{
    return kind >= 0 && (size_t)g * KINDS + (size_t)kind < ecus;
}

/* The kind of the node that sends message m of group 0, or -1. */
static int sender_kind(const rtcosim_dbc_message *m, const nodes *nd)
{
    return m && m->transmitter ? kind_of(nd, m->transmitter, strlen(m->transmitter)) : -1;
}

/* Node `kind` of group g: its name with g after it (none for group 0). */
static void put_node(FILE *f, const nodes *nd, unsigned g, int kind)
{
    fprintf(f, g ? "%s%u" : "%s", nd->name[kind], g);
}

/* A line that names a message by its id: its id's offset and length in the
 * line, or false. */
static bool message_id_at(const char *line, size_t len, size_t *at, size_t *digits)
{
    static const char *const starts[] = {"CM_ BO_ ", "CM_ SG_ ", "VAL_ "};
    const char *p = NULL;
    for (size_t i = 0; i < sizeof starts / sizeof *starts && !p; i++)
        if (len > strlen(starts[i]) && strncmp(line, starts[i], strlen(starts[i])) == 0)
            p = line + strlen(starts[i]);
    if (!p && len > 4 && strncmp(line, "BA_ \"", 5) == 0) {
        const char *q = memchr(line + 5, '"', len - 5);
        if (q && (size_t)(q - line) + 6 < len &&
            (strncmp(q + 1, " BO_ ", 5) == 0 || strncmp(q + 1, " SG_ ", 5) == 0))
            p = q + 6;
    }
    if (!p)
        return false;
    size_t n = 0;
    while (p + n < line + len && p[n] >= '0' && p[n] <= '9')
        n++;
    if (!n)
        return false;
    *at = (size_t)(p - line);
    *digits = n;
    return true;
}

/* A signal line of group g: its receivers (after the unit's closing quote)
 * the nodes of group g that exist, else Vector__XXX. */
static void put_signal(FILE *f, const nodes *nd, const char *line, size_t len, unsigned g,
                       size_t ecus)
{
    const char *q = NULL;
    for (const char *p = line; p < line + len; p++)
        if (*p == '"')
            q = p;
    if (!q) {
        fprintf(f, "%.*s\n", (int)len, line);
        return;
    }
    fprintf(f, "%.*s ", (int)(q + 1 - line), line);
    bool any = false;
    const char *p = q + 1, *end = line + len;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == ','))
            p++;
        const char *r = p;
        while (p < end && *p != ' ' && *p != ',')
            p++;
        if (p == r)
            break;
        int kind = kind_of(nd, r, (size_t)(p - r));
        if (!exists(ecus, g, kind))
            continue;
        if (any)
            fputc(',', f);
        put_node(f, nd, g, kind);
        any = true;
    }
    fputs(any ? "\n" : "Vector__XXX\n", f);
}

/* The next line of the text from `line`: its length without the newline,
 * and where the line after it starts. */
static size_t line_at(const char *line, const char *end, const char **next)
{
    const char *nl = memchr(line, '\n', (size_t)(end - line));
    size_t len = nl ? (size_t)(nl - line) : (size_t)(end - line);
    *next = line + len + 1;
    return len;
}

static void read_nodes(const char *src, const char *end, nodes *nd)
{
    for (const char *line = src, *next; line < end; line = next) {
        size_t len = line_at(line, end, &next);
        if (len <= 4 || strncmp(line, "BU_:", 4) != 0)
            continue;
        for (const char *p = line + 4, *e = line + len; p < e && nd->count < KINDS;) {
            while (p < e && *p == ' ')
                p++;
            const char *r = p;
            while (p < e && *p != ' ')
                p++;
            if (p > r && (size_t)(p - r) < NODE_MAX) {
                memcpy(nd->name[nd->count], r, (size_t)(p - r));
                nd->name[nd->count++][p - r] = '\0';
            }
        }
        return;
    }
}

/* The whole database into f. */
static void put_database(FILE *f, const char *src, const char *end, const rtcosim_dbc *db,
                         const nodes *nd, size_t ecus)
{
    unsigned groups = (unsigned)((ecus + KINDS - 1) / KINDS);
    for (const char *line = src, *next; line < end; line = next) {
        size_t len = line_at(line, end, &next), at, digits;
        if (len > 4 && strncmp(line, "BU_:", 4) == 0) {
            fputs("BU_:", f);
            for (unsigned g = 0; g < groups; g++)
                for (int k = 0; k < KINDS; k++)
                    if (exists(ecus, g, k)) {
                        fputc(' ', f);
                        put_node(f, nd, g, k);
                    }
            fputc('\n', f);
        } else if (len > 4 && strncmp(line, "BO_ ", 4) == 0) {
            /* the message and its signal lines, once per group that sends it */
            const char *block_end = next;
            while (end - block_end > 5 && strncmp(block_end, " SG_ ", 5) == 0)
                line_at(block_end, end, &block_end);
            if (block_end > end)
                block_end = end;
            const rtcosim_dbc_message *m =
                rtcosim_dbc_find_id(db, (uint32_t)strtoul(line + 4, NULL, 10), false);
            int kind = sender_kind(m, nd);
            if (kind < 0) /* not sent by the vehicle's nodes: kept once, as it is */
                fwrite(line, 1, (size_t)(block_end - line), f);
            for (unsigned g = 0; g < groups && kind >= 0; g++) {
                if (!exists(ecus, g, kind))
                    continue;
                if (g)
                    fprintf(f, "\nBO_ %lu %s%u: %u ", (unsigned long)m->id + g, m->name, g,
                            (unsigned)m->dlc);
                else
                    fprintf(f, "BO_ %lu %s: %u ", (unsigned long)m->id, m->name, (unsigned)m->dlc);
                put_node(f, nd, g, kind);
                fputc('\n', f);
                for (const char *s = next, *sn; s < block_end; s = sn)
                    put_signal(f, nd, s, line_at(s, block_end, &sn), g, ecus);
            }
            next = block_end;
        } else if (message_id_at(line, len, &at, &digits)) {
            unsigned long id = strtoul(line + at, NULL, 10);
            int kind = sender_kind(rtcosim_dbc_find_id(db, (uint32_t)id, false), nd);
            for (unsigned g = 0; g < groups; g++)
                if (exists(ecus, g, kind) || (g == 0 && kind < 0))
                    fprintf(f, "%.*s%lu%.*s\n", (int)at, line, id + g,
                            (int)(len - at - digits), line + at + digits);
        } else {
            fprintf(f, next <= end ? "%.*s\n" : "%.*s", (int)len, line);
        }
    }
}

rtcosim_status rtcosim_ecu_vehicle_dbc(size_t ecus, char **out, rtcosim_error *err)
{
    *out = NULL;
    if (ecus == 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "vehicle.dbc: a vehicle of no ECUs");
    size_t size;
    const char *src = rtcosim_ecu_vehicle_dbc_text(&size);
    nodes nd = {0};
    read_nodes(src, src + size, &nd);
    if (nd.count != KINDS)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "vehicle.dbc: its BU_ line names %u nodes,"
                                 " not the vehicle's %d kinds", nd.count, KINDS);
    rtcosim_dbc *db;
    rtcosim_status st = rtcosim_dbc_parse(src, size, "vehicle.dbc", &db, err);
    if (st != RTCOSIM_OK)
        return st;
    char *text = NULL;
    size_t length;
    FILE *f = open_memstream(&text, &length);
    bool ok = f != NULL;
    if (ok) {
        put_database(f, src, src + size, db, &nd, ecus);
        ok = !ferror(f);
        ok = fclose(f) == 0 && ok;
    }
    rtcosim_dbc_free(db);
    if (!ok) {
        free(text);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "vehicle.dbc: out of memory");
    }
    *out = text;
    return RTCOSIM_OK;
}

rtcosim_status rtcosim_ecu_vehicle_write_dbc(const char *path, size_t ecus, rtcosim_error *err)
{
    char *dbc;
    rtcosim_status st = rtcosim_ecu_vehicle_dbc(ecus, &dbc, err);
    if (st != RTCOSIM_OK)
        return st;
    FILE *f = fopen(path, "w");
    if (!f) {
        int e = errno;
        free(dbc);
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot write: %s", path, strerror(e));
    }
    bool ok = fputs(dbc, f) >= 0;
    ok = fclose(f) == 0 && ok;
    free(dbc);
    if (!ok)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot write: %s", path, strerror(errno));
    return RTCOSIM_OK;
}
