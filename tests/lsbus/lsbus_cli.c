/* Helpers of the LS-BUS system tests (test_lsbus_systems.c,
 * test_lsbus_kernel_bus.c): the CLI spawned in the scratch directory, its
 * output read back, and the systems of LsBusNode FMUs they run. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "lsbus_cli.h"
#include "util/test_util.h"

/* rtcosim COMMAND with args (NULL-terminated) in the scratch directory;
 * stdout and stderr into out.txt and err.txt there; the exit code. */
static int spawn(const char *command, const char *first, va_list ap)
{
    const char *argv[128] = {RTCOSIM_CLI_PATH, command};
    int n = 2;
    const char *a = first;
    for (; a && n < 127; a = va_arg(ap, const char *))
        argv[n++] = a;
    assert_null(a); /* every argument passed, none cut off */
    argv[n] = NULL;
    char dir[512];
    snprintf(dir, sizeof dir, "%s", tu_scratch(""));
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (chdir(dir) != 0)
            _exit(126);
        int fo = open("out.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open("err.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo < 0 || fe < 0)
            _exit(126);
        dup2(fo, 1);
        dup2(fe, 2);
        execv(RTCOSIM_CLI_PATH, (char *const *)argv);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    if (rc != 0) /* shown when the test fails */
        print_message("exit %d: %s", rc, tu_read_file(tu_scratch("err.txt"), NULL));
    return rc;
}

int events_cli(const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    int rc = spawn("events", first, ap);
    va_end(ap);
    return rc;
}

int run_cli(const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    int rc = spawn("run", first, ap);
    va_end(ap);
    return rc;
}

int can_cli(const char *first, ...)
{
    va_list ap;
    va_start(ap, first);
    int rc = spawn("can", first, ap);
    va_end(ap);
    return rc;
}

char *read_text(const char *name)
{
    return strdup(tu_read_file(tu_scratch(name), NULL));
}

/* Fails showing the text when needle is not in it. */
void expect_in(const char *text, const char *needle)
{
    if (!strstr(text, needle)) {
        print_error("expected\n%s\nin\n%s\n", needle, text);
        fail();
    }
}

/* One line of stderr, containing needle. */
void expect_one_line_error(const char *needle)
{
    char *err = read_text("err.txt");
    expect_in(err, needle);
    assert_int_equal(strchr(err, '\n') - err + 1, (long)strlen(err));
    free(err);
}

static const char *const node_connectors =
    "<ssd:Connectors><ssd:Connector name=\"CAN.Tx_Data\" kind=\"output\"/>"
    "<ssd:Connector name=\"CAN.Tx_Clock\" kind=\"output\"/>"
    "<ssd:Connector name=\"CAN.Rx_Data\" kind=\"input\"/>"
    "<ssd:Connector name=\"CAN.Rx_Clock\" kind=\"input\"/></ssd:Connectors>";

/* A system of node FMUs names[0..n) (source node_fmu), optionally the bus
 * simulation "bus", and the given connections (SSD lines). */
const char *write_ssd(const char *file, const char *node_fmu, const char *const *names,
                             int n, const char *bussim, const char *connections)
{
    static char text[16384];
    int used = snprintf(text, sizeof text,
                        "<?xml version=\"1.0\"?>\n<ssd:SystemStructureDescription version=\"1.0\" "
                        "name=\"lsbus\" xmlns:ssd=\"http://ssp-standard.org/SSP1/"
                        "SystemStructureDescription\">\n<ssd:System name=\"lsbus\"><ssd:Elements>\n");
    for (int i = 0; i < n; i++)
        used += snprintf(text + used, sizeof text - (size_t)used,
                         "<ssd:Component name=\"%s\" source=\"%s\">%s</ssd:Component>\n", names[i],
                         node_fmu, node_connectors);
    if (bussim) {
        used += snprintf(text + used, sizeof text - (size_t)used,
                         "<ssd:Component name=\"bus\" source=\"%s\"><ssd:Connectors>\n", bussim);
        /* an input countdown Tx_Clock starts connections: inout in SSP */
        const char *tx_clock_kind =
            strstr(bussim, "Countdown") || strstr(bussim, "Evaluate") ? "inout" : "output";
        for (int k = 1; k <= 3; k++)
            used += snprintf(text + used, sizeof text - (size_t)used,
                             "<ssd:Connector name=\"Node%d.Rx_Data\" kind=\"input\"/>"
                             "<ssd:Connector name=\"Node%d.Rx_Clock\" kind=\"input\"/>"
                             "<ssd:Connector name=\"Node%d.Tx_Data\" kind=\"output\"/>"
                             "<ssd:Connector name=\"Node%d.Tx_Clock\" kind=\"%s\"/>\n",
                             k, k, k, k, tx_clock_kind);
        used += snprintf(text + used, sizeof text - (size_t)used,
                         "</ssd:Connectors></ssd:Component>\n");
    }
    snprintf(text + used, sizeof text - (size_t)used,
             "</ssd:Elements><ssd:Connections>\n%s</ssd:Connections></ssd:System>\n"
             "</ssd:SystemStructureDescription>\n",
             connections);
    static char path[512]; /* one system at a time */
    snprintf(path, sizeof path, "%s", tu_scratch(file));
    tu_write_file(path, text);
    return path;
}

/* SSD lines connecting a node's Tx members to the peer's Rx members. */
void ssd_connect(char *out, size_t size, const char *from, const char *from_prefix,
                    const char *to, const char *to_prefix)
{
    size_t used = strlen(out);
    snprintf(out + used, size - used,
             "<ssd:Connection startElement=\"%s\" startConnector=\"%sTx_Data\" endElement=\"%s\" "
             "endConnector=\"%sRx_Data\"/>\n"
             "<ssd:Connection startElement=\"%s\" startConnector=\"%sTx_Clock\" endElement=\"%s\" "
             "endConnector=\"%sRx_Clock\"/>\n",
             from, from_prefix, to, to_prefix, from, from_prefix, to, to_prefix);
}

const char *const ab[] = {"a", "b"};

const char *nodes_alone(void)
{
    return write_ssd("nodes.ssd", NODE, ab, 2, NULL, "");
}
