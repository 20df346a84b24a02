/* libzip loaded when the first archive (FMU, SSP) is opened, not at every
 * start of `rtcosim`: it brings OpenSSL's libcrypto, liblzma and libbz2 with
 * it (an empty program linked with -lzip started in 1.6 ms of CPU against
 * 0.5 ms; util/lazy_lib.h). Include this after <zip.h>: the zip_* calls of
 * the including file then go through the loaded table, which rtcosim_zip_load
 * must have filled before the first call. */
#ifndef RTCOSIM_ARCHIVE_ZIP_DL_H
#define RTCOSIM_ARCHIVE_ZIP_DL_H

#include <zip.h>

#include "rtcosim/status.h"

typedef struct rtcosim_zip_api {
    __typeof__(zip_close) *f_close;
    __typeof__(zip_compression_method_supported) *f_compression_method_supported;
    __typeof__(zip_discard) *f_discard;
    __typeof__(zip_error_fini) *f_error_fini;
    __typeof__(zip_error_init_with_code) *f_error_init_with_code;
    __typeof__(zip_error_strerror) *f_error_strerror;
    __typeof__(zip_fclose) *f_fclose;
    __typeof__(zip_file_get_external_attributes) *f_file_get_external_attributes;
    __typeof__(zip_file_strerror) *f_file_strerror;
    __typeof__(zip_fopen_index) *f_fopen_index;
    __typeof__(zip_fread) *f_fread;
    __typeof__(zip_get_name) *f_get_name;
    __typeof__(zip_get_num_entries) *f_get_num_entries;
    __typeof__(zip_name_locate) *f_name_locate;
    __typeof__(zip_open) *f_open;
    __typeof__(zip_stat_index) *f_stat_index;
    __typeof__(zip_stat_init) *f_stat_init;
    __typeof__(zip_strerror) *f_strerror;
} rtcosim_zip_api;

extern rtcosim_zip_api rtcosim_zip;

/* Loads libzip once (thread-safe); an error naming the library when it is
 * missing. */
rtcosim_status rtcosim_zip_load(rtcosim_error *err);

#define zip_close (*rtcosim_zip.f_close)
#define zip_compression_method_supported (*rtcosim_zip.f_compression_method_supported)
#define zip_discard (*rtcosim_zip.f_discard)
#define zip_error_fini (*rtcosim_zip.f_error_fini)
#define zip_error_init_with_code (*rtcosim_zip.f_error_init_with_code)
#define zip_error_strerror (*rtcosim_zip.f_error_strerror)
#define zip_fclose (*rtcosim_zip.f_fclose)
#define zip_file_get_external_attributes (*rtcosim_zip.f_file_get_external_attributes)
#define zip_file_strerror (*rtcosim_zip.f_file_strerror)
#define zip_fopen_index (*rtcosim_zip.f_fopen_index)
#define zip_fread (*rtcosim_zip.f_fread)
#define zip_get_name (*rtcosim_zip.f_get_name)
#define zip_get_num_entries (*rtcosim_zip.f_get_num_entries)
#define zip_name_locate (*rtcosim_zip.f_name_locate)
#define zip_open (*rtcosim_zip.f_open)
#define zip_stat_index (*rtcosim_zip.f_stat_index)
#define zip_stat_init (*rtcosim_zip.f_stat_init)
#define zip_strerror (*rtcosim_zip.f_strerror)

#endif
