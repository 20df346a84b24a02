/* libFuzzer target for an FMU given where a system is expected (`rtcosim run
 * model.fmu`, src/system/system_model.c): the input is the modelDescription.xml
 * of an archive that has no SystemStructure.ssd, which the system reader turns
 * into the SSD of a one-component system (model identifier, default
 * experiment, XML-escaped names) and parses. Oracle: the load succeeds or
 * fails with one line naming the archive, without crash, leak or hang; a
 * system it returns has exactly one component and a stop time not before its
 * start time. Nothing is loaded or unpacked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rtcosim/system.h"
#include "util/raw_zip.h"

static char dir[64], fmu_path[96];

static void remove_files(void)
{
    unlink(fmu_path);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(dir, sizeof dir, "/tmp/rtcosim-fuzz-XXXXXX");
    if (!mkdtemp(dir))
        abort();
    snprintf(fmu_path, sizeof fmu_path, "%s/model.fmu", dir);
    atexit(remove_files);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const raw_zip_entry entry = {"modelDescription.xml", data, size, 0};
    if (!raw_zip_write(fmu_path, &entry, 1))
        return 0;
    rtcosim_system_desc *desc = NULL;
    rtcosim_error err;
    if (rtcosim_system_desc_load(fmu_path, &desc, &err) != RTCOSIM_OK) {
        if (strncmp(err.message, fmu_path, strlen(fmu_path)) != 0 || strchr(err.message, '\n'))
            abort(); /* the error names the archive, on one line */
        return 0;
    }
    rtcosim_time_ns start = 0, stop = 0;
    if (rtcosim_system_desc_component_count(desc) != 1 ||
        strcmp(rtcosim_system_desc_format(desc), "FMU") != 0 ||
        !rtcosim_system_desc_stop_time(desc, &stop) ||
        (rtcosim_system_desc_start_time(desc, &start) && stop < start))
        abort();
    rtcosim_system_desc_free(desc);
    return 0;
}
