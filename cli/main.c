/* Entry point of the rtcosim command-line tool: routes `rtcosim COMMAND ...`
 * to the subcommand table generated from cli/cmd_*.c at build time. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli_commands.gen.h"
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

static void usage(FILE *out)
{
    fprintf(out, "usage: rtcosim COMMAND [options]\n\ncommands:\n");
    for (size_t i = 0; i < rtcosim_cli_cmd_count; i++)
        fprintf(out, "  %-10s %s\n", rtcosim_cli_cmd_s[i]->name, rtcosim_cli_cmd_s[i]->summary);
    fprintf(out, "\n`rtcosim COMMAND --help` describes a command's options.\n");
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
    for (size_t i = 0; i < rtcosim_cli_cmd_count; i++)
        if (strcmp(argv[1], rtcosim_cli_cmd_s[i]->name) == 0)
            return rtcosim_cli_cmd_s[i]->run(argc - 1, argv + 1);
    cli_fail("unknown command '%s' (see rtcosim --help)", argv[1]);
    return 2;
}
