/* Every XML reader of the library (modelDescription.xml, SSD, DCPX, ARXML)
 * on documents whose declared encoding their bytes break: libxml2 reports
 * such errors past the parser context to its global handler, which prints
 * "encoding error : input conversion failed due to input error, bytes ..."
 * and "I/O error : encoder error" on stderr (seen from `rtcosim info` of an
 * FMU before util/xml_read.c). Truth: stderr (fd 2, redirected to a file
 * around each parse) stays empty, the call fails with one line naming the
 * file and libxml2's own reason, and a later well-formed parse on the same
 * thread still succeeds (the handlers are restored). */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fmi/model_description.h"
#include "rtcosim/dbc.h"
#include "rtcosim/dcp.h"
#include "rtcosim/system.h"

/* The document: the encoding declared, then bytes no decoder of it takes. */
static size_t broken(const char *encoding, const char *root, char *buf, size_t size)
{
    int n = snprintf(buf, size, "<?xml version=\"1.0\" encoding=\"%s\"?>\n<%s a=\"\xff\xff\xff\xff\"/>\n",
                     encoding, root);
    assert_true(n > 0 && (size_t)n < size);
    return (size_t)n;
}

typedef enum reader { MODEL_DESCRIPTION, SSD, DCPX, ARXML } reader;
static const char *const roots[] = {"fmiModelDescription", "ssd:SystemStructureDescription",
                                    "dcpSlaveDescription", "AUTOSAR"};

static rtcosim_status parse(reader r, const char *xml, size_t size, rtcosim_error *err)
{
    rtcosim_status st;
    switch (r) {
    case MODEL_DESCRIPTION: {
        rtcosim_fmi_md *md = NULL;
        st = rtcosim_fmi_md_parse_with(xml, size, "modelDescription.xml", NULL, &md, err);
        rtcosim_fmi_md_free(md);
        return st;
    }
    case SSD: {
        rtcosim_system_desc *d = NULL;
        st = rtcosim_system_desc_parse(xml, size, ".", "s.ssd", &d, err);
        rtcosim_system_desc_free(d);
        return st;
    }
    case DCPX: {
        rtcosim_dcpx *d = NULL;
        st = rtcosim_dcpx_parse(xml, size, "s.dcpx", &d, err);
        rtcosim_dcpx_free(d);
        return st;
    }
    default: {
        rtcosim_dbc *d = NULL;
        st = rtcosim_dbc_parse_arxml(xml, size, "m.arxml", &d, err);
        rtcosim_dbc_free(d);
        return st;
    }
    }
}

/* What the parse wrote on fd 2. */
static void parse_quietly(reader r, const char *xml, size_t size, rtcosim_status *st,
                          rtcosim_error *err, char *said, size_t said_size)
{
    char path[] = "/tmp/rtcosim-xml-stderr-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stderr);
    int saved = dup(2);
    assert_true(saved >= 0 && dup2(fd, 2) == 2);
    *st = parse(r, xml, size, err);
    fflush(stderr);
    assert_int_equal(dup2(saved, 2), 2);
    close(saved);
    ssize_t n = pread(fd, said, said_size - 1, 0);
    said[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(path);
}

static void broken_encodings_are_one_line_errors_and_nothing_on_stderr(void **state)
{
    (void)state;
    static const char *const encodings[] = {"ISO-2022-JP", "UCS-4", "UTF-32", "EBCDIC-US"};
    static const char *const files[] = {"modelDescription.xml", "s.ssd", "s.dcpx", "m.arxml"};
    for (reader r = MODEL_DESCRIPTION; r <= ARXML; r++)
        for (size_t e = 0; e < sizeof encodings / sizeof encodings[0]; e++) {
            char xml[512], said[4096];
            size_t size = broken(encodings[e], roots[r], xml, sizeof xml);
            rtcosim_error err = {0};
            rtcosim_status st;
            parse_quietly(r, xml, size, &st, &err, said, sizeof said);
            if (said[0])
                fail_msg("%s, %s: printed \"%s\"", files[r], encodings[e], said);
            if (st != RTCOSIM_EFORMAT || strncmp(err.message, files[r], strlen(files[r])) != 0 ||
                !strstr(err.message, "XML") || strchr(err.message, '\n'))
                fail_msg("%s, %s: status %d, \"%s\"", files[r], encodings[e], st, err.message);
        }
    /* libxml2's reason is said: the bytes its decoder refused */
    char xml[512], said[4096];
    size_t size = broken("ISO-2022-JP", roots[MODEL_DESCRIPTION], xml, sizeof xml);
    rtcosim_error err = {0};
    rtcosim_status st;
    parse_quietly(MODEL_DESCRIPTION, xml, size, &st, &err, said, sizeof said);
    assert_string_equal(err.message, "modelDescription.xml: malformed XML (input conversion failed "
                                     "due to input error, bytes 0xFF 0xFF 0xFF 0xFF)");
    /* and the thread parses the next document as before */
    static const char good[] =
        "<fmiModelDescription fmiVersion=\"3.0\" modelName=\"M\" instantiationToken=\"t\">"
        "<CoSimulation modelIdentifier=\"m\"/><ModelVariables/><ModelStructure/>"
        "</fmiModelDescription>";
    parse_quietly(MODEL_DESCRIPTION, good, sizeof good - 1, &st, &err, said, sizeof said);
    assert_int_equal(st, RTCOSIM_OK);
    assert_string_equal(said, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(broken_encodings_are_one_line_errors_and_nothing_on_stderr),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
