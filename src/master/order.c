/* Step order of the master from direct-feedthrough dependencies. A graph on
 * the connected variables (output -> input along connections, input -> output
 * inside a component where the output depends directly on the input) finds
 * algebraic loops, named variable by variable. Components are then sorted so
 * that a component whose connected outputs depend on an input comes after the
 * component feeding that input (strong edges); other connections are followed
 * where they do not form a cycle (weak edges, broken deterministically). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "master/master_internal.h"
#include "rtcosim/fmu.h"
#include "rtcosim/log.h"
#include "rtcosim/master_distribute.h"
#include "rtcosim/native.h"

/* Variables a and b of a component are the same: equal indices, or aliases
 * (one value reference of one type; FMI 2.0 section 2.2.7, FMI 3.0 section
 * 2.4.7.7), so that a connection made through an alias finds the listing. */
static bool same_variable(const rtcosim_component *c, size_t a, size_t b)
{
    if (a == b)
        return true;
    const rtcosim_variable *va = rtcosim_component_variable(c, a);
    const rtcosim_variable *vb = rtcosim_component_variable(c, b);
    return va && vb && va->value_reference == vb->value_reference && va->type == vb->type;
}

/* An FMU's ModelStructure: output `output` depends on `input` unless its
 * dependencies attribute is given and does not list it (FMI 2.0 section
 * 2.2.8, FMI 3.0 section 2.4.8: absent means all knowns). */
static bool fmu_depends(const rtcosim_component *c, const rtcosim_fmu_info *info, size_t output,
                        size_t input)
{
    for (size_t k = 0; k < info->output_count; k++) {
        if (!same_variable(c, info->output_indices[k], output))
            continue;
        if (!info->output_dependencies_declared || !info->output_dependencies_declared[k])
            return true;
        for (size_t j = info->output_dependency_start[k]; j < info->output_dependency_start[k + 1];
             j++)
            if (same_variable(c, info->output_dependencies[j], input))
                return true;
        return false;
    }
    return true; /* not listed in ModelStructure: nothing is known */
}

bool master_depends(const rtcosim_master *m, size_t comp, size_t output, size_t input)
{
    bool declared = false;
    for (size_t i = 0; i < m->feed_count; i++) {
        const master_feedthrough *f = &m->feeds[i];
        if (f->comp != comp || f->output != output)
            continue;
        declared = true;
        for (size_t j = 0; j < f->n; j++)
            if (f->inputs[j] == input)
                return true;
    }
    if (declared)
        return false;
    /* a proxy of --distribute answers with its component's structure */
    const rtcosim_component *c = rtcosim_distribution_inner(m->comps[comp].c);
    /* an anytime component (anytime_component.h) delivers its outputs in
     * do_step only: none follows an input directly */
    if (strcmp(rtcosim_component_kind(c), "anytime") == 0)
        return false;
    const rtcosim_fmu_info *info = rtcosim_fmu_info_of(c);
    if (info)
        return fmu_depends(c, info, output, input);
    return rtcosim_native_depends(c, output, input);
}

typedef struct graph {
    size_t n;
    size_t *comp, *var;
    bool *is_out;
    /* adjacency as a dense matrix: the graphs are small (connected variables) */
    unsigned char *edge;
    unsigned char *color;
    size_t *parent;
} graph;

static size_t node_of(graph *g, size_t comp, size_t var, bool is_out)
{
    for (size_t i = 0; i < g->n; i++)
        if (g->comp[i] == comp && g->var[i] == var && g->is_out[i] == is_out)
            return i;
    g->comp[g->n] = comp;
    g->var[g->n] = var;
    g->is_out[g->n] = is_out;
    return g->n++;
}

static const char *var_name(const rtcosim_master *m, size_t comp, size_t var)
{
    return rtcosim_component_variable(m->comps[comp].c, var)->name;
}

/* Depth-first search for a cycle; returns a node on it (SIZE_MAX: none) and
 * leaves the path in parent[]. */
static size_t find_cycle(graph *g, size_t u, size_t *cycle_end)
{
    g->color[u] = 1;
    for (size_t v = 0; v < g->n; v++) {
        if (!g->edge[u * g->n + v])
            continue;
        if (g->color[v] == 1) {
            *cycle_end = u;
            return v;
        }
        if (g->color[v] == 0) {
            g->parent[v] = u;
            size_t found = find_cycle(g, v, cycle_end);
            if (found != SIZE_MAX)
                return found;
        }
    }
    g->color[u] = 2;
    return SIZE_MAX;
}

static void describe_cycle(const rtcosim_master *m, const graph *g, size_t start, size_t end,
                           char *buf, size_t size)
{
    /* Walk back from end to start through parent[], then print forwards. */
    size_t path[64], len = 0;
    for (size_t u = end; len < 64; u = g->parent[u]) {
        path[len++] = u;
        if (u == start)
            break;
    }
    size_t used = 0;
    for (size_t i = len; i-- > 0 && used < size;)
        used += (size_t)snprintf(buf + used, size - used, "%s.%s -> ", m->comps[g->comp[path[i]]].name,
                                 var_name(m, g->comp[path[i]], g->var[path[i]]));
    if (used < size)
        snprintf(buf + used, size - used, "%s.%s", m->comps[g->comp[start]].name,
                 var_name(m, g->comp[start], g->var[start]));
}

static rtcosim_status order_components(rtcosim_master *m, const graph *g, rtcosim_error *err)
{
    size_t n = m->comp_count;
    unsigned char *strong = calloc(n * n, 1), *weak = calloc(n * n, 1), *done = calloc(n, 1);
    /* In-degrees from components not yet placed, kept up to date as each is
     * placed: O(n^2) in all instead of recounting (O(n^3): 6 s for 2000). */
    size_t *strong_in = calloc(n ? n : 1, sizeof *strong_in);
    size_t *weak_in = calloc(n ? n : 1, sizeof *weak_in);
    if (!strong || !weak || !done || !strong_in || !weak_in) {
        free(strong);
        free(weak);
        free(done);
        free(strong_in);
        free(weak_in);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "master: out of memory");
    }
    for (size_t i = 0; i < m->conn_count; i++) {
        const master_connection *k = &m->conns[i];
        if (k->from == k->to)
            continue;
        bool feeds_output = false;
        for (size_t u = 0; u < g->n && !feeds_output; u++)
            if (!g->is_out[u] && g->comp[u] == k->to && g->var[u] == k->to_var)
                for (size_t v = 0; v < g->n; v++)
                    if (g->edge[u * g->n + v])
                        feeds_output = true;
        (feeds_output ? strong : weak)[k->from * n + k->to] = 1;
    }
    for (size_t p = 0; p < n; p++)
        for (size_t c = 0; c < n; c++)
            if (p != c) {
                strong_in[c] += strong[p * n + c];
                weak_in[c] += weak[p * n + c];
            }
    rtcosim_status st = RTCOSIM_OK;
    for (size_t pos = 0; pos < n && st == RTCOSIM_OK; pos++) {
        size_t best = SIZE_MAX, best_weak = SIZE_MAX;
        for (size_t c = 0; c < n; c++) {
            if (done[c])
                continue;
            if (strong_in[c] == 0 && weak_in[c] < best_weak) {
                best = c;
                best_weak = weak_in[c];
            }
        }
        if (best == SIZE_MAX) {
            char names[300] = "";
            size_t used = 0;
            for (size_t c = 0; c < n && used < sizeof names; c++)
                if (!done[c])
                    used += (size_t)snprintf(names + used, sizeof names - used, "%s%s",
                                             used ? ", " : "", m->comps[c].name);
            st = rtcosim_error_set(err, RTCOSIM_ELOOP,
                                   "master: components %s depend on each other through direct "
                                   "feedthrough and cannot be ordered", names);
            break;
        }
        done[best] = 1;
        m->order_list[pos] = best;
        for (size_t c = 0; c < n; c++)
            if (c != best) {
                strong_in[c] -= strong[best * n + c];
                weak_in[c] -= weak[best * n + c];
            }
    }
    free(strong);
    free(weak);
    free(done);
    free(strong_in);
    free(weak_in);
    return st;
}

rtcosim_status rtcosim_master_plan_order(rtcosim_master *m, rtcosim_error *err)
{
    if (m->initialized || m->order_planned)
        return RTCOSIM_OK;
    if (!m->order_list && !(m->order_list = calloc(m->comp_count ? m->comp_count : 1,
                                                   sizeof *m->order_list)))
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "master: out of memory");
    rtcosim_status st = master_resolve_order(m, err);
    if (st == RTCOSIM_OK && m->order == RTCOSIM_ORDER_GAUSS_SEIDEL)
        master_gs_levels(m); /* as initialize does */
    m->order_planned = st == RTCOSIM_OK;
    return st;
}

rtcosim_status master_resolve_order(rtcosim_master *m, rtcosim_error *err)
{
    size_t cap = 2 * m->conn_count + 1;
    graph g = {0};
    g.comp = calloc(cap, sizeof *g.comp);
    g.var = calloc(cap, sizeof *g.var);
    g.is_out = calloc(cap, sizeof *g.is_out);
    g.edge = calloc(cap * cap, 1);
    g.color = calloc(cap, 1);
    g.parent = calloc(cap, sizeof *g.parent);
    rtcosim_status st = RTCOSIM_OK;
    if (!g.comp || !g.var || !g.is_out || !g.edge || !g.color || !g.parent) {
        st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "master: out of memory");
        goto out;
    }
    /* Nodes first (the dense matrix is indexed by the final count). */
    for (size_t i = 0; i < m->conn_count; i++) {
        node_of(&g, m->conns[i].from, m->conns[i].from_var, true);
        node_of(&g, m->conns[i].to, m->conns[i].to_var, false);
    }
    size_t n = g.n;
    for (size_t i = 0; i < m->conn_count; i++) {
        size_t a = node_of(&g, m->conns[i].from, m->conns[i].from_var, true);
        size_t b = node_of(&g, m->conns[i].to, m->conns[i].to_var, false);
        g.edge[a * n + b] = 1;
    }
    for (size_t u = 0; u < n; u++)
        for (size_t v = 0; v < n; v++)
            if (!g.is_out[u] && g.is_out[v] && g.comp[u] == g.comp[v] &&
                master_depends(m, g.comp[v], g.var[v], g.var[u])) {
                g.edge[u * n + v] = 1;
                m->comps[g.comp[u]].feedthrough = true;
            }
    for (size_t u = 0; u < n; u++) {
        if (g.color[u])
            continue;
        size_t end = 0, start = find_cycle(&g, u, &end);
        if (start == SIZE_MAX)
            continue;
        char path[400];
        describe_cycle(m, &g, start, end, path, sizeof path);
        if (m->order == RTCOSIM_ORDER_GAUSS_SEIDEL) {
            st = rtcosim_error_set(err, RTCOSIM_ELOOP, "master: algebraic loop: %s", path);
            goto out;
        }
        /* Jacobi breaks the loop by the one-step delay of the exchange. */
        rtcosim_log(RTCOSIM_LOG_WARNING, "master",
                    "algebraic loop broken by the Jacobi exchange delay: %s", path);
        for (size_t c = 0; c < m->comp_count; c++)
            m->order_list[c] = c;
        goto out;
    }
    st = order_components(m, &g, err);
    if (st != RTCOSIM_OK && m->order == RTCOSIM_ORDER_JACOBI) {
        for (size_t c = 0; c < m->comp_count; c++)
            m->order_list[c] = c;
        st = RTCOSIM_OK;
    }
out:
    free(g.comp);
    free(g.var);
    free(g.is_out);
    free(g.edge);
    free(g.color);
    free(g.parent);
    return st;
}

/* Gauss-Seidel levels. Walking the sequential order, a component's level is
 * above those of the earlier components that feed it (it needs their data of
 * this step) and at least those of the earlier components it feeds (they
 * must keep seeing its data of the previous step). A stable sort by level
 * then keeps every connected pair in its order, so only components with no
 * connection between them change places, which changes no result; and the
 * components of one level have no data for each other within the step, so
 * they can step in parallel once all their inputs are set (step.c). */
void master_gs_levels(rtcosim_master *m)
{
    size_t n = m->comp_count;
    for (size_t pos = 0; pos < n; pos++) {
        size_t c = m->order_list[pos];
        unsigned level = 0;
        for (size_t i = 0; i < m->conn_count; i++) {
            const master_connection *k = &m->conns[i];
            if (k->from == k->to)
                continue;
            for (size_t q = 0; q < pos; q++) {
                size_t e = m->order_list[q];
                if (k->from == e && k->to == c && m->comps[e].level + 1 > level)
                    level = m->comps[e].level + 1;
                if (k->from == c && k->to == e && m->comps[e].level > level)
                    level = m->comps[e].level;
            }
        }
        m->comps[c].level = level;
    }
    /* stable insertion sort of order_list by level */
    for (size_t i = 1; i < n; i++) {
        size_t c = m->order_list[i], j = i;
        while (j > 0 && m->comps[m->order_list[j - 1]].level > m->comps[c].level) {
            m->order_list[j] = m->order_list[j - 1];
            j--;
        }
        m->order_list[j] = c;
    }
}
