/* libFuzzer target for the modelDescription.xml parser (FMI 2.0 and 3.0): any
 * bytes must give a description or an error, never a crash, leak or hang. */
#include <stddef.h>
#include <stdint.h>

#include "fmi/model_description.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rtcosim_fmi_md *md = NULL;
    rtcosim_error err;
    if (rtcosim_fmi_md_parse((const char *)data, size, "modelDescription.xml", &md, &err) ==
        RTCOSIM_OK)
        rtcosim_fmi_md_free(md);
    return 0;
}
