/* Entry point of the rtcosim command-line tool: routes `rtcosim COMMAND ...`
 * to the subcommand table generated from cli/cmd_*.c at build time. */
#include <stdarg.h>
#include <stdbool.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli_commands.gen.h"
#include "rtcosim/component.h"
#include "rtcosim/log.h"

int cli_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("rtcosim: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

int cli_fail_error(const rtcosim_error *err)
{
    return cli_fail("%s", err->message[0] ? err->message : rtcosim_strerror(err->status));
}

int cli_input_column(const char *command, const char *input_is, const char *map, char **input,
                     const char **column)
{
    const char *eq = map ? strchr(map, '=') : NULL;
    if (!eq || eq == map || !eq[1])
        return cli_fail("%s: option --input-column needs INPUT=COLUMN (%s, a column of "
                        "--input-file), not '%s'", command, input_is, map ? map : "");
    if (!(*input = strndup(map, (size_t)(eq - map))))
        return cli_fail("%s: out of memory", command);
    *column = eq + 1;
    return 0;
}

int cli_check_output_not_input(const char *option, const char *output,
                               const char *const *inputs, size_t count)
{
    struct stat out;
    if (!output || stat(output, &out) != 0)
        return 0; /* a new file cannot be an input */
    for (size_t i = 0; i < count; i++) {
        struct stat in;
        if (inputs[i] && stat(inputs[i], &in) == 0 && in.st_dev == out.st_dev &&
            in.st_ino == out.st_ino)
            return cli_fail("%s %s: is the input file %s; refusing to overwrite it", option,
                            output, inputs[i]);
    }
    return 0;
}

/* The directory a path names its file in ("." for a bare name; malloc'd,
 * NULL out of memory). */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
}

/* Where a path would be written: its directory resolved (".", links) and
 * its last name; NULL when the directory does not resolve. */
static char *target_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir = dir_of(path);
    char *real = dir ? realpath(dir, NULL) : NULL;
    free(dir);
    if (!real)
        return NULL;
    const char *base = slash ? slash + 1 : path;
    size_t n = strlen(real) + strlen(base) + 2;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "%s/%s", real, base);
    free(real);
    return out;
}

/* Two outputs that are one file: the same existing regular file, or the
 * same path once resolved (a terminal or /dev/null may be named twice). */
static bool same_output(const char *a, const char *b)
{
    struct stat x, y;
    bool ax = stat(a, &x) == 0, bx = stat(b, &y) == 0;
    if (ax && bx)
        return S_ISREG(x.st_mode) && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
    if (ax || bx)
        return false;
    char *ta = target_of(a), *tb = target_of(b);
    bool same = ta && tb && strcmp(ta, tb) == 0;
    free(ta);
    free(tb);
    return same;
}

int cli_check_outputs(const cli_output *outputs, size_t n_out, const char *const *inputs,
                      size_t n_in)
{
    for (size_t i = 0; i < n_out; i++) {
        if (!outputs[i].path)
            continue;
        int rc = cli_check_output_not_input(outputs[i].option, outputs[i].path, inputs, n_in);
        if (rc)
            return rc;
        for (size_t j = 0; j < i; j++)
            if (outputs[j].path && same_output(outputs[i].path, outputs[j].path))
                return cli_fail("%s %s: is also the file of %s; two outputs cannot share a file",
                                outputs[i].option, outputs[i].path, outputs[j].option);
    }
    return 0;
}

int cli_check_output_file(const char *option, const char *path)
{
    if (!path)
        return 0;
    struct stat st;
    if (stat(path, &st) == 0)
        return S_ISDIR(st.st_mode) ? cli_fail("%s %s: is a directory", option, path)
               : access(path, W_OK) != 0 ? cli_fail("%s %s: cannot be written: %s", option, path,
                                                    strerror(errno))
                                         : 0;
    char *dir = dir_of(path);
    if (!dir)
        return cli_fail("out of memory");
    int rc = 0;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        rc = cli_fail("%s %s: its directory %s does not exist", option, path, dir);
    else if (access(dir, W_OK) != 0)
        rc = cli_fail("%s %s: its directory %s is not writable: %s", option, path, dir,
                      strerror(errno));
    free(dir);
    return rc;
}

int cli_check_output_dir(const char *option, const char *dir)
{
    if (!dir)
        return 0;
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return cli_fail("%s %s: exists and is not a directory", option, dir);
        if (access(dir, W_OK | X_OK) != 0)
            return cli_fail("%s %s: cannot write there: %s", option, dir, strerror(errno));
        return 0;
    }
    /* Created at the end: its parent must be a writable directory now. */
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    char *parent = strndup(dir, n);
    if (!parent)
        return cli_fail("out of memory");
    char *slash = strrchr(parent, '/');
    const char *p = ".";
    if (slash == parent)
        p = "/";
    else if (slash) {
        *slash = '\0';
        p = parent;
    }
    int rc = 0;
    if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode))
        rc = cli_fail("%s %s: cannot be created: %s is not a directory", option, dir, p);
    else if (access(p, W_OK | X_OK) != 0)
        rc = cli_fail("%s %s: cannot be created in %s: %s", option, dir, p, strerror(errno));
    free(parent);
    return rc;
}

size_t cli_edit_distance(const char *a, const char *b)
{
    return rtcosim_edit_distance(a, b);
}

bool cli_is_close(const char *typed, const char *candidate, size_t distance)
{
    return rtcosim_name_is_close(typed, candidate, distance);
}

/* The values split_option_values cut off `--opt=value` arguments (by
 * address: the same text may also come as an argument of its own). */
static const char **split_values;
static int split_value_count;

int cli_positional(const char *command, const char *what, const char **slot, char *const *argv,
                   int i)
{
    for (int k = 0; i > 0 && k < split_value_count; k++)
        if (split_values[k] == argv[i])
            return cli_fail("%s: option '%s' takes no value (given '%s=%s')", command,
                            argv[i - 1], argv[i - 1], argv[i]),
                   CLI_EXIT_USAGE;
    if (*slot)
        return cli_extra_positional(command, what, *slot, argv[i], i > 0 ? argv[i - 1] : NULL);
    *slot = argv[i];
    return 0;
}

int cli_extra_positional(const char *command, const char *what, const char *first,
                         const char *arg, const char *previous)
{
    if (previous && previous[0] == '-' && previous[1] && !strchr(previous, '='))
        cli_fail("%s: more than one %s given ('%s' and '%s'); '%s' takes no value (see rtcosim "
                 "%s --help)",
                 command, what, first, arg, previous, command);
    else
        cli_fail("%s: more than one %s given ('%s' and '%s')", command, what, first, arg);
    return CLI_EXIT_USAGE;
}

bool cli_rereadable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bool cli_same_file(const char *a, const char *b)
{
    struct stat x, y;
    return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

void cli_put_csv_quoted(const char *text, FILE *out)
{
    fputc('"', out);
    for (; *text; text++) {
        if (*text == '"')
            fputc('"', out);
        fputc(*text, out);
    }
    fputc('"', out);
}

int cli_parse_window_time(const char *prefix, const char *option, const char *text, double *out)
{
    char *end = NULL;
    double v = text ? strtod(text, &end) : NAN;
    if (!text || !*text || *end || !isfinite(v))
        return cli_fail("%s%s needs a time in seconds, e.g. %s 1.5 (got '%s')", prefix, option,
                        option, text ? text : "");
    *out = v;
    return 0;
}

#define OPTION_CHARS "abcdefghijklmnopqrstuvwxyz0123456789-" /* of an option's name */

/* A command's --help text (the options it takes are the ones it lists),
 * malloc'd; NULL without usage or memory. */
static char *usage_text(void (*usage)(FILE *out))
{
    char *help = NULL;
    size_t help_size = 0;
    FILE *mem = usage ? open_memstream(&help, &help_size) : NULL;
    if (mem) {
        usage(mem);
        fclose(mem);
    }
    return help;
}

int cli_unknown_option(const char *command, const char *option, void (*usage)(FILE *out))
{
    char *help = usage_text(usage), *best = NULL;
    size_t best_distance = (size_t)-1;
    /* The options a command takes are the ones its --help lists. */
    size_t olen = strcspn(option, "=");
    char typed[256];
    snprintf(typed, sizeof typed, "%.*s", (int)(olen < 255 ? olen : 255), option);
    for (char *p = help; p && (p = strstr(p, "--")) != NULL;) {
        size_t n = 2 + strspn(p + 2, OPTION_CHARS);
        if (n > 3 && n < 64 && (p == help || p[-1] == ' ' || p[-1] == '[' || p[-1] == '\n')) {
            char candidate[64];
            snprintf(candidate, sizeof candidate, "%.*s", (int)n, p);
            size_t d = cli_edit_distance(typed, candidate);
            if (d < best_distance && cli_is_close(typed, candidate, d)) {
                best_distance = d;
                free(best);
                best = strdup(candidate);
            }
        }
        p += n;
    }
    if (best)
        cli_fail("%s: unknown option '%s'; did you mean '%s'? (see rtcosim %s --help)", command,
                 option, best, command);
    else
        cli_fail("%s: unknown option '%s' (see rtcosim %s --help)", command, option, command);
    free(best);
    free(help);
    return CLI_EXIT_USAGE;
}

int cli_missing_value(const char *command, const char *option, void (*usage)(FILE *out))
{
    char *help = usage_text(usage);
    /* listed: "--opt" in the help with no option-name character after it */
    bool listed = false;
    size_t n = strlen(option);
    for (const char *p = help; p && !listed && (p = strstr(p, option)) != NULL; p += n)
        listed = (p == help || p[-1] == ' ' || p[-1] == '[' || p[-1] == '\n' || p[-1] == ',') &&
                 (p[n] == '\0' || !strchr(OPTION_CHARS, p[n]));
    free(help);
    if (!listed)
        return cli_unknown_option(command, option, usage);
    cli_fail("%s: option %s needs a value (see rtcosim %s --help)", command, option, command);
    return CLI_EXIT_USAGE;
}

/* `--opt=value` is `--opt value` for every command (as getopt_long and the
 * peers' tools take it): split here once, before any command parses argv.
 * After a bare `--` nothing is split. Returns a new argv (never freed: it
 * lives as long as the process) or NULL when out of memory. */
static char **split_option_values(int argc, char **argv, int *out_argc)
{
    int extra = 0;
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strncmp(argv[i], "--", 2) == 0 && strchr(argv[i], '=') &&
            strncmp(argv[i], "--isolate=", 10) != 0)
            extra++;
    *out_argc = argc;
    if (!extra)
        return argv;
    char **out = calloc((size_t)(argc + extra + 1), sizeof *out);
    split_values = calloc((size_t)extra, sizeof *split_values);
    if (!out || !split_values)
        return NULL;
    int n = 0;
    bool done = false;
    for (int i = 0; i < argc; i++) {
        done = done || (i > 0 && strcmp(argv[i], "--") == 0);
        char *eq = strchr(argv[i], '=');
        /* --isolate=C,.. keeps its '=': its value is optional (run_args.c) */
        if (i > 0 && !done && strncmp(argv[i], "--", 2) == 0 && eq &&
            strncmp(argv[i], "--isolate=", 10) != 0) {
            out[n++] = strndup(argv[i], (size_t)(eq - argv[i]));
            out[n++] = eq + 1;
            split_values[split_value_count++] = eq + 1;
            if (!out[n - 2])
                return NULL;
        } else {
            out[n++] = argv[i];
        }
    }
    *out_argc = n;
    static char **kept; /* reachable to the end (no leak at exit) */
    kept = out;
    return kept;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: rtcosim COMMAND [options]\n\ncommands:\n");
    for (size_t i = 0; i < rtcosim_cli_cmd_count; i++)
        fprintf(out, "  %-10s %s\n", rtcosim_cli_cmd_s[i]->name, rtcosim_cli_cmd_s[i]->summary);
    fprintf(out, "\n`rtcosim COMMAND --help` describes a command's options; every option that takes a\n"
                 "value also takes it as --option=value.\n");
}

int main(int argc, char **argv)
{
    rtcosim_log_set_handler(rtcosim_log_stderr_handler, NULL);
    rtcosim_log_set_level(RTCOSIM_LOG_WARNING);
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("rtcosim %s\n", RTCOSIM_VERSION_STRING);
        return 0;
    }
    int split_argc;
    char **split = split_option_values(argc, argv, &split_argc);
    if (!split)
        return cli_fail("out of memory");
    for (size_t i = 0; i < rtcosim_cli_cmd_count; i++)
        if (strcmp(split[1], rtcosim_cli_cmd_s[i]->name) == 0) {
            int rc = rtcosim_cli_cmd_s[i]->run(split_argc - 1, split + 1);
            /* what a command printed is its result (info's tables, compare's
             * verdict, a run's summary): lost on a full disk or a closed
             * pipe, the command failed */
            if ((fflush(stdout) != 0 || ferror(stdout)) && rc == 0)
                rc = cli_fail("writing standard output failed: %s",
                              errno ? strerror(errno) : "an earlier write failed");
            return rc;
        }
    const char *near = NULL;
    for (size_t i = 0; i < rtcosim_cli_cmd_count; i++) {
        size_t d = cli_edit_distance(argv[1], rtcosim_cli_cmd_s[i]->name);
        if (cli_is_close(argv[1], rtcosim_cli_cmd_s[i]->name, d) &&
            (!near || d < cli_edit_distance(argv[1], near)))
            near = rtcosim_cli_cmd_s[i]->name;
    }
    if (near)
        cli_fail("unknown command '%s'; did you mean '%s'? (see rtcosim --help)", argv[1], near);
    else
        cli_fail("unknown command '%s' (see rtcosim --help)", argv[1]);
    return 2;
}
