/* The ARXML reader's shared parts (arxml.c: the document, its paths,
 * frames and the entry; arxml_pdu.c: PDUs and their signals). */
#ifndef RTCOSIM_ARXML_INTERNAL_H
#define RTCOSIM_ARXML_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <libxml/hash.h>
#include <libxml/tree.h>

#include "dbc_internal.h"

typedef struct ar {
    xmlHashTable *paths; /* "/PKG/.../NAME" -> element */
    const char *file;
    rtcosim_error *err;
    rtcosim_dbc *dbc;
    size_t skipped_pdus, secured_pdus;
    bool headers_little_endian; /* CONTAINER-I-PDU-HEADER-BYTE-ORDER */
} ar;

/* Where an I-PDU's signals go in a frame: at `offset` bits, plain or
 * present at one selector code of a multiplexed PDU. */
typedef struct pdu_place {
    uint32_t offset;
    rtcosim_dbc_mux mux;
    uint64_t code;
} pdu_place;

#pragma GCC visibility push(hidden)

/* Elements by local name (any namespace): named, the first child, the first
 * descendant (depth first); text: the element's text without surrounding
 * blanks in buf (NULL when n is NULL); short_name: its SHORT-NAME's text. */
bool ar_named(const xmlNode *n, const char *name);
xmlNode *ar_child(const xmlNode *n, const char *name);
xmlNode *ar_descendant(const xmlNode *n, const char *name);
const char *ar_text(const xmlNode *n, char *buf, size_t size);
const char *ar_short_name(const xmlNode *n, char *buf, size_t size);
int ar_line_of(const xmlNode *n);
/* A one-line FILE:LINE error at element `at`. */
rtcosim_status ar_fail(ar *a, const xmlNode *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The element n's child `ref` (a ...-REF) points at by its path, else NULL;
 * a path that leads nowhere sets *status to an error (when still OK). */
xmlNode *ar_deref(ar *a, const xmlNode *n, const char *ref, rtcosim_status *status);
/* The element's text as a finite number, or a whole number 0..max. */
bool ar_number(const xmlNode *n, double *out);
bool ar_whole(const xmlNode *n, uint64_t max, uint64_t *out);

/* One PDU mapped into frame `message` (`length` bytes) at `offset` bits: its
 * signals (arxml_pdu.c). */
rtcosim_status ar_read_pdu(ar *a, size_t message, uint8_t length, const xmlNode *pdu,
                           uint32_t offset, int depth);

#pragma GCC visibility pop

#endif
