/* test_session.c: the measuring engine on real programs: order, warm-up, failures, looks. */
#include <stdlib.h>
#include <unistd.h>

#include "core/engine/session.h"
#include "unit.h"

static const char *fixtures;
static char logpath[64];

static char *fix(const char *name)
{
    static char path[8][4096];
    static int k;
    char *p = path[k++ % 8];
    snprintf(p, 4096, "%s/%s", fixtures, name);
    return p;
}

/* argv of a shell command that appends WORD to the log, then runs the rest. */
static char **logger(const char *word, const char *then)
{
    static char cmd[16][512];
    static char *argv[16][4];
    static int k;
    int i = k++ % 16;
    snprintf(cmd[i], sizeof cmd[i], "echo %s >> '%s'%s%s", word, logpath, then ? "; " : "",
             then ? then : "");
    argv[i][0] = "/bin/sh";
    argv[i][1] = "-c";
    argv[i][2] = cmd[i];
    argv[i][3] = NULL;
    return argv[i];
}

/* The log's words, one per run, as "a b a b". */
static const char *log_words(void)
{
    static char out[4096];
    char line[64];
    size_t n = 0;
    out[0] = '\0';
    FILE *f = fopen(logpath, "r");
    if (!f)
        return out;
    while (fgets(line, sizeof line, f) && n + 64 < sizeof out) {
        line[strcspn(line, "\n")] = '\0';
        n += snprintf(out + n, sizeof out - n, "%s%s", n ? " " : "", line);
    }
    fclose(f);
    unlink(logpath);
    return out;
}

static int run_plan(struct session_plan *p, struct session *s, struct err *e)
{
    if (session_init(s, p, e) < 0)
        return -1;
    return session_run(s, e);
}

/* The progress callback, written down as "w1:a r1:b ..." (phase, run, series name). */
static char events[4096];
static size_t nevents;
static void on_progress(void *ctx, const struct session *s, const struct session_event *ev)
{
    (void)ctx;
    (void)s;
    nevents += snprintf(events + nevents, sizeof events - nevents, "%s%c%ld/%ld:%s%s",
                        nevents ? " " : "", ev->warmup ? 'w' : 'r', ev->run, ev->runs,
                        ev->series->name, ev->pos == 0 ? "^" : "");
}

struct look_log {
    long at[16];
    double alpha[16];
    int n, settle_at;   /* settle_at: the look that says settled (0: never) */
};

static int look(void *ctx, const struct session *s, double alpha, struct err *e)
{
    struct look_log *l = ctx;
    (void)e;
    l->alpha[l->n] = alpha;
    l->at[l->n++] = s->rounds;
    return l->n == l->settle_at;
}

int main(void)
{
    fixtures = getenv("FIXTURES");
    if (!fixtures) {
        printf("not ok - FIXTURES is not set\n");
        return 1;
    }
    char tmp[] = "/tmp/tare-test-session-XXXXXX";
    if (!mkdtemp(tmp))
        return 1;
    snprintf(logpath, sizeof logpath, "%s/log", tmp);
    struct session s;
    struct err e = {0};

    /* Rounds: warm-up rounds of every series, then measured rounds, each in plan order; the
     * warm-up runs are made but not kept. */
    {
        struct session_series x[3] = {
            {.name = "a", .argv = logger("a", NULL)},
            {.name = "b", .argv = logger("b", NULL)},
            {.name = "c", .argv = logger("c", NULL)},
        };
        struct session_plan p = {.series = x, .nseries = 3, .warmup = 1, .runs = 2, .pin_cpu = -1,
                                 .progress = on_progress};
        nevents = 0;
        CHECK_INT(run_plan(&p, &s, &e), 0);
        CHECK_STR(log_words(), "a b c a b c a b c");
        for (int k = 0; k < 3; k++) {
            CHECK_INT(x[k].n, 2);
            CHECK_INT(x[k].state, SESSION_OK);
            CHECK(x[k].wall_s[0] > 0 && x[k].wall_s[1] > 0);
            CHECK(!isnan(x[k].warm_first));
            CHECK(x[k].max_rss_kb[0] > 0);
            CHECK_INT(x[k].exit_code[1], 0);
        }
        CHECK(x[0].ctr == NULL);
        CHECK_INT(s.rounds, 2);
        CHECK_INT(s.stopped, SESSION_STOP_RUNS);
        CHECK_STR(events, "w1/1:a^ w1/1:b w1/1:c r1/2:a^ r1/2:b r1/2:c r2/2:a^ r2/2:b r2/2:c");
        session_free(&s);
        CHECK(x[0].wall_s == NULL);
    }

    /* A time budget: rounds past `runs` until the measured phase took min_time_s; it did not
     * stop before its last round, so the runs before that one took less than the budget.
     * One run of room at first: the records grow. */
    {
        struct session_series x[1] = {{.name = "nap", .argv = (char *[]){fix("sleeper"),
                                                                           "0.02", NULL}}};
        struct session_plan p = {.series = x, .nseries = 1, .warmup = 1, .runs = 1,
                                 .min_time_s = 0.15, .max_runs = 1000, .pin_cpu = -1};
        CHECK_INT(run_plan(&p, &s, &e), 0);
        CHECK_INT(s.stopped, SESSION_STOP_MIN_TIME);
        CHECK_STR(session_stop_name(s.stopped), "min-time");
        CHECK(x[0].n >= 2);
        CHECK_INT(x[0].n, s.rounds);
        double before_last = 0, all = 0;
        for (int i = 0; i < x[0].n; i++) {
            all += x[0].wall_s[i];
            before_last += i + 1 < x[0].n ? x[0].wall_s[i] : 0;
            CHECK(x[0].wall_s[i] >= 0.02);
        }
        CHECK(before_last < 0.15);
        CHECK(x[0].cap >= x[0].n);
        (void)all;
        session_free(&s);
    }

    /* The cap comes first when the time is out of reach; the events give no count ahead. */
    {
        struct session_series x[2] = {
            {.name = "a", .argv = logger("a", NULL)},
            {.name = "b", .argv = logger("b", NULL)},
        };
        struct session_plan p = {.series = x, .nseries = 2, .warmup = 0, .runs = 2,
                                 .min_time_s = 3600, .max_runs = 3, .pin_cpu = -1,
                                 .progress = on_progress};
        nevents = 0;
        CHECK_INT(run_plan(&p, &s, &e), 0);
        CHECK_STR(log_words(), "a b a b a b");
        CHECK_STR(events, "r1/0:a^ r1/0:b r2/0:a^ r2/0:b r3/0:a^ r3/0:b");
        CHECK_INT(s.stopped, SESSION_STOP_MAX_RUNS);
        CHECK_STR(session_stop_name(s.stopped), "max-runs");
        CHECK_INT(x[1].n, 3);
        session_free(&s);

        /* A cap below the minimum count is not a plan. */
        p.max_runs = 1;
        e = (struct err){0};
        CHECK_INT(session_init(&s, &p, &e), -1);
        CHECK_INT(e.kind, ERR_INPUT);

        /* Every series failed: the budget is not filled with skipped turns. */
        struct session_series y[1] = {{.name = "exit3", .argv = (char *[]){fix("exit3"), NULL}}};
        struct session_plan q = {.series = y, .nseries = 1, .runs = 1, .min_time_s = 3600,
                                 .pin_cpu = -1};
        CHECK_INT(run_plan(&q, &s, &e), 0);
        CHECK_INT(y[0].state, SESSION_FAILED);
        CHECK_INT(s.rounds, 1);
        session_free(&s);
    }

    /* An empty plan (an empty shard) runs nothing and is no error. */
    {
        struct session_plan p = {.nseries = 0, .warmup = 1, .runs = 3, .pin_cpu = -1,
                                 .progress = on_progress};
        nevents = 0;
        events[0] = '\0';
        CHECK_INT(run_plan(&p, &s, &e), 0);
        CHECK_STR(events, "");
        CHECK_INT(s.rounds, 0);
        session_free(&s);
    }

    /* No warm-up: nothing is discarded and there is no warm-up time. */
    {
        struct session_series x[1] = {{.name = "a", .argv = logger("a", NULL)}};
        struct session_plan p = {.series = x, .nseries = 1, .runs = 3, .pin_cpu = -1};
        CHECK_INT(run_plan(&p, &s, &e), 0);
        CHECK_STR(log_words(), "a a a");
        CHECK_INT(x[0].n, 3);
        CHECK(isnan(x[0].warm_first));
        session_free(&s);
    }

    /* Alternating: the warm-up in plan order, then A B, B A, A B. */
    {
        struct session_series x[2] = {
            {.name = "A", .argv = logger("A", NULL)},
            {.name = "B", .argv = logger("B", NULL)},
        };
        struct session_plan p = {.series = x, .nseries = 2, .warmup = 2, .runs = 3, .pin_cpu = -1,
                                 .order = SESSION_ALTERNATE, .progress = on_progress};
        nevents = 0;
        CHECK_INT(run_plan(&p, &s, &e), 0);
        CHECK_STR(log_words(), "A B A B A B B A A B");
        CHECK_STR(events,
                  "w1/2:A^ w1/2:B w2/2:A^ w2/2:B r1/3:A^ r1/3:B r2/3:B^ r2/3:A r3/3:A^ r3/3:B");
        CHECK_INT(x[0].n, 3);
        CHECK_INT(x[1].n, 3);
        session_free(&s);
    }

    /* Groups one after another, each its own warm-up and measured rounds (tare run). */
    {
        struct session_series x[3] = {
            {.name = "a", .argv = logger("a", NULL), .group = 7},
            {.name = "r", .argv = logger("r", NULL), .group = 7},
            {.name = "b", .argv = logger("b", NULL), .group = 9},
        };
        struct session_plan p = {.series = x, .nseries = 3, .warmup = 1, .runs = 2, .pin_cpu = -1};
        CHECK_INT(run_plan(&p, &s, &e), 0);
        CHECK_STR(log_words(), "a r a r a r b b b");
        session_free(&s);

        /* A group split in two is not a plan. */
        x[2].group = 7;
        x[1].group = 9;
        e = (struct err){0};
        CHECK_INT(session_init(&s, &p, &e), -1);
        CHECK_INT(e.kind, ERR_INPUT);
        CHECK(strstr(e.msg, "not adjacent") != NULL);
    }

    /* A failure in the warm-up: the record says what and where, with the stderr tail; the
     * series is not run again, the others are measured in full. */
    {
        struct session_series x[2] = {
            {.name = "exit3", .argv = (char *[]){fix("exit3"), NULL}},
            {.name = "a", .argv = logger("a", NULL)},
        };
        struct session_plan p = {.series = x, .nseries = 2, .warmup = 1, .runs = 3, .pin_cpu = -1};
        CHECK_INT(run_plan(&p, &s, &e), 0);
        CHECK_STR(log_words(), "a a a a");
        CHECK_INT(x[0].state, SESSION_FAILED);
        CHECK_INT(x[0].n, 0);
        CHECK_INT(x[0].fail.status, PROC_EXITED);
        CHECK(x[0].fail.warmup);
        CHECK_INT(x[0].fail.run, 1);
        CHECK_STR(x[0].fail.what, "exited with status 3");
        CHECK(strstr(x[0].fail.tail, "something went wrong on purpose") != NULL);
        char why[256];
        CHECK_STR(session_failure_why(&x[0].fail, why, sizeof why),
                  "exited with status 3 in warm-up run 1");
        CHECK_STR(session_state_name(x[0].state), "failed");
        CHECK_INT(x[1].state, SESSION_OK);
        CHECK_INT(x[1].n, 3);
        session_free(&s);
    }

    /* A failure in the second measured run: the first is kept, the failure names run 2. */
    {
        char then[200];
        snprintf(then, sizeof then, "[ $(wc -l < '%s') -lt 3 ]", logpath);
        struct session_series x[1] = {{.name = "flaky", .argv = logger("f", then)}};
        struct session_plan p = {.series = x, .nseries = 1, .warmup = 1, .runs = 4, .pin_cpu = -1};
        CHECK_INT(run_plan(&p, &s, &e), 0);
        CHECK_STR(log_words(), "f f f");
        CHECK_INT(x[0].state, SESSION_FAILED);
        CHECK_INT(x[0].n, 1);
        CHECK(!x[0].fail.warmup);
        CHECK_INT(x[0].fail.run, 2);
        char why[256];
        CHECK_STR(session_failure_why(&x[0].fail, why, sizeof why),
                  "exited with status 1 in measured run 2");
        session_free(&s);
    }

    /* --ignore-failure: a non-zero exit is measured, and its code kept. */
    {
        struct session_series x[1] = {{.name = "exit3", .argv = (char *[]){fix("exit3"), NULL}}};
        struct session_plan p = {.series = x, .nseries = 1, .warmup = 1, .runs = 2, .pin_cpu = -1,
                                 .ignore_failure = true};
        CHECK_INT(run_plan(&p, &s, &e), 0);
        CHECK_INT(x[0].state, SESSION_OK);
        CHECK_INT(x[0].n, 2);
        CHECK_INT(x[0].exit_code[0], 3);
        CHECK_INT(x[0].exit_code[1], 3);
        session_free(&s);
    }

    /* A crash is a failure even with ignore_failure; a timeout is its own state. */
    {
        struct session_series x[2] = {
            {.name = "crash", .argv = (char *[]){fix("crash"), NULL}},
            {.name = "sleeper", .argv = (char *[]){fix("sleeper"), "30", NULL}},
        };
        struct session_plan p = {.series = x, .nseries = 2, .runs = 2, .pin_cpu = -1,
                                 .ignore_failure = true, .timeout_s = 0.2};
        CHECK_INT(run_plan(&p, &s, &e), 0);
        CHECK_INT(x[0].state, SESSION_FAILED);
        CHECK_INT(x[0].fail.status, PROC_SIGNALED);
        CHECK(strstr(x[0].fail.what, "signal 11") != NULL);
        CHECK_INT(x[1].state, SESSION_TIMEOUT);
        CHECK_INT(x[1].fail.status, PROC_TIMEOUT);
        CHECK_STR(session_state_name(x[1].state), "timeout");
        CHECK(!x[1].fail.warmup && x[1].fail.run == 1);
        session_free(&s);
    }

    /* Pairs stop at the first failure, naming the side. */
    {
        struct session_series x[2] = {
            {.name = "a", .label = "A", .argv = logger("a", NULL)},
            {.name = "exit3", .label = "B", .argv = (char *[]){fix("exit3"), NULL}},
        };
        struct session_plan p = {.series = x, .nseries = 2, .warmup = 1, .runs = 5, .pin_cpu = -1,
                                 .order = SESSION_ALTERNATE, .stop_on_failure = true};
        e = (struct err){0};
        CHECK_INT(run_plan(&p, &s, &e), -1);
        CHECK_INT(e.kind, ERR_MEASURE);
        CHECK_STR(e.msg, "B 'exit3' failed: exited with status 3 in warm-up run 1");
        CHECK_STR(log_words(), "a");
        CHECK_INT(x[1].state, SESSION_FAILED);
        session_free(&s);
    }

    /* A command that cannot be started stops the session, its name first. */
    {
        struct session_series x[1] = {
            {.name = "nosuch", .argv = (char *[]){"/nonexistent/tare-x", NULL}}};
        struct session_plan p = {.series = x, .nseries = 1, .runs = 1, .pin_cpu = -1};
        e = (struct err){0};
        CHECK_INT(run_plan(&p, &s, &e), -1);
        CHECK(strncmp(e.msg, "'nosuch': ", 10) == 0);
        session_free(&s);
    }

    /* Hook commands around the runs, with TARE_SERIES and TARE_ITERATION; one that fails
     * fails its series only (with the hook's record), and the series is still cleaned up. */
    {
        char *const *setup[] = {logger("s:$TARE_SERIES:$TARE_ITERATION", NULL)};
        char *const *cleanup[] = {logger("k:$TARE_SERIES:$TARE_ITERATION", NULL)};
        char *const *prep_a[] = {logger("p:$TARE_SERIES:$TARE_ITERATION", NULL),
                                 logger("q", NULL)};
        char *const *conc_a[] = {logger("c:$TARE_ITERATION", NULL)};
        char *const *prep_b[] = {logger("pb", "echo no disk >&2; exit 5")};
        struct session_series x[2] = {
            {.name = "a", .argv = logger("a", NULL), .prepare = {prep_a, 2},
             .conclude = {conc_a, 1}},
            {.name = "b", .argv = logger("b", NULL), .prepare = {prep_b, 1}},
        };
        for (int k = 0; k < 2; k++) {
            x[k].setup = (struct session_cmds){setup, 1};
            x[k].cleanup = (struct session_cmds){cleanup, 1};
        }
        struct session_plan p = {.series = x, .nseries = 2, .warmup = 1, .runs = 2, .pin_cpu = -1};
        CHECK_INT(run_plan(&p, &s, &e), 0);
        CHECK_STR(log_words(), "s:a:0 s:b:0 p:a:-1 q a c:-1 pb p:a:1 q a c:1 p:a:2 q a c:2 "
                               "k:a:0 k:b:0");
        CHECK_INT(x[0].state, SESSION_OK);
        CHECK_INT(x[0].n, 2);
        CHECK_INT(x[1].state, SESSION_FAILED);
        CHECK_INT(x[1].n, 0);
        CHECK_STR(x[1].fail.hook, "prepare");
        CHECK(x[1].fail.warmup && x[1].fail.run == 1);
        CHECK(strstr(x[1].fail.tail, "no disk") != NULL);
        char why[512];
        CHECK(strstr(session_failure_why(&x[1].fail, why, sizeof why),
                     "exited with status 5 before warm-up run 1") != NULL);
        CHECK(strncmp(why, "prepare failed: '/bin/sh -c ", 28) == 0);
        session_free(&s);

        /* Paired, a failing hook stops the session with the side's name. */
        x[0].label = "A";
        x[1].label = "B";
        p.stop_on_failure = true;
        e = (struct err){0};
        CHECK_INT(run_plan(&p, &s, &e), -1);
        CHECK_INT(e.kind, ERR_MEASURE);
        CHECK(strncmp(e.msg, "B 'b': prepare failed: ", 23) == 0);
        CHECK_STR(log_words(), "s:a:0 s:b:0 p:a:-1 q a c:-1 pb k:a:0 k:b:0");
        session_free(&s);
    }

    /* Sequential looks: how many, and each spending alpha / planned. */
    CHECK_INT(session_looks_planned(20, 200), 5);   /* 20 40 80 160 200 */
    CHECK_INT(session_looks_planned(20, 20), 1);
    CHECK_INT(session_looks_planned(6, 7), 2);
    CHECK_INT(session_looks_planned(1, 1024), 11);
    {
        struct look_log l = {0};
        struct session_looks lk = {.first = 2, .max = 12, .alpha = 0.05, .look = look, .ctx = &l};
        struct session_series x[2] = {
            {.name = "A", .argv = (char *[]){"true", NULL}},
            {.name = "B", .argv = (char *[]){"true", NULL}},
        };
        struct session_plan p = {.series = x, .nseries = 2, .warmup = 1, .pin_cpu = -1,
                                 .order = SESSION_ALTERNATE, .looks = &lk};
        CHECK_INT(run_plan(&p, &s, &e), 0);
        CHECK_INT(s.planned_looks, 4);
        CHECK_INT(s.looks, 4);
        CHECK_INT(l.n, 4);
        CHECK_INT(l.at[0], 2);
        CHECK_INT(l.at[1], 4);
        CHECK_INT(l.at[2], 8);
        CHECK_INT(l.at[3], 12);
        CHECK_NEAR(l.alpha[0], 0.0125, 1e-15);
        CHECK_INT(s.stopped, SESSION_STOP_MAX_RUNS);
        CHECK_INT(x[0].n, 12);
        CHECK_INT(x[1].n, 12);
        session_free(&s);

        /* Settled at the second look: stops there. */
        l = (struct look_log){.settle_at = 2};
        CHECK_INT(run_plan(&p, &s, &e), 0);
        CHECK_INT(s.stopped, SESSION_STOP_DECIDED);
        CHECK_INT(s.rounds, 4);
        CHECK_INT(x[0].n, 4);
        session_free(&s);

        /* Out of time: a look when measuring took max_time, and a stop without a verdict.
         * Each round sleeps 0.1 s, so the first round alone passes 0.05 s. */
        l = (struct look_log){0};
        lk.max_time_s = 0.05;
        x[0].argv = x[1].argv = (char *[]){fix("sleeper"), "0.05", NULL};
        p.warmup = 0;
        CHECK_INT(run_plan(&p, &s, &e), 0);
        CHECK_INT(s.stopped, SESSION_STOP_MAX_TIME);
        CHECK_INT(s.looks, 1);
        CHECK(s.rounds <= 1);
        CHECK_INT(l.at[0], s.rounds);
        session_free(&s);
    }

    rmdir(tmp);
    return unit_done("test_session");
}
