/* libmatio loaded when a MAT file is first written or read, not at process
 * start: libmatio pulls in HDF5 and through it libcurl, GnuTLS, Kerberos and
 * LDAP, about 6 ms of dynamic linking on every start of `rtcosim` (measured:
 * an empty program linked with -lmatio 6.3 ms of CPU against 0.5 ms), paid
 * by runs that never touch a MAT file, such as `rtcosim events`.
 * Include this after <matio.h>: the Mat_* calls of the including file then
 * go through the loaded table, which rtcosim_matio_load must have filled
 * (call it before the first Mat_* call; it is cheap after the first time). */
#ifndef RTCOSIM_MATIO_DL_H
#define RTCOSIM_MATIO_DL_H

#include <matio.h>

#include "rtcosim/status.h"

typedef struct rtcosim_matio_api {
    __typeof__(Mat_CreateVer) *CreateVer;
    __typeof__(Mat_Open) *Open;
    __typeof__(Mat_Close) *Close;
    __typeof__(Mat_VarCreate) *VarCreate;
    __typeof__(Mat_VarWrite) *VarWrite;
    __typeof__(Mat_VarRead) *VarRead;
    __typeof__(Mat_VarReadInfo) *VarReadInfo;
    __typeof__(Mat_VarReadDataLinear) *VarReadDataLinear;
    __typeof__(Mat_VarFree) *VarFree;
} rtcosim_matio_api;

extern rtcosim_matio_api rtcosim_matio;

/* Loads libmatio once (thread-safe); an error naming the library when it is
 * missing. */
rtcosim_status rtcosim_matio_load(rtcosim_error *err);

#define Mat_CreateVer (*rtcosim_matio.CreateVer)
#define Mat_Open (*rtcosim_matio.Open)
#define Mat_Close (*rtcosim_matio.Close)
#define Mat_VarCreate (*rtcosim_matio.VarCreate)
#define Mat_VarWrite (*rtcosim_matio.VarWrite)
#define Mat_VarRead (*rtcosim_matio.VarRead)
#define Mat_VarReadInfo (*rtcosim_matio.VarReadInfo)
#define Mat_VarReadDataLinear (*rtcosim_matio.VarReadDataLinear)
#define Mat_VarFree (*rtcosim_matio.VarFree)

#endif
