/* Terminals and layered-standard manifests: the LS-BUS 1.0 text's own
 * low-cut example (docs/examples/X_network4FMI_terminalsAndIcons_lowCut.xml
 * and fmi_ls_bus_manifest_example.xml, retyped as test data), FMI 3.0
 * section 2.4.9's required attributes, section 2.6's free root element, the
 * LS-BUS rules as warnings, malformed files as one-line errors naming the
 * file, and `rtcosim info` on an FMU built from the project's Feedthrough
 * model with these files added. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "rtcosim/log.h"
#include "rtcosim/lsbus.h"
#include "rtcosim_test_fmus.h"
#include "util/test_util.h"

/* The LS-BUS example: terminal Powertrain with its four members and a nested
 * Configuration terminal holding BusNotification. */
static const char lowcut[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<fmiTerminalsAndIcons fmiVersion=\"3.0\">\n"
    "  <Terminals>\n"
    "    <Terminal terminalKind=\"org.fmi-ls-bus.network-terminal\" name=\"Powertrain\"\n"
    "        matchingRule=\"org.fmi-ls-bus.transceiver\" description=\"Powertrain CAN Bus\">\n"
    "      <TerminalMemberVariable variableKind=\"signal\" variableName=\"Powertrain.Rx_Clock\""
    " memberName=\"Rx_Clock\"/>\n"
    "      <TerminalMemberVariable variableKind=\"signal\" variableName=\"Powertrain.Rx_Data\""
    " memberName=\"Rx_Data\"/>\n"
    "      <TerminalMemberVariable variableKind=\"signal\" variableName=\"Powertrain.Tx_Clock\""
    " memberName=\"Tx_Clock\"/>\n"
    "      <TerminalMemberVariable variableKind=\"signal\" variableName=\"Powertrain.Tx_Data\""
    " memberName=\"Tx_Data\"/>\n"
    "      <Terminal terminalKind=\"org.fmi-ls-bus.network-terminal.configuration\""
    " name=\"Configuration\" matchingRule=\"bus\">\n"
    "        <TerminalMemberVariable variableKind=\"signal\" variableName=\"BusNotification\""
    " memberName=\"BusNotification\"/>\n"
    "      </Terminal>\n"
    "    </Terminal>\n"
    "  </Terminals>\n"
    "</fmiTerminalsAndIcons>\n";

static const char manifest[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    "<fmiLayeredStandardManifest xmlns:fmi-ls=\"http://fmi-standard.org/fmi-ls-manifest\"\n"
    "    fmi-ls:fmi-ls-name=\"org.fmi-standard.fmi-ls-bus\" fmi-ls:fmi-ls-version=\"1.0.0\"\n"
    "    fmi-ls:fmi-ls-description=\"Layered Standard for the simulation of bus communication\"\n"
    "    isBusSimulationFMU=\"false\"/>\n";

static void the_standards_lowcut_example_reads_as_written(void **state)
{
    (void)state;
    rtcosim_fmu_extras *x = rtcosim_fmu_extras_new();
    rtcosim_error err;
    tu_log_capture(RTCOSIM_LOG_WARNING);
    assert_int_equal(rtcosim_terminals_parse(lowcut, strlen(lowcut), "t.xml", x, &err), RTCOSIM_OK);
    assert_string_equal(tu_log_text(), ""); /* it follows every rule */
    assert_int_equal(rtcosim_fmu_extras_terminal_count(x), 2);
    const rtcosim_terminal *t = rtcosim_fmu_extras_terminal(x, 0);
    assert_string_equal(t->name, "Powertrain");
    assert_string_equal(t->kind, RTCOSIM_LSBUS_NETWORK_TERMINAL);
    assert_string_equal(t->matching_rule, "org.fmi-ls-bus.transceiver");
    assert_string_equal(t->description, "Powertrain CAN Bus");
    assert_int_equal(t->depth, 0);
    assert_int_equal(t->member_count, 4);
    static const char *const members[] = {"Rx_Clock", "Rx_Data", "Tx_Clock", "Tx_Data"};
    for (size_t i = 0; i < 4; i++) {
        char var[64];
        snprintf(var, sizeof var, "Powertrain.%s", members[i]);
        assert_string_equal(t->members[i].member_name, members[i]);
        assert_string_equal(t->members[i].variable_name, var);
        assert_string_equal(t->members[i].variable_kind, "signal");
    }
    const rtcosim_terminal *c = rtcosim_fmu_extras_terminal(x, 1);
    assert_string_equal(c->name, "Configuration");
    assert_string_equal(c->kind, "org.fmi-ls-bus.network-terminal.configuration");
    assert_string_equal(c->matching_rule, "bus");
    assert_int_equal(c->depth, 1);
    assert_int_equal(c->parent, 0);
    assert_int_equal(c->member_count, 1);
    assert_string_equal(c->members[0].member_name, "BusNotification");
    assert_null(rtcosim_fmu_extras_terminal(x, 2));
    rtcosim_fmu_extras_free(x);
    tu_log_reset();
}

static void manifests_give_name_version_and_the_bus_simulation_flag(void **state)
{
    (void)state;
    rtcosim_fmu_extras *x = rtcosim_fmu_extras_new();
    rtcosim_error err;
    assert_int_equal(rtcosim_manifest_parse(manifest, strlen(manifest), "m.xml",
                                            "org.fmi-standard.fmi-ls-bus", x, &err),
                     RTCOSIM_OK);
    /* section 2.6: any root element; xs:boolean "1" */
    const char other[] = "<anyRoot xmlns:fmi-ls=\"http://fmi-standard.org/fmi-ls-manifest\""
                         " fmi-ls:fmi-ls-name=\"org.example.ls\" fmi-ls:fmi-ls-version=\"0.1\""
                         " isBusSimulationFMU=\"1\"/>";
    assert_int_equal(rtcosim_manifest_parse(other, strlen(other), "o.xml", "org.example.ls", x,
                                            &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_fmu_extras_standard_count(x), 2);
    const rtcosim_layered_standard *s = rtcosim_fmu_extras_standard(x, 0);
    assert_string_equal(s->name, "org.fmi-standard.fmi-ls-bus");
    assert_string_equal(s->version, "1.0.0");
    assert_string_equal(s->folder, "org.fmi-standard.fmi-ls-bus");
    assert_false(s->is_bus_simulation_fmu);
    assert_true(rtcosim_fmu_extras_standard(x, 1)->is_bus_simulation_fmu);
    rtcosim_fmu_extras_free(x);
}

static void expect_terminals_error(const char *xml, const char *words)
{
    rtcosim_fmu_extras *x = rtcosim_fmu_extras_new();
    rtcosim_error err;
    rtcosim_status st = rtcosim_terminals_parse(xml, strlen(xml),
                                                "terminalsAndIcons/terminalsAndIcons.xml", x, &err);
    rtcosim_fmu_extras_free(x);
    if (st != RTCOSIM_EFORMAT || !strstr(err.message, words) || strchr(err.message, '\n') ||
        strncmp(err.message, "terminalsAndIcons/terminalsAndIcons.xml: ", 40) != 0)
        fail_msg("status %d, message '%s' (wanted '%s')", st, err.message, words);
}

static void expect_manifest_error(const char *xml, const char *words)
{
    rtcosim_fmu_extras *x = rtcosim_fmu_extras_new();
    rtcosim_error err;
    rtcosim_status st = rtcosim_manifest_parse(xml, strlen(xml), "extra/a/fmi-ls-manifest.xml",
                                               "a", x, &err);
    assert_int_equal(rtcosim_fmu_extras_standard_count(x), 0);
    rtcosim_fmu_extras_free(x);
    if (st != RTCOSIM_EFORMAT || !strstr(err.message, words) ||
        strncmp(err.message, "extra/a/fmi-ls-manifest.xml: ", 29) != 0)
        fail_msg("status %d, message '%s' (wanted '%s')", st, err.message, words);
}

static void malformed_files_are_one_line_errors_naming_the_file(void **state)
{
    (void)state;
    expect_terminals_error("<fmiTerminalsAndIcons><Terminals>", "malformed XML (line 1");
    expect_terminals_error("", "malformed XML");
    expect_terminals_error("<fmiModelDescription/>", "root element is <fmiModelDescription>");
    expect_terminals_error("<fmiTerminalsAndIcons><Terminals>\n<Terminal matchingRule=\"bus\"/>"
                           "</Terminals></fmiTerminalsAndIcons>",
                           "line 2: <Terminal> lacks the required attribute name");
    expect_terminals_error("<fmiTerminalsAndIcons><Terminals><Terminal name=\"a\"/>"
                           "</Terminals></fmiTerminalsAndIcons>",
                           "<Terminal> lacks the required attribute matchingRule");
    expect_terminals_error("<fmiTerminalsAndIcons><Terminals><Terminal name=\"a\" matchingRule="
                           "\"bus\"><TerminalMemberVariable variableKind=\"signal\"/></Terminal>"
                           "</Terminals></fmiTerminalsAndIcons>",
                           "<TerminalMemberVariable> lacks the required attribute variableName");
    expect_terminals_error("<fmiTerminalsAndIcons><Terminals><Terminal name=\"a\" matchingRule="
                           "\"bus\"><TerminalMemberVariable variableName=\"x\"/></Terminal>"
                           "</Terminals></fmiTerminalsAndIcons>",
                           "lacks the required attribute variableKind");
    expect_manifest_error("<m fmi-ls-version=\"1\"/>", "lacks the required attribute fmi-ls-name");
    expect_manifest_error("<m fmi-ls-name=\"a\"/>", "lacks the required attribute fmi-ls-version");
    expect_manifest_error("\n<m fmi-ls-name=\"a\" fmi-ls-version=\"1\" isBusSimulationFMU=\"yes\"/>",
                          "line 2: isBusSimulationFMU=\"yes\" is not a boolean");
    expect_manifest_error("<m", "malformed XML");
}

static void external_entities_are_never_loaded(void **state)
{
    (void)state;
    const char xml[] = "<!DOCTYPE a [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>"
                       "<fmiTerminalsAndIcons><Terminals><Terminal name=\"n&e;\" matchingRule="
                       "\"bus\"/></Terminals></fmiTerminalsAndIcons>";
    rtcosim_fmu_extras *x = rtcosim_fmu_extras_new();
    rtcosim_error err;
    if (rtcosim_terminals_parse(xml, strlen(xml), "t.xml", x, &err) == RTCOSIM_OK)
        assert_null(strstr(rtcosim_fmu_extras_terminal(x, 0)->name, "root:"));
    rtcosim_fmu_extras_free(x);
}

static void lsbus_rules_broken_are_warnings_not_refusals(void **state)
{
    (void)state;
    const char xml[] =
        "<fmiTerminalsAndIcons><Terminals>\n"
        "<Terminal terminalKind=\"org.fmi-ls-bus.network-terminal\" name=\"CAN1\""
        " matchingRule=\"bus\">\n"
        "<TerminalMemberVariable variableKind=\"signal\" variableName=\"tx\" memberName=\"Tx_Data\"/>"
        "<TerminalMemberVariable variableKind=\"signal\" variableName=\"rx\" memberName=\"Rx_Data\"/>"
        "<TerminalMemberVariable variableKind=\"signal\" variableName=\"rxc\" memberName=\"Rx_Clock\"/>"
        "</Terminal></Terminals></fmiTerminalsAndIcons>";
    rtcosim_fmu_extras *x = rtcosim_fmu_extras_new();
    rtcosim_error err;
    tu_log_capture(RTCOSIM_LOG_WARNING);
    assert_int_equal(rtcosim_terminals_parse(xml, strlen(xml), "t.xml", x, &err), RTCOSIM_OK);
    const char *log = tu_log_text();
    assert_non_null(strstr(log, "t.xml: line 2: network terminal 'CAN1' has matchingRule 'bus'"));
    assert_non_null(strstr(log, "network terminal 'CAN1' lacks the member Tx_Clock"));
    assert_null(strstr(log, "lacks the member Rx_Data"));
    assert_int_equal(rtcosim_fmu_extras_terminal(x, 0)->member_count, 3);
    rtcosim_fmu_extras_free(x);
    tu_log_reset();
}

static void an_extracted_fmu_lists_its_manifests_sorted(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    rtcosim_fmu_extras *x = NULL;
    rtcosim_error err;
    /* nothing declared: empty, not an error */
    assert_int_equal(rtcosim_fmu_extras_read(dir, &x, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_fmu_extras_terminal_count(x), 0);
    assert_int_equal(rtcosim_fmu_extras_standard_count(x), 0);
    rtcosim_fmu_extras_free(x);
    char path[512];
    snprintf(path, sizeof path, "%s/extra/org.fmi-standard.fmi-ls-bus/fmi-ls-manifest.xml", dir);
    tu_write_file(path, manifest);
    snprintf(path, sizeof path, "%s/extra/a.vendor.tool/settings.ini", dir); /* no manifest */
    tu_write_file(path, "x=1\n");
    snprintf(path, sizeof path, "%s/extra/org.example.ls/fmi-ls-manifest.xml", dir);
    tu_write_file(path, "<r fmi-ls-name=\"org.example.ls\" fmi-ls-version=\"2\"/>");
    snprintf(path, sizeof path, "%s/terminalsAndIcons/terminalsAndIcons.xml", dir);
    tu_write_file(path, lowcut);
    assert_int_equal(rtcosim_fmu_extras_read(dir, &x, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_fmu_extras_terminal_count(x), 2);
    assert_int_equal(rtcosim_fmu_extras_standard_count(x), 2);
    assert_string_equal(rtcosim_fmu_extras_standard(x, 0)->name, "org.example.ls");
    assert_string_equal(rtcosim_fmu_extras_standard(x, 1)->name, "org.fmi-standard.fmi-ls-bus");
    rtcosim_fmu_extras_free(x);
    tu_write_file(path, "<fmiTerminalsAndIcons>\n<Terminals>");
    assert_int_equal(rtcosim_fmu_extras_read(dir, &x, &err), RTCOSIM_EFORMAT);
    assert_null(x);
    assert_non_null(strstr(err.message, "terminalsAndIcons/terminalsAndIcons.xml: malformed XML"));
    assert_null(strstr(err.message, dir)); /* the name inside the FMU, not the temp path */
    tu_drop_dir(dir);
}

/* rtcosim info on an FMU archive: stdout and stderr into files; exit code. */
static int run_info(const char *fmu, const char *out, const char *errfile)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fo = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int fe = open(errfile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fo >= 0)
            dup2(fo, 1);
        if (fe >= 0)
            dup2(fe, 2);
        execl(RTCOSIM_CLI_PATH, RTCOSIM_CLI_PATH, "info", fmu, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static void info_lists_terminals_and_layered_standards(void **state)
{
    (void)state;
    char *dir = tu_make_dir();
    const char *bin = &RTCOSIM_FMU_FEEDTHROUGH_FMI3_BINARY[strlen(RTCOSIM_FMU_FEEDTHROUGH_FMI3_DIR) + 1];
    /* members mapped to Feedthrough's Binary variables, the clocks absent */
    char terminals[4096];
    snprintf(terminals, sizeof terminals, "%s", lowcut);
    char *p = strstr(terminals, "\"Powertrain.Rx_Data\"");
    memcpy(p, "\"Binary_input\"      ", 20);
    char fmu[512], out[512], errf[512];
    snprintf(fmu, sizeof fmu, "%s/node.fmu", dir);
    snprintf(out, sizeof out, "%s/out.txt", dir);
    snprintf(errf, sizeof errf, "%s/err.txt", dir);
    tu_entry entries[] = {
        {.name = "modelDescription.xml", .file = RTCOSIM_FMU_FEEDTHROUGH_FMI3_DIR "/modelDescription.xml"},
        {.name = bin, .file = RTCOSIM_FMU_FEEDTHROUGH_FMI3_BINARY},
        {.name = "terminalsAndIcons/terminalsAndIcons.xml", .text = terminals},
        {.name = "extra/org.fmi-standard.fmi-ls-bus/fmi-ls-manifest.xml", .text = manifest},
    };
    tu_zip(fmu, entries, 4);
    assert_int_equal(run_info(fmu, out, errf), 0);
    const char *text = tu_read_file(out, NULL);
    assert_non_null(strstr(text, "layered standards    org.fmi-standard.fmi-ls-bus 1.0.0"
                                 " (network FMU)\n"));
    assert_non_null(strstr(text, "\nterminals (2):\n  Powertrain  kind"
                                 " org.fmi-ls-bus.network-terminal, matching"
                                 " org.fmi-ls-bus.transceiver\n"));
    assert_non_null(strstr(text, "\n    Rx_Data -> Binary_input (signal)\n"));
    assert_non_null(strstr(text, "\n    Rx_Clock -> Powertrain.Rx_Clock (signal; not a variable"
                                 " of the FMU)\n"));
    assert_non_null(strstr(text, "\n    Configuration  kind"
                                 " org.fmi-ls-bus.network-terminal.configuration, matching bus\n"
                                 "      BusNotification -> BusNotification"));
    /* a malformed terminals file: exit 1, one line naming the FMU and the file */
    entries[2].text = "<fmiTerminalsAndIcons>";
    tu_zip(fmu, entries, 4);
    assert_int_equal(run_info(fmu, out, errf), 1);
    text = tu_read_file(errf, NULL);
    assert_non_null(strstr(text, "node.fmu: terminalsAndIcons/terminalsAndIcons.xml: malformed XML"));
    assert_int_equal(strchr(text, '\n') - text + 1, (long)strlen(text));
    tu_drop_dir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_standards_lowcut_example_reads_as_written),
        cmocka_unit_test(manifests_give_name_version_and_the_bus_simulation_flag),
        cmocka_unit_test(malformed_files_are_one_line_errors_naming_the_file),
        cmocka_unit_test(external_entities_are_never_loaded),
        cmocka_unit_test(lsbus_rules_broken_are_warnings_not_refusals),
        cmocka_unit_test(an_extracted_fmu_lists_its_manifests_sorted),
        cmocka_unit_test(info_lists_terminals_and_layered_standards),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
