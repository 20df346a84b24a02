/* Text inputs written on any system: the readers of line-oriented files (DBC
 * databases, CAN logs) see one kind of line end and no byte-order mark, so
 * a file saved by a Windows or classic Mac OS tool reads like one from Linux.
 * Internal to the library. */
#ifndef RTCOSIM_UTIL_TEXT_H
#define RTCOSIM_UTIL_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* In place: drops a leading UTF-8 byte-order mark (EF BB BF) and turns CR LF
 * and a lone CR into LF; returns the new size (text[size] is set to '\0').
 * Line numbers are unchanged: each line end stays one '\n'. */
size_t util_text_unify_line_ends(char *text, size_t size);

/* In place: line breaks (CR, LF) become spaces and trailing spaces go, so
 * that a library's message (libxml2's end with a newline, some have one
 * inside) fits in a one-line error. */
void util_text_one_line(char *s);
/* The length (1-4) of the well-formed UTF-8 character at p (RFC 3629: no
 * overlong forms, no surrogates, at most U+10FFFF), 0 when p starts none
 * (a Latin-1 byte; the NUL at the end too). */
size_t util_text_utf8_length(const char *p);
/* text into out (3 * strlen(text) + 1 bytes at least) with each byte that
 * starts no UTF-8 character (and, with `controls`, each control character
 * but tab, line feed and carriage return, which XML 1.0 refuses) as U+FFFD;
 * returns out's length. For a library that takes UTF-8 only (PLplot, an
 * XML writer) and a name read from a Latin-1 file. */
size_t util_text_utf8_repair(const char *text, char *out, bool controls);

/* Does the path end with `ending` (".csv"), ASCII case ignored, with
 * something before it? NULL: false. */
bool util_path_has_ending(const char *path, const char *ending);
/* An ASAM MDF measurement by its name: .mf4 (MDF 4) or .mdf (MDF 3 or 4;
 * the reader goes by the file's identification block). */
bool util_path_is_mdf(const char *path);

/* Writes s to f as XML character data or an attribute value: & < > " as
 * entities, tab, LF and CR as character references (an attribute keeps
 * them); NULL writes nothing. */
void util_xml_put_escaped(FILE *f, const char *s);

#endif
