/* The live view's HTTP and WebSocket API over loopback (src/serve): a
 * server on an ephemeral port around a master of the project's Dahlquist
 * FMU (k tunable, x0 fixed, x an output); values published by hand are the
 * ones served; tuning requests reach the component only through
 * rtcosim_serve_apply; refusals name the variable; the security rules. */
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "serve/serve_client.h"
#include "rtcosim/serve.h"
#include "rtcosim/system.h"
#include "util/test_util.h"

static char response[1 << 16];
static const char *body;

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static double seconds_since(const struct timespec *a)
{
    struct timespec b;
    clock_gettime(CLOCK_MONOTONIC, &b);
    return (double)(b.tv_sec - a->tv_sec) + (double)(b.tv_nsec - a->tv_nsec) * 1e-9;
}

/* What the tests wait for, at most (a loaded machine, the sanitizer build):
 * an idle machine needs milliseconds. */
#define DEADLINE_S 60.0

typedef struct fixture {
    char *dir;
    rtcosim_system_desc *desc;
    rtcosim_master *m;
    rtcosim_serve *s;
    int port;
} fixture;

static rtcosim_master *make_master(fixture *f)
{
    f->dir = tu_make_dir();
    char ssd[4096];
    snprintf(ssd, sizeof ssd,
             "<?xml version=\"1.0\"?>\n"
             "<ssd:SystemStructureDescription version=\"1.0\" name=\"decay\" "
             "xmlns:ssd=\"http://ssp-standard.org/SSP1/SystemStructureDescription\">"
             "<ssd:System name=\"decay\"><ssd:Elements>"
             "<ssd:Component name=\"plant\" source=\"%s\"/>"
             "</ssd:Elements></ssd:System>"
             "<ssd:DefaultExperiment startTime=\"0\" stopTime=\"1\"/>"
             "</ssd:SystemStructureDescription>\n",
             DAHLQUIST_FMU);
    const char *path = tu_path(f->dir, "decay.ssd");
    tu_write_file(path, ssd);
    rtcosim_error err;
    assert_int_equal(rtcosim_system_desc_load(path, &f->desc, &err), RTCOSIM_OK);
    rtcosim_system_build_options build = {0};
    assert_int_equal(rtcosim_system_build_master(f->desc, &build, &f->m, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_master_initialize(f->m, 0, RTCOSIM_NS_PER_S, &err), RTCOSIM_OK);
    return f->m;
}

static void open_server(fixture *f, const rtcosim_serve_options *o)
{
    rtcosim_error err;
    make_master(f);
    assert_int_equal(rtcosim_serve_create(o, &f->s, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_serve_add_variable(f->s, "plant.x", "", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_serve_add_variable(f->s, "plant.k", "1/s", &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_serve_add_master(f->s, f->m, 0, &err), RTCOSIM_OK);
    assert_int_equal(rtcosim_serve_start(f->s, &err), RTCOSIM_OK);
    f->port = rtcosim_serve_port(f->s);
    assert_true(f->port > 0);
    printf("live view on port %d\n", f->port);
}

static void close_server(fixture *f)
{
    rtcosim_serve_free(f->s);
    rtcosim_master_free(f->m);
    rtcosim_system_desc_free(f->desc);
    tu_drop_dir(f->dir);
}

static int get(int port, const char *path, const char *headers)
{
    return serve_client_request("127.0.0.1", port, "GET", path, headers, NULL, 0, response,
                                sizeof response, &body);
}

static int post(int port, const char *path, const char *json)
{
    return serve_client_request("127.0.0.1", port, "POST", path,
                                "Content-Type: application/json\r\n", json,
                                json ? strlen(json) : 0, response, sizeof response, &body);
}

static double component_k(rtcosim_master *m)
{
    rtcosim_component *c = rtcosim_master_component(m, "plant");
    const rtcosim_variable *v = rtcosim_component_find_variable(c, "k");
    double k = NAN;
    rtcosim_error err;
    assert_int_equal(rtcosim_component_get(c, RTCOSIM_TYPE_FLOAT64, &v->value_reference, 1, &k, &err),
                     RTCOSIM_OK);
    return k;
}

/* Published values are served as given (shortest round-trip numbers). */
static void test_values_are_the_published_ones(void **state)
{
    (void)state;
    fixture f = {0};
    rtcosim_serve_options o = {.listen = "0", .title = "decay"};
    open_server(&f, &o);
    assert_int_equal(get(f.port, "/api/values", NULL), 200);
    assert_non_null(strstr(body, "\"time\":null"));
    double row[2] = {0.25, 1};
    rtcosim_serve_publish(f.s, (RTCOSIM_NS_PER_S / 2), row);
    /* The server thread takes it at its next tick (1/50 s on an idle
     * machine): wait until it serves that sample. */
    struct timespec since;
    clock_gettime(CLOCK_MONOTONIC, &since);
    for (;;) {
        assert_int_equal(get(f.port, "/api/values", NULL), 200);
        if (strstr(body, "\"time\":0.5,") || seconds_since(&since) > DEADLINE_S)
            break;
        nap_ms(10);
    }
    if (!strstr(body, "\"time\":0.5,"))
        printf("after %g s the values served are still %s\n", DEADLINE_S, body);
    assert_non_null(strstr(body, "\"time\":0.5,"));
    assert_non_null(strstr(body, "\"values\":{\"plant.x\":0.25,\"plant.k\":1}"));
    assert_int_equal(get(f.port, "/api/info", NULL), 200);
    assert_non_null(strstr(body, "{\"name\":\"plant.k\",\"unit\":\"1/s\"}"));
    assert_non_null(strstr(body, "\"tunable\":[{\"name\":\"plant.k\",\"unit\":\"1/s\",\"kind\":\"parameter\""));
    assert_null(strstr(body, "\"name\":\"plant.x0\",\"unit\":\"\",\"kind\""));
    assert_non_null(strstr(body, "\"controls\":[\"pause\",\"resume\",\"stop\"]"));
    /* The page, shipped in the binary. */
    assert_int_equal(get(f.port, "/", NULL), 200);
    assert_non_null(strstr(response, "Content-Type: text/html"));
    assert_non_null(strstr(body, "data-variable"));
    assert_non_null(strstr(body, "/api/stream"));
    assert_int_equal(get(f.port, "/nothing", NULL), 404);
    close_server(&f);
}

/* A set accepted (200) that the run ends before applying (a stop, the stop
 * time) is counted by rtcosim_serve_finish, not lost without a word; after
 * it a set is refused (409) and the component keeps its value. */
static void test_set_the_run_ends_before_is_counted(void **state)
{
    (void)state;
    fixture f = {0};
    rtcosim_serve_options o = {.listen = "127.0.0.1:0"};
    open_server(&f, &o);
    assert_int_equal(post(f.port, "/api/set", "{\"name\": \"plant.k\", \"value\": 2.5}"), 200);
    assert_int_equal(post(f.port, "/api/set", "{\"name\": \"plant.k\", \"value\": 3.5}"), 200);
    assert_int_equal(rtcosim_serve_ended_first(f.s), 0);
    double row[2] = {0, 1};
    rtcosim_serve_finish(f.s, RTCOSIM_NS_PER_S, row); /* no step took them */
    assert_int_equal(rtcosim_serve_ended_first(f.s), 2);
    assert_int_equal(rtcosim_serve_applied_count(f.s), 0);
    assert_int_equal(post(f.port, "/api/set", "{\"name\": \"plant.k\", \"value\": 4.5}"), 409);
    assert_non_null(strstr(body, "the run has ended"));
    assert_int_equal(rtcosim_serve_ended_first(f.s), 2);
    assert_true(component_k(f.m) == 1.0);
    close_server(&f);
}

/* A set request is applied by the consumer only, stamped with its time;
 * refusals name the variable. */
static void test_set_applies_at_the_next_step(void **state)
{
    (void)state;
    fixture f = {0};
    rtcosim_serve_options o = {.listen = "127.0.0.1:0"};
    open_server(&f, &o);
    assert_true(component_k(f.m) == 1.0);
    assert_int_equal(post(f.port, "/api/set", "{\"name\": \"plant.k\", \"value\": 2.5}"), 200);
    assert_non_null(strstr(body, "\"ok\":true"));
    assert_true(component_k(f.m) == 1.0); /* nothing before the step boundary */
    assert_int_equal(rtcosim_serve_apply(f.s, 0, (RTCOSIM_NS_PER_S / 8)), 1);
    assert_true(component_k(f.m) == 2.5);
    assert_int_equal(rtcosim_serve_apply(f.s, 0, (RTCOSIM_NS_PER_S / 4)), 0);
    assert_int_equal(rtcosim_serve_applied_count(f.s), 1);
    rtcosim_time_ns t;
    const char *name;
    double value;
    rtcosim_serve_applied_at(f.s, 0, &t, &name, &value);
    assert_int_equal(t, (RTCOSIM_NS_PER_S / 8));
    assert_string_equal(name, "plant.k");
    assert_true(value == 2.5);
    /* The log file. */
    const char *log = tu_path(f.dir, "tuning.csv");
    rtcosim_error err;
    assert_int_equal(rtcosim_serve_write_tuning(f.s, log, &err), RTCOSIM_OK);
    char *text = tu_read_file(log, NULL);
    assert_string_equal(text, "\"time\",\"name\",\"value\"\n0.125,\"plant.k\",2.5\n");
    free(text);

    assert_int_equal(post(f.port, "/api/set", "{\"name\":\"plant.x0\",\"value\":3}"), 400);
    assert_string_equal(body, "{\"error\":\"'plant.x0' is not tunable: a parameter that is not "
                              "tunable\",\"name\":\"plant.x0\"}");
    assert_int_equal(post(f.port, "/api/set", "{\"name\":\"plant.x\",\"value\":3}"), 400);
    assert_non_null(strstr(body, "'plant.x' is not tunable: an output"));
    assert_int_equal(post(f.port, "/api/set", "{\"name\":\"plant.nope\",\"value\":3}"), 404);
    assert_non_null(strstr(body, "\"name\":\"plant.nope\""));
    /* Malformed JSON and wrong shapes: 400 with the reason. */
    const char *bad[] = {"", "{", "{\"name\":\"plant.k\",\"value\":}", "[1]",
                         "{\"name\":\"plant.k\",\"value\":01}", "{\"name\":\"plant.k\"}",
                         "{\"name\":\"plant.k\",\"value\":\"2\"}",
                         "{\"name\":\"plant.k\",\"value\":2,\"value\":3}",
                         "{\"name\":\"plant.k\",\"value\":2} x", "{\"name\":\"plant.k\",\"value\":1e999}",
                         "{\"name\":\"plant.k\",\"value\":{\"a\":1}}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(post(f.port, "/api/set", bad[i]), 400);
        assert_non_null(strstr(body, "malformed request"));
    }
    assert_int_equal(rtcosim_serve_apply(f.s, 0, (RTCOSIM_NS_PER_S / 2)), 0);
    /* Size limit and content type. */
    char big[8192];
    memset(big, ' ', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    big[0] = '{';
    big[sizeof big - 2] = '}';
    assert_int_equal(post(f.port, "/api/set", big), 413);
    assert_int_equal(serve_client_request("127.0.0.1", f.port, "POST", "/api/set",
                                          "Content-Type: text/plain\r\n",
                                          "{\"name\":\"plant.k\",\"value\":2}", 28, response,
                                          sizeof response, &body),
                     415);
    assert_int_equal(get(f.port, "/api/set", NULL), 405);
    close_server(&f);
}

static void test_controls(void **state)
{
    (void)state;
    fixture f = {0};
    atomic_int stop_flag = 0;
    rtcosim_serve_options o = {.listen = "0", .stop_flag = &stop_flag, .stop_value = 77};
    open_server(&f, &o);
    assert_false(rtcosim_serve_paused(f.s));
    assert_int_equal(post(f.port, "/api/pause", NULL), 200);
    assert_string_equal(body, "{\"ok\":true,\"state\":\"paused\"}");
    assert_true(rtcosim_serve_paused(f.s));
    assert_int_equal(post(f.port, "/api/resume", NULL), 200);
    assert_false(rtcosim_serve_paused(f.s));
    assert_int_equal(post(f.port, "/api/stop", NULL), 200);
    assert_true(rtcosim_serve_stop_requested(f.s));
    assert_int_equal(stop_flag, 77);
    close_server(&f);
    /* A real-time run only stops. */
    fixture g = {0};
    rtcosim_serve_options r = {.listen = "0", .mode = RTCOSIM_SERVE_REAL_TIME};
    open_server(&g, &r);
    assert_int_equal(post(g.port, "/api/pause", NULL), 409);
    assert_int_equal(get(g.port, "/api/info", NULL), 200);
    assert_non_null(strstr(body, "\"controls\":[\"stop\"]"));
    close_server(&g);
}

/* Token, read-only, Origin and Host rules; non-loopback needs a token. */
static void test_security(void **state)
{
    (void)state;
    rtcosim_serve *s = NULL;
    rtcosim_error err;
    rtcosim_serve_options open_all = {.listen = "0.0.0.0:0"};
    assert_int_equal(rtcosim_serve_create(&open_all, &s, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "needs --serve-token"));
    rtcosim_serve_options bad_port = {.listen = "127.0.0.1:70000"};
    assert_int_equal(rtcosim_serve_create(&bad_port, &s, &err), RTCOSIM_EINVAL);
    assert_non_null(strstr(err.message, "70000"));

    fixture f = {0};
    rtcosim_serve_options o = {.listen = "127.0.0.1:0", .token = "s3cret"};
    open_server(&f, &o);
    assert_int_equal(get(f.port, "/api/values", NULL), 401);
    assert_int_equal(get(f.port, "/api/values?token=wrong", NULL), 401);
    assert_int_equal(get(f.port, "/api/values?token=s3cret", NULL), 200);
    assert_int_equal(get(f.port, "/api/values", "Authorization: Bearer s3cret\r\n"), 200);
    assert_int_equal(get(f.port, "/", "Authorization: Bearer s3cre\r\n"), 401);
    serve_ws *ws = malloc(sizeof *ws);
    assert_false(serve_ws_open(ws, "127.0.0.1", f.port, "/api/stream", NULL));
    assert_true(serve_ws_open(ws, "127.0.0.1", f.port, "/api/stream?token=s3cret", NULL));
    serve_ws_close(ws);
    close_server(&f);

    fixture g = {0};
    rtcosim_serve_options ro = {.listen = "0", .read_only = true};
    open_server(&g, &ro);
    assert_int_equal(post(g.port, "/api/set", "{\"name\":\"plant.k\",\"value\":2}"), 403);
    assert_int_equal(post(g.port, "/api/stop", NULL), 403);
    assert_false(rtcosim_serve_stop_requested(g.s));
    assert_int_equal(get(g.port, "/api/info", NULL), 200);
    assert_non_null(strstr(body, "\"tunable\":[]"));
    /* Another site's page (its Origin) and DNS rebinding (its Host). */
    assert_int_equal(serve_client_request("127.0.0.1", g.port, "GET", "/api/values",
                                          "Origin: http://evil.example\r\n", NULL, 0, response,
                                          sizeof response, &body),
                     403);
    assert_false(serve_ws_open(ws, "127.0.0.1", g.port, "/api/stream",
                               "Origin: http://evil.example\r\n"));
    assert_int_equal(serve_client_request("127.0.0.1", g.port, "GET", "/api/values",
                                          "Host: evil.example:80\r\n", NULL, 0, response,
                                          sizeof response, &body),
                     403);
    assert_non_null(strstr(body, "Host is not a loopback name"));
    assert_int_equal(serve_client_request("127.0.0.1", g.port, "GET", "/api/values",
                                          "Host: localhost:80\r\n", NULL, 0, response,
                                          sizeof response, &body),
                     200);
    free(ws);
    close_server(&g);
}

/* The stream carries the newest sample at no more than 50 per second, and
 * a client that does not read never holds the producer. */
static void test_stream_rate_and_stalled_client(void **state)
{
    (void)state;
    fixture f = {0};
    rtcosim_serve_options o = {.listen = "0"};
    open_server(&f, &o);
    serve_ws *ws = malloc(sizeof *ws), *stalled = malloc(sizeof *stalled);
    assert_true(serve_ws_open(ws, "127.0.0.1", f.port, "/api/stream", NULL));
    assert_true(serve_ws_open(stalled, "127.0.0.1", f.port, "/api/stream", NULL));
    static char msg[1 << 16];
    struct timespec a;
    clock_gettime(CLOCK_MONOTONIC, &a);
    long messages = 0;
    double last_time = -1;
    double row[2];
    double elapsed = 0;
    for (long i = 0;; i++) {
        row[0] = (double)i;
        row[1] = 1;
        /* Published far faster than 50 Hz, never blocking. */
        rtcosim_serve_publish(f.s, (i * RTCOSIM_NS_PER_MS), row);
        elapsed = seconds_since(&a);
        /* At least 2 s, and until 20 messages came (a loaded machine's
         * server thread may be late), up to the deadline. */
        if (elapsed > 2.0 && (messages >= 20 || elapsed > DEADLINE_S))
            break;
        if (i % 100 == 0) {
            long n;
            while ((n = serve_ws_read(ws, msg, sizeof msg, 0)) > 0) {
                messages++;
                const char *t = strstr(msg, "\"time\":");
                assert_non_null(t);
                double time = strtod(t + 7, NULL);
                assert_true(time >= last_time);
                last_time = time;
                assert_non_null(strstr(msg, "\"type\":\"sample\""));
                assert_non_null(strstr(msg, "\"stats\":{"));
            }
            nap_ms(1);
        }
    }
    printf("%ld messages in %.3g s\n", messages, elapsed);
    assert_true(messages >= 20); /* the stream flows */
    /* At 50 Hz at most, also on a loaded machine: a late server thread
     * restarts its grid instead of sending the ticks it missed back to back
     * (+3: a sample or two queued before the count began) */
    assert_true(messages <= (long)(50 * elapsed) + 3);
    /* A client message above the limit (4096 bytes) closes its stream; a
     * small one does not. */
    static char big[5000];
    memset(big, 'x', sizeof big);
    assert_true(serve_ws_send_text(ws, "ping", 4));
    assert_true(serve_ws_read(ws, msg, sizeof msg, (int)(DEADLINE_S * 1000)) > 0);
    assert_true(serve_ws_send_text(ws, big, sizeof big));
    /* The samples already on their way, then the close (-1; a timeout too,
     * but only after a whole deadline without a message). */
    bool closed = false;
    struct timespec sent;
    clock_gettime(CLOCK_MONOTONIC, &sent);
    while (!closed && seconds_since(&sent) < DEADLINE_S)
        closed = serve_ws_read(ws, msg, sizeof msg, (int)(DEADLINE_S * 1000)) < 0;
    assert_true(closed);
    serve_ws_close(ws);
    serve_ws_close(stalled);
    free(ws);
    free(stalled);
    close_server(&f);
}

/* The thread ids of this process (at most `cap`). */
static size_t list_threads(pid_t *tids, size_t cap)
{
    DIR *d = opendir("/proc/self/task");
    assert_non_null(d);
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < cap)
        if (e->d_name[0] != '.')
            tids[n++] = (pid_t)atoi(e->d_name);
    closedir(d);
    return n;
}

/* With the paced thread's CPU given, every thread the server starts (the
 * HTTP workers, the stream's pump) may run on any CPU but that one, and
 * the caller's own mask is as it was. */
static void test_server_threads_keep_off_the_paced_cpu(void **state)
{
    (void)state;
    cpu_set_t mine;
    assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof mine, &mine), 0);
    if (CPU_COUNT(&mine) < 2)
        skip(); /* one CPU: nothing to keep off */
    int paced = -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &mine))
            paced = c; /* the last allowed CPU, as the CLI's and bench's default */
    pid_t before[256], after[256];
    size_t nb = list_threads(before, 256);
    rtcosim_serve_options o = {.listen = "127.0.0.1:0"};
    rtcosim_serve *s = NULL;
    rtcosim_error err;
    assert_int_equal(rtcosim_serve_create(&o, &s, &err), RTCOSIM_OK);
    rtcosim_serve_avoid_cpu(s, paced);
    assert_int_equal(rtcosim_serve_start(s, &err), RTCOSIM_OK);
    size_t na = list_threads(after, 256);
    size_t started = 0;
    for (size_t i = 0; i < na; i++) {
        bool old = false;
        for (size_t j = 0; j < nb; j++)
            old = old || before[j] == after[i];
        if (old)
            continue;
        cpu_set_t set;
        assert_int_equal(sched_getaffinity(after[i], sizeof set, &set), 0);
        assert_false(CPU_ISSET(paced, &set));
        assert_true(CPU_COUNT(&set) >= 1);
        started++;
    }
    assert_true(started >= 2); /* the pump and at least one HTTP thread */
    cpu_set_t now;
    assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof now, &now), 0);
    assert_true(CPU_EQUAL(&now, &mine));
    rtcosim_serve_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_are_the_published_ones),
        cmocka_unit_test(test_set_applies_at_the_next_step),
        cmocka_unit_test(test_set_the_run_ends_before_is_counted),
        cmocka_unit_test(test_controls),
        cmocka_unit_test(test_security),
        cmocka_unit_test(test_stream_rate_and_stalled_client),
        cmocka_unit_test(test_server_threads_keep_off_the_paced_cpu),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
