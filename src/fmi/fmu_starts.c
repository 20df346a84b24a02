/* rtcosim_fmu_options.apply_default_start_values (simulate and run
 * --apply-default-start-values, as FMPy's option of that name): right after
 * the instance is made, every variable the standard lets an importer set
 * then (FMI 2.0 section 2.2.7, FMI 3.0 section 2.3.2: variability not
 * constant, initial exact or approx; not clocks, not structural parameters)
 * gets the start value its description declares. An FMU should start from
 * those itself; some rely on the importer (the FMI-LS-BUS FlexRay demo node
 * declares IsSecondNode start="true" in its second variant and starts with
 * false). Start values given on the command line come later and win. */
#include "fmi/fmu_internal.h"

static bool settable_before_initialization(const rtcosim_variable *v)
{
    return v->has_start && v->variability != RTCOSIM_VARIABILITY_CONSTANT &&
           v->type != RTCOSIM_TYPE_CLOCK && v->causality != RTCOSIM_CAUSALITY_STRUCTURAL_PARAMETER &&
           (v->initial == RTCOSIM_INITIAL_EXACT || v->initial == RTCOSIM_INITIAL_APPROX);
}

static rtcosim_status instantiate_with_starts(void *self, const char *name, rtcosim_error *err)
{
    rtcosim_fmu *f = self;
    rtcosim_status st = f->instantiate_plain(self, name, err);
    const rtcosim_fmi_md *md = f->md;
    for (size_t i = 0; i < md->variable_count && st == RTCOSIM_OK; i++) {
        const rtcosim_variable *v = &md->variables[i];
        if (!settable_before_initialization(v))
            continue;
        unsigned char slot[sizeof(rtcosim_value)];
        rtcosim_value_store(v->type, &v->start, slot);
        if ((st = f->ops.set(self, v->type, &v->value_reference, 1, slot, err)) != RTCOSIM_OK)
            rtcosim_error_prefix(err, "its declared start value of '%s' (applied as asked): ",
                                 v->name);
    }
    return st;
}

void rtcosim_fmu_apply_default_starts(rtcosim_fmu *f)
{
    if (!f->ops.instantiate || f->instantiate_plain)
        return;
    f->instantiate_plain = f->ops.instantiate;
    f->ops.instantiate = instantiate_with_starts;
}
