/* FMU state files, as fmusim's --initial-fmu-state-file and
 * --final-fmu-state-file: the FMU's own serialized state (fmi2/3
 * SerializeFMUState bytes, nothing added), so that fmusim and rtcosim read
 * each other's files. A run that starts from one initializes as usual, then
 * takes the state, then sets again the start values an FMU in Step Mode
 * accepts (inputs and tunable parameters, as fmusim sets them after the
 * restore); a start value of any other variable would be lost to the state
 * and is refused. The final state is saved after the last step, before
 * terminate (not when the FMU ended the run itself, as in fmusim).
 * Model exchange too, as fmusim: the file holds the FMU's state alone; it is
 * set in Continuous-Time Mode after initialization and the integrator
 * restarts from the continuous states in it at the run's start time
 * (rtcosim_fmu_me_set_fmu_state); through --isolate the host does the same
 * (rtcosim_isolate_me_set_fmu_state). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtcosim/fmu.h"
#include "rtcosim/isolate.h"
#include "simulate/simulate_internal.h"
#include "util/read_file.h"

/* Where the initial state comes from, for messages. */
static const char *state_name(const rtcosim_simulate_options *o)
{
    return o->initial_state_size ? "the given FMU state" : o->initial_state_file;
}

rtcosim_status simulate_check_state_files(run *r, rtcosim_error *err)
{
    const rtcosim_simulate_options *o = r->o;
    const bool initial = o->initial_state_file || o->initial_state_size;
    if (!initial && !o->final_state_file)
        return RTCOSIM_OK;
    const char *option = initial ? "an initial" : "a final";
    const rtcosim_capabilities *caps = rtcosim_component_capabilities(r->c);
    if (!caps->can_get_set_state || !caps->can_serialize_state)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "%s: %s FMU state file needs an FMU that can serialize its "
                                 "state (canGetAndSetFMUState, canSerializeFMUState)",
                                 r->label, option);
    for (size_t i = 0; initial && i < o->start_value_count; i++) {
        size_t count;
        const rtcosim_variable *v = simulate_start_targets(r->c, o->start_values[i].name, &count);
        bool step_mode = v->causality == RTCOSIM_CAUSALITY_INPUT ||
                         (v->causality == RTCOSIM_CAUSALITY_PARAMETER &&
                          v->variability == RTCOSIM_VARIABILITY_TUNABLE);
        if (!step_mode)
            return rtcosim_error_set(err, RTCOSIM_EINVAL,
                                     "start value '%s': the run starts from the state in %s, "
                                     "which holds this variable; only inputs and tunable "
                                     "parameters are set after it",
                                     o->start_values[i].name, state_name(o));
    }
    return RTCOSIM_OK;
}

rtcosim_status simulate_restore_state_file(run *r, rtcosim_error *err)
{
    const rtcosim_simulate_options *o = r->o;
    if (!o->initial_state_file && !o->initial_state_size)
        return RTCOSIM_OK;
    const uint8_t *bytes = o->initial_state;
    size_t size = o->initial_state_size;
    char *read = NULL;
    rtcosim_status st = RTCOSIM_OK;
    if (!size) {
        if ((st = util_read_file(o->initial_state_file, o->initial_state_file, NULL, &read,
                                 &size, err)) != RTCOSIM_OK)
            return st;
        if (size == 0) {
            free(read);
            return rtcosim_error_set(err, RTCOSIM_EFORMAT, "%s: empty: no FMU state",
                                     o->initial_state_file);
        }
        bytes = (const uint8_t *)read;
    }
    if (r->me) {
        st = rtcosim_fmu_me_set_fmu_state(r->c, bytes, size, err);
    } else if (r->me_isolated) {
        st = rtcosim_isolate_me_set_fmu_state(r->c, bytes, size, err);
    } else {
        rtcosim_state state = NULL;
        st = rtcosim_component_deserialize_state(r->c, bytes, size, &state, err);
        if (st == RTCOSIM_OK)
            st = rtcosim_component_set_state(r->c, state, err);
        rtcosim_component_free_state(r->c, state);
    }
    free(read);
    if (st != RTCOSIM_OK)
        return rtcosim_error_prefix(err, "%s: ", state_name(o));
    /* The start values the state holds too, set again over it. */
    if ((st = simulate_apply_start_values(r->c, o, false, err)) == RTCOSIM_OK)
        st = simulate_apply_start_values(r->c, o, true, err);
    return st;
}

rtcosim_status simulate_save_state_file(run *r, rtcosim_error *err)
{
    const char *path = r->o->final_state_file;
    if (!path)
        return RTCOSIM_OK;
    size_t size = 0;
    uint8_t *bytes = NULL;
    rtcosim_status st = RTCOSIM_OK;
    if (r->me) {
        st = rtcosim_fmu_me_get_fmu_state(r->c, &bytes, &size, err);
    } else if (r->me_isolated) {
        st = rtcosim_isolate_me_get_fmu_state(r->c, &bytes, &size, err);
    } else {
        rtcosim_state state = NULL;
        st = rtcosim_component_get_state(r->c, &state, err);
        if (st == RTCOSIM_OK)
            st = rtcosim_component_serialized_state_size(r->c, state, &size, err);
        if (st == RTCOSIM_OK && !(bytes = malloc(size ? size : 1)))
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", path);
        if (st == RTCOSIM_OK)
            st = rtcosim_component_serialize_state(r->c, state, bytes, size, err);
        rtcosim_component_free_state(r->c, state);
    }
    if (st == RTCOSIM_OK) {
        FILE *f = fopen(path, "wb");
        bool ok = f && fwrite(bytes, 1, size, f) == size;
        if (f && fclose(f) != 0)
            ok = false;
        if (!ok)
            st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot write the FMU state: %s", path,
                                   strerror(errno));
    }
    free(bytes);
    return st;
}
