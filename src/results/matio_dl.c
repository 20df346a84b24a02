/* libmatio on first use (matio_dl.h says why). */
#include <matio.h>

#include "matio_dl.h"
#include "util/lazy_lib.h"

#ifndef RTCOSIM_MATIO_SONAME
#define RTCOSIM_MATIO_SONAME "libmatio.so.11"
#endif

rtcosim_matio_api rtcosim_matio;

static const util_lazy_symbol symbols[] = {
    {(void **)&rtcosim_matio.CreateVer, "Mat_CreateVer"},
    {(void **)&rtcosim_matio.Open, "Mat_Open"},
    {(void **)&rtcosim_matio.Close, "Mat_Close"},
    {(void **)&rtcosim_matio.VarCreate, "Mat_VarCreate"},
    {(void **)&rtcosim_matio.VarWrite, "Mat_VarWrite"},
    {(void **)&rtcosim_matio.VarRead, "Mat_VarRead"},
    {(void **)&rtcosim_matio.VarReadInfo, "Mat_VarReadInfo"},
    {(void **)&rtcosim_matio.VarReadDataLinear, "Mat_VarReadDataLinear"},
    {(void **)&rtcosim_matio.VarFree, "Mat_VarFree"},
};

static util_lazy_lib matio = {.soname = RTCOSIM_MATIO_SONAME, .purpose = "for MAT files",
                              .symbols = symbols, .count = sizeof symbols / sizeof symbols[0],
                              .lock = PTHREAD_MUTEX_INITIALIZER};

rtcosim_status rtcosim_matio_load(rtcosim_error *err) { return util_lazy_lib_load(&matio, err); }
