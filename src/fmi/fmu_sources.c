/* A source-code FMU's binary, built where it has none for this platform:
 * FMI 3.0 section 2.5.1.5 (sources/buildDescription.xml: per
 * BuildConfiguration of the model identifier, SourceFileSets with their
 * language, preprocessor definitions and include directories, and the
 * libraries to link) and FMI 2.0 section 2.3 (the SourceFiles of the
 * interface's element in modelDescription.xml). The importer provides the
 * FMI headers: fmi2Functions.h / fmi3Functions.h and the headers they
 * include, written here from rtcosim's own declarations (src/fmi/api),
 * with the standard's FMI2/FMI3_FUNCTION_PREFIX renaming. Each source file
 * is compiled on its own ($CC, default cc; $CFLAGS added), then linked into
 * binaries/<platform>/<modelIdentifier>.so of the extraction directory (an
 * unpacked FMU given as a directory is not written to: a directory of our
 * own, removed with the FMU). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libxml/tree.h>

#include "archive/archive.h"
#include "fmi/fmu_internal.h"
#include "rtcosim/log.h"
#include "util/xml_read.h"

extern char **environ;

extern const unsigned char rtcosim_fmi2_api_h[], rtcosim_fmi3_api_h[];
extern const size_t rtcosim_fmi2_api_h_size, rtcosim_fmi3_api_h_size;

#define MAX_FILES 512
#define MAX_ARGS 2048

/* What one compile of a source file takes (a SourceFileSet's). */
typedef struct source_set {
    bool cxx;
    char std[16]; /* -std=gnu99 ... */
    size_t first_file, file_count;
    size_t first_flag, flag_count; /* -D, -I of the set */
} source_set;

typedef struct build_spec {
    source_set sets[32];
    size_t set_count;
    char *files[MAX_FILES]; /* absolute paths */
    size_t file_count;
    char *flags[MAX_FILES];
    size_t flag_count;
    char *libs[64]; /* -lNAME */
    size_t lib_count;
} build_spec;

static void spec_free(build_spec *s)
{
    for (size_t i = 0; i < s->file_count; i++)
        free(s->files[i]);
    for (size_t i = 0; i < s->flag_count; i++)
        free(s->flags[i]);
    for (size_t i = 0; i < s->lib_count; i++)
        free(s->libs[i]);
}

/* A path inside sources/: relative, without a ".." component. */
static bool inside(const char *name)
{
    if (!name[0] || name[0] == '/' || strchr(name, '\\'))
        return false;
    for (const char *p = name; p; p = strchr(p, '/') ? strchr(p, '/') + 1 : NULL)
        if (strncmp(p, "..", 2) == 0 && (p[2] == '/' || p[2] == '\0'))
            return false;
    return true;
}

static bool identifier(const char *s)
{
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
        return false;
    for (s++; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return false;
    return true;
}

static char *prop(xmlNode *n, const char *name)
{
    xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
    char *copy = v ? strdup((const char *)v) : NULL;
    xmlFree(v);
    return copy;
}

static bool named(const xmlNode *n, const char *name)
{
    return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

typedef struct ctx {
    const char *dir, *id, *label; /* the unpacked FMU, its modelIdentifier, its name in messages */
    const char *no_binary; /* "no binary for this platform (..): expected ..; it holds .." */
    bool model_exchange;
    const char *file; /* the description read: "sources/buildDescription.xml" */
    rtcosim_error *err;
} ctx;

static rtcosim_status bad(const ctx *c, const char *what, const char *value)
{
    return rtcosim_error_set(c->err, RTCOSIM_EFORMAT, "%s: %s: %s '%.80s'", c->label,
                             c->file, what, value ? value : "");
}

static rtcosim_status add_file(const ctx *c, build_spec *s, const char *name)
{
    if (!name || !inside(name))
        return bad(c, "a source file outside sources/", name);
    if (s->file_count == MAX_FILES)
        return bad(c, "more source files than rtcosim builds", name);
    char *path = rtcosim_fmu_join(c->dir, "/sources/", name, "");
    if (!path)
        return rtcosim_error_set(c->err, RTCOSIM_ENOMEM, "%s: out of memory", c->label);
    if (access(path, R_OK) != 0) {
        free(path);
        return bad(c, "a source file the archive does not hold", name);
    }
    s->files[s->file_count++] = path;
    return RTCOSIM_OK;
}

/* -DNAME[=VALUE] or -I<dir>/sources/NAME: a + b + c + d */
static rtcosim_status add_flag(const ctx *c, build_spec *s, const char *a, const char *b,
                               const char *cc, const char *d)
{
    if (s->flag_count == MAX_FILES)
        return bad(c, "more definitions than rtcosim builds with", b);
    if (!(s->flags[s->flag_count] = rtcosim_fmu_join(a, b, cc, d)))
        return rtcosim_error_set(c->err, RTCOSIM_ENOMEM, "%s: out of memory", c->label);
    s->flag_count++;
    return RTCOSIM_OK;
}

/* language="C99", "C++11", ...: the compiler and its -std (GNU dialects:
 * sources use POSIX functions such as strdup). */
static rtcosim_status language(const ctx *c, source_set *set, const char *lang)
{
    set->cxx = lang && strncmp(lang, "C++", 3) == 0;
    const char *year = !lang ? "99" : set->cxx ? lang + 3 : lang + 1;
    if (lang && lang[0] != 'C')
        return bad(c, "a SourceFileSet language rtcosim does not build", lang);
    if (strcmp(year, "90") == 0)
        year = "89";
    if (strcmp(year, "18") == 0)
        year = "17";
    static const char *const c_years[] = {"89", "99", "11", "17", "23", NULL};
    static const char *const cxx_years[] = {"98", "03", "11", "14", "17", "20", "23", NULL};
    bool known = false;
    for (const char *const *y = set->cxx ? cxx_years : c_years; *y && !known; y++)
        known = strcmp(*y, year) == 0;
    if (!known)
        return bad(c, "a SourceFileSet language rtcosim does not build", lang);
    snprintf(set->std, sizeof set->std, "-std=gnu%s%s", set->cxx ? "++" : "", year);
    return RTCOSIM_OK;
}

static rtcosim_status read_set(const ctx *c, build_spec *s, xmlNode *fs)
{
    if (s->set_count == sizeof s->sets / sizeof s->sets[0])
        return bad(c, "more SourceFileSets than rtcosim builds", "");
    source_set *set = &s->sets[s->set_count++];
    char *lang = prop(fs, "language"), *compiler = prop(fs, "compiler"),
         *options = prop(fs, "compilerOptions");
    rtcosim_status st = language(c, set, lang);
    if (st == RTCOSIM_OK && options && options[0])
        rtcosim_log(RTCOSIM_LOG_WARNING, "fmi",
                    "%s: %s: compilerOptions '%.80s' (for %s) left out: rtcosim builds with its "
                    "own compiler's options and $CFLAGS",
                    c->label, c->file, options, compiler ? compiler : "its compiler");
    free(lang), free(compiler), free(options);
    set->first_file = s->file_count;
    set->first_flag = s->flag_count;
    for (xmlNode *n = fs->children; n && st == RTCOSIM_OK; n = n->next) {
        char *name = named(n, "SourceFile") || named(n, "PreprocessorDefinition") ||
                             named(n, "IncludeDirectory")
                         ? prop(n, "name") : NULL;
        if (named(n, "SourceFile")) {
            st = add_file(c, s, name);
        } else if (named(n, "PreprocessorDefinition")) {
            char *value = prop(n, "value");
            if (!name || !identifier(name))
                st = bad(c, "a PreprocessorDefinition whose name is no identifier", name);
            else if (value && strpbrk(value, "\r\n"))
                st = bad(c, "a PreprocessorDefinition value with a line break", name);
            else
                st = add_flag(c, s, "-D", name, value ? "=" : "", value ? value : "");
            free(value);
        } else if (named(n, "IncludeDirectory")) {
            if (!name || !inside(name))
                st = bad(c, "an IncludeDirectory outside sources/", name);
            else
                st = add_flag(c, s, "-I", c->dir, "/sources/", name);
        }
        free(name);
    }
    set->file_count = s->file_count - set->first_file;
    set->flag_count = s->flag_count - set->first_flag;
    return st;
}

/* Library name="m" ...: linked as -lNAME (a name that is one word). */
static rtcosim_status read_library(const ctx *c, build_spec *s, xmlNode *n)
{
    char *name = prop(n, "name");
    rtcosim_status st = RTCOSIM_OK;
    bool word = name && name[0] && name[0] != '-';
    for (const char *p = name; word && *p; p++)
        word = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
               (*p >= '0' && *p <= '9') || strchr("_.+-", *p);
    if (!word)
        st = bad(c, "a Library whose name is not one word", name);
    else if (s->lib_count == sizeof s->libs / sizeof s->libs[0])
        st = bad(c, "more Libraries than rtcosim links", name);
    else if (!(s->libs[s->lib_count] = rtcosim_fmu_join("-l", name, "", "")))
        st = rtcosim_error_set(c->err, RTCOSIM_ENOMEM, "%s: out of memory", c->label);
    else
        s->lib_count++;
    free(name);
    return st;
}

/* c->file (relative to the unpacked FMU) parsed, or NULL and *st the error. */
static xmlDoc *read_xml(const ctx *c, rtcosim_status *st)
{
    char *path = rtcosim_fmu_join(c->dir, "/", c->file, "");
    if (!path) {
        *st = rtcosim_error_set(c->err, RTCOSIM_ENOMEM, "%s: out of memory", c->label);
        return NULL;
    }
    char *text = NULL;
    size_t size = 0;
    *st = rtcosim_fmi_read_file(path, RTCOSIM_FMI_MD_MAX_SIZE, &text, &size, c->err);
    free(path);
    if (*st == RTCOSIM_ENOTFOUND)
        *st = rtcosim_error_set(c->err, RTCOSIM_EUNSUPPORTED,
                                "%s: %s, and no %s to build one from", c->label, c->no_binary,
                                c->file);
    if (*st != RTCOSIM_OK)
        return NULL;
    char label[1024];
    snprintf(label, sizeof label, "%s: %s", c->label, c->file);
    xmlDoc *doc = NULL;
    *st = util_xml_parse(text, size, label, "not well-formed XML", &doc, c->err);
    free(text);
    return doc;
}

/* FMI 3.0: the BuildConfiguration of the model identifier (and of this
 * platform, where one names it). */
static rtcosim_status read_fmi3(const ctx *c, build_spec *s, const char *platform)
{
    rtcosim_status st;
    xmlDoc *doc = read_xml(c, &st);
    if (!doc)
        return st;
    xmlNode *root = xmlDocGetRootElement(doc), *config = NULL;
    if (!named(root, "fmiBuildDescription"))
        st = bad(c, "the root element is not fmiBuildDescription but", (const char *)root->name);
    for (xmlNode *n = root->children; n && st == RTCOSIM_OK && !config; n = n->next) {
        if (!named(n, "BuildConfiguration"))
            continue;
        char *id = prop(n, "modelIdentifier"), *pf = prop(n, "platform");
        if (id && strcmp(id, c->id) == 0 && (!pf || strcmp(pf, platform) == 0))
            config = n;
        free(id), free(pf);
    }
    if (st == RTCOSIM_OK && !config)
        st = bad(c, "no BuildConfiguration for the modelIdentifier", c->id);
    for (xmlNode *n = config ? config->children : NULL; n && st == RTCOSIM_OK; n = n->next) {
        if (named(n, "SourceFileSet"))
            st = read_set(c, s, n);
        else if (named(n, "Library"))
            st = read_library(c, s, n);
    }
    if (st == RTCOSIM_OK && s->file_count == 0)
        st = bad(c, "no SourceFile in the BuildConfiguration of", c->id);
    xmlFreeDoc(doc);
    return st;
}

/* FMI 2.0: <SourceFiles><File name=.../> in the element of the interface
 * loaded (CoSimulation or ModelExchange), as C99. */
static rtcosim_status read_fmi2(const ctx *c, build_spec *s)
{
    rtcosim_status st;
    xmlDoc *doc = read_xml(c, &st);
    if (!doc)
        return st;
    const char *element = c->model_exchange ? "ModelExchange" : "CoSimulation";
    source_set *set = &s->sets[s->set_count++];
    st = language(c, set, "C99");
    for (xmlNode *n = xmlDocGetRootElement(doc)->children; n && st == RTCOSIM_OK; n = n->next) {
        char *id = named(n, element) ? prop(n, "modelIdentifier") : NULL;
        bool ours = id && strcmp(id, c->id) == 0;
        free(id);
        for (xmlNode *k = ours ? n->children : NULL; k && st == RTCOSIM_OK; k = k->next)
            for (xmlNode *file = named(k, "SourceFiles") ? k->children : NULL;
                 file && st == RTCOSIM_OK; file = file->next)
                if (named(file, "File")) {
                    char *name = prop(file, "name");
                    st = add_file(c, s, name);
                    free(name);
                }
    }
    set->file_count = s->file_count;
    if (st == RTCOSIM_OK && s->file_count == 0)
        st = rtcosim_error_set(c->err, RTCOSIM_EUNSUPPORTED,
                               "%s: %s, and no SourceFiles in its %s to build one from",
                               c->label, c->no_binary, c->file);
    xmlFreeDoc(doc);
    return st;
}

static rtcosim_status write_file(const rtcosim_fmu *f, const char *dir, const char *name,
                                 const char *text, size_t size, rtcosim_error *err)
{
    char *path = rtcosim_fmu_join(dir, "/", name, "");
    FILE *out = path ? fopen(path, "w") : NULL;
    bool ok = out && fwrite(text, 1, size, out) == size;
    ok = out && fclose(out) == 0 && ok;
    rtcosim_status st = ok ? RTCOSIM_OK
                           : rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot write %s: %s",
                                               f->archive_path, path ? path : name, strerror(errno));
    free(path);
    return st;
}

#define NAME_(name) #name,
static const char *const fmi3_names[] = {
    RTCOSIM_FMI3_COMMON_FUNCTIONS(NAME_) RTCOSIM_FMI3_ME_FUNCTIONS(NAME_)
        RTCOSIM_FMI3_CS_FUNCTIONS(NAME_) RTCOSIM_FMI3_SE_FUNCTIONS(NAME_) NULL};
static const char *const fmi2_names[] = {
    RTCOSIM_FMI2_COMMON_FUNCTIONS(NAME_) RTCOSIM_FMI2_ME_FUNCTIONS(NAME_)
        RTCOSIM_FMI2_CS_FUNCTIONS(NAME_) NULL};
#undef NAME_

/* The headers a source-code FMU includes: fmiNFunctions.h declares every
 * function with FMIN_Export under the name fmiNFullName gives it (the
 * FMIN_FUNCTION_PREFIX the sources may define, pasted in front); the types
 * headers are rtcosim's declarations (with <stdlib.h>, which the standard's
 * headers bring and sources rely on). */
static rtcosim_status write_headers(const rtcosim_fmu *f, const char *dir, rtcosim_error *err)
{
    const bool v3 = f->md->version == RTCOSIM_FMI_3;
    const char n = v3 ? '3' : '2';
    char api[32], text[65536];
    snprintf(api, sizeof api, "rtcosim_fmi%c_api.h", n);
    rtcosim_status st = write_file(f, dir, api, (const char *)(v3 ? rtcosim_fmi3_api_h
                                                                    : rtcosim_fmi2_api_h),
                                   v3 ? rtcosim_fmi3_api_h_size : rtcosim_fmi2_api_h_size, err);
    const char *const types[] = {v3 ? "fmi3PlatformTypes.h" : "fmi2TypesPlatform.h",
                                 v3 ? "fmi3FunctionTypes.h" : "fmi2FunctionTypes.h"};
    int len = snprintf(text, sizeof text,
                       "/* Written by rtcosim for a source-code FMU's build. */\n"
                       "#include <stdlib.h>\n#include \"%s\"\n", api);
    for (int i = 0; i < 2 && st == RTCOSIM_OK; i++)
        st = write_file(f, dir, types[i], text, (size_t)len, err);
    len = snprintf(text, sizeof text,
                   "/* Written by rtcosim for a source-code FMU's build. */\n"
                   "#ifndef RTCOSIM_SOURCE_FMI%c_FUNCTIONS_H\n#define RTCOSIM_SOURCE_FMI%c_FUNCTIONS_H\n"
                   "#include <stdlib.h>\n#include \"%s\"\n"
                   "#ifndef FMI%c_Export\n#define FMI%c_Export __attribute__((visibility(\"default\")))\n"
                   "#endif\n#ifdef FMI%c_FUNCTION_PREFIX\n#define fmi%cPaste(a, b) a##b\n"
                   "#define fmi%cPasteB(a, b) fmi%cPaste(a, b)\n"
                   "#define fmi%cFullName(name) fmi%cPasteB(FMI%c_FUNCTION_PREFIX, name)\n#else\n"
                   "#define fmi%cFullName(name) name\n#endif\n",
                   n, n, api, n, n, n, n, n, n, n, n, n, n);
    for (const char *const *name = v3 ? fmi3_names : fmi2_names; *name; name++)
        len += snprintf(text + len, sizeof text - (size_t)len, "#define %s fmi%cFullName(%s)\n",
                        *name, n, *name);
    for (const char *const *name = v3 ? fmi3_names : fmi2_names; *name; name++)
        len += snprintf(text + len, sizeof text - (size_t)len, "FMI%c_Export %sTYPE %s;\n", n,
                        *name, *name);
    len += snprintf(text + len, sizeof text - (size_t)len, "#endif\n");
    if (st == RTCOSIM_OK)
        st = write_file(f, dir, v3 ? "fmi3Functions.h" : "fmi2Functions.h", text, (size_t)len,
                        err);
    return st;
}

/* Splits $VAR's words onto argv (no quoting: words separated by blanks). */
static size_t env_words(const char *var, const char *fallback, char *copy, size_t size,
                        char **argv, size_t at, size_t max)
{
    const char *v = getenv(var);
    snprintf(copy, size, "%s", v && v[strspn(v, " \t")] ? v : fallback);
    for (char *save = NULL, *w = strtok_r(copy, " \t", &save); w && at < max;
         w = strtok_r(NULL, " \t", &save))
        argv[at++] = w;
    return at;
}

/* Seconds a compile or the link may take ($RTCOSIM_BUILD_TIMEOUT, default
 * 600): sources can make a compiler run without end (an #include of
 * /dev/zero), and a load must not hang on them. */
static double build_timeout(void)
{
    const char *v = getenv("RTCOSIM_BUILD_TIMEOUT");
    char *end = NULL;
    double s = v ? strtod(v, &end) : 0;
    return v && end != v && *end == '\0' && s > 0 && s < 1e6 ? s : 600;
}

#define RUN_TIMED_OUT -2

/* Starts argv (argv[0] looked up in PATH) with its output to `log`: 0, or
 * the errno of a start that failed. */
static int spawn_logged(char **argv, const char *log, pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    int e = posix_spawnp(pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    return e;
}

/* Waits for pid, started at *start: its exit status, -1 (errno set), or
 * RUN_TIMED_OUT past build_timeout() from *start (then killed). Polled every
 * 5 ms, so that it can be given up. */
static int wait_logged(pid_t pid, const struct timespec *start)
{
    struct timespec now, nap = {0, 5000000};
    const double limit = build_timeout();
    int status = 0;
    for (;;) {
        pid_t got = waitpid(pid, &status, WNOHANG);
        if (got == pid)
            break;
        if (got < 0 && errno != EINTR)
            return -1;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if ((double)(now.tv_sec - start->tv_sec) + 1e-9 * (double)(now.tv_nsec - start->tv_nsec) >
            limit) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
            return RUN_TIMED_OUT;
        }
        nanosleep(&nap, NULL);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* spawn_logged and wait_logged: the exit status, -1 when it could not run
 * (errno set), RUN_TIMED_OUT. */
static int run(char **argv, const char *log)
{
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    pid_t pid;
    int e = spawn_logged(argv, log, &pid);
    if (e != 0) {
        errno = e;
        return -1;
    }
    return wait_logged(pid, &start);
}

/* How telling a compiler line is for the one-line message: an undefined
 * reference or an error at a place in a file before the driver's summary
 * ("collect2: error: ld returned 1"), before any other line. */
static int telling(const char *line)
{
    if (strstr(line, "undefined reference") || strstr(line, "undefined symbol"))
        return 3;
    if (strstr(line, "error") && strncmp(line, "collect2", 8) != 0)
        return 2;
    return strstr(line, "error") ? 1 : 0;
}

/* The compiler's output at info level, and its most telling line (the
 * first of its kind) for the one-line message. */
static void compiler_output(const char *log, char *first, size_t size)
{
    first[0] = '\0';
    FILE *in = fopen(log, "r");
    char line[512];
    int best = -1;
    for (int shown = 0; in && fgets(line, sizeof line, in);) {
        line[strcspn(line, "\n")] = '\0';
        if (shown++ < 200)
            rtcosim_log(RTCOSIM_LOG_INFO, "fmi", "compiler: %s", line);
        int score = telling(line);
        if (score > best) {
            size_t n = strlen(line) < size ? strlen(line) : size - 1;
            memcpy(first, line, n);
            first[n] = '\0';
            best = score;
        }
    }
    if (in)
        fclose(in);
}

/* Why a compile or the link failed, for the one-line message: rc as run()
 * returns it (e: its errno), cmd the compiler, log its output. */
static void why_failed(int rc, int e, const char *cmd, const char *log, char *first, size_t size)
{
    if (rc == RUN_TIMED_OUT)
        snprintf(first, size, "'%s' did not finish within %g s ($RTCOSIM_BUILD_TIMEOUT) and was "
                 "stopped", cmd, build_timeout());
    else if (rc < 0)
        snprintf(first, size, "cannot run '%s': %s", cmd, strerror(e));
    else if (log)
        compiler_output(log, first, size);
    else
        snprintf(first, size, "out of memory");
}

/* The build's directories and files (fmu_sources.c's build function). */
typedef struct build_paths {
    const char *work, *obj, *log, *tmp_out, *out;
} build_paths;

/* One compile per file, with its set's language and definitions; then the
 * link into p->tmp_out, renamed to p->out. *any_cxx: a C++ set. */
static rtcosim_status compile_and_link(const rtcosim_fmu *f, const build_spec *spec,
                                       const build_paths *p, bool *any_cxx, rtcosim_error *err)
{
    rtcosim_status st = RTCOSIM_OK;
    char cc[512], cxx[512], cflags[2048], include[4096], objects[MAX_FILES][32];
    char *argv[MAX_ARGS];
    snprintf(include, sizeof include, "-I%s", p->work);
    char sources_include[4096];
    snprintf(sources_include, sizeof sources_include, "-I%s/sources", f->dir);
    /* the files compiled side by side, as many at once as there are CPUs
     * (at most 8), each with a log of its own; after a failure nothing more
     * starts, and the first failing file (in the description's order) is
     * reported */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t slots = cpus < 1 ? 1 : cpus > 8 ? 8 : (size_t)cpus;
    struct {
        pid_t pid;
        size_t file;
        struct timespec start;
    } jobs[8];
    size_t running = 0, failed = SIZE_MAX;
    int failed_rc = 0, failed_errno = 0;
    char logs[MAX_FILES][32];
    for (size_t k = 0; k < spec->set_count; k++)
        *any_cxx |= spec->sets[k].cxx;
    for (size_t k = 0, i = 0; k <= spec->set_count && (running || k < spec->set_count);) {
        const source_set *set = k < spec->set_count ? &spec->sets[k] : NULL;
        if (set && i >= set->first_file + set->file_count) { /* the next set */
            k++;
            i = k < spec->set_count ? spec->sets[k].first_file : 0;
            continue;
        }
        if (set && i < set->first_file)
            i = set->first_file;
        bool start_one = set && failed == SIZE_MAX && running < slots;
        if (!start_one) { /* wait for the oldest */
            if (!running)
                break;
            int rc = wait_logged(jobs[0].pid, &jobs[0].start);
            int e = errno;
            if (rc != 0 && jobs[0].file < failed)
                failed = jobs[0].file, failed_rc = rc, failed_errno = e;
            memmove(&jobs[0], &jobs[1], --running * sizeof jobs[0]);
            if (failed != SIZE_MAX && !running)
                break;
            continue;
        }
        size_t a = set->cxx ? env_words("CXX", "c++", cxx, sizeof cxx, argv, 0, MAX_ARGS)
                            : env_words("CC", "cc", cc, sizeof cc, argv, 0, MAX_ARGS);
        argv[a++] = (char *)"-c";
        argv[a++] = (char *)"-fPIC";
        argv[a++] = (char *)"-O2";
        argv[a++] = (char *)set->std;
        argv[a++] = sources_include; /* (an FMU's own FMI headers first) */
        argv[a++] = include;
        for (size_t j = set->first_flag; j < set->first_flag + set->flag_count; j++)
            argv[a++] = spec->flags[j];
        a = env_words(set->cxx ? "CXXFLAGS" : "CFLAGS", "", cflags, sizeof cflags, argv, a,
                      MAX_ARGS - 4);
        argv[a++] = spec->files[i];
        argv[a++] = (char *)"-o";
        snprintf(objects[i], sizeof objects[i], "%zu.o", i);
        snprintf(logs[i], sizeof logs[i], "%zu.log", i);
        char *o = rtcosim_fmu_join(p->obj, "/", objects[i], "");
        char *log = rtcosim_fmu_join(p->obj, "/", logs[i], "");
        argv[a++] = o;
        argv[a] = NULL;
        clock_gettime(CLOCK_MONOTONIC, &jobs[running].start);
        int e = o && log ? spawn_logged(argv, log, &jobs[running].pid) : ENOMEM;
        free(o);
        free(log);
        if (e == 0)
            jobs[running++].file = i;
        else if (i < failed)
            failed = i, failed_rc = -1, failed_errno = e;
        i++;
    }
    if (failed != SIZE_MAX) {
        char first[400], cmd[512], *words[2] = {(char *)"cc", NULL};
        const source_set *set = &spec->sets[0];
        for (size_t k = 0; k < spec->set_count; k++)
            if (failed >= spec->sets[k].first_file &&
                failed < spec->sets[k].first_file + spec->sets[k].file_count)
                set = &spec->sets[k];
        env_words(set->cxx ? "CXX" : "CC", set->cxx ? "c++" : "cc", cmd, sizeof cmd, words, 0, 1);
        char *log = rtcosim_fmu_join(p->obj, "/", logs[failed], "");
        why_failed(failed_rc, failed_errno, words[0], log, first, sizeof first);
        free(log);
        st = rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                               "%s: no binary for this platform; building it from its "
                               "sources failed at %s: %s (--log-level info shows the "
                               "compiler's output; $CC, $CFLAGS choose compiler and flags)",
                               f->archive_path, spec->files[failed] + strlen(f->dir) + 1, first);
    }
    if (st != RTCOSIM_OK)
        return st;
    size_t a = *any_cxx ? env_words("CXX", "c++", cxx, sizeof cxx, argv, 0, MAX_ARGS)
                        : env_words("CC", "cc", cc, sizeof cc, argv, 0, MAX_ARGS);
    argv[a++] = (char *)"-shared";
    argv[a++] = (char *)"-Wl,-z,defs"; /* what the sources lack, named now, not at dlopen */
    char *paths[MAX_FILES] = {0};
    for (size_t i = 0; i < spec->file_count && a < MAX_ARGS - 80; i++)
        argv[a++] = paths[i] = rtcosim_fmu_join(p->obj, "/", objects[i], "");
    for (size_t i = 0; i < spec->lib_count; i++)
        argv[a++] = spec->libs[i];
    argv[a++] = (char *)"-lm";
    argv[a++] = (char *)"-o";
    argv[a++] = (char *)p->tmp_out;
    argv[a] = NULL;
    int rc = run(argv, p->log), e = errno;
    for (size_t i = 0; i < spec->file_count; i++)
        free(paths[i]);
    if (rc != 0) {
        char first[400];
        why_failed(rc, e, argv[0], p->log, first, sizeof first);
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "%s: no binary for this platform; linking the one built from "
                                 "its sources failed: %s (--log-level info shows the linker's "
                                 "output; $CFLAGS can define what the sources lack, e.g. "
                                 "-D_strdup=strdup for a Windows name)", f->archive_path, first);
    }
    if (rename(p->tmp_out, p->out) != 0)
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot move the built binary to %s: %s",
                                 f->archive_path, p->out, strerror(errno));
    return RTCOSIM_OK;
}

/* What to build: FMI 3.0's build description or FMI 2.0's SourceFiles. */
static rtcosim_status read_spec(const ctx *c, build_spec *s, int fmi_version, const char *platform)
{
    return fmi_version == 3 ? read_fmi3(c, s, platform) : read_fmi2(c, s);
}

rtcosim_status rtcosim_fmu_sources_read(const char *dir, const char *model_identifier,
                                        int fmi_version, bool model_exchange,
                                        const char *platform, size_t *files, rtcosim_error *err)
{
    build_spec spec = {0};
    ctx c = {dir, model_identifier, dir, "no binary for this platform", model_exchange,
             fmi_version == 3 ? "sources/buildDescription.xml" : "modelDescription.xml", err};
    rtcosim_status st = read_spec(&c, &spec, fmi_version, platform);
    *files = spec.file_count;
    spec_free(&spec);
    return st;
}

rtcosim_status rtcosim_fmu_build_sources(rtcosim_fmu *f, const rtcosim_fmu_options *opts,
                                         const char *platform, const char *relative,
                                         const char *no_binary, rtcosim_error *err)
{
    const rtcosim_fmi_md *md = f->md;
    if (md->version == RTCOSIM_FMI_1)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "%s: no binary for this platform: expected %s; it holds only "
                                 "sources, and rtcosim builds FMI 2.0 and 3.0 sources only",
                                 f->archive_path, relative);
    build_spec spec = {0};
    ctx c = {f->dir, f->model_identifier, f->archive_path, no_binary, f->model_exchange,
             md->version == RTCOSIM_FMI_3 ? "sources/buildDescription.xml"
                                          : "modelDescription.xml", err};
    rtcosim_status st = read_spec(&c, &spec, md->version == RTCOSIM_FMI_3 ? 3 : 2, platform);
    /* where the build goes: the extraction directory, or one of our own for
     * an FMU given unpacked (not written to) */
    char *root = NULL, *work = NULL, *obj = NULL, *log = NULL, *out = NULL, *tmp_out = NULL;
    if (st == RTCOSIM_OK && f->in_place) {
        const char *parent = opts && opts->temp_dir ? opts->temp_dir
                             : getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR")
                                                                        : "/tmp";
        root = rtcosim_fmu_join(parent, "/rtcosim-build-XXXXXX", "", "");
        if (root && !mkdtemp(root)) {
            st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot make a build directory in %s: %s",
                                   f->archive_path, parent, strerror(errno));
            free(root);
            root = NULL;
        } else if (root) {
            rtcosim_archive_mark_owner(root);
            f->build_dir = root;
        }
    } else if (st == RTCOSIM_OK) {
        root = f->dir;
    }
    if (st == RTCOSIM_OK) {
        work = rtcosim_fmu_join(root ? root : "", "/.rtcosim-build", "", "");
        obj = rtcosim_fmu_join(work ? work : "", "/obj", "", "");
        log = rtcosim_fmu_join(work ? work : "", "/compiler.log", "", "");
        char *bins = rtcosim_fmu_join(root ? root : "", "/binaries", "", "");
        char *bin_dir = rtcosim_fmu_join(bins ? bins : "", "/", platform, "");
        out = rtcosim_fmu_join(root ? root : "", "/", relative, "");
        tmp_out = rtcosim_fmu_join(out ? out : "", ".building", "", "");
        const char *dirs[] = {work, obj, bins, bin_dir};
        if (!root || !work || !obj || !log || !bins || !bin_dir || !out || !tmp_out)
            st = rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", f->archive_path);
        for (size_t i = 0; i < 4 && st == RTCOSIM_OK; i++)
            if (mkdir(dirs[i], 0755) != 0 && errno != EEXIST)
                st = rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot make %s: %s",
                                       f->archive_path, dirs[i], strerror(errno));
        free(bins);
        free(bin_dir);
    }
    if (st == RTCOSIM_OK)
        st = write_headers(f, work, err);
    /* built before (the build cache, fmu_build_cache.c), else built now */
    const bool v3 = md->version == RTCOSIM_FMI_3;
    char *cached = st == RTCOSIM_OK
                       ? rtcosim_fmu_build_cache_path(
                             f, c.file, platform,
                             (const char *)(v3 ? rtcosim_fmi3_api_h : rtcosim_fmi2_api_h),
                             v3 ? rtcosim_fmi3_api_h_size : rtcosim_fmi2_api_h_size)
                       : NULL;
    bool hit = cached && rtcosim_fmu_build_cache_get(cached, out);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    bool any_cxx = false;
    if (st == RTCOSIM_OK && !hit) {
        build_paths paths = {work, obj, log, tmp_out, out};
        st = compile_and_link(f, &spec, &paths, &any_cxx, err);
        if (st == RTCOSIM_OK && cached)
            rtcosim_fmu_build_cache_put(out, cached);
    }
    if (st == RTCOSIM_OK && hit) {
        rtcosim_log(RTCOSIM_LOG_INFO, "fmi",
                    "%s: no binary for this platform: %s from its sources, built before (%s)",
                    f->archive_path, relative, cached);
    } else if (st == RTCOSIM_OK) {
        struct timespec t1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        char cmd[512], *argv[2] = {(char *)"cc", NULL};
        env_words(any_cxx ? "CXX" : "CC", any_cxx ? "c++" : "cc", cmd, sizeof cmd, argv, 0, 1);
        rtcosim_log(RTCOSIM_LOG_INFO, "fmi",
                    "%s: no binary for this platform: built %s from its %zu source file%s with "
                    "'%s' in %.2f s",
                    f->archive_path, relative, spec.file_count, spec.file_count == 1 ? "" : "s",
                    argv[0], (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec));
    }
    if (st == RTCOSIM_OK) {
        free(f->binary_path);
        f->built_from_sources = true;
        f->binary_path = out;
        out = NULL;
    }
    if (tmp_out)
        unlink(tmp_out);
    free(work), free(obj), free(log), free(out), free(tmp_out), free(cached);
    spec_free(&spec);
    return st;
}
