/* `rtcosim run`'s usage text and command line: every option into run_args,
 * with the checks that need no system loaded (cmd_run.c runs it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "progress.h"
#include "run_args.h"
#include "signals.h"
#include "rtcosim/fmu.h"
#include "run_distribute.h"
#include "run_isolate.h"
#include "run_speculate.h"
#include "rtcosim/log.h"
#include "rtcosim/master.h"
#include "rtcosim/dcp.h"
#include "rtcosim/results.h"
#include "rtcosim/system.h"
#include "rtcosim/system_rt.h"

void cli_run_usage(FILE *out)
{
    fprintf(out,
            "usage: rtcosim run SYSTEM.ssd|SYSTEM.ssp|OspSystemStructure.xml|DIR|MODEL.fmu\n"
            "                   [options]\n\n"
            "Runs an SSP 1.0 system, or libcosim's OspSystemStructure.xml (a directory: its\n"
            "OspSystemStructure.xml, else its SystemStructure.ssd). Settings on the command\n"
            "line override the system's org.rtcosim.master annotation. FMUs run as\n"
            "co-simulation, those offering model exchange only with it (CVODE inside each\n"
            "macro step).\n"
            "An FMU alone is a system of one component named after its modelIdentifier\n"
            "(columns Model.var; options also take a variable's own name), with fmusim's\n"
            "defaults: its default experiment, else stop 1 s after start and a macro step\n"
            "of (stop - start) / 500; so every option below (--real-time, --serve,\n"
            "--isolate, ...) works on a single FMU too.\n\n"
            "options:\n"
            "  --start-time S          start time (default: DefaultExperiment or 0)\n"
            "  --stop-time S           stop time (default: DefaultExperiment)\n"
            "  --step-size S           macro step H (else: org.rtcosim.master stepSize, libcosim's\n"
            "                          FixedStepAlgorithm baseStepSize or BaseStepSize,\n"
            "                          OMSimulator's FixedStepMaster stepSize (VariableStepMaster:\n"
            "                          initialStepSize, adaptive), ssd:DefaultExperiment stepSize,\n"
            "                          smallest component default-experiment step; the summary\n"
            "                          says which)\n"
            "  --order O               jacobi | gauss-seidel\n"
            "  --coupling C            input extrapolation: zoh | foh | soh\n"
            "  --correction C          none | energy (= dead-time) | dead-time | integrator\n"
            "  --step-input S          mean | start: what a component that cannot take input\n"
            "                          derivatives receives of a foh/soh estimate over its step\n"
            "                          [t, t+H]: the estimate's mean over the step (default: the\n"
            "                          same impulse, no lag) or its value at t (a sampled input;\n"
            "                          lags a ramp by H/2). zoh passes the held sample bit for\n"
            "                          bit either way\n"
            "  --step-control          adaptive macro step (PI controller on the coupling\n"
            "                          error; every component without a fixed rate follows\n"
            "                          it and must handle variable communication steps).\n"
            "                          The summary gives the steps, the smallest and largest\n"
            "  --step-tolerance REL[,ABS]  its error tolerances (default 1e-4,1e-6)\n"
            "  --min-step-size S       its smallest step (default H/1000)\n"
            "  --max-step-size S       its largest step (default 10 H); the three also as\n"
            "                          org.rtcosim.master stepTolerance, minStepSize, maxStepSize\n"
            "  --coupling-stats FILE   CSV per macro step: each connection's extrapolation\n"
            "                          error E of its last reconciled interval and each power\n"
            "                          bond's energy residual and the part the correction\n"
            "                          injected (the summary prints the RMS of E per corrected\n"
            "                          connection and the bonds' energies)\n"
            "  --threads N|auto        step components on up to N threads (auto: the CPUs):\n"
            "                          Jacobi all at once, Gauss-Seidel one dependency level\n"
            "                          at a time; balanced by measured step cost, one thread\n"
            "                          while that is faster (see the summary's threads line)\n"
            "  --parameter-set F.ssv   apply a parameter set file last (names\n"
            "                          component.variable); repeatable\n"
            "  --parameter-set NAME    (no .ssv ending) libcosim's choice: of the system's\n"
            "                          parameter bindings apply only those whose\n"
            "                          ssv:ParameterSet is named NAME (default: every binding\n"
            "                          in document order, a later value wins)\n"
            "  --start-value NAME V    start value of component.variable; repeatable\n"
            "  --input-file F.csv      inputs from a table in fmusim's format (time, then\n"
            "                          one column per input; or F.mat, a Dymola-layout\n"
            "                          result file; or F.mf4 or F.mdf, an ASAM MDF 4 or\n"
            "                          MDF 3 measurement),\n"
            "                          linear between rows, the later\n"
            "                          row at a repeated time, as a table component \"input\"\n"
            "                          (recorded as input.NAME): an FMU alone's inputs by\n"
            "                          name; in a system, inputs no connection drives, as\n"
            "                          component.variable; continuous Floats linear,\n"
            "                          discrete ones, integers and Booleans held; Int64\n"
            "                          and UInt64 read exactly (as simulate; a value\n"
            "                          outside the type is an error naming the line)\n"
            "  --input-column INPUT=COLUMN  the input file's column COLUMN drives INPUT (as\n"
            "                          --input-file names it); repeatable; the file's other\n"
            "                          columns are left out (a measurement's channels)\n"
            "  -o, --output-file F     write the observed variables: F.csv (fmusim CSV), F.mat\n"
            "                          (Modelica/Dymola result layout) or F.mf4 (ASAM MDF\n"
            "                          4.10); default:\n"
            "                          <system name>_out.csv in the current directory\n"
            "  --csv-units             a second CSV row with each column's unit (as simulate)\n"
            "  --writer-thread, --no-writer-thread  format and write the results on a thread of\n"
            "                          their own, the stepping thread formatting part of the\n"
            "                          rows while it is behind (default: where a CPU is free at\n"
            "                          the start and the master runs on one thread)\n"
            "  --distribute            under `mpirun -np N`: each component on one rank (round\n"
            "                          robin in system order, or --place COMP=RANK); outputs\n"
            "                          cross ranks once per macro step (Jacobi: one exchange\n"
            "                          of every value read on another rank; Gauss-Seidel: sent\n"
            "                          along the order to the ranks reading them); rank 0\n"
            "                          writes the results, bit-identical to one process; a\n"
            "                          failing or dying rank ends all, naming component and\n"
            "                          rank; a component asking to terminate ends all ranks\n"
            "                          in the same step, as in one process\n"
            "  --output-variable NAME  observe component.variable (repeatable; default: every\n"
            "                          numeric output; in real time those the paced thread\n"
            "                          sees); String and Binary outputs named here follow\n"
            "                          the numeric columns (Binary as hex, as fmusim); a\n"
            "                          NAME with *, ? or [...] is a pattern ('engine.*',\n"
            "                          '*.speed*'): every variable it matches, once\n"
            "  --output-interval S     write every S seconds (a multiple of H; default: every step)\n"
            "  --step-timeout S        end the run (rows so far written, exit code 5) when one\n"
            "                          macro step (or the initialization) takes longer than S s\n"
            "                          (--distribute: default 60 s, naming a stopped rank)\n"
            "  --log-level L           error | warning | info | debug | trace\n"
            "  -q, --quiet             no progress line (shown on a terminal: percent of the\n"
            "                          simulated interval, speed, estimated time left)\n"
            "  --allow-outside         let a .ssp reference FMUs and parameter sets outside the\n"
            "                          package (absolute, file://, ../); refused by default\n"
            "  --apply-default-start-values  every FMU's variables settable before\n"
            "                          initialization set to the start values its description\n"
            "                          declares (as FMPy's option; --start-value still wins)\n"
            "  --strict                refuse FMUs whose modelDescription.xml breaks a rule that\n"
            "                          is otherwise only a warning (see rtcosim simulate --help),\n"
            "                          and start values (--start-value, parameter sets) outside\n"
            "                          the variable's declared min/max (otherwise a warning)\n"
            "  --log-fmi-calls         log every FMU's FMI calls with their arguments and status\n"
            "                          (implies --log-level debug)\n"
            "  --fmu-logging           show the FMUs' own log messages as they come (at their\n"
            "                          status' level: OK messages with --log-level info;\n"
            "                          without: the last ones come with a failing call's error)\n"
            "  --event-mode-used       FMI 3.0 co-simulation FMUs that declare hasEventMode run\n"
            "                          with Event Mode: macro steps end at the next event time\n"
            "                          any of them announced; at an event (eventHandlingNeeded\n"
            "                          or that time) a row before it, then the event iteration\n"
            "                          over all of them (fmi3UpdateDiscreteStates, outputs to\n"
            "                          connected inputs, repeated until nothing changes; at\n"
            "                          most 100 rounds, else an error naming the components),\n"
            "                          and a row after it at the same time. Needs one rate,\n"
            "                          no step control, one process. Binary and Clock\n"
            "                          variables connect too (LS-BUS direct communication,\n"
            "                          a bus-simulation FMU): passed in the event iteration\n"
            "                          only, a connected input clock ticks with its output\n"
            "                          clock, clocked variables move only when it ticks; a\n"
            "                          bus simulation's input countdown clock (SSD connector\n"
            "                          kind inout) may drive nodes' input clocks (a warning)\n"
            "  --early-return-allowed  FMI 3.0 co-simulation FMUs that declare\n"
            "                          canReturnEarlyAfterIntermediateUpdate run with\n"
            "                          earlyReturnAllowed: they step first in each macro step;\n"
            "                          one returning early at lastSuccessfulTime ends the step\n"
            "                          there and the others step only to it (the next step\n"
            "                          starts there, for all; a row there); another returner\n"
            "                          already past it is rolled back (FMU state) and stepped\n"
            "                          again. Needs one rate, no step control, one process,\n"
            "                          components that vary their step\n"
            "  --can-bus NAME=NODE[,NODE..]\n"
            "                          rtcosim's CAN bus as the integrated bus simulation of\n"
            "                          FMI-LS-BUS CAN nodes, NODE = COMP.TERMINAL (a network\n"
            "                          terminal, from terminalsAndIcons.xml): arbitration by\n"
            "                          identifier, frames for their stuffed bits at the rate\n"
            "                          the nodes configure, Transmit to the others and Confirm\n"
            "                          to the sender at the frame's end, Arbitration Lost as\n"
            "                          the node configured; steps end at the bus's next event.\n"
            "                          With --real-time the buses step on the paced thread\n"
            "                          (their ECUs too; FMU nodes all in the real-time part;\n"
            "                          with --rt-report the bus's work per frame, bus_us[NAME])\n"
            "                          Implies --event-mode-used; repeatable. With NODE =\n"
            "                          ecus:N (the example vehicle's first N native ECUs with\n"
            "                          their plants, as rtcosim events --ecus N) and/or\n"
            "                          firmware:ECU=ELF (that ECU on the emulated core, as\n"
            "                          events --firmware) the bus is the event kernel's, which\n"
            "                          the FMU nodes share with those ECUs (classic, CAN FD\n"
            "                          and XL frames, Arbitration Lost as configured, one bit\n"
            "                          rate per phase, Bus Errors). NODE = replay:LOG[@BUS]\n"
            "                          plays a recorded candump/ASC/BLF/TRC/MF4 log onto the bus (the\n"
            "                          event kernel's) around the other nodes: each frame\n"
            "                          ends where the log says on an idle bus, ids the ECUs\n"
            "                          send left out (rtcosim events --can-replay)\n"
            "  --can-signals NAME=F.dbc,NODE=COMP[,NODE=COMP..][,COMP.VAR=MSG.SIG..]\n"
            "                          a CAN bus that carries the DBC's (or AUTOSAR 4\n"
            "                          ARXML's) signals between\n"
            "                          components with plain Float64 ports: COMP is DBC node\n"
            "                          NODE; its outputs named like the signals of NODE's\n"
            "                          messages (SIG or MSG.SIG) are packed into them every\n"
            "                          GenMsgCycleTime (without one: on change; factor,\n"
            "                          offset, saturation), the\n"
            "                          frames arbitrate and take their time on the bus, and\n"
            "                          inputs so named of the other nodes get the values from\n"
            "                          each frame's end on; COMP.VAR=MSG.SIG connects one\n"
            "                          variable explicitly; replay:LOG[@BUS] plays a recorded\n"
            "                          log onto it (the senders' ids left out). The bus's\n"
            "                          outputs rx.MSG.SIG are recorded; --can-log and\n"
            "                          --can-bitrate apply\n"
            "  --can-bitrate B         every bus at B bit/s, whatever the nodes configure\n"
            "  --can-fd-bitrate B      CAN FD data phase (BRS) at B bit/s (default 2000000:\n"
            "                          the event kernel's bus always, nodes must agree; the\n"
            "                          bridge when its nodes configure none)\n"
            "  --can-xl-bitrate B      the same for CAN XL's data phase (default 10000000)\n"
            "  --can-error-every N     every N-th frame ends in a Bus Error (retransmitted)\n"
            "  --can-error-code C      its code: 1 bit, 2 stuffing, 3 form, 4 CRC (default), 5\n"
            "                          ACK, 6 broken error frame\n"
            "  --can-log F             the bus's frames as candump -l (Vector ASC for F.asc,\n"
            "                          Vector BLF for F.blf, an ASAM MDF 4 bus log for F.mf4,\n"
            "                          PEAK TRC 2.1 for F.trc),\n"
            "                          as rtcosim events writes them (one --can-bus); with\n"
            "                          --real-time also can_NAME.log in --rt-report's folder\n"
            "  --can-no-lookahead      a bus with ECUs: end macro steps at every event of the\n"
            "                          ECUs' simulation (task ends, plant steps) instead of\n"
            "                          only where an FMU node gets something (same frames)\n"
            "  --dcp C=HOST:PORT       component C runs on a DCP slave there (rtcosim dcp-slave),\n"
            "                          over UDP/IPv4; C=tcp://HOST:PORT over TCP/IPv4;\n"
            "                          driven in NRT lock step; repeatable. With --real-time C\n"
            "                          must be --non-realtime: the remote slave is the partner,\n"
            "                          stepped on the partner thread, never waited for\n"
            "  --dcp-mode srt|nrt      real-time runs: how the remote partner runs (default srt:\n"
            "                          DCP soft real time, the slave steps on its own clock and\n"
            "                          streams its outputs; nrt: lock step per partner step;\n"
            "                          a slave that refuses SRT falls back to nrt with an info\n"
            "                          line; --virtual-clock runs use nrt)\n"
            "  --isolate [C[,C..]]     run every FMU component (or those named; a list follows\n"
            "                          the system, or --isolate=C,..) in a child process\n"
            "                          (rtcosim host-fmu): a crash, abort or exit there is an\n"
            "                          error naming component, FMI call and time, rows kept;\n"
            "                          results are bit-identical (also with --speculate)\n\n"
            "variants (a component as an anytime task: every step delivers the best result\n"
            "its deadline allows, the step's start plus the budget's share of the step,\n"
            "in real time of the frame; also from a component's org.rtcosim.variants\n"
            "annotation, rc:Variants spec=\"SPEC\" strategy=\"S\"):\n"
            "  --variants C=SPEC       C loaded once per variant, minimal first (repeatable):\n"
            "                          steps:H1,H2,.. micro steps in s, coarsest first, or\n"
            "                          solvers:euler:H,cvode[:HMAX],.. (model exchange, rtcosim\n"
            "                          integrating); the FMU must save and restore its state\n"
            "  --anytime-strategy S    escalate (default) | timer | parallel\n"
            "  --anytime-budget F      share of the step (frame) by which it delivers (0.8)\n\n"
            "A component that asks to end the run (FMI terminateSimulation, or a discarded step\n"
            "with fmi2Terminated / terminateSimulation) ends it normally: the run stops at the\n"
            "last time every component reached, the summary names the component, exit code 0.\n\n"
            "speculation (fixed steps, coupling without correction; see master_speculate.h):\n"
            "  --speculate             each component (on --threads threads, default one each up\n"
            "                          to the processor count) predicts the inputs it\n"
            "                          lacks, runs ahead and rolls back partially on arrival;\n"
            "                          components that cannot save state run conservatively\n"
            "  --threshold Tc          cumulative input error allowed in kept steps (default 0:\n"
            "                          results bit-identical to the plain run)\n"
            "  --correction-capacity T after a partial rollback, take the kept steps' input\n"
            "                          error E back by at most T per step (as many steps as\n"
            "                          |E|/T needs, then the rest; default: mirrored over the\n"
            "                          kept steps' count)\n"
            "  --horizon M             steps a component may run ahead (default 16)\n"
            "  --speculate-stats F.csv per-component statistics (rollback depths, prediction error)\n"
            "  --reference             also run plain and report the committed results' error\n\n"
            "real time (settings also from the org.rtcosim.realtime annotation, see system.h):\n"
            "  --real-time             pace the run to the wall clock (frame = macro step H)\n"
            "  --virtual-clock         real-time run on a simulated clock: same pacing and\n"
            "                          statistics, no waiting (deterministic; tests, CI)\n"
            "  --rt-factor K           run at K times real time (default 1)\n"
            "  --overrun P             soft | catch-up | skip | fail (default soft)\n"
            "  --non-realtime C[,C..]  a non-real-time part: components that run on a thread of\n"
            "                          their own, on virtual time tv; repeatable: each is a part\n"
            "                          with its own thread, queues, estimators and report rows\n"
            "                          (a component in one part only). Their FMUs run isolated\n"
            "                          (as with --isolate): one that crashes, aborts or exits\n"
            "                          makes its part lost (exit code 3), the real-time part\n"
            "                          goes on\n"
            "  --no-isolate            run the partner's FMUs in process instead (also over\n"
            "                          the annotation's rc:Master isolate=\"all\" or \"C,..\")\n"
            "  --isolate-timeout S     an isolated FMU's call unanswered for S seconds (hung,\n"
            "                          or its host stopped) kills its host: the run ends with\n"
            "                          its rows, a partner is lost (default 60; 0: no limit)\n"
            "  --exchange-every N      exchange with the non-real-time part every N frames\n"
            "  --exchange-pattern P    frames between exchanges, repeated: 2,1 = after 2, then 1\n"
            "  --estimator E           zoh | foh | soh | map:FILE | linear:SIG[+SIG..], with\n"
            "                          modifiers (e.g. foh,max=10,horizon=0.005; see estimate.h)\n"
            "  --estimator SIG=E       (repeatable) estimator of one signal from a non-real-time\n"
            "                          part; linear: fitted online (RLS) on real-time outputs or\n"
            "                          other parts' signals, e.g. gearbox.torque=linear:plant.w\n"
            "  --partner-timeout S     declare a non-real-time part lost after S s without data\n"
            "  --partner-window S      judge each part's pace over windows of S s of simulated\n"
            "                          time (default 0.1): a window it computes slower than\n"
            "                          real time is warned about (printed, summary.csv)\n"
            "  --rt-report DIR         write summary/frames/overruns/estimates CSV files there\n"
            "                          (and partitions.csv: each FMI 3.0 scheduled-execution\n"
            "                          partition's activations, execution time, lateness\n"
            "                          p50/p99/max and preemptions). Such partitions run at\n"
            "                          their ticks inside the frame, highest priority first;\n"
            "                          a higher one preempts a lower one at its lock/unlock\n"
            "                          Preemption callbacks, never inside the critical section\n"
            "  --no-calibrate          skip the check that the real-time part fits its frame (it\n"
            "                          steps 100 frames unpaced first and refuses the run when\n"
            "                          their median or 99th percentile exceeds 90 %% of the\n"
            "                          frame; one isolated OS stall does not count)\n"
            "  --inject-delay C:SPEC   make component C slow (testing): mean=F,late=F,min=F,\n"
            "                          max=F,seed=N,schedule=S/S/..,fail=N,hang=N; repeatable\n"
            "  --priority P            SCHED_FIFO priority of the real-time thread (as anytime,\n"
            "                          rt-check; = --rt-option priority P). Without it (and\n"
            "                          without --rt-option lock-memory) a wall-clock run takes\n"
            "                          SCHED_FIFO 80 and locks its memory where permitted (root,\n"
            "                          CAP_SYS_NICE / ulimit -r, CAP_IPC_LOCK / ulimit -l) and\n"
            "                          says so; --priority 0: normal scheduling\n"
            "  --rt-option NAME VALUE  any executor option (priority, cpu, partner-cpu,\n"
            "                          lock-memory, cpu-dma-latency US (0: no deep idle states\n"
            "                          during the run, as cyclictest), busy-wait,\n"
            "                          tv-includes-step; see realtime.h)\n");
    cli_serve_usage(out);
    fprintf(out,
            "\nThe real-time summary's terms:\n%s\n"
            "SIGINT/SIGTERM/SIGHUP (Ctrl-C, a closed terminal) end the run at the next step\n"
            "(real time: frame): the results so far, the report and the summary are written,\n"
            "temporary files removed (one the process started with ignored stays ignored:\n"
            "`nohup rtcosim run ... &` runs on after the terminal closes);\n"
            "a second signal exits at once, as does a component call still running 5 s after\n"
            "the first, on any thread of --threads or --speculate (the rows so far written,\n"
            "the component and call named). A lost partner\n"
            "whose thread does not return from its component call within --partner-timeout\n"
            "after the run is abandoned. The live view's stop (POST /api/stop) ends it the same\n"
            "way, with exit code 0.\n\n"
            "exit codes: 0 ran to the end (or a component asked to end it); 1 error; 2 bad\n"
            "command line; 3 real time: the non-real-time partner was lost (the real-time\n"
            "part ran on estimates; results complete); 4 real time: a deadline was missed\n"
            "under --overrun fail; 5 --step-timeout passed; 130 / 143 / 129 ended by SIGINT /\n"
            "SIGTERM / SIGHUP (results so far kept).\n"
            "A component that crashes gets the rows so far written and a line naming it and\n"
            "its FMI call before the process dies of the signal; exit() in one gives 1.\n",
            rtcosim_rt_summary_legend());
}

static int parse_time_option(const char *option, const char *text, rtcosim_time_ns *out)
{
    rtcosim_error err;
    if (rtcosim_time_parse_seconds(text, out, &err) != RTCOSIM_OK)
        return cli_fail("%s: %s", option, err.message);
    return 0;
}

int cli_run_parse_args(int argc, char **argv, run_args *a)
{
    rtcosim_ssd_master_settings *o = &a->build.overrides;
    /* As simulate: an FMU offering model exchange only runs with it. */
    a->fmu_options.model_exchange_fallback = true;
    a->build.fmu = &a->fmu_options;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i];
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        int rc = 0;
        if (strcmp(opt, "--step-control") == 0) {
            o->has_step_control = o->step_control = true;
            continue;
        }
        if (strcmp(opt, "--quiet") == 0 || strcmp(opt, "-q") == 0) {
            a->quiet = true;
            continue;
        }
        if (strcmp(opt, "--distribute") == 0) {
            a->distribute.enabled = true;
            continue;
        }
        if (strcmp(opt, "--allow-outside") == 0) {
            a->allow_outside = true;
            continue;
        }
        if (strcmp(opt, "--csv-units") == 0) {
            a->csv_units = true;
            continue;
        }
        if (strcmp(opt, "--writer-thread") == 0 || strcmp(opt, "--no-writer-thread") == 0) {
            a->writer_thread = opt[2] == 'w' ? 1 : 0;
            continue;
        }
        if (strcmp(opt, "--strict") == 0) {
            a->fmu_options.strict = true;
            continue;
        }
        if (strcmp(opt, "--apply-default-start-values") == 0) {
            a->fmu_options.apply_default_start_values = true;
            continue;
        }
        if (strcmp(opt, "--fmu-logging") == 0) {
            a->fmu_options.fmu_logging_on = true;
            a->build.fmu = &a->fmu_options;
            continue;
        }
        if (strcmp(opt, "--log-fmi-calls") == 0) {
            /* every FMU's FMI calls with arguments and status, as simulate's */
            a->fmu_options.log_fmi_calls = true;
            a->build.fmu = &a->fmu_options;
            if (rtcosim_log_get_level() < RTCOSIM_LOG_DEBUG)
                rtcosim_log_set_level(RTCOSIM_LOG_DEBUG);
            continue;
        }
        int serve = cli_serve_option(&a->serve, argc, argv, &i);
        if (serve < 0)
            return 1;
        if (serve > 0)
            continue;
        int can = cli_can_bus_option(&a->can, argc, argv, &i);
        if (can < 0)
            return 1;
        if (can > 0) {
            /* LS-BUS nodes exchange their operations in Event Mode. */
            a->fmu_options.event_mode_where_declared = true;
            a->build.fmu = &a->fmu_options;
            continue;
        }
        if (strcmp(opt, "--event-mode-used") == 0) {
            a->fmu_options.event_mode_where_declared = true;
            a->build.fmu = &a->fmu_options;
            continue;
        }
        if (strcmp(opt, "--early-return-allowed") == 0) {
            a->fmu_options.early_return_where_declared = true;
            a->build.fmu = &a->fmu_options;
            continue;
        }
        if (cli_speculate_flag(&a->speculate, opt))
            continue;
        if (strcmp(opt, "--real-time") == 0 || strcmp(opt, "--virtual-clock") == 0 ||
            strcmp(opt, "--no-calibrate") == 0) {
            a->real_time = a->real_time || strcmp(opt, "--real-time") == 0;
            a->virtual_clock = a->virtual_clock || strcmp(opt, "--virtual-clock") == 0;
            a->no_calibrate = a->no_calibrate || strcmp(opt, "--no-calibrate") == 0;
            continue;
        }
        if (strcmp(opt, "--isolate") == 0 || strncmp(opt, "--isolate=", 10) == 0) {
            /* A list follows when given as --isolate=C,.. or after the system. */
            const char *list = opt[9] == '=' ? opt + 10 : NULL;
            if (!list && a->system && val && val[0] != '-')
                list = argv[++i];
            a->isolate = true;
            if (!list)
                a->isolation->all = true;
            else if (run_isolation_add(a->isolation, list))
                return 1;
            continue;
        }
        if (strcmp(opt, "--no-isolate") == 0) {
            a->no_isolate = true;
            continue;
        }
        if ((opt[0] != '-' || opt[1] != '-') && strcmp(opt, "-o") != 0) {
            int rc = cli_positional("run", "system", &a->system, argv, i);
            if (rc)
                return rc;
            continue;
        }
        if (!val)
            return cli_missing_value("run", opt, cli_run_usage);
        i++;
        int spec = cli_speculate_option(&a->speculate, opt, val);
        if (spec < 0)
            return 1;
        if (spec > 0) {
        } else if (strcmp(opt, "--start-time") == 0) {
            rc = parse_time_option(opt, val, &a->start);
            a->has_start = true;
        } else if (strcmp(opt, "--stop-time") == 0) {
            rc = parse_time_option(opt, val, &a->stop);
            a->has_stop = true;
        } else if (strcmp(opt, "--dcp") == 0) {
            rtcosim_error err;
            if (rtcosim_dcp_bindings_add(&a->dcp, val, &err) != RTCOSIM_OK)
                rc = cli_fail("%s", err.message);
        } else if (strcmp(opt, "--dcp-mode") == 0) {
            if (strcmp(val, "srt") != 0 && strcmp(val, "nrt") != 0)
                rc = cli_fail("--dcp-mode: wants srt or nrt, got '%s'", val);
            a->dcp_mode = val;
        } else if (strcmp(opt, "--step-size") == 0) {
            rc = parse_time_option(opt, val, &o->step_size_ns);
            o->has_step_size = true;
            if (rc == 0 && o->step_size_ns <= 0)
                rc = cli_fail("--step-size must be positive");
        } else if (strcmp(opt, "--variants") == 0) {
            rc = run_variants_add(a->variants, val);
        } else if (strcmp(opt, "--anytime-strategy") == 0) {
            rc = run_variants_set_strategy(a->variants, val);
        } else if (strcmp(opt, "--anytime-budget") == 0) {
            rc = run_variants_set_budget(a->variants, val);
        } else if (strcmp(opt, "--coupling-stats") == 0) {
            a->coupling_stats = val;
        } else if (strcmp(opt, "--step-tolerance") == 0) {
            if (!rtcosim_ssd_parse_tolerance(val, &o->step_rtol, &o->step_atol))
                rc = cli_fail("--step-tolerance: wants REL[,ABS], both > 0, got '%s'", val);
        } else if (strcmp(opt, "--min-step-size") == 0 || strcmp(opt, "--max-step-size") == 0) {
            rtcosim_time_ns *bound =
                strcmp(opt, "--min-step-size") == 0 ? &o->min_step_ns : &o->max_step_ns;
            rc = parse_time_option(opt, val, bound);
            if (rc == 0 && *bound <= 0)
                rc = cli_fail("%s must be positive", opt);
        } else if (strcmp(opt, "--output-interval") == 0) {
            rc = parse_time_option(opt, val, &a->interval);
            a->has_interval = true;
            if (rc == 0 && a->interval <= 0)
                rc = cli_fail("--output-interval must be positive");
        } else if (strcmp(opt, "--order") == 0) {
            if (strcmp(val, "jacobi") == 0)
                o->order = RTCOSIM_SSD_ORDER_JACOBI;
            else if (strcmp(val, "gauss-seidel") == 0)
                o->order = RTCOSIM_SSD_ORDER_GAUSS_SEIDEL;
            else
                rc = cli_fail("--order: unknown order '%s' (jacobi, gauss-seidel)", val);
        } else if (strcmp(opt, "--coupling") == 0) {
            if (strcmp(val, "zoh") == 0)
                o->coupling = RTCOSIM_SSD_COUPLING_ZOH;
            else if (strcmp(val, "foh") == 0)
                o->coupling = RTCOSIM_SSD_COUPLING_FOH;
            else if (strcmp(val, "soh") == 0)
                o->coupling = RTCOSIM_SSD_COUPLING_SOH;
            else
                rc = cli_fail("--coupling: unknown coupling '%s' (zoh, foh, soh)", val);
        } else if (strcmp(opt, "--correction") == 0) {
            if (strcmp(val, "none") == 0)
                o->correction = RTCOSIM_SSD_CORRECTION_NONE;
            else if (strcmp(val, "energy") == 0 || strcmp(val, "dead-time") == 0)
                o->correction = RTCOSIM_SSD_CORRECTION_DEAD_TIME;
            else if (strcmp(val, "integrator") == 0)
                o->correction = RTCOSIM_SSD_CORRECTION_INTEGRATOR;
            else
                rc = cli_fail("--correction: unknown correction '%s' (none, energy, dead-time, "
                              "integrator)", val);
        } else if (strcmp(opt, "--step-input") == 0) {
            if (strcmp(val, "mean") == 0)
                o->step_input = RTCOSIM_SSD_STEP_INPUT_MEAN;
            else if (strcmp(val, "start") == 0)
                o->step_input = RTCOSIM_SSD_STEP_INPUT_START;
            else
                rc = cli_fail("--step-input: unknown step input '%s' (mean, start)", val);
        } else if (strcmp(opt, "--threads") == 0) {
            char *end = NULL;
            long n = strtol(val, &end, 10);
            a->threads_auto = strcmp(val, "auto") == 0;
            if (a->threads_auto)
                o->threads = 0;
            else if (!*val || *end || n < 1 || n > 256)
                rc = cli_fail("--threads: '%s' is not a thread count (1..256 or auto)", val);
            else
                o->threads = (int)n;
        } else if (strcmp(opt, "--parameter-set") == 0) {
            /* A file ends in .ssv; anything else names a set of the system. */
            size_t len = strlen(val);
            if (len >= 4 && strcasecmp(val + len - 4, ".ssv") == 0)
                a->parameter_sets[a->parameter_set_count++] = val;
            else if (a->parameter_set_name)
                rc = cli_fail("--parameter-set: one set name only ('%s' and '%s'); files end in .ssv",
                              a->parameter_set_name, val);
            else if (!*val)
                rc = cli_fail("--parameter-set: empty set name");
            else
                a->parameter_set_name = val;
        } else if (strcmp(opt, "--start-value") == 0) {
            if (i + 1 >= argc)
                return cli_fail("--start-value needs NAME and VALUE");
            a->start_names[a->start_count] = val;
            a->start_values[a->start_count++] = argv[++i];
        } else if (strcmp(opt, "--output-file") == 0 || strcmp(opt, "-o") == 0) {
            a->output_file = val;
        } else if (strcmp(opt, "--input-file") == 0) {
            a->input_file = val;
        } else if (strcmp(opt, "--input-column") == 0) {
            if ((rc = cli_input_column("run", "an input as --input-file names it", val,
                                       &a->input_inputs[a->input_column_count],
                                       &a->input_columns[a->input_column_count])) != 0)
                return rc;
            a->input_column_count++;
        } else if (strcmp(opt, "--priority") == 0) {
            /* as anytime and rt-check: the executor's option of that name */
            rtcosim_error err;
            a->given_scheduling = true;
            if (strcmp(val, "0") == 0)
                a->rt.fifo_priority = 0; /* normal scheduling, no automatic SCHED_FIFO */
            else if (rtcosim_rt_option_set(&a->rt, "priority", val, &err) != RTCOSIM_OK)
                rc = cli_fail("%s", err.message); /* names the option already */
        } else if (strcmp(opt, "--place") == 0) {
            a->distribute.places[a->distribute.place_count++] = val;
        } else if (strcmp(opt, "--step-timeout") == 0) {
            rc = cli_parse_step_timeout(val, &a->step_timeout);
        } else if (strcmp(opt, "--isolate-timeout") == 0) {
            rc = run_isolation_parse_timeout(val);
        } else if (strcmp(opt, "--output-variable") == 0) {
            a->observe[a->observe_count++] = val;
        } else if (strcmp(opt, "--rt-factor") == 0 || strcmp(opt, "--overrun") == 0 ||
                   strcmp(opt, "--partner-timeout") == 0 || strcmp(opt, "--partner-window") == 0) {
            rtcosim_error err;
            const char *name = opt + 2; /* the executor's option of the same name */
            a->given_factor = a->given_factor || strcmp(opt, "--rt-factor") == 0;
            a->given_overrun = a->given_overrun || strcmp(opt, "--overrun") == 0;
            a->given_timeout = a->given_timeout || strcmp(opt, "--partner-timeout") == 0;
            a->given_window = a->given_window || strcmp(opt, "--partner-window") == 0;
            if (rtcosim_rt_option_set(&a->rt, name, val, &err) != RTCOSIM_OK)
                rc = cli_fail("%s", err.message); /* names the option already */
        } else if (strcmp(opt, "--rt-option") == 0) {
            rtcosim_error err;
            if (i + 1 >= argc)
                return cli_fail("--rt-option needs NAME and VALUE");
            const char *value = argv[++i];
            a->given_scheduling = a->given_scheduling || strcmp(val, "priority") == 0 ||
                                  strcmp(val, "lock-memory") == 0;
            if (rtcosim_rt_option_set(&a->rt, val, value, &err) != RTCOSIM_OK)
                rc = cli_fail("--rt-option: %s", err.message);
        } else if (strcmp(opt, "--non-realtime") == 0) {
            /* Each --non-realtime is a part of its own: "a,b;c" (system_rt.h). */
            size_t used = strlen(a->non_realtime);
            if (!*val || strspn(val, ",;") == strlen(val))
                rc = cli_fail("--non-realtime: wants component names, got '%s'", val);
            else if (used + strlen(val) + 2 > sizeof a->non_realtime)
                rc = cli_fail("--non-realtime: too many names");
            else
                snprintf(a->non_realtime + used, sizeof a->non_realtime - used, "%s%s",
                         used ? ";" : "", val);
        } else if (strcmp(opt, "--exchange-every") == 0 ||
                   strcmp(opt, "--exchange-pattern") == 0) {
            char *end = NULL;
            if (strcmp(opt, "--exchange-every") == 0 && (strtol(val, &end, 10) < 1 || *end))
                rc = cli_fail("--exchange-every: '%s' is not a frame count (1, 2, ...)", val);
            /* The executor spells a pattern 2-1; the CLI accepts 2,1 too. */
            snprintf(a->exchange, sizeof a->exchange, "%s", val);
            for (char *p = a->exchange; *p; p++)
                if (*p == ',')
                    *p = '-';
        } else if (strcmp(opt, "--estimator") == 0) {
            a->estimator = val;
            if (a->estimator_count == sizeof a->estimators / sizeof a->estimators[0])
                rc = cli_fail("--estimator: at most %zu", a->estimator_count);
            else
                a->estimators[a->estimator_count++] = val;
        } else if (strcmp(opt, "--rt-report") == 0) {
            a->rt.report_dir = val;
        } else if (strcmp(opt, "--inject-delay") == 0) {
            rtcosim_error err;
            rtcosim_system_rt_delay *d = &a->delays[a->delay_count];
            if (rtcosim_system_rt_delay_parse(val, d, &a->schedules[a->delay_count], &err) !=
                RTCOSIM_OK)
                rc = cli_fail("--inject-delay: %s", err.message);
            else
                a->delay_count++;
        } else if (strcmp(opt, "--log-level") == 0) {
            rtcosim_log_level level;
            if (rtcosim_log_level_parse(val, &level) != 0)
                rc = cli_fail("--log-level: unknown level '%s'", val);
            else
                rtcosim_log_set_level(level);
        } else {
            rc = cli_unknown_option("run", opt, cli_run_usage);
        }
        if (rc)
            return rc;
    }
    if (!a->system) {
        cli_run_usage(stderr);
        return cli_fail("run: no system file given");
    }
    if (!a->output_file) {
        /* as simulate (and fmusim): "<system>_out.csv" in the current directory */
        const char *base = strrchr(a->system, '/');
        base = base && base[1] ? base + 1 : a->system;
        size_t len = strcspn(base, "/");
        const char *dot = strrchr(base, '.');
        if (dot && dot > base && (size_t)(dot - base) < len)
            len = (size_t)(dot - base);
        snprintf(a->default_output, sizeof a->default_output, "%.*s_out.csv", (int)len, base);
        a->output_file = a->default_output;
    }
    if (a->isolate && a->no_isolate)
        return cli_fail("run: --isolate and --no-isolate cannot be combined");
    if (cli_serve_check(&a->serve))
        return 1;
    if (a->serve.listen && (a->distribute.enabled || a->speculate.enabled))
        return cli_fail("run: --serve cannot be combined with --distribute or --speculate");
    if (a->real_time && a->step_timeout > 0)
        return cli_fail("run: --step-timeout is for offline runs (real time: --partner-timeout)");
    if (!a->real_time && (a->non_realtime[0] || a->exchange[0] || a->estimator ||
                          a->rt.report_dir || a->delay_count || a->virtual_clock))
        return cli_fail("run: real-time options need --real-time");
    if (a->dcp_mode && !a->real_time)
        return cli_fail("run: --dcp-mode needs --real-time");
    if (a->dcp_mode && strcmp(a->dcp_mode, "srt") == 0 && a->virtual_clock)
        return cli_fail("run: --dcp-mode srt steps the slave on its wall clock: not with "
                        "--virtual-clock");
    if (a->input_column_count && !a->input_file)
        return cli_fail("run: --input-column maps columns of --input-file, which is not given");
    if (a->speculate.given && !a->speculate.enabled)
        return cli_fail("run: --threshold, --correction-capacity, --horizon, --speculate-stats "
                        "and --reference need "
                        "--speculate");
    if (a->speculate.enabled && a->real_time)
        return cli_fail("run: --speculate and --real-time cannot be combined");
    if (a->distribute.place_count && !a->distribute.enabled)
        return cli_fail("run: --place needs --distribute");
    if (a->distribute.enabled && (a->real_time || a->speculate.enabled || a->dcp))
        return cli_fail("run: --distribute cannot be combined with --real-time, --speculate or"
                        " --dcp");
    if (a->distribute.enabled && (a->threads_auto || o->threads > 1))
        return cli_fail("run: --distribute steps each rank's components on one thread (no"
                        " --threads)");
    if (o->min_step_ns && o->max_step_ns && o->min_step_ns > o->max_step_ns)
        return cli_fail("run: --min-step-size %.9g s is above --max-step-size %.9g s",
                        rtcosim_time_to_seconds(o->min_step_ns),
                        rtcosim_time_to_seconds(o->max_step_ns));
    if ((o->step_rtol > 0 || o->min_step_ns || o->max_step_ns) && o->has_step_control &&
        !o->step_control)
        return cli_fail("run: --step-tolerance, --min-step-size and --max-step-size need step control");
    if (a->coupling_stats && (a->real_time || a->speculate.enabled || a->distribute.enabled))
        return cli_fail("run: --coupling-stats cannot be combined with --real-time, --speculate "
                        "or --distribute");
    if (a->variants->count && (a->distribute.enabled || a->speculate.enabled))
        return cli_fail("run: --variants cannot be combined with --distribute or --speculate");
    if (a->distribute.enabled)
        o->threads = 1; /* the proxies broadcast from the master's thread only */
    a->speculate.threads = o->threads > 0 ? (unsigned)o->threads : 0;
    return 0;
}
