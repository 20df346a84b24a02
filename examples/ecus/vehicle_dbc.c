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
 * kinds are left out of group 0 too. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vehicle.h"

enum { KINDS = 4, NODE_MAX = 64 };

typedef struct text {
    char *buf;
    size_t len, cap;
    bool failed;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (t->failed)
        return;
    if (t->cap - t->len < n + 1) {
        size_t cap = (t->cap ? t->cap : 4096) * 2 + n;
        char *b = realloc(t->buf, cap);
        if (!b) {
            t->failed = true;
            return;
        }
        t->buf = b;
        t->cap = cap;
    }
    memcpy(t->buf + t->len, s, n);
    t->len += n;
    t->buf[t->len] = '\0';
}

static void puts_(text *t, const char *s)
{
    put(t, s, strlen(s));
}

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

/* Node `kind` of group g: its name with g after it (none for group 0). */
static void put_node(text *t, const nodes *nd, unsigned g, int kind)
{
    char s[NODE_MAX + 16];
    snprintf(s, sizeof s, g ? "%s%u" : "%s", nd->name[kind], g);
    puts_(t, s);
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

/* The sender kind of each message id of group 0, from the BO_ lines. */
typedef struct senders {
    unsigned long id[256];
    int kind[256];
    size_t count;
} senders;

static int sender_of(const senders *s, unsigned long id)
{
    for (size_t i = 0; i < s->count; i++)
        if (s->id[i] == id)
            return s->kind[i];
    return -1;
}

/* The line with its id (digits at `at`) raised by g. */
static void put_with_id(text *t, const char *line, size_t len, size_t at, size_t digits,
                        unsigned long id, unsigned g)
{
    put(t, line, at);
    char s[32];
    snprintf(s, sizeof s, "%lu", id + g);
    puts_(t, s);
    put(t, line + at + digits, len - at - digits);
    puts_(t, "\n");
}

/* A signal line of group g: its receivers (after the unit's closing quote)
 * the nodes of group g that exist, else Vector__XXX. */
static void put_signal(text *t, const nodes *nd, const char *line, size_t len, unsigned g,
                       size_t ecus)
{
    const char *q = NULL;
    for (const char *p = line; p < line + len; p++)
        if (*p == '"')
            q = p;
    if (!q) {
        put(t, line, len);
        puts_(t, "\n");
        return;
    }
    put(t, line, (size_t)(q + 1 - line));
    puts_(t, " ");
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
            puts_(t, ",");
        put_node(t, nd, g, kind);
        any = true;
    }
    puts_(t, any ? "\n" : "Vector__XXX\n");
}

rtcosim_status rtcosim_ecu_vehicle_dbc(size_t ecus, char **out, rtcosim_error *err)
{
    *out = NULL;
    if (ecus == 0)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "vehicle.dbc: a vehicle of no ECUs");
    size_t size;
    const char *src = rtcosim_ecu_vehicle_dbc_text(&size);
    unsigned groups = (unsigned)((ecus + KINDS - 1) / KINDS);
    nodes nd = {0};
    senders snd = {0};
    /* first pass: the nodes and each message's sender */
    for (const char *line = src, *next; line < src + size; line = next) {
        const char *nl = memchr(line, '\n', (size_t)(src + size - line));
        size_t len = nl ? (size_t)(nl - line) : (size_t)(src + size - line);
        next = line + len + 1;
        if (len > 4 && strncmp(line, "BU_:", 4) == 0) {
            for (const char *p = line + 4, *end = line + len; p < end && nd.count < KINDS;) {
                while (p < end && *p == ' ')
                    p++;
                const char *r = p;
                while (p < end && *p != ' ')
                    p++;
                if (p > r && (size_t)(p - r) < NODE_MAX) {
                    memcpy(nd.name[nd.count], r, (size_t)(p - r));
                    nd.name[nd.count++][p - r] = '\0';
                }
            }
        } else if (len > 4 && strncmp(line, "BO_ ", 4) == 0 && snd.count < 256) {
            char name[NODE_MAX] = "";
            unsigned long id;
            const char *colon = memchr(line, ':', len);
            if (colon && sscanf(line + 4, "%lu", &id) == 1) {
                const char *p = colon + 1, *end = line + len;
                while (p < end && *p == ' ')
                    p++;
                while (p < end && *p >= '0' && *p <= '9')
                    p++;
                while (p < end && *p == ' ')
                    p++;
                size_t n = (size_t)(end - p);
                if (n < sizeof name) {
                    memcpy(name, p, n);
                    name[n] = '\0';
                }
                snd.id[snd.count] = id;
                snd.kind[snd.count++] = kind_of(&nd, name, strlen(name));
            }
        }
    }
    if (nd.count != KINDS)
        return rtcosim_error_set(err, RTCOSIM_EINVAL, "vehicle.dbc: its BU_ line names %u nodes,"
                                 " not the vehicle's %d kinds", nd.count, KINDS);
    text t = {0};
    for (const char *line = src, *next; line < src + size; line = next) {
        const char *nl = memchr(line, '\n', (size_t)(src + size - line));
        size_t len = nl ? (size_t)(nl - line) : (size_t)(src + size - line);
        next = line + len + 1;
        size_t at, digits;
        if (len > 4 && strncmp(line, "BU_:", 4) == 0) {
            puts_(&t, "BU_:");
            for (unsigned g = 0; g < groups; g++)
                for (int k = 0; k < KINDS; k++)
                    if (exists(ecus, g, k)) {
                        puts_(&t, " ");
                        put_node(&t, &nd, g, k);
                    }
            puts_(&t, "\n");
        } else if (len > 4 && strncmp(line, "BO_ ", 4) == 0) {
            /* the message and its signal lines, once per group that sends it */
            const char *block_end = next;
            while (block_end < src + size && strncmp(block_end, " SG_ ", 5) == 0) {
                const char *e = memchr(block_end, '\n', (size_t)(src + size - block_end));
                block_end = e ? e + 1 : src + size;
            }
            unsigned long id = strtoul(line + 4, NULL, 10);
            int kind = sender_of(&snd, id);
            const char *colon = memchr(line, ':', len);
            if (kind < 0 || !colon) /* not sent by the vehicle's nodes: kept once, as it is */
                put(&t, line, (size_t)(block_end - line));
            for (unsigned g = 0; g < groups && kind >= 0 && colon; g++) {
                if (!exists(ecus, g, kind))
                    continue;
                if (g)
                    puts_(&t, "\n");
                char head[64];
                snprintf(head, sizeof head, "BO_ %lu ", id + g);
                puts_(&t, head);
                const char *name = line + 4;
                while (*name >= '0' && *name <= '9')
                    name++;
                while (*name == ' ')
                    name++;
                put(&t, name, (size_t)(colon - name));
                if (g) {
                    snprintf(head, sizeof head, "%u", g);
                    puts_(&t, head);
                }
                /* the size, then the sender of group g */
                const char *after_size = colon + 1, *end = line + len;
                while (after_size < end && *after_size == ' ')
                    after_size++;
                while (after_size < end && *after_size >= '0' && *after_size <= '9')
                    after_size++;
                put(&t, colon, (size_t)(after_size - colon));
                puts_(&t, " ");
                put_node(&t, &nd, g, kind);
                puts_(&t, "\n");
                for (const char *s = next, *sn; s < block_end; s = sn) {
                    const char *e = memchr(s, '\n', (size_t)(block_end - s));
                    size_t sl = e ? (size_t)(e - s) : (size_t)(block_end - s);
                    sn = s + sl + 1;
                    if (g)
                        put_signal(&t, &nd, s, sl, g, ecus);
                    else if (ecus >= KINDS) {
                        put(&t, s, sl);
                        puts_(&t, "\n");
                    } else {
                        put_signal(&t, &nd, s, sl, 0, ecus);
                    }
                }
            }
            next = block_end;
        } else if (message_id_at(line, len, &at, &digits)) {
            unsigned long id = strtoul(line + at, NULL, 10);
            int kind = sender_of(&snd, id);
            for (unsigned g = 0; g < groups; g++)
                if (exists(ecus, g, kind) || (g == 0 && kind < 0))
                    put_with_id(&t, line, len, at, digits, id, g);
        } else {
            put(&t, line, len);
            if (nl)
                puts_(&t, "\n");
        }
    }
    if (t.failed) {
        free(t.buf);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "vehicle.dbc: out of memory");
    }
    *out = t.buf;
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
