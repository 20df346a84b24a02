/* An FMU's binary for this platform (FMI 2.0 section 2.3, FMI 3.0 section
 * 2.5.1.4): found in the unpacked archive, checked, loaded with dlopen and
 * its functions resolved (with the model identifier's prefix where its
 * sources defined one), then prepared per FMI version; the platforms an
 * archive holds; file URIs and paths for the FMU's directories. */
#include <dirent.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmi/fmu_internal.h"
#include "rtcosim/log.h"
#include "util/elf_check.h"

/* Platform folder names: FMI 2.0 section 2.3 ("linux64"), FMI 3.0 section
 * 2.5.1.4 (<arch>-<os> tuples). */
#if defined(__x86_64__) && defined(__linux__)
#define PLATFORM_TEXT "x86_64 Linux"
#define FMI2_PLATFORM "linux64"
#define FMI3_PLATFORM "x86_64-linux"
#elif defined(__aarch64__) && defined(__linux__)
#define PLATFORM_TEXT "aarch64 Linux"
#define FMI2_PLATFORM NULL /* FMI 2.0 names no ARM platform */
#define FMI3_PLATFORM "aarch64-linux"
#else
#define PLATFORM_TEXT "this platform"
#define FMI2_PLATFORM NULL
#define FMI3_PLATFORM NULL
#endif

/* A file: URI for a local absolute path (RFC 8089), escaping what is not
 * unreserved so that paths with spaces stay valid. FMI 2.0 section 2.1.5. */
char *rtcosim_fmu_file_uri(const char *path)
{
    size_t len = strlen(path);
    char *uri = malloc(sizeof "file://" + 3 * len);
    if (!uri)
        return NULL;
    char *o = uri + sprintf(uri, "file://");
    for (const unsigned char *c = (const unsigned char *)path; *c; c++) {
        if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
            strchr("/-._~", *c))
            *o++ = (char)*c;
        else
            o += sprintf(o, "%%%02X", *c);
    }
    *o = '\0';
    return uri;
}

char *rtcosim_fmu_join(const char *a, const char *b, const char *c, const char *d)
{
    size_t n = strlen(a) + strlen(b) + strlen(c) + strlen(d) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s%s%s", a, b, c, d);
    return s;
}

/* dir + sub names a directory (NULL sub: dir itself). */
static bool is_dir(const char *dir, const char *sub)
{
    char *path = rtcosim_fmu_join(dir, sub ? sub : "", "", "");
    struct stat sb;
    bool yes = path && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
    free(path);
    return yes;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

size_t rtcosim_fmu_platforms(const char *extracted_dir, char *text, size_t size)
{
    if (size)
        text[0] = '\0';
    if (!extracted_dir)
        return 0;
    char *names[64];
    size_t count = 0, len = 0;
    char *binaries = rtcosim_fmu_join(extracted_dir, "/binaries", "", "");
    DIR *d = binaries ? opendir(binaries) : NULL;
    struct dirent *e;
    while (d && count < sizeof names / sizeof names[0] && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *path = rtcosim_fmu_join(binaries, "/", e->d_name, "");
        if (path && is_dir(path, NULL) && (names[count] = strdup(e->d_name)))
            count++;
        free(path);
    }
    if (d)
        closedir(d);
    free(binaries);
    qsort(names, count, sizeof names[0], compare_names);
    bool has_sources = is_dir(extracted_dir, "/sources");
    for (size_t i = 0; i <= count; i++) {
        const char *name = i < count ? names[i] : has_sources ? "sources" : NULL;
        if (!name)
            break;
        int n = snprintf(len < size ? text + len : NULL, len < size ? size - len : 0, "%s%s",
                         len ? ", " : "", name);
        len += n > 0 ? (size_t)n : 0;
        if (i < count)
            free(names[i]);
    }
    return len;
}

void *rtcosim_fmu_symbol(const rtcosim_fmu *f, const char *name)
{
    if (!f->symbol_prefix[0])
        return dlsym(f->library, name);
    char full[sizeof f->symbol_prefix + 64];
    snprintf(full, sizeof full, "%s%s", f->symbol_prefix, name);
    return dlsym(f->library, full);
}

/* FMI 2.0 and 3.0 binaries export their functions as the standard names
 * them (fmi3DoStep); sources prefix them with FMI2/3_FUNCTION_PREFIX, the
 * model identifier and '_' (FMI 3.0 section 2.2.1), for static linking. A
 * library built from sources that define the prefix themselves (the
 * FMI-LS-BUS demo FMUs do) has only those names: taken, with a warning. */
static void find_symbol_prefix(rtcosim_fmu *f)
{
    f->symbol_prefix[0] = '\0';
    const char *probe = f->md->version == RTCOSIM_FMI_3 ? "fmi3GetVersion" : "fmi2GetVersion";
    if (f->md->version == RTCOSIM_FMI_1 || dlsym(f->library, probe) ||
        strlen(f->model_identifier) + 2 > sizeof f->symbol_prefix)
        return;
    snprintf(f->symbol_prefix, sizeof f->symbol_prefix, "%s_", f->model_identifier);
    if (!rtcosim_fmu_symbol(f, probe)) {
        f->symbol_prefix[0] = '\0';
        return;
    }
    /* (built here from sources that define the prefix: as expected) */
    rtcosim_log(f->built_from_sources ? RTCOSIM_LOG_INFO : RTCOSIM_LOG_WARNING, "fmi",
                "%s: its binary names its functions with the prefix '%s' (%s%s), as sources "
                "compiled for static linking do; a shared library has the standard's names "
                "(FMI %s section 2.2.1): taken as they are",
                f->archive_path, f->symbol_prefix, f->symbol_prefix, probe,
                f->md->fmi_version_text);
}

rtcosim_status rtcosim_fmu_load_binary(rtcosim_fmu *f, const rtcosim_fmu_options *opts,
                                       rtcosim_error *err)
{
    const rtcosim_fmi_md *md = f->md;
    /* FMI 1.0 uses the folder names of 2.0 (ME 1.0 section 2.2: "linux64"). */
    const char *platform = md->version == RTCOSIM_FMI_3 ? FMI3_PLATFORM : FMI2_PLATFORM;
    if (!platform)
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "%s: FMI %s defines no binary folder for " PLATFORM_TEXT,
                                 f->archive_path, md->fmi_version_text);
    char relative[512];
    snprintf(relative, sizeof relative, "binaries/%s/%s.so", platform, f->model_identifier);
    f->binary_path = rtcosim_fmu_join(f->dir, "/", relative, "");
    if (!f->binary_path)
        return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", f->archive_path);
    if (access(f->binary_path, R_OK) != 0) {
        char held[256];
        rtcosim_fmu_platforms(f->dir, held, sizeof held);
        char why[512];
        snprintf(why, sizeof why, "no binary for this platform (" PLATFORM_TEXT
                 "): expected %s; it holds %s", relative, held[0] ? held : "no binaries");
        /* a source-code FMU: its binary built from them (fmu_sources.c) */
        if (!is_dir(f->dir, "/sources"))
            return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED, "%s: %s", f->archive_path, why);
        rtcosim_status built = rtcosim_fmu_build_sources(f, opts, platform, relative, why, err);
        if (built != RTCOSIM_OK)
            return built;
    }
    /* one library file is one dlopen handle: an FMU that may be instantiated
     * only once per process gets a private copy from its archive (load), in
     * place only its first instance */
    void *loaded = f->in_place && f->once_per_process
                       ? dlopen(f->binary_path, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD) : NULL;
    if (loaded) {
        dlclose(loaded);
        return rtcosim_error_set(err, RTCOSIM_EUNSUPPORTED,
                                 "%s: the FMU can be instantiated only once per process "
                                 "(canBeInstantiatedOnlyOncePerProcess) and its library is "
                                 "loaded already: give the .fmu archive, which rtcosim unpacks "
                                 "once per instance", f->archive_path);
    }
    char label[1024];
    snprintf(label, sizeof label, "%s: %s", f->archive_path, relative);
    rtcosim_status checked = util_elf_check_loadable(f->binary_path, label, err);
    if (checked != RTCOSIM_OK)
        return checked; /* (a truncated library would be a SIGBUS inside dlopen) */
    f->library = dlopen(f->binary_path, RTLD_NOW | RTLD_LOCAL);
    if (!f->library) {
        const char *why = dlerror();
        return rtcosim_error_set(err, RTCOSIM_EIO, "%s: cannot load %s: %s", f->archive_path,
                                 relative, why ? why : "unknown error");
    }
    find_symbol_prefix(f);
    /* POSIX dlsym returns data pointers that are valid function pointers. */
#define RTCOSIM_FMI_RESOLVE_(table, name) f->table.name = (name##TYPE *)rtcosim_fmu_symbol(f, #name);
#define RTCOSIM_FMI2_RESOLVE_(name) RTCOSIM_FMI_RESOLVE_(fmi2, name)
#define RTCOSIM_FMI3_RESOLVE_(name) RTCOSIM_FMI_RESOLVE_(fmi3, name)
    if (md->version == RTCOSIM_FMI_1) {
        /* fmuLocation: the extracted FMU's directory as a file URI (CS 1.0
         * section 3.3). */
        char *uri = rtcosim_fmu_file_uri(f->dir);
        if (!uri)
            return rtcosim_error_set(err, RTCOSIM_ENOMEM, "%s: out of memory", f->archive_path);
        rtcosim_status st = rtcosim_fmi1_prepare(f, opts, uri, err);
        free(uri);
        return st;
    }
    if (md->version == RTCOSIM_FMI_2) {
        RTCOSIM_FMI2_COMMON_FUNCTIONS(RTCOSIM_FMI2_RESOLVE_)
        RTCOSIM_FMI2_CS_FUNCTIONS(RTCOSIM_FMI2_RESOLVE_)
        RTCOSIM_FMI2_ME_FUNCTIONS(RTCOSIM_FMI2_RESOLVE_)
        rtcosim_status st = rtcosim_fmi2_prepare(f, err);
        if (st == RTCOSIM_OK && f->model_exchange)
            st = rtcosim_fmi2_me_prepare(f, opts, err);
        return st;
    }
    RTCOSIM_FMI3_COMMON_FUNCTIONS(RTCOSIM_FMI3_RESOLVE_)
    RTCOSIM_FMI3_CS_FUNCTIONS(RTCOSIM_FMI3_RESOLVE_)
    RTCOSIM_FMI3_ME_FUNCTIONS(RTCOSIM_FMI3_RESOLVE_)
#undef RTCOSIM_FMI_RESOLVE_
#undef RTCOSIM_FMI2_RESOLVE_
#undef RTCOSIM_FMI3_RESOLVE_
    rtcosim_status st = rtcosim_fmi3_prepare(f, err);
    if (st == RTCOSIM_OK && f->model_exchange)
        st = rtcosim_fmi3_me_prepare(f, opts, err);
    if (st == RTCOSIM_OK)
        st = rtcosim_fmi3_events_prepare(f, err);
    if (st == RTCOSIM_OK && f->scheduled)
        st = rtcosim_fmi3_se_prepare(f, err);
    return st;
}

