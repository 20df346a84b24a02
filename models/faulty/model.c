/* A Dahlquist model (der(x) = -k*x, explicit Euler) that fails on purpose:
 * from the communication point fail_time on, every step returns the status
 * chosen by fail_mode (1 Error, 2 Fatal, 3 Discard asking to terminate, like
 * the Reference FMUs' Stair, 4 Discard without asking) without advancing, or
 * misbehaves as hostile FMUs do (5 never returns, 6 segfaults, 7 aborts,
 * 8 calls exit(0)), so that importers' handling of failing FMUs can be tested.
 * fail_phase moves the failure (Error, or Fatal with fail_mode 2) to entering
 * (1) or exiting (2) initialization; FaultyBadToken's description carries
 * another instantiation token than its binary, so instantiation fails. */
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "../dahlquist/dahlquist_model.h"

typedef struct faulty {
    dahlquist_state dahlquist; /* first: the shared Dahlquist callbacks take it */
    double fail_time;
    int32_t fail_mode;
    int32_t fail_phase;
} faulty;

enum {
    FAIL_ERROR = 1,
    FAIL_FATAL = 2,
    FAIL_DISCARD = 3,
    FAIL_DISCARD_RECOVERABLE = 4,
    FAIL_HANG = 5,  /* never returns from the step */
    FAIL_CRASH = 6, /* SIGSEGV */
    FAIL_ABORT = 7, /* abort(): SIGABRT */
    FAIL_EXIT = 8,  /* exit(0) from inside the step */
    FAIL_MODE_MAX = FAIL_EXIT
};

enum { PHASE_STEP = 0, PHASE_ENTER_INITIALIZATION = 1, PHASE_EXIT_INITIALIZATION = 2 };

static const model_variable variables[] = {
    DAHLQUIST_VARIABLES,
    {"fail_time", 6, MODEL_FLOAT64, MODEL_PARAMETER, MODEL_TUNABLE, MODEL_INITIAL_EXACT,
     offsetof(faulty, fail_time), "1", "s",
     "Steps starting at a communication point >= fail_time fail", 0, {0, 0}},
    {"fail_mode", 7, MODEL_INT32, MODEL_PARAMETER, MODEL_TUNABLE, MODEL_INITIAL_EXACT,
     offsetof(faulty, fail_mode), "1", NULL,
     "Failing step: 1 Error, 2 Fatal, 3 Discard and terminate, 4 Discard, 5 hang, 6 segfault, 7 abort, 8 exit(0)", 0, {0, 0}},
    {"fail_phase", 8, MODEL_INT32, MODEL_PARAMETER, MODEL_FIXED, MODEL_INITIAL_EXACT,
     offsetof(faulty, fail_phase), "0", NULL,
     "What fails: 0 steps from fail_time on, 1 entering, 2 exiting initialization (Error; Fatal with fail_mode 2)",
     0, {0, 0}},
};

/* fail_phase 1 and 2: Fatal with fail_mode 2, else Error. */
static model_status phase_failure(model_instance *inst, const faulty *m, const char *where)
{
    bool fatal = m->fail_mode == FAIL_FATAL;
    model_log(inst, fatal ? MODEL_LOG_STATUS_FATAL : MODEL_LOG_STATUS_ERROR,
              "failing on purpose %s (fail_phase %d)", where, (int)m->fail_phase);
    return fatal ? MODEL_FATAL : MODEL_ERROR;
}

static model_status enter_initialization(model_instance *inst, void *data)
{
    const faulty *m = data;
    return m->fail_phase == PHASE_ENTER_INITIALIZATION
               ? phase_failure(inst, m, "entering initialization")
               : MODEL_OK;
}

static model_status check(model_instance *inst, void *data)
{
    const faulty *m = data;
    if (m->fail_phase == PHASE_EXIT_INITIALIZATION)
        return phase_failure(inst, m, "exiting initialization");
    model_status status = dahlquist_check(inst, data);
    if (status != MODEL_OK)
        return status;
    if (m->fail_mode < FAIL_ERROR || m->fail_mode > FAIL_MODE_MAX) {
        model_log(inst, MODEL_LOG_STATUS_ERROR, "fail_mode must be 1 to 8, is %d",
                  (int)m->fail_mode);
        return MODEL_ERROR;
    }
    return MODEL_OK;
}

static model_status do_step(model_instance *inst, void *data, double t, double h)
{
    faulty *m = data;
    if (t >= m->fail_time) {
        switch (m->fail_mode) {
        case FAIL_HANG:
            for (;;) {
                struct timespec pause = {1, 0};
                nanosleep(&pause, NULL);
            }
        case FAIL_CRASH:
            raise(SIGSEGV);
            return MODEL_FATAL;
        case FAIL_ABORT:
            abort();
        case FAIL_EXIT:
            exit(0);
        case FAIL_FATAL:
            model_log(inst, MODEL_LOG_STATUS_FATAL, "failing on purpose at t = %.17g (fail_mode 2)", t);
            return MODEL_FATAL;
        case FAIL_DISCARD:
            model_log(inst, MODEL_LOG_STATUS_DISCARD, "discarding on purpose at t = %.17g (fail_mode 3)", t);
            return MODEL_DISCARD;
        case FAIL_DISCARD_RECOVERABLE:
            model_log(inst, MODEL_LOG_STATUS_DISCARD, "discarding on purpose at t = %.17g (fail_mode 4)", t);
            model_discard_recoverable(inst);
            return MODEL_DISCARD;
        default:
            model_log(inst, MODEL_LOG_STATUS_ERROR, "failing on purpose at t = %.17g (fail_mode %d)", t,
                      (int)m->fail_mode);
            return MODEL_ERROR;
        }
    }
    return dahlquist_do_step(inst, data, t, h);
}

const model_def model_definition = {
    .model_name = "Faulty",
    .description = "Dahlquist test equation whose steps fail from fail_time on",
#ifdef FAULTY_DESCRIBE_OTHER_TOKEN /* FaultyBadToken's description only */
    .instantiation_token = "{6f0b9a2e-3c1d-4e57-9a8b-1d2c3e4f5aff}",
#else
    .instantiation_token = "{6f0b9a2e-3c1d-4e57-9a8b-1d2c3e4f5a04}",
#endif
    .variables = variables,
    .variable_count = sizeof variables / sizeof variables[0],
    .data_size = sizeof(faulty),
    .check = check,
    .enter_initialization = enter_initialization,
    .initialize = dahlquist_initialize,
    .evaluate = dahlquist_evaluate,
    .do_step = do_step,
    .default_start_time = 0.0,
    .default_stop_time = 2.0,
    .default_tolerance = 1e-6,
    .default_step_size = 1e-3,
};
