/* Shared declarations of the rtcosim command-line tool: the subcommand
 * table entry and small helpers every subcommand uses. Each subcommand lives
 * in cli/cmd_NAME.c and defines `const rtcosim_cli_command rtcosim_cli_cmd_NAME`;
 * the build collects them into the dispatch table (no central list to edit). */
#ifndef RTCOSIM_CLI_H
#define RTCOSIM_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "rtcosim/status.h"

typedef struct rtcosim_cli_command {
    const char *name;    /* as typed: "simulate" */
    const char *summary; /* one line for `rtcosim --help` */
    int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
} rtcosim_cli_command;

/* Exit codes of the commands that run a simulation (documented in their
 * --help): scripts can tell a clean end from a degraded one. Signals: 128 +
 * the signal number (130 SIGINT, 143 SIGTERM). */
enum {
    CLI_EXIT_OK = 0,           /* ran to the end (or a component asked to end) */
    CLI_EXIT_ERROR = 1,        /* error: bad input, failing component, write error */
    CLI_EXIT_USAGE = 2,        /* bad command line */
    CLI_EXIT_PARTNER_LOST = 3, /* real time: the non-real-time partner was lost */
    CLI_EXIT_DEADLINE = 4,     /* real time: a deadline missed under --overrun fail */
    CLI_EXIT_STEP_TIMEOUT = 5, /* a component call took longer than --step-timeout */
};

/* Print "rtcosim: <message>" on stderr (one line) and return exit code 1. */
int cli_fail(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Refuse (cli_fail, exit 1) an output path that names the same file as one
 * of the inputs (same device and inode; NULL entries skipped), before
 * anything runs: writing results must never destroy an input. 0 if fine. */
int cli_check_output_not_input(const char *option, const char *output,
                               const char *const *inputs, size_t count);

/* Every file a command writes (option name, path; NULL paths skipped)
 * against its inputs as above, and against each other: two outputs naming
 * one file (interleaved, or one replacing the other) are refused too. */
typedef struct cli_output {
    const char *option, *path;
} cli_output;
int cli_check_outputs(const cli_output *outputs, size_t n_out, const char *const *inputs,
                      size_t n_in);

/* Refuse (cli_fail, exit 1) a file the command writes at its end when it
 * cannot be: a directory, an unwritable file, a missing or unwritable
 * directory for a new one. Checked first so that a run is not wasted. */
int cli_check_output_file(const char *option, const char *path);

/* Refuse (cli_fail, exit 1) a directory the run will write into at its end
 * (e.g. --rt-report) when it cannot be: an existing non-directory, an
 * unwritable directory, or a missing one whose parent is not a writable
 * directory. Checked before the run so that its results are not wasted. */
int cli_check_output_dir(const char *option, const char *dir);

/* "Did you mean": Levenshtein distance of two names, and whether a
 * candidate is close enough to suggest (a third of the longer name). */
size_t cli_edit_distance(const char *a, const char *b);
#include <stdbool.h>
bool cli_is_close(const char *typed, const char *candidate, size_t distance);
/* A window bound (--from, --to) in seconds: a finite number, else
 * cli_fail "PREFIX--from needs a time in seconds, e.g. --from 1.5 (got
 * 'x')" (prefix: "convert: " or ""). 0 if fine. */
int cli_parse_window_time(const char *prefix, const char *option, const char *text, double *out);
/* The one message for an unknown option of any command: "COMMAND: unknown
 * option '--stoptime'; did you mean '--stop-time'? (see rtcosim COMMAND
 * --help)", the suggestion the nearest option usage() lists (NULL: none).
 * Returns CLI_EXIT_USAGE. */
int cli_unknown_option(const char *command, const char *option, void (*usage)(FILE *out));
/* An option given last, without the value it needs: "COMMAND: option
 * --opt needs a value (see rtcosim COMMAND --help)" when usage() lists it,
 * else cli_unknown_option's line (so that '--bogus' is not said to need a
 * value). Returns CLI_EXIT_USAGE. */
int cli_missing_value(const char *command, const char *option, void (*usage)(FILE *out));
/* A second positional argument where a command takes one: "COMMAND: more
 * than one WHAT given ('FIRST' and 'ARG')", and when the argument before ARG
 * is an option (which then takes no value, or ARG would be its value):
 * "; 'PREVIOUS' takes no value", so that no value is silently taken for a
 * positional argument. previous may be NULL. Returns CLI_EXIT_USAGE. */
int cli_extra_positional(const char *command, const char *what, const char *first,
                         const char *arg, const char *previous);
/* A positional argument argv[i] for *slot: the one-line errors of
 * cli_extra_positional when *slot is taken, and "COMMAND: option '--flag'
 * takes no value (given '--flag=VALUE')" when argv[i] is the value split off
 * a --flag=VALUE of a flag; else *slot = argv[i]. Returns 0 or CLI_EXIT_USAGE. */
int cli_positional(const char *command, const char *what, const char **slot, char *const *argv,
                   int i);

/* Same for an error value. */
int cli_fail_error(const rtcosim_error *err);

/* A CSV field in quotes, quotes inside doubled (RFC 4180, section 2). */
void cli_put_csv_quoted(const char *text, FILE *out);
/* Can the file be read again from its start (a regular file; not a pipe or
 * a terminal)? A command that reads a log twice streams it only then. */
bool cli_rereadable(const char *path);
/* Are a and b one existing file (the same inode)? */
bool cli_same_file(const char *a, const char *b);

/* An --input-column INPUT=COLUMN of COMMAND: *input a malloc'd copy of
 * INPUT, *column what follows the '='; "COMMAND: option --input-column needs
 * INPUT=COLUMN (INPUT_IS, a column of --input-file), not 'TEXT'" when either
 * is empty (map NULL: none given). 0 or an exit code. */
int cli_input_column(const char *command, const char *input_is, const char *map, char **input,
                     const char **column);

/* `rtcosim info`: an FMI 3.0 FMU's clocks, clocked variables and Binary
 * maxSize/mimeType (info_clocks.c); nothing for other components. */
struct rtcosim_component;
void cli_info_print_clocks(const struct rtcosim_component *c);

/* A real-time run: each SE FMU partition's activations and execution time,
 * on stdout and as partitions.csv in report_dir (may be NULL; run_partitions.c). */
struct rtcosim_master;
void cli_report_partitions(const struct rtcosim_master *part, const char *report_dir);

/* `rtcosim can convert IN OUT ...` (can_convert.c); argv[1] is "convert". */
int cli_can_convert(int argc, char **argv);

/* `rtcosim can isotp LOG ...` (can_isotp.c); argv[1] is "isotp". */
int cli_can_isotp(int argc, char **argv);
/* `rtcosim can dtc LOG ...` (can_dtc.c); argv[1] is "dtc". */
int cli_can_dtc(int argc, char **argv);
/* ISO-TP ids from SPEC (ids, ranges, 'obd', comma-separated) appended to
 * *ids (realloc'd); option names the option in errors; 0 or 1 after saying
 * why. */
struct rtcosim_isotp_ids;
int cli_isotp_ids_parse(const char *option, const char *spec, bool address_byte,
                        struct rtcosim_isotp_ids **ids, size_t *count);
/* --isotp-addressing normal|extended: whether frames start with an address byte. */
int cli_isotp_addressing(const char *value, bool *address_byte);
/* The options the ISO-TP commands share at argv[*i]: ids_option SPEC (into
 * *spec) and --isotp-addressing; 1 taken (*i past its value), 0 not one of
 * them, -1 an error said. */
int cli_isotp_option(const char *command, const char *ids_option, int argc, char **argv, int *i,
                     const char **spec, bool *address_byte);
/* The command line `can isotp` and `can dtc` share (argv[2] on): LOG,
 * ids_option SPEC, --isotp-addressing, --relative-time and, when `output`
 * is not NULL, -o/--output F into *output; the ids parsed (default obd)
 * into *ids (free() them). 0, 1 after saying why, or -1 after --help (the
 * usage printed: exit 0). */
typedef struct cli_isotp_args {
    const char *log_path, *spec, *output;
    bool relative;
    struct rtcosim_isotp_ids *ids;
    size_t id_count;
} cli_isotp_args;
int cli_isotp_args_parse(const char *command, const char *ids_option, bool takes_output,
                         int argc, char **argv, void (*usage)(FILE *), cli_isotp_args *out);

#endif
