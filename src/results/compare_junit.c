/* A comparison (compare.c) as a JUnit XML report, the test-result format CI
 * servers read (Jenkins' JUnit plugin, GitLab's test reports, GitHub
 * actions' reporters): <testsuites> around one <testsuite> with tests,
 * failures, errors and skipped counts, a <testcase classname name> per
 * variable and one for the time span, a <failure message type> in each
 * that differs, and the files and window as <properties>. Written with
 * libxml2's text writer (escaping, encoding). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h> /* (GNU basename: the name after the last slash) */

#include <libxml/xmlerror.h>
#include <libxml/xmlstring.h>
#include <libxml/xmlwriter.h>

#include "rtcosim/results.h"
#include "util/text.h"

static void quiet(void *context, xmlErrorPtr error)
{
    (void)context;
    (void)error; /* (a failed write is reported by the calls' results) */
}

/* An attribute (or, name NULL, text) as XML takes it: < 0 on failure. */
static int put(xmlTextWriterPtr w, const char *name, const char *value)
{
    /* (text as XML 1.0 takes it: libxml2's writer passes bytes through, and
     * a reader refuses a Latin-1 column name's or a control character) */
    char *clean = malloc(3 * strlen(value) + 1);
    if (!clean)
        return -1;
    util_text_utf8_repair(value, clean, true);
    int rc = name ? xmlTextWriterWriteAttribute(w, BAD_CAST name, BAD_CAST clean)
                  : xmlTextWriterWriteString(w, BAD_CAST clean);
    free(clean);
    return rc;
}

/* A variable's failure text, or NULL when it matches. */
static const char *failure_of(const rtcosim_compare_variable *v, const char *actual, char *buf,
                              size_t size, const char **type)
{
    if (v->missing) {
        *type = "missing";
        snprintf(buf, size, "'%s' is not a numeric variable of %s", v->name, actual);
        return buf;
    }
    if (!v->differs)
        return NULL;
    *type = "differs";
    snprintf(buf, size,
             "%zu of %zu samples outside the tolerance, the first at t = %.9g s; largest "
             "difference %.6g at t = %.9g s (relative %.3g)",
             v->outside, v->checked, v->first_outside_time, v->max_abs_diff,
             v->max_abs_diff_time, v->max_rel_diff);
    return buf;
}

rtcosim_status rtcosim_compare_write_junit(const rtcosim_compare_result *r,
                                           const char *reference, const char *actual,
                                           const char *path, rtcosim_error *err)
{
    /* the file opened here (the reason it cannot be, and no libxml2 message
     * on stderr), written through an output buffer on it */
    FILE *f = fopen(path, "w");
    if (!f)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot write the JUnit report: %s", path,
                                 strerror(errno));
    xmlStructuredErrorFunc saved_handler = xmlStructuredError;
    void *saved_context = xmlStructuredErrorContext;
    xmlSetStructuredErrorFunc(NULL, quiet);
    xmlOutputBufferPtr buffer = xmlOutputBufferCreateFile(f, NULL);
    xmlTextWriterPtr w = buffer ? xmlNewTextWriter(buffer) : NULL;
    if (!w) {
        if (buffer)
            xmlOutputBufferClose(buffer);
        xmlSetStructuredErrorFunc(saved_context, saved_handler);
        fclose(f);
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory for the JUnit report",
                                 path);
    }
    size_t tests = r->variable_count + 1, failures = r->differing + (r->span_short ? 1 : 0);
    char suite[1024], classname[600], n1[32], n2[32], text[512];
    snprintf(suite, sizeof suite, "%s against %s", basename(actual), basename(reference));
    snprintf(classname, sizeof classname, "rtcosim.compare.%s", basename(actual));
    snprintf(n1, sizeof n1, "%zu", tests);
    snprintf(n2, sizeof n2, "%zu", failures);
    int rc = xmlTextWriterSetIndent(w, 1);
    rc |= xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL) < 0;
    rc |= xmlTextWriterStartElement(w, BAD_CAST "testsuites") < 0;
    rc |= xmlTextWriterWriteAttribute(w, BAD_CAST "name", BAD_CAST "rtcosim compare") < 0;
    rc |= put(w, "tests", n1) < 0;
    rc |= put(w, "failures", n2) < 0;
    rc |= xmlTextWriterStartElement(w, BAD_CAST "testsuite") < 0;
    rc |= put(w, "name", suite) < 0;
    rc |= put(w, "tests", n1) < 0;
    rc |= put(w, "failures", n2) < 0;
    rc |= xmlTextWriterWriteAttribute(w, BAD_CAST "errors", BAD_CAST "0") < 0;
    rc |= xmlTextWriterWriteAttribute(w, BAD_CAST "skipped", BAD_CAST "0") < 0;
    rc |= xmlTextWriterStartElement(w, BAD_CAST "properties") < 0;
    char window[96];
    snprintf(window, sizeof window, "%.9g .. %.9g s", r->from, r->to);
    const char *props[3][2] = {{"reference", reference}, {"actual", actual}, {"window", window}};
    for (int k = 0; k < 3; k++) {
        rc |= xmlTextWriterStartElement(w, BAD_CAST "property") < 0;
        rc |= put(w, "name", props[k][0]) < 0;
        rc |= put(w, "value", props[k][1]) < 0;
        rc |= xmlTextWriterEndElement(w) < 0;
    }
    rc |= xmlTextWriterEndElement(w) < 0; /* properties */
    for (size_t i = 0; i < tests; i++) {
        const char *name = i < r->variable_count ? r->variables[i].name : "time span";
        const char *type = "differs", *failure = NULL;
        if (i < r->variable_count) {
            failure = failure_of(&r->variables[i], actual, text, sizeof text, &type);
        } else if (r->span_short) {
            type = "span";
            snprintf(text, sizeof text, "%s covers %.9g .. %.9g s, not the compared %.9g .. %.9g s",
                     actual, r->act_start, r->act_stop, r->from, r->to);
            failure = text;
        }
        rc |= xmlTextWriterStartElement(w, BAD_CAST "testcase") < 0;
        rc |= put(w, "classname", classname) < 0;
        rc |= put(w, "name", name) < 0;
        if (failure) {
            rc |= xmlTextWriterStartElement(w, BAD_CAST "failure") < 0;
            rc |= put(w, "message", failure) < 0;
            rc |= put(w, "type", type) < 0;
            rc |= put(w, NULL, failure) < 0;
            rc |= xmlTextWriterEndElement(w) < 0;
        }
        rc |= xmlTextWriterEndElement(w) < 0; /* testcase */
    }
    rc |= xmlTextWriterEndDocument(w) < 0; /* (closes testsuite, testsuites) */
    xmlFreeTextWriter(w); /* (flushes the buffer into f and frees it; f stays open) */
    xmlSetStructuredErrorFunc(saved_context, saved_handler);
    if (ferror(f))
        rc = 1;
    if (fclose(f) != 0)
        rc = 1;
    if (rc)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: writing the JUnit report failed", path);
    return RTCOSIM_OK;
}
