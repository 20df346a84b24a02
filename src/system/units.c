/* Unit definitions (SSP 1.0 ssc:Unit with ssc:BaseUnit) and the automatic
 * conversion between two units of the same dimension that the standard asks
 * for on connections and parameters: SI = factor * value + offset. */
#include <math.h>
#include <string.h>

#include "system/system_internal.h"

static const char *const base_unit_names[8] = {"kg", "m", "s", "A", "K", "mol", "cd", "rad"};

static const system_unit *find_unit(const rtcosim_system_desc *d, const char *name)
{
    for (size_t i = 0; i < d->unit_count; i++)
        if (strcmp(d->units[i].name, name) == 0)
            return &d->units[i];
    return NULL;
}

bool system_unit_known(const rtcosim_system_desc *d, const char *name)
{
    return find_unit(d, name) != NULL;
}

rtcosim_status system_read_units(rtcosim_system_desc *d, const xmlNode *units_el,
                                 const char *label, rtcosim_error *err)
{
    for (const xmlNode *u = units_el->children; u; u = u->next) {
        if (!system_is(u, SSC_NS, "Unit"))
            continue;
        const char *name = system_attr(d, u, "name");
        if (!name || !*name)
            return system_fail(err, RTCOSIM_EFORMAT, label, u, "ssc:Unit without a name");
        const system_unit *existing = find_unit(d, name);
        system_unit unit = {.name = name, .factor = 1.0, .offset = 0.0};
        const xmlNode *base = NULL;
        for (const xmlNode *b = u->children; b; b = b->next)
            if (system_is(b, SSC_NS, "BaseUnit"))
                base = b;
        if (!base)
            return system_fail(err, RTCOSIM_EFORMAT, label, u, "unit '%s' has no ssc:BaseUnit",
                               name);
        for (int k = 0; k < 8; k++) {
            const char *text = system_attr(d, base, base_unit_names[k]);
            int64_t e = 0;
            if (text && (!system_parse_int64(text, &e) || e < -100 || e > 100))
                return system_fail(err, RTCOSIM_EFORMAT, label, base,
                                   "unit '%s': bad exponent %s=\"%s\"", name,
                                   base_unit_names[k], text);
            unit.exponents[k] = (int)e;
        }
        const char *factor = system_attr(d, base, "factor");
        const char *offset = system_attr(d, base, "offset");
        if (factor && (!system_parse_double(factor, &unit.factor) || unit.factor == 0.0))
            return system_fail(err, RTCOSIM_EFORMAT, label, base, "unit '%s': bad factor \"%s\"",
                               name, factor);
        if (offset && !system_parse_double(offset, &unit.offset))
            return system_fail(err, RTCOSIM_EFORMAT, label, base, "unit '%s': bad offset \"%s\"",
                               name, offset);
        if (existing) {
            /* The same unit may be declared in the .ssd and again in a .ssv;
             * only a conflicting redefinition is an error. */
            if (memcmp(existing->exponents, unit.exponents, sizeof unit.exponents) != 0 ||
                existing->factor != unit.factor || existing->offset != unit.offset)
                return system_fail(err, RTCOSIM_EFORMAT, label, u,
                                   "unit '%s' redefined differently", name);
            continue;
        }
        system_unit *slot = system_grow(&d->units, &d->unit_count, &d->unit_cap, sizeof *slot);
        if (!slot)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", label);
        *slot = unit;
    }
    return RTCOSIM_OK;
}

bool system_unit_conversion(const rtcosim_system_desc *d, const char *from, const char *to,
                            double *factor, double *offset)
{
    const system_unit *a = find_unit(d, from), *b = find_unit(d, to);
    if (!a || !b || memcmp(a->exponents, b->exponents, sizeof a->exponents) != 0)
        return false;
    /* SI = fa*x + oa = fb*y + ob  =>  y = (fa/fb) x + (oa - ob)/fb */
    *factor = a->factor / b->factor;
    *offset = (a->offset - b->offset) / b->factor;
    return true;
}
