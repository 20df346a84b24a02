/* libFuzzer target for the modelDescription.xml parser (FMI 1.0, 2.0 and 3.0,
 * FMI 3.0 arrays included): any bytes must give a description or an error,
 * never a crash, leak or hang, lenient or strict, for co-simulation and
 * model exchange and scheduled execution (FMI 3.0 clocks included). The first
 * byte picks the options (S strict, M model exchange, E scheduled execution);
 * the rest is the XML. An error names the file on one line (libxml2's
 * messages can have a line break inside). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "fmi/model_description.h"
#include "rtcosim/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int quiet;
    if (!quiet++)
        rtcosim_log_set_level(RTCOSIM_LOG_ERROR); /* lenient rules log warnings */
    rtcosim_fmi_md_options o = {0};
    /* S strict, M model exchange, E scheduled execution, F co-simulation
     * falling back to model exchange. */
    if (size > 0 && (data[0] == 'S' || data[0] == 'M' || data[0] == 'E' || data[0] == 'F')) {
        o.strict = data[0] == 'S';
        o.interface = data[0] == 'M'   ? RTCOSIM_FMI_MD_MODEL_EXCHANGE
                      : data[0] == 'E' ? RTCOSIM_FMI_MD_SCHEDULED_EXECUTION
                                       : RTCOSIM_FMI_MD_CO_SIMULATION;
        o.model_exchange_fallback = data[0] == 'F';
        data++;
        size--;
    }
    rtcosim_fmi_md *md = NULL;
    rtcosim_error err;
    if (rtcosim_fmi_md_parse_with((const char *)data, size, "modelDescription.xml", &o, &md, &err) ==
        RTCOSIM_OK) {
        /* Every element reference must map back into its array. */
        for (size_t k = 0; k < md->array_count; k++)
            if (md->arrays[k].first + md->arrays[k].count > md->variable_count)
                __builtin_trap();
        /* Clocks and clocked lists must point at Clock variables. */
        for (size_t k = 0; k < md->clock_count; k++)
            if (md->clocks[k].variable >= md->variable_count ||
                md->variables[md->clocks[k].variable].type != RTCOSIM_TYPE_CLOCK)
                __builtin_trap();
        for (size_t i = 0; md->clocked_start && i < md->variable_count; i++)
            for (size_t j = md->clocked_start[i]; j < md->clocked_start[i + 1]; j++)
                if (md->clocked[j] >= md->clock_count)
                    __builtin_trap();
        /* String start values must live as long as the description (ASan
         * sees a read of freed text). */
        size_t bytes = 0;
        for (size_t k = 0; k < md->variable_count; k++)
            if (md->variables[k].has_start && md->variables[k].type == RTCOSIM_TYPE_STRING &&
                md->variables[k].start.s)
                bytes += strlen(md->variables[k].start.s);
        (void)bytes;
        rtcosim_fmi_md_free(md);
    } else if (strncmp(err.message, "modelDescription.xml", 20) != 0 ||
               strchr(err.message, '\n')) {
        __builtin_trap(); /* an error names the file, on one line */
    }
    return 0;
}
