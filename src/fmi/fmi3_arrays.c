/* FMI 3.0 array variables in the component operations. rtcosim addresses each
 * element by a value reference of its own (the description's `arrays` table,
 * model_description.h); the FMU knows only the array's reference and takes a
 * whole array per reference, its values in row-major order (FMI 3.0 section
 * 2.2.6.2, fmi3Get{VariableType} with nValues). A batch with elements becomes
 * one FMI call for all its scalars and arrays together; a set that covers an
 * array only in part completes it from a shadow of the array's last known
 * values (start values, then every value set or got), since a get before a
 * set is not allowed in every state (FMI 3.0 section 2.3.1); String arrays,
 * whose pointers may be stale, and arrays whose shadow an FMU state restore
 * made unknown are read back instead. Everything is sized at load time: no
 * allocation on the step path. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmi/fmu_internal.h"

struct rtcosim_fmi3_arrays {
    size_t capacity;          /* value references per FMI call (chunk size) */
    uint32_t *request;        /* the references of one FMI call */
    size_t *source;           /* per batch position: index into values */
    unsigned char *values;    /* the values of one FMI call */
    size_t value_capacity;    /* in values (8 bytes each) */
    size_t *offset;           /* per array: where its values start in `values` */
    uint64_t *seen;           /* per array: stamp of the batch that named it */
    bool *stale;              /* per array: shadow unknown (after an FMU state restore) */
    unsigned char *shadow;    /* per element: last known value (8 bytes each) */
    uint64_t stamp;
    size_t array_count;
};

enum { SLOT = 8 }; /* bytes per value slot: every direct type fits */

/* count values packed at `size` bytes into slots of SLOT bytes. */
static void memcpy_elements(unsigned char *slots, const unsigned char *packed, size_t count,
                            size_t size)
{
    for (size_t e = 0; e < count; e++)
        memcpy(slots + e * SLOT, packed + e * size, size);
}

static size_t array_of(const rtcosim_fmi_md *md, uint32_t vr)
{
    size_t lo = 0, hi = md->array_count;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (md->arrays[mid].first_vr <= vr)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static bool is_element(const rtcosim_fmi_md *md, uint32_t vr)
{
    return vr >= md->element_vr_base && vr < md->element_vr_end;
}

bool rtcosim_fmi3_has_elements(const rtcosim_fmu *f, const uint32_t *vrs, size_t n)
{
    if (!f->arrays)
        return false;
    for (size_t i = 0; i < n; i++)
        if (is_element(f->md, vrs[i]))
            return true;
    return false;
}

static void store_start(rtcosim_type type, const rtcosim_value *v, unsigned char *slot)
{
    switch (type) {
    case RTCOSIM_TYPE_FLOAT64: memcpy(slot, &v->f64, sizeof v->f64); break;
    case RTCOSIM_TYPE_FLOAT32: memcpy(slot, &v->f32, sizeof v->f32); break;
    case RTCOSIM_TYPE_INT8: { int8_t x = (int8_t)v->i64; memcpy(slot, &x, 1); break; }
    case RTCOSIM_TYPE_UINT8: { uint8_t x = (uint8_t)v->u64; memcpy(slot, &x, 1); break; }
    case RTCOSIM_TYPE_INT16: { int16_t x = (int16_t)v->i64; memcpy(slot, &x, 2); break; }
    case RTCOSIM_TYPE_UINT16: { uint16_t x = (uint16_t)v->u64; memcpy(slot, &x, 2); break; }
    case RTCOSIM_TYPE_INT32: { int32_t x = (int32_t)v->i64; memcpy(slot, &x, 4); break; }
    case RTCOSIM_TYPE_UINT32: { uint32_t x = (uint32_t)v->u64; memcpy(slot, &x, 4); break; }
    case RTCOSIM_TYPE_INT64: memcpy(slot, &v->i64, 8); break;
    case RTCOSIM_TYPE_UINT64: memcpy(slot, &v->u64, 8); break;
    case RTCOSIM_TYPE_BOOLEAN: memcpy(slot, &v->b, sizeof v->b); break;
    case RTCOSIM_TYPE_STRING: memcpy(slot, &v->s, sizeof v->s); break;
    default: break;
    }
}

rtcosim_status rtcosim_fmi3_arrays_prepare(rtcosim_fmu *f, rtcosim_error *err)
{
    const rtcosim_fmi_md *md = f->md;
    if (md->array_count == 0)
        return RTCOSIM_OK;
    size_t elements = md->element_vr_end - md->element_vr_base;
    struct rtcosim_fmi3_arrays *a = calloc(1, sizeof *a);
    if (!a)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", f->archive_path);
    f->arrays = a;
    a->array_count = md->array_count;
    a->capacity = md->variable_count ? md->variable_count : 1;
    /* A chunk names at most `capacity` scalars or arrays: at most every
     * scalar once and every array whole. */
    a->value_capacity = a->capacity + elements;
    a->request = calloc(a->capacity, sizeof *a->request);
    a->source = calloc(a->capacity, sizeof *a->source);
    a->values = calloc(a->value_capacity, SLOT);
    a->offset = calloc(md->array_count, sizeof *a->offset);
    a->seen = calloc(md->array_count, sizeof *a->seen);
    a->shadow = calloc(elements ? elements : 1, SLOT);
    a->stale = calloc(md->array_count, sizeof *a->stale);
    if (!a->request || !a->source || !a->values || !a->offset || !a->seen || !a->shadow ||
        !a->stale)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", f->archive_path);
    for (size_t k = 0; k < md->array_count; k++) {
        const rtcosim_fmi_md_array *arr = &md->arrays[k];
        size_t base = arr->first_vr - md->element_vr_base;
        for (size_t e = 0; e < arr->count; e++) {
            const rtcosim_variable *v = &md->variables[arr->first + e];
            if (v->has_start)
                store_start(arr->type, &v->start, a->shadow + (base + e) * SLOT);
        }
    }
    return RTCOSIM_OK;
}

void rtcosim_fmi3_arrays_free(struct rtcosim_fmi3_arrays *a)
{
    if (!a)
        return;
    free(a->request);
    free(a->source);
    free(a->values);
    free(a->offset);
    free(a->seen);
    free(a->shadow);
    free(a->stale);
    free(a);
}

void rtcosim_fmi3_arrays_invalidate(struct rtcosim_fmi3_arrays *a)
{
    for (size_t k = 0; k < a->array_count; k++)
        a->stale[k] = true;
}

/* The shadow of every array the current batch names, from the values an FMI
 * get just returned (whole arrays); no longer stale. */
static void refresh_shadow(const rtcosim_fmi_md *md, struct rtcosim_fmi3_arrays *a, size_t size)
{
    for (size_t k = 0; k < md->array_count; k++)
        if (a->seen[k] == a->stamp) {
            memcpy_elements(a->shadow + (md->arrays[k].first_vr - md->element_vr_base) * SLOT,
                            a->values + a->offset[k] * size, md->arrays[k].count, size);
            a->stale[k] = false;
        }
}

/* Lay out one chunk: the FMI references in first-appearance order, each
 * array once and whole, and where each batch position's value lives. */
static size_t plan(rtcosim_fmu *f, const uint32_t *vrs, size_t n, size_t *value_count)
{
    const rtcosim_fmi_md *md = f->md;
    struct rtcosim_fmi3_arrays *a = f->arrays;
    a->stamp++;
    size_t m = 0, nv = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_element(md, vrs[i])) {
            a->request[m++] = vrs[i];
            a->source[i] = nv++;
            continue;
        }
        size_t k = array_of(md, vrs[i]);
        if (a->seen[k] != a->stamp) {
            a->seen[k] = a->stamp;
            a->offset[k] = nv;
            a->request[m++] = md->arrays[k].value_reference;
            nv += md->arrays[k].count;
        }
        a->source[i] = a->offset[k] + (vrs[i] - md->arrays[k].first_vr);
    }
    *value_count = nv;
    return m;
}

/* Chunks small enough that plan() fits the scratch. */
static size_t chunk_of(const struct rtcosim_fmi3_arrays *a, size_t left)
{
    return left < a->capacity ? left : a->capacity;
}

rtcosim_status rtcosim_fmi3_array_get(rtcosim_fmu *f, rtcosim_type type, const uint32_t *vrs,
                                      size_t n, void *values, rtcosim_error *err)
{
    struct rtcosim_fmi3_arrays *a = f->arrays;
    const rtcosim_fmi_md *md = f->md;
    size_t size = rtcosim_type_size(type);
    const char *name = NULL;
    fmi3Status s = fmi3OK;
    for (size_t done = 0; done < n && s <= fmi3Warning;) {
        size_t chunk = chunk_of(a, n - done), nv;
        size_t m = plan(f, vrs + done, chunk, &nv);
        fmi3Status cs;
        if (!rtcosim_fmi3_direct_call(f, false, type, a->request, m, a->values, nv, &name, &cs))
            return name ? rtcosim_fmu_lacks(f, name, err) : rtcosim_fmu_wrong_type(f, type, err);
        RTCOSIM_FMU_TRACE(f, name, cs, "nValueReferences=%zu, nValues=%zu (arrays whole)", m, nv);
        s = cs > s ? cs : s;
        if (cs > fmi3Warning)
            break;
        /* Values packed by the FMU at `size` bytes each; scatter them. */
        for (size_t i = 0; i < chunk; i++)
            memcpy((unsigned char *)values + (done + i) * size, a->values + a->source[i] * size, size);
        if (type != RTCOSIM_TYPE_STRING)
            refresh_shadow(md, a, size);
        done += chunk;
    }
    return rtcosim_fmu_status(f, s, name ? name : "fmi3Get", NAN, err);
}

rtcosim_status rtcosim_fmi3_array_set(rtcosim_fmu *f, rtcosim_type type, const uint32_t *vrs,
                                      size_t n, const void *values, rtcosim_error *err)
{
    struct rtcosim_fmi3_arrays *a = f->arrays;
    const rtcosim_fmi_md *md = f->md;
    size_t size = rtcosim_type_size(type);
    const char *name = NULL;
    fmi3Status s = fmi3OK;
    for (size_t done = 0; done < n && s <= fmi3Warning;) {
        size_t chunk = chunk_of(a, n - done), nv;
        size_t m = plan(f, vrs + done, chunk, &nv);
        /* Arrays first from the shadow (the elements the batch leaves out
         * keep their last known values), then the batch's own values.
         * Strings are pointers whose owners may have freed them since, and a
         * shadow is unknown after an FMU state restore: those arrays are read
         * from the FMU instead (one more call). */
        fmi3Status cs;
        bool stale = type == RTCOSIM_TYPE_STRING;
        for (size_t k = 0; k < md->array_count && !stale; k++)
            stale = a->seen[k] == a->stamp && a->stale[k];
        if (stale) {
            if (!rtcosim_fmi3_direct_call(f, false, type, a->request, m, a->values, nv, &name, &cs))
                return name ? rtcosim_fmu_lacks(f, name, err) : rtcosim_fmu_wrong_type(f, type, err);
            RTCOSIM_FMU_TRACE(f, name, cs, "nValueReferences=%zu, nValues=%zu (arrays whole)", m, nv);
            if (cs > fmi3Warning)
                return rtcosim_fmu_status(f, cs, name, NAN, err);
            if (type != RTCOSIM_TYPE_STRING)
                refresh_shadow(md, a, size);
        } else {
            for (size_t k = 0; k < md->array_count; k++)
                if (a->seen[k] == a->stamp)
                    for (size_t e = 0; e < md->arrays[k].count; e++)
                        memcpy(a->values + (a->offset[k] + e) * size,
                               a->shadow + (md->arrays[k].first_vr - md->element_vr_base + e) * SLOT,
                               size);
        }
        for (size_t i = 0; i < chunk; i++) {
            const unsigned char *v = (const unsigned char *)values + (done + i) * size;
            memcpy(a->values + a->source[i] * size, v, size);
            if (is_element(md, vrs[done + i]))
                memcpy(a->shadow + (vrs[done + i] - md->element_vr_base) * SLOT, v, size);
        }
        if (!rtcosim_fmi3_direct_call(f, true, type, a->request, m, a->values, nv, &name, &cs))
            return name ? rtcosim_fmu_lacks(f, name, err) : rtcosim_fmu_wrong_type(f, type, err);
        RTCOSIM_FMU_TRACE(f, name, cs, "nValueReferences=%zu, nValues=%zu (arrays whole)", m, nv);
        s = cs > s ? cs : s;
        done += chunk;
    }
    return rtcosim_fmu_status(f, s, name ? name : "fmi3Set", NAN, err);
}
