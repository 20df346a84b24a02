/* libzip on first use (zip_dl.h says why). */
#include <zip.h>

#include "archive/zip_dl.h"
#include "util/lazy_lib.h"

#ifndef RTCOSIM_ZIP_SONAME
#define RTCOSIM_ZIP_SONAME "libzip.so.4"
#endif

rtcosim_zip_api rtcosim_zip;

static const util_lazy_symbol symbols[] = {
    {(void **)&rtcosim_zip.f_close, "zip_close"},
    {(void **)&rtcosim_zip.f_compression_method_supported, "zip_compression_method_supported"},
    {(void **)&rtcosim_zip.f_discard, "zip_discard"},
    {(void **)&rtcosim_zip.f_error_fini, "zip_error_fini"},
    {(void **)&rtcosim_zip.f_error_init_with_code, "zip_error_init_with_code"},
    {(void **)&rtcosim_zip.f_error_strerror, "zip_error_strerror"},
    {(void **)&rtcosim_zip.f_fclose, "zip_fclose"},
    {(void **)&rtcosim_zip.f_file_get_external_attributes, "zip_file_get_external_attributes"},
    {(void **)&rtcosim_zip.f_file_strerror, "zip_file_strerror"},
    {(void **)&rtcosim_zip.f_fopen_index, "zip_fopen_index"},
    {(void **)&rtcosim_zip.f_fread, "zip_fread"},
    {(void **)&rtcosim_zip.f_get_name, "zip_get_name"},
    {(void **)&rtcosim_zip.f_get_num_entries, "zip_get_num_entries"},
    {(void **)&rtcosim_zip.f_name_locate, "zip_name_locate"},
    {(void **)&rtcosim_zip.f_open, "zip_open"},
    {(void **)&rtcosim_zip.f_stat_index, "zip_stat_index"},
    {(void **)&rtcosim_zip.f_stat_init, "zip_stat_init"},
    {(void **)&rtcosim_zip.f_strerror, "zip_strerror"},
};

static util_lazy_lib zip = {.soname = RTCOSIM_ZIP_SONAME, .purpose = "for zip archives",
                            .symbols = symbols, .count = sizeof symbols / sizeof symbols[0],
                            .lock = PTHREAD_MUTEX_INITIALIZER};

rtcosim_status rtcosim_zip_load(rtcosim_error *err) { return util_lazy_lib_load(&zip, err); }
