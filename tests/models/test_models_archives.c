/* The .fmu archives the build makes: the layout FMI 2.0 section 2.3 / FMI 3.0
 * section 2.5 prescribes (modelDescription.xml at the top, the binary under
 * binaries/<platform>/<modelIdentifier>.so, nothing else), and a
 * modelDescription.xml that agrees with the binary: every declared variable
 * reads through the getter of its declared type, declared start values are
 * the values the binary starts with, ModelStructure lists exactly the
 * outputs. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <zip.h>

#include "fmu_driver.h"
#include "util/test_util.h"

/* FMI 3.0 section 2.5.1.4: <architecture>-<operating system>. */
#if defined(__x86_64__)
#define FMI3_PLATFORM "x86_64-linux"
#elif defined(__aarch64__)
#define FMI3_PLATFORM "aarch64-linux"
#else
#define FMI3_PLATFORM "x86-linux"
#endif

typedef struct archive {
    const char *fmu;
    fmu_target target;
    const char *identifier;
} archive;

#define ARCHIVE(NAME, v, id)                                                               \
    {RTCOSIM_FMU_##NAME##_FMI##v,                                                          \
     {v, RTCOSIM_FMU_##NAME##_FMI##v##_BINARY, RTCOSIM_FMU_##NAME##_FMI##v##_DIR}, id}

static const archive archives[] = {
    ARCHIVE(DAHLQUIST, 2, "Dahlquist"),       ARCHIVE(DAHLQUIST, 3, "Dahlquist"),
    ARCHIVE(BOUNCINGBALL, 2, "BouncingBall"), ARCHIVE(BOUNCINGBALL, 3, "BouncingBall"),
    ARCHIVE(FEEDTHROUGH, 2, "Feedthrough"),   ARCHIVE(FEEDTHROUGH, 3, "Feedthrough"),
    ARCHIVE(FAULTY, 2, "Faulty"),             ARCHIVE(FAULTY, 3, "Faulty"),
    ARCHIVE(DAHLQUISTNODOSTEP, 2, "DahlquistNoDoStep"),
    ARCHIVE(DAHLQUISTNODOSTEP, 3, "DahlquistNoDoStep"),
};
enum { ARCHIVES = sizeof archives / sizeof archives[0] };

static void assert_entry_equals_file(zip_t *z, const char *entry, const char *path)
{
    zip_stat_t st;
    assert_int_equal(zip_stat(z, entry, 0, &st), 0);
    size_t size;
    const char *expected = tu_read_file(path, &size);
    assert_int_equal(st.size, size);
    unsigned char *data = malloc(size + 1);
    zip_file_t *zf = zip_fopen(z, entry, 0);
    assert_non_null(zf);
    assert_int_equal(zip_fread(zf, data, size), (zip_int64_t)size);
    zip_fclose(zf);
    assert_memory_equal(data, expected, size);
    free(data);
}

static void archives_have_the_standard_layout(void **unused)
{
    (void)unused;
    for (size_t i = 0; i < ARCHIVES; i++) {
        const archive *a = &archives[i];
        int error = 0;
        zip_t *z = zip_open(a->fmu, ZIP_RDONLY, &error);
        assert_non_null(z);
        /* binaries/<platform>/<id>.so, the platform as FMI names it. */
        const char *platform = a->target.version == 2 ? "linux64" : FMI3_PLATFORM;
        char so[256];
        snprintf(so, sizeof so, "binaries/%s/%s.so", platform, a->identifier);
        const char *dir_suffix = a->target.binary + strlen(a->target.dir) + 1;
        assert_string_equal(dir_suffix, so);
        zip_int64_t n = zip_get_num_entries(z, 0);
        int files = 0;
        for (zip_int64_t k = 0; k < n; k++) {
            const char *name = zip_get_name(z, (zip_uint64_t)k, 0);
            size_t len = strlen(name);
            if (len > 0 && name[len - 1] == '/') { /* directory entries */
                assert_true(strcmp(name, "binaries/") == 0 ||
                            (strncmp(name, "binaries/", 9) == 0 &&
                             strncmp(name + 9, platform, strlen(platform)) == 0));
                continue;
            }
            assert_true(strcmp(name, "modelDescription.xml") == 0 || strcmp(name, so) == 0);
            files++;
        }
        assert_int_equal(files, 2);
        char xml[1024];
        snprintf(xml, sizeof xml, "%s/modelDescription.xml", a->target.dir);
        assert_entry_equals_file(z, "modelDescription.xml", xml);
        assert_entry_equals_file(z, so, a->target.binary);
        zip_close(z);
    }
}

static xmlNodePtr child(xmlNodePtr parent, const char *name)
{
    for (xmlNodePtr c = parent->children; c; c = c->next)
        if (c->type == XML_ELEMENT_NODE && strcmp((const char *)c->name, name) == 0)
            return c;
    return NULL;
}

/* Attribute value as a string into buf ("" when absent). */
static const char *prop(xmlNodePtr node, const char *name, char *buf, size_t size)
{
    xmlChar *v = xmlGetProp(node, (const xmlChar *)name);
    snprintf(buf, size, "%s", v ? (const char *)v : "");
    xmlFree(v);
    return buf;
}

/* Reads vr with the getter of the declared type; checks the start value. */
static void check_variable(fmu *f, const char *type, xmlNodePtr var, xmlNodePtr typed)
{
    char buf[256], start[256], name[128];
    prop(var, "name", name, sizeof name);
    const uint32_t vr = (uint32_t)strtoul(prop(var, "valueReference", buf, sizeof buf), NULL, 10);
    prop(typed, "start", start, sizeof start);
    xmlNodePtr start_element = child(typed, "Start");
    if (start_element)
        prop(start_element, "value", start, sizeof start);
    const bool has_start = xmlHasProp(typed, (const xmlChar *)"start") || start_element;
    int status = -1;
    if (!strcmp(type, "Real") || !strcmp(type, "Float64")) {
        double v;
        status = fmu_get_real(f, vr, &v);
        if (has_start)
            assert_true(v == strtod(start, NULL));
    } else if (!strcmp(type, "Integer") || !strcmp(type, "Int32")) {
        int32_t v;
        status = fmu_get_int32(f, vr, &v);
        if (has_start)
            assert_int_equal(v, strtol(start, NULL, 10));
    } else if (!strcmp(type, "Boolean")) {
        bool v;
        status = fmu_get_bool(f, vr, &v);
        if (has_start)
            assert_true(v == (strcmp(start, "true") == 0));
    } else if (!strcmp(type, "String")) {
        const char *v = NULL;
        status = fmu_get_string(f, vr, &v);
        if (has_start)
            assert_string_equal(v, start);
    } else if (!strcmp(type, "Float32")) {
        float v;
        status = f->f3.fmi3GetFloat32(f->instance, &vr, 1, &v, 1);
    } else if (!strcmp(type, "Int8") || !strcmp(type, "UInt8")) {
        uint8_t v;
        status = type[0] == 'I' ? f->f3.fmi3GetInt8(f->instance, &vr, 1, (int8_t *)&v, 1)
                                : f->f3.fmi3GetUInt8(f->instance, &vr, 1, &v, 1);
    } else if (!strcmp(type, "Int16") || !strcmp(type, "UInt16")) {
        uint16_t v;
        status = type[0] == 'I' ? f->f3.fmi3GetInt16(f->instance, &vr, 1, (int16_t *)&v, 1)
                                : f->f3.fmi3GetUInt16(f->instance, &vr, 1, &v, 1);
    } else if (!strcmp(type, "UInt32")) {
        uint32_t v;
        status = f->f3.fmi3GetUInt32(f->instance, &vr, 1, &v, 1);
    } else if (!strcmp(type, "Int64") || !strcmp(type, "UInt64")) {
        uint64_t v;
        status = type[0] == 'I' ? f->f3.fmi3GetInt64(f->instance, &vr, 1, (int64_t *)&v, 1)
                                : f->f3.fmi3GetUInt64(f->instance, &vr, 1, &v, 1);
    } else if (!strcmp(type, "Binary")) {
        size_t size;
        fmi3Binary v;
        status = f->f3.fmi3GetBinary(f->instance, &vr, 1, &size, &v, 1);
        if (has_start)
            assert_int_equal(size, strlen(start) / 2);
    }
    if (status != 0)
        fail_msg("%s: variable %s (%s, vr %u) does not read as declared", f->token, name, type,
                 (unsigned)vr);
}

static void model_description_agrees_with_the_binary(void **unused)
{
    (void)unused;
    for (size_t i = 0; i < ARCHIVES; i++) {
        const archive *a = &archives[i];
        const int v = a->target.version;
        char path[1024], buf[256];
        snprintf(path, sizeof path, "%s/modelDescription.xml", a->target.dir);
        xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
        assert_non_null(doc);
        xmlNodePtr root = xmlDocGetRootElement(doc);
        assert_string_equal((const char *)root->name, "fmiModelDescription");
        assert_string_equal(prop(root, "fmiVersion", buf, sizeof buf), v == 2 ? "2.0" : "3.0");
        xmlNodePtr cs = child(root, "CoSimulation");
        assert_non_null(cs);
        assert_string_equal(prop(cs, "modelIdentifier", buf, sizeof buf), a->identifier);
        assert_string_equal(
            prop(cs, v == 2 ? "canGetAndSetFMUstate" : "canGetAndSetFMUState", buf, sizeof buf),
            "true");
        /* Model exchange: exactly the models that declare it (Dahlquist and
         * its variants, BouncingBall), from the same binary. */
        xmlNodePtr me = child(root, "ModelExchange");
        const bool declares_me = strncmp(a->identifier, "Dahlquist", 9) == 0 ||
                                 strcmp(a->identifier, "BouncingBall") == 0;
        assert_int_equal(me != NULL, declares_me);
        if (me)
            assert_string_equal(prop(me, "modelIdentifier", buf, sizeof buf), a->identifier);

        fmu f;
        assert_true(fmu_open(&f, &a->target)); /* token from this XML */
        assert_true(fmu_instantiate(&f));
        assert_int_equal(fmu_enter_init(&f, 0.0, false, 0.0), 0);
        xmlNodePtr vars = child(root, "ModelVariables");
        assert_non_null(vars);
        int outputs = 0, index = 0;
        for (xmlNodePtr var = vars->children; var; var = var->next) {
            if (var->type != XML_ELEMENT_NODE)
                continue;
            index++;
            xmlNodePtr typed = var;
            if (v == 2) {
                assert_string_equal((const char *)var->name, "ScalarVariable");
                for (typed = var->children; typed->type != XML_ELEMENT_NODE; typed = typed->next)
                    ;
            }
            check_variable(&f, (const char *)typed->name, var, typed);
            if (!strcmp(prop(var, "causality", buf, sizeof buf), "output"))
                outputs++;
        }
        /* ModelStructure lists every output once, nothing else. */
        xmlNodePtr structure = child(root, "ModelStructure");
        assert_non_null(structure);
        int listed = 0;
        xmlNodePtr list = v == 2 ? child(structure, "Outputs") : structure;
        for (xmlNodePtr u = list ? list->children : NULL; u; u = u->next) {
            if (u->type != XML_ELEMENT_NODE || strcmp((const char *)u->name, v == 2 ? "Unknown" : "Output"))
                continue;
            listed++;
            /* Find the variable it names and check it is an output. */
            long key = strtol(prop(u, v == 2 ? "index" : "valueReference", buf, sizeof buf), NULL, 10);
            int k = 0;
            xmlNodePtr var = vars->children;
            for (; var; var = var->next) {
                if (var->type != XML_ELEMENT_NODE)
                    continue;
                k++;
                if (v == 2 ? k == key : strtol(prop(var, "valueReference", buf, sizeof buf), NULL, 10) == key)
                    break;
            }
            assert_non_null(var);
            assert_string_equal(prop(var, "causality", buf, sizeof buf), "output");
        }
        assert_int_equal(listed, outputs);
        assert_true(outputs > 0);
        fmu_close(&f);
        xmlFreeDoc(doc);
    }
}

static void default_experiments_are_as_documented(void **unused)
{
    (void)unused;
    const struct {
        const char *dir;
        double stop, step;
    } cases[] = {{RTCOSIM_FMU_DAHLQUIST_FMI2_DIR, 10.0, 1e-4},
                 {RTCOSIM_FMU_DAHLQUIST_FMI3_DIR, 10.0, 1e-4},
                 {RTCOSIM_FMU_BOUNCINGBALL_FMI2_DIR, 3.0, 0.01},
                 {RTCOSIM_FMU_BOUNCINGBALL_FMI3_DIR, 3.0, 0.01}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[1024], buf[64];
        snprintf(path, sizeof path, "%s/modelDescription.xml", cases[i].dir);
        xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
        assert_non_null(doc);
        xmlNodePtr de = child(xmlDocGetRootElement(doc), "DefaultExperiment");
        assert_non_null(de);
        assert_true(strtod(prop(de, "startTime", buf, sizeof buf), NULL) == 0.0);
        assert_true(strtod(prop(de, "stopTime", buf, sizeof buf), NULL) == cases[i].stop);
        assert_true(strtod(prop(de, "stepSize", buf, sizeof buf), NULL) == cases[i].step);
        xmlFreeDoc(doc);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(archives_have_the_standard_layout),
        cmocka_unit_test(model_description_agrees_with_the_binary),
        cmocka_unit_test(default_experiments_are_as_documented),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    xmlCleanupParser();
    return failed;
}
