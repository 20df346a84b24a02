/* Binary and Clock connections in a system (FMI 3.0 sections 2.2.8 and
 * 4.2.2; the LS-BUS 1.0 compositions of section 3.2 connect Tx_Data/Tx_Clock
 * to Rx_Data/Rx_Clock this way). They pass values only in the event
 * iteration (events.c), never on steps nor for recording: an output clock
 * resets when read, so each is read once per round, and a clocked variable
 * is read or written only in a round its clock ticks. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "master/master_internal.h"
#include "rtcosim/fmu_clocks.h"
#include "rtcosim/isolate.h"
#include "rtcosim/log.h"

/* One output clock read once per round. */
typedef struct clock_read {
    size_t comp, var;
    uint32_t vr;
    bool ticked;
    /* An input countdown clock driving other input clocks (LS-BUS bus
     * simulations): not read but ticked by the master when the interval the
     * FMU announced runs out (due); what it clocks is read right after, in
     * the same exchange. */
    bool countdown;
    long clock_index;
    rtcosim_time_ns due;
    /* the exchange that ticked it (countdown): until its FMU updates after
     * that, the interval it would announce is the one that just ran out
     * (section 2.3.5: intervals are known after fmi3UpdateDiscreteStates) */
    uint64_t ticked_stamp;
    uint64_t stamp; /* the exchange that read it: ticked holds for that one only */
    /* The links it drives (CSR into master_links.deps): the Clock links
     * from it and the Binary links it clocks at either end. */
    size_t deps_lo, deps_hi;
} clock_read;

typedef struct master_link {
    char *name; /* "a.y -> b.u" */
    size_t from, from_var, to, to_var;
    uint32_t from_vr, to_vr;
    rtcosim_type type;
    /* Binary: the clocks (reads) of a clocked output, and what the consumer
     * got last (unclocked inputs are set only on a change). */
    size_t *src_reads, src_read_count;
    unsigned char *last;
    size_t last_size, last_cap;
    bool delivered;
    /* Binary into a clocked input: the clock links that tick its clocks
     * (found at init, so that a round costs O(links)). */
    bool dst_clocked;
    size_t *dst_clock_links, dst_clock_link_count;
    size_t read; /* Clock: its output's read */
    uint64_t stamp; /* the exchange that last looked at it */
} master_link;

struct master_links {
    master_link *links;
    size_t count, cap;
    clock_read *reads;
    size_t read_count;
    /* Built at init, so that an exchange touches only what the components
     * that updated drive: per component (CSR) its output clock reads and its
     * unclocked Binary links; the links each read drives; the countdown
     * reads (ticked by the master, looked at every round). */
    size_t *comp_reads_start, *comp_reads;
    size_t *comp_bin_start, *comp_bin;
    size_t *deps, dep_count;
    size_t *countdowns, countdown_count;
    size_t *candidates; /* scratch: the Binary links of one exchange */
    uint64_t *updated_stamp; /* per component: the stamp of the round that updated it last */
    uint64_t stamp;
};

static const rtcosim_variable *var_of(const rtcosim_master *m, size_t comp, size_t var)
{
    return master_var_of(m, comp, var);
}

const rtcosim_fmu_clocks *master_clocks_of(const rtcosim_component *c)
{
    const rtcosim_fmu_clocks *k = rtcosim_fmu_clocks_of(c);
    return k ? k : rtcosim_isolate_clocks_of(c);
}

/* A countdown clock's interval, in process or through an isolated FMU's host. */
static rtcosim_status get_interval(rtcosim_component *c, size_t clock, double *interval,
                                   rtcosim_interval_qualifier *q, rtcosim_error *err)
{
    return rtcosim_isolate_clocks_of(c) ? rtcosim_isolate_get_interval(c, clock, interval, q, err)
                                        : rtcosim_fmu_get_interval(c, clock, interval, q, err);
}

/* The clock kind of a component's clock variable; components that are not
 * FMI 3.0 FMUs (the integrated bus simulation) have triggered clocks. */
static rtcosim_fmi_clock_kind clock_kind(const rtcosim_master *m, size_t comp, size_t var)
{
    const rtcosim_fmu_clocks *k = master_clocks_of(m->comps[comp].c);
    long i = k ? rtcosim_fmu_clock_index(k, var) : -1;
    return i < 0 ? RTCOSIM_FMI_CLOCK_TRIGGERED : k->clocks[i].kind;
}

rtcosim_status master_links_connect(rtcosim_master *m, const char *what, size_t fc, size_t fv,
                                    size_t tc, size_t tv, rtcosim_error *err)
{
    const rtcosim_variable *a = var_of(m, fc, fv), *b = var_of(m, tc, tv);
    if (a->causality == RTCOSIM_CAUSALITY_INPUT) {
        /* LS-BUS 1.0 (section 3.2) allows clock connections both ways between
         * a bus simulation and its nodes; the guides' bus simulations tick
         * their Tx by input countdown clocks connected to the nodes' Rx
         * clocks: both tick when the countdown runs out. */
        rtcosim_fmi_clock_kind ka = clock_kind(m, fc, fv);
        if (ka != RTCOSIM_FMI_CLOCK_COUNTDOWN)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "%s: input clock '%s.%s' (%s) cannot drive input clock "
                                     "'%s.%s' (only an input countdown clock can, as LS-BUS bus "
                                     "simulations use them)",
                                     what, m->comps[fc].name, a->name,
                                     rtcosim_fmi_clock_kind_name(ka), m->comps[tc].name, b->name);
        rtcosim_log(RTCOSIM_LOG_WARNING, "master",
                    "%s: input countdown clock '%s.%s' drives input clock '%s.%s': both tick "
                    "when the interval '%s' announces runs out (FMI 3.0 connects output to input "
                    "clocks; accepted as LS-BUS 1.0 allows between a bus simulation and its nodes)",
                    what, m->comps[fc].name, a->name, m->comps[tc].name, b->name,
                    m->comps[fc].name);
    }
    if (a->type == RTCOSIM_TYPE_CLOCK) {
        /* Section 2.2.8: an input clock ticked by the importer from another
         * FMU's output clock is triggered; a periodic or countdown input
         * clock has its own schedule that a connection cannot drive. */
        rtcosim_fmi_clock_kind ka = clock_kind(m, fc, fv), kb = clock_kind(m, tc, tv);
        if (kb != RTCOSIM_FMI_CLOCK_TRIGGERED)
            return rtcosim_error_set(
                err, RTCOSIM_EINVAL,
                "%s: clocks of incompatible kinds: output clock '%s.%s' (%s) cannot tick input "
                "clock '%s.%s' (%s; only a triggered input clock follows a connection, FMI 3.0 "
                "section 2.2.8)",
                what, m->comps[fc].name, a->name, rtcosim_fmi_clock_kind_name(ka),
                m->comps[tc].name, b->name, rtcosim_fmi_clock_kind_name(kb));
    }
    if (!m->links && !(m->links = calloc(1, sizeof *m->links)))
        return master_oom(err);
    master_links *L = m->links;
    for (size_t i = 0; i < L->count; i++)
        if (L->links[i].to == tc && L->links[i].to_var == tv)
            return rtcosim_error_set(err, RTCOSIM_EINVAL, "%s: input '%s.%s' is already connected (%s)",
                                     what, m->comps[tc].name, b->name, L->links[i].name);
    if (!master_grow((void **)&L->links, &L->cap, L->count + 1, sizeof *L->links))
        return master_oom(err);
    master_link *k = &L->links[L->count];
    memset(k, 0, sizeof *k);
    if (!(k->name = strdup(what + strlen("connection "))))
        return master_oom(err);
    L->count++;
    k->from = fc;
    k->from_var = fv;
    k->to = tc;
    k->to_var = tv;
    k->from_vr = a->value_reference;
    k->to_vr = b->value_reference;
    k->type = a->type;
    return RTCOSIM_OK;
}

size_t rtcosim_master_event_connection_count(const rtcosim_master *m)
{
    return m->links ? m->links->count : 0;
}

void master_links_free(rtcosim_master *m)
{
    master_links *L = m->links;
    if (!L)
        return;
    for (size_t i = 0; i < L->count; i++) {
        free(L->links[i].name);
        free(L->links[i].src_reads);
        free(L->links[i].dst_clock_links);
        free(L->links[i].last);
    }
    free(L->links);
    free(L->reads);
    free(L->comp_reads_start);
    free(L->comp_reads);
    free(L->comp_bin_start);
    free(L->comp_bin);
    free(L->deps);
    free(L->countdowns);
    free(L->candidates);
    free(L->updated_stamp);
    free(L);
    m->links = NULL;
}

/* The read of output clock (comp, var), added once. */
static long read_of(rtcosim_master *m, size_t comp, size_t var, rtcosim_error *err)
{
    master_links *L = m->links;
    for (size_t i = 0; i < L->read_count; i++)
        if (L->reads[i].comp == comp && L->reads[i].var == var)
            return (long)i;
    clock_read *r = realloc(L->reads, (L->read_count + 1) * sizeof *r);
    if (!r) {
        master_oom(err);
        return -1;
    }
    L->reads = r;
    const rtcosim_variable *v = var_of(m, comp, var);
    const rtcosim_fmu_clocks *kc = master_clocks_of(m->comps[comp].c);
    L->reads[L->read_count] = (clock_read){
        .comp = comp,
        .var = var,
        .vr = v->value_reference,
        .countdown = v->causality == RTCOSIM_CAUSALITY_INPUT,
        .clock_index = kc ? rtcosim_fmu_clock_index(kc, var) : -1,
        .due = -1,
    };
    return (long)L->read_count++;
}

static bool uses_events(const master_component *mc)
{
    return rtcosim_component_capabilities(mc->c)->event_mode_used;
}

/* For a Binary link into a clocked input: the clock links ticking one of
 * that input's clocks. */
static rtcosim_status find_dst_clocks(rtcosim_master *m, master_link *k, rtcosim_error *err)
{
    const rtcosim_fmu_clocks *kc = master_clocks_of(m->comps[k->to].c);
    if (!kc || !kc->clocked_start || kc->clocked_start[k->to_var] == kc->clocked_start[k->to_var + 1])
        return RTCOSIM_OK;
    k->dst_clocked = true;
    master_links *L = m->links;
    if (!(k->dst_clock_links = calloc(L->count, sizeof *k->dst_clock_links)))
        return master_oom(err);
    for (size_t j = kc->clocked_start[k->to_var]; j < kc->clocked_start[k->to_var + 1]; j++) {
        size_t clock_var = kc->clocks[kc->clocked[j]].variable;
        for (size_t i = 0; i < L->count; i++) {
            const master_link *c = &L->links[i];
            if (c->type == RTCOSIM_TYPE_CLOCK && c->to == k->to && c->to_var == clock_var)
                k->dst_clock_links[k->dst_clock_link_count++] = i;
        }
    }
    return RTCOSIM_OK;
}


/* Whether Binary link k depends on read r (a clock of its output or of the
 * Clock links ticking its input). */
static bool binary_uses_read(const master_links *L, const master_link *k, size_t r)
{
    for (size_t j = 0; j < k->src_read_count; j++)
        if (k->src_reads[j] == r)
            return true;
    for (size_t j = 0; j < k->dst_clock_link_count; j++)
        if (L->links[k->dst_clock_links[j]].read == r)
            return true;
    return false;
}

/* The CSR lists of struct master_links (at init; quadratic in the links
 * there, linear per round then). */
static rtcosim_status build_index(rtcosim_master *m, rtcosim_error *err)
{
    master_links *L = m->links;
    const size_t n = m->comp_count;
    L->comp_reads_start = calloc(n + 1, sizeof *L->comp_reads_start);
    L->comp_reads = calloc(L->read_count + 1, sizeof *L->comp_reads);
    L->comp_bin_start = calloc(n + 1, sizeof *L->comp_bin_start);
    L->comp_bin = calloc(L->count + 1, sizeof *L->comp_bin);
    L->countdowns = calloc(L->read_count + 1, sizeof *L->countdowns);
    L->candidates = calloc(L->count + 1, sizeof *L->candidates);
    L->updated_stamp = calloc(n + 1, sizeof *L->updated_stamp);
    if (!L->comp_reads_start || !L->comp_reads || !L->comp_bin_start || !L->comp_bin ||
        !L->countdowns || !L->candidates || !L->updated_stamp)
        return master_oom(err);
    for (size_t i = 0; i < L->read_count; i++) {
        if (L->reads[i].countdown)
            L->countdowns[L->countdown_count++] = i;
        else
            L->comp_reads_start[L->reads[i].comp + 1]++;
    }
    for (size_t i = 0; i < L->count; i++)
        if (L->links[i].type == RTCOSIM_TYPE_BINARY && L->links[i].src_read_count == 0)
            L->comp_bin_start[L->links[i].from + 1]++;
    for (size_t c = 0; c < n; c++) {
        L->comp_reads_start[c + 1] += L->comp_reads_start[c];
        L->comp_bin_start[c + 1] += L->comp_bin_start[c];
    }
    for (size_t c = 0, a = 0, b = 0; c < n; c++) {
        for (size_t i = 0; i < L->read_count; i++)
            if (!L->reads[i].countdown && L->reads[i].comp == c)
                L->comp_reads[a++] = i;
        for (size_t i = 0; i < L->count; i++)
            if (L->links[i].type == RTCOSIM_TYPE_BINARY && L->links[i].src_read_count == 0 &&
                L->links[i].from == c)
                L->comp_bin[b++] = i;
    }
    /* deps: per read, the Clock links from it, then the Binary links it clocks. */
    size_t total = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t used = 0;
        for (size_t r = 0; r < L->read_count; r++) {
            L->reads[r].deps_lo = used;
            for (size_t i = 0; i < L->count; i++) {
                const master_link *k = &L->links[i];
                bool dep = k->type == RTCOSIM_TYPE_CLOCK ? k->read == r : binary_uses_read(L, k, r);
                if (dep && pass == 1)
                    L->deps[used] = i;
                used += dep;
            }
            L->reads[r].deps_hi = used;
        }
        total = used;
        if (pass == 0 && !(L->deps = calloc(total + 1, sizeof *L->deps)))
            return master_oom(err);
    }
    L->dep_count = total;
    return RTCOSIM_OK;
}

rtcosim_status master_links_init(rtcosim_master *m, rtcosim_error *err)
{
    master_links *L = m->links;
    if (!L)
        return RTCOSIM_OK;
    for (size_t i = 0; i < L->count; i++) {
        master_link *k = &L->links[i];
        const master_component *ends[2] = {&m->comps[k->from], &m->comps[k->to]};
        for (int e = 0; e < 2; e++)
            if (!uses_events(ends[e]))
                return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                         "master: connection %s: %s values pass only in Event "
                                         "Mode, which '%s' does not use (rtcosim run "
                                         "--event-mode-used; FMI 3.0 section 4.2.2)",
                                         k->name, rtcosim_type_name(k->type), ends[e]->name);
        if (k->type == RTCOSIM_TYPE_CLOCK) {
            long r = read_of(m, k->from, k->from_var, err);
            if (r < 0)
                return RTCOSIM_ENOMEM;
            k->read = (size_t)r;
            continue;
        }
        rtcosim_status st = find_dst_clocks(m, k, err);
        if (st != RTCOSIM_OK)
            return st;
        /* A clocked Binary output is read only when one of its clocks ticks. */
        const rtcosim_fmu_clocks *kc = master_clocks_of(m->comps[k->from].c);
        if (!kc || !kc->clocked_start)
            continue;
        size_t lo = kc->clocked_start[k->from_var], hi = kc->clocked_start[k->from_var + 1];
        if (hi > lo && !(k->src_reads = calloc(hi - lo, sizeof *k->src_reads)))
            return master_oom(err);
        for (size_t j = lo; j < hi; j++) {
            size_t clock_var = kc->clocks[kc->clocked[j]].variable;
            bool driven = false; /* an input countdown clock the master ticks */
            for (size_t c = 0; c < L->count && !driven; c++)
                driven = L->links[c].type == RTCOSIM_TYPE_CLOCK && L->links[c].from == k->from &&
                         L->links[c].from_var == clock_var;
            if (var_of(m, k->from, clock_var)->causality != RTCOSIM_CAUSALITY_OUTPUT && !driven)
                continue; /* clocked by an input clock: the importer ticks it */
            long r = read_of(m, k->from, clock_var, err);
            if (r < 0)
                return RTCOSIM_ENOMEM;
            k->src_reads[k->src_read_count++] = (size_t)r;
        }
    }
    return build_index(m, err);
}

static rtcosim_status failed(rtcosim_status st, const master_component *mc, rtcosim_error *err)
{
    rtcosim_error_prefix(err, "master: event iteration: '%s': ", mc->name);
    return st;
}

/* fmi3GetClock of an output clock (a read resets it, section 2.2.8). */
static rtcosim_status read_clock(master_component *mc, const clock_read *r, bool *ticked,
                                 rtcosim_error *err)
{
    rtcosim_status st = rtcosim_component_get(mc->c, RTCOSIM_TYPE_CLOCK, &r->vr, 1, ticked, err);
    return st == RTCOSIM_OK ? st : failed(st, mc, err);
}

/* The output clocks of comps[0..n), each read once and stamped with this
 * exchange; *any: one ticked. */
static rtcosim_status read_outputs(rtcosim_master *m, const size_t *comps, size_t n, bool *any,
                                   rtcosim_error *err)
{
    master_links *L = m->links;
    for (size_t u = 0; u < n; u++) {
        master_component *mc = &m->comps[comps[u]];
        for (size_t j = L->comp_reads_start[comps[u]]; j < L->comp_reads_start[comps[u] + 1];
             j++) {
            clock_read *r = &L->reads[L->comp_reads[j]];
            bool ticked = false;
            rtcosim_status st = read_clock(mc, r, &ticked, err);
            if (st != RTCOSIM_OK)
                return st;
            r->ticked = ticked;
            r->stamp = L->stamp;
            *any |= ticked;
        }
    }
    return RTCOSIM_OK;
}

static bool ticked_now(const master_links *L, size_t r)
{
    return L->reads[r].stamp == L->stamp && L->reads[r].ticked;
}

/* Binary link k after a round: read when its output's clocks ticked (or it
 * is unclocked), set when the consumer's clock ticks (or, unclocked, on a
 * change). */
static rtcosim_status pass_binary(rtcosim_master *m, master_link *k, bool *changed,
                                  rtcosim_error *err)
{
    master_links *L = m->links;
    rtcosim_status st;
    bool src_ticked = k->src_read_count == 0;
    for (size_t j = 0; j < k->src_read_count; j++)
        src_ticked |= ticked_now(L, k->src_reads[j]);
    bool dst_ticked = false;
    for (size_t j = 0; j < k->dst_clock_link_count && !dst_ticked; j++)
        dst_ticked = ticked_now(L, L->links[k->dst_clock_links[j]].read);
    const bool dst_clocked = k->dst_clocked;
    if (!src_ticked || (dst_clocked && !dst_ticked))
        return RTCOSIM_OK;
    master_component *from = &m->comps[k->from], *to = &m->comps[k->to];
    rtcosim_binary value = {0};
    if ((st = rtcosim_component_get(from->c, RTCOSIM_TYPE_BINARY, &k->from_vr, 1, &value, err)) !=
        RTCOSIM_OK)
        return failed(st, from, err);
    bool same = k->delivered && value.size == k->last_size &&
                (value.size == 0 || memcmp(value.data, k->last, value.size) == 0);
    if (same && !dst_clocked)
        return RTCOSIM_OK;
    if (value.size > k->last_cap) {
        /* grows to the largest value once, not per event */
        unsigned char *grown = realloc(k->last, value.size);
        if (!grown)
            return master_oom(err);
        k->last = grown;
        k->last_cap = value.size;
    }
    if (value.size)
        memcpy(k->last, value.data, value.size);
    k->last_size = value.size;
    k->delivered = true;
    if ((st = master_event_mark(m, k->to, err)) != RTCOSIM_OK)
        return st;
    rtcosim_binary copy = {k->last, k->last_size};
    if ((st = rtcosim_component_set(to->c, RTCOSIM_TYPE_BINARY, &k->to_vr, 1, &copy, err)) !=
        RTCOSIM_OK)
        return failed(st, to, err);
    *changed = true;
    return RTCOSIM_OK;
}

static void add_candidate(master_links *L, size_t *n, size_t link)
{
    master_link *k = &L->links[link];
    if (k->stamp == L->stamp)
        return;
    k->stamp = L->stamp;
    L->candidates[(*n)++] = link;
}

/* The candidates[0..n) in link order, as a pass over all links would take
 * them, each passed. */
static rtcosim_status pass_candidates(rtcosim_master *m, size_t n, bool *changed,
                                      rtcosim_error *err)
{
    master_links *L = m->links;
    for (size_t i = 1; i < n; i++) {
        size_t x = L->candidates[i], j = i;
        for (; j > 0 && L->candidates[j - 1] > x; j--)
            L->candidates[j] = L->candidates[j - 1];
        L->candidates[j] = x;
    }
    for (size_t i = 0; i < n; i++) {
        rtcosim_status st = pass_binary(m, &L->links[L->candidates[i]], changed, err);
        if (st != RTCOSIM_OK)
            return st;
    }
    return RTCOSIM_OK;
}

/* The Binary links the ticked reads concern (the reads of `comps`, or with
 * comps NULL the countdown clocks), in link order as a pass over all links
 * would take them; then the input clocks those reads tick. Values first, so
 * that a consumer has its clocked data when its clock ticks. */
static rtcosim_status pass_ticked(rtcosim_master *m, const size_t *comps, size_t n, bool *changed,
                                  rtcosim_error *err)
{
    master_links *L = m->links;
    rtcosim_status st;
    size_t cand = 0, count = comps ? n : L->countdown_count;
    for (size_t u = 0; u < count; u++) {
        size_t lo = comps ? L->comp_reads_start[comps[u]] : u;
        size_t hi = comps ? L->comp_reads_start[comps[u] + 1] : u + 1;
        for (size_t j = lo; j < hi; j++) {
            const clock_read *r = &L->reads[comps ? L->comp_reads[j] : L->countdowns[j]];
            if (r->ticked && r->stamp == L->stamp)
                for (size_t d = r->deps_lo; d < r->deps_hi; d++)
                    if (L->links[L->deps[d]].type == RTCOSIM_TYPE_BINARY)
                        add_candidate(L, &cand, L->deps[d]);
        }
    }
    if ((st = pass_candidates(m, cand, changed, err)) != RTCOSIM_OK)
        return st;
    /* an output clock (or a countdown clock the importer ticked) ticks the
     * input clocks it is connected to */
    for (size_t u = 0; u < count; u++) {
        size_t lo = comps ? L->comp_reads_start[comps[u]] : u;
        size_t hi = comps ? L->comp_reads_start[comps[u] + 1] : u + 1;
        for (size_t j = lo; j < hi; j++) {
            const clock_read *r = &L->reads[comps ? L->comp_reads[j] : L->countdowns[j]];
            if (!r->ticked || r->stamp != L->stamp)
                continue;
            for (size_t d = r->deps_lo; d < r->deps_hi; d++) {
                master_link *k = &L->links[L->deps[d]];
                if (k->type != RTCOSIM_TYPE_CLOCK)
                    continue;
                master_component *to = &m->comps[k->to];
                const bool tick = true;
                if ((st = master_event_mark(m, k->to, err)) != RTCOSIM_OK)
                    return st;
                if ((st = rtcosim_component_set(to->c, RTCOSIM_TYPE_CLOCK, &k->to_vr, 1, &tick,
                                                err)) != RTCOSIM_OK)
                    return failed(st, to, err);
                *changed = true;
            }
        }
    }
    return RTCOSIM_OK;
}

/* FMI 3.0's order in Event Mode, before the components update their
 * discrete states (fmi3UpdateDiscreteStates ends the instant of super-dense
 * time and deactivates the clocks): the output clocks that ticked are read,
 * the countdown clocks due are ticked, the clocked values passed and the
 * input clocks ticked; what output clocks carry first, what countdown
 * (input) clocks carry last, as an FMU computes those from the inputs it has
 * then (the LS-BUS demo bus simulation refuses an input after that). */
rtcosim_status master_links_exchange(rtcosim_master *m, rtcosim_time_ns t, const size_t *updated,
                                     size_t n, bool *changed, rtcosim_error *err)
{
    master_links *L = m->links;
    if (!L)
        return RTCOSIM_OK;
    rtcosim_status st;
    L->stamp++;
    /* The output clocks of this round's components, each once (fmi3GetClock
     * resets it, section 2.2.8). */
    bool any = false, any_countdown = false;
    if ((st = read_outputs(m, updated, n, &any, err)) != RTCOSIM_OK)
        return st;
    for (size_t j = 0; j < L->countdown_count; j++) {
        clock_read *r = &L->reads[L->countdowns[j]];
        master_component *mc = &m->comps[r->comp];
        r->stamp = L->stamp;
        r->ticked = false;
        if (r->due == t) {
            const bool tick = true;
            if ((st = master_event_mark(m, r->comp, err)) != RTCOSIM_OK)
                return st;
            if ((st = rtcosim_component_set(mc->c, RTCOSIM_TYPE_CLOCK, &r->vr, 1, &tick, err)) !=
                RTCOSIM_OK)
                return failed(st, mc, err);
            r->due = -1;
            r->ticked = true;
            r->ticked_stamp = L->stamp;
            *changed = true;
            any_countdown = true;
        }
    }
    if (any && (st = pass_ticked(m, updated, n, changed, err)) != RTCOSIM_OK)
        return st;
    return any_countdown ? pass_ticked(m, NULL, 0, changed, err) : RTCOSIM_OK;
}

rtcosim_status master_links_after_update(rtcosim_master *m, rtcosim_time_ns t,
                                         const size_t *updated, size_t n, bool *changed,
                                         rtcosim_error *err)
{
    master_links *L = m->links;
    if (!L)
        return RTCOSIM_OK;
    rtcosim_status st;
    L->stamp++;
    for (size_t u = 0; u < n; u++)
        L->updated_stamp[updated[u]] = L->stamp;
    /* unclocked Binary outputs, as the update left them */
    size_t cand = 0;
    for (size_t u = 0; u < n; u++)
        for (size_t j = L->comp_bin_start[updated[u]]; j < L->comp_bin_start[updated[u] + 1]; j++)
            add_candidate(L, &cand, L->comp_bin[j]);
    if ((st = pass_candidates(m, cand, changed, err)) != RTCOSIM_OK)
        return st;
    /* Lenient: an output clock ticked by fmi3UpdateDiscreteStates itself
     * (without asking for another update, where the standard reads clocks
     * next): read now, and what it clocks passed now, as before the update */
    L->stamp++;
    bool any = false;
    if ((st = read_outputs(m, updated, n, &any, err)) != RTCOSIM_OK)
        return st;
    if (any && (st = pass_ticked(m, updated, n, changed, err)) != RTCOSIM_OK)
        return st;
    /* Section 2.2.8: a countdown clock's interval, read in Event Mode after
     * the FMU's update, says when it ticks next. A clock that ticked in a
     * round of other components' updates waits for its own FMU's: asked
     * before, an FMU that clears the interval only in its update announces
     * the tick that ran out once more (the FMI-LS-BUS FlexRay demo bus
     * simulation does: its frames were delivered twice). */
    for (size_t j = 0; j < L->countdown_count; j++) {
        clock_read *r = &L->reads[L->countdowns[j]];
        if (r->clock_index < 0 || r->due >= 0 || L->updated_stamp[r->comp] < r->ticked_stamp ||
            !rtcosim_component_in_event_mode(m->comps[r->comp].c))
            continue;
        double interval = 0;
        rtcosim_interval_qualifier q;
        master_component *mc = &m->comps[r->comp];
        if ((st = get_interval(mc->c, (size_t)r->clock_index, &interval, &q, err)) !=
            RTCOSIM_OK)
            return failed(st, mc, err);
        rtcosim_time_ns ns;
        if (q == RTCOSIM_INTERVAL_CHANGED) {
            if (rtcosim_time_from_seconds(interval, &ns, err) != RTCOSIM_OK)
                return failed(RTCOSIM_ECOMPONENT, mc, err);
            r->due = t + ns;
            if (ns == 0) /* ticks at this instant: in the next round */
                *changed = true;
        }
    }
    return RTCOSIM_OK;
}

rtcosim_time_ns master_links_next_event(const rtcosim_master *m, rtcosim_time_ns next,
                                        rtcosim_time_ns now)
{
    const master_links *L = m->links;
    for (size_t j = 0; L && j < L->countdown_count; j++) {
        const clock_read *r = &L->reads[L->countdowns[j]];
        if (r->due > now && (next < 0 || r->due < next))
            next = r->due;
    }
    return next;
}
