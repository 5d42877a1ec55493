/* cmd_run.c: `tare run`, a benchmark suite's wall-clock pass (serial) and deterministic pass
 * (parallel), printed as one table and optionally appended to history files. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/commands.h"
#include "cli/count_out.h"
#include "cli/out.h"
#include "core/count.h"
#include "core/history.h"
#include "core/proc.h"
#include "core/session.h"
#include "core/stats.h"
#include "core/suite.h"
#include "core/toolchain.h"
#include "core/words.h"

const char cmd_run_usage[] =
    "tare run [options] SUITE";

static const char run_options[] =
    "Options:\n"
    "      --wall              the wall-clock pass (serial; the default)\n"
    "      --count             the deterministic pass (instructions, allocations, bytes,\n"
    "                          peak heap; parallel); the suite's count = yes turns it on too\n"
    "  -j, --jobs N            commands counted at once (default: the number of CPUs)\n"
    "      --history DIR       append the rows to DIR/wall.tsv and DIR/count.tsv\n"
    "      --commit SHA        the commit the rows belong to (default: git rev-parse HEAD\n"
    "                          in the suite's directory)\n"
    "      --shard K/N         run every N-th benchmark starting at the K-th (1 <= K <= N)\n"
    "  -n, --runs N            measured runs per series (default: the suite's, else 7)\n"
    "  -f, --format FORMAT     text (default), tsv or json\n"
    "  -h, --help              show this help\n";

#define CMD "run"

struct rseries {
    char *name;              /* bench or bench+lane */
    const char *lane;        /* or NULL */
    char **argv;
    char **env;
    /* The wall pass's results (its engine series' runs, its failure in this command's words). */
    double *times;
    int n;
    bool failed;
    char why[256];
    const char *tail;        /* the stderr tail of the failed run, or "" */
    char toolchain[64];      /* the measured program's compiler, or "" (NA) */
    char ***hooks[4];        /* the suite's setup, prepare, conclude, cleanup for it, or NULL */
    int nhooks[4];
    char *input;             /* its runs' stdin (the suite's input), or NULL */
};

static void rseries_free(struct rseries *s)
{
    free(s->name);
    words_free(s->argv);
    for (int k = 0; k < 4; k++) {
        for (int i = 0; i < s->nhooks[k]; i++)
            words_free(s->hooks[k][i]);
        free(s->hooks[k]);
    }
    free(s->input);
}

/* The suite's hooks and input for benchmark b, filled in as its command is. */
static int plan_extras(const struct suite *su, const struct suite_bench *b, struct rseries *x,
                       struct err *e)
{
    static const char *const keys[4] = {"setup", "prepare", "conclude", "cleanup"};
    for (int k = 0; k < 4; k++) {
        int n = 0;
        while (su->hooks[k] && su->hooks[k][n])
            n++;
        if (n && !(x->hooks[k] = calloc(n, sizeof *x->hooks[k])))
            return err_set(e, ERR_SYSTEM, "out of memory");
        for (; x->nhooks[k] < n; x->nhooks[k]++)
            if (suite_argv(su->hooks[k][x->nhooks[k]], b, &x->hooks[k][x->nhooks[k]], e) < 0)
                return err_prefix(e, "%s", keys[k]);
    }
    if (su->input) {
        char **w = NULL;
        int n = 0;
        if (suite_argv(su->input, b, &w, e) < 0)
            return err_prefix(e, "input");
        for (char **p = w; *p; p++)
            n++;
        /* Relative to the suite's directory, where the commands run. */
        if (n != 1)
            err_set(e, ERR_INPUT, "input = '%s': want one file", su->input);
        else if (asprintf(&x->input, "%s%s%s", w[0][0] == '/' ? "" : su->dir,
                          w[0][0] == '/' ? "" : "/", w[0]) < 0)
            x->input = NULL, err_set(e, ERR_SYSTEM, "out of memory");
        words_free(w);
        if (!x->input)
            return -1;
        /* Here, once, rather than as a failed start of every run. */
        if (access(x->input, R_OK) < 0)
            return err_errno(e, ERR_INPUT, errno, "input = '%s': cannot read '%s'", su->input,
                             x->input);
    }
    return 0;
}

/*
 * The plan: every benchmark in every lane (or plain, without lanes), s[b * nl + l], and the
 * benchmark's reference in ref[b] when the suite has one. 0, or the exit status after
 * saying why.
 */
static int plan_series(const struct suite *su, int nl, struct rseries *s, struct rseries *ref,
                       struct err *e)
{
    for (int b = 0; b < su->nbench; b++) {
        for (int l = 0; l < nl; l++) {
            struct rseries *x = &s[b * nl + l];
            const struct suite_lane *lane = su->nlanes ? &su->lanes[l] : NULL;
            x->lane = lane && lane->name[0] ? lane->name : NULL;
            x->tail = "";
            if (asprintf(&x->name, "%s%s%s", su->bench[b].name, x->lane ? "+" : "", x->lane ? x->lane : "") < 0)
                x->name = NULL;
            x->env = lane ? lane->env : NULL;
            if (!x->name) {
                cli_error(CMD, "out of memory");
                return EXIT_USAGE;
            }
            if (suite_argv(su->command, &su->bench[b], &x->argv, e) < 0 ||
                plan_extras(su, &su->bench[b], x, e) < 0)
                return cli_fail(CMD, e);
        }
        if (su->reference) {
            struct rseries *r = &ref[b];
            r->tail = "";
            if (!(r->name = strdup(su->bench[b].name))) {
                cli_error(CMD, "out of memory");
                return EXIT_USAGE;
            }
            if (suite_argv(su->reference, &su->bench[b], &r->argv, e) < 0 ||
                plan_extras(su, &su->bench[b], r, e) < 0)
                return cli_fail(CMD, e);
        }
    }
    return 0;
}

struct wall_pass {
    const struct suite *su;
    struct session_series *x;   /* per benchmark: its lanes, then its reference */
    struct session_plan plan;
    struct session sess;
};

static void wall_progress(void *ctx, const struct session *ss, const struct session_event *ev)
{
    const struct wall_pass *w = ctx;
    if (ev->pos != 0)
        return;
    fprintf(stderr, "\r\033[K%s (%d/%d) %s %ld/%ld  %.1f s", w->su->bench[ev->group].name,
            ev->group + 1, ev->ngroups, ev->warmup ? "warm-up" : "run", ev->run, ev->runs,
            proc_now() - ss->t_start);
    fflush(stderr);
}

/*
 * The wall-clock pass: serial, benchmark by benchmark, warm-up rounds then rounds of every
 * lane and the reference, so drift hits them alike (as tare wall interleaves). The results
 * land in s and ref; -1 when tare cannot go on.
 */
static int measure_wall(struct wall_pass *w, int nl, struct rseries *s, struct rseries *ref,
                        bool progress, struct err *e)
{
    const struct suite *su = w->su;
    int per = nl + (su->reference ? 1 : 0), nx = su->nbench * per;
    if (!(w->x = calloc(nx, sizeof *w->x)))
        return err_set(e, ERR_SYSTEM, "out of memory");
    for (int i = 0; i < nx; i++) {
        int b = i / per, l = i % per;
        struct rseries *r = l < nl ? &s[b * nl + l] : &ref[b];
        w->x[i] = (struct session_series){.name = r->name, .argv = r->argv, .env = r->env,
                                          .cwd = su->dir, .group = b, .user = r,
                                          .stdin_path = r->input};
        struct session_cmds *c[4] = {&w->x[i].setup, &w->x[i].prepare, &w->x[i].conclude,
                                     &w->x[i].cleanup};
        for (int k = 0; k < 4; k++)
            *c[k] = (struct session_cmds){(char *const *const *)r->hooks[k], r->nhooks[k]};
    }
    w->plan = (struct session_plan){
        .series = w->x, .nseries = nx, .warmup = su->warmup, .runs = su->runs,
        .order = SESSION_ROUNDS, .timeout_s = su->timeout, .pin_cpu = -1,
        .progress = progress ? wall_progress : NULL, .progress_ctx = w,
    };
    if (session_init(&w->sess, &w->plan, e) < 0 || session_run(&w->sess, e) < 0)
        return -1;
    for (int i = 0; i < nx; i++) {
        struct rseries *r = w->x[i].user;
        const struct session_failure *f = &w->x[i].fail;
        r->times = w->x[i].wall_s;
        r->n = w->x[i].n;
        r->failed = w->x[i].state != SESSION_OK;
        if (r->failed && f->hook) {
            session_failure_why(f, r->why, sizeof r->why);
            r->tail = f->tail;
        } else if (r->failed) {
            snprintf(r->why, sizeof r->why, "%s in %s run", f->what,
                     f->warmup ? "the warm-up" : "a measured");
            r->tail = f->tail;
        }
    }
    return 0;
}

/* stdout of argv run in dir, first line, or NULL. */
static char *capture(char *const argv[], const char *dir)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) < 0)
        return NULL;
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return NULL;
    }
    if (pid == 0) {
        dup2(p[1], 1);
        int dn = open("/dev/null", O_WRONLY);
        if (dn >= 0)
            dup2(dn, 2);
        if (dir && chdir(dir) < 0)
            _exit(127);
        execvp(argv[0], argv);
        _exit(127);
    }
    close(p[1]);
    char buf[256];
    size_t n = 0;
    ssize_t r;
    while (n < sizeof buf - 1 && ((r = read(p[0], buf + n, sizeof buf - 1 - n)) > 0 || (r < 0 && errno == EINTR)))
        if (r > 0)
            n += r;
    close(p[0]);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return NULL;
    buf[n] = '\0';
    buf[strcspn(buf, "\n")] = '\0';
    return buf[0] ? strdup(buf) : NULL;
}

/* "16c x86_64 AMD EPYC 7B13": core count, machine, CPU model; nothing about the host or user. */
static void runner_desc(char *out, size_t n)
{
    char model[128] = "";
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f))
            if (strncmp(line, "model name", 10) == 0) {
                const char *c = strchr(line, ':');
                if (c) {
                    c++;
                    while (*c == ' ' || *c == '\t')
                        c++;
                    snprintf(model, sizeof model, "%s", c);
                    model[strcspn(model, "\n")] = '\0';
                }
                break;
            }
        fclose(f);
    }
    struct utsname u;
    if (uname(&u) < 0)
        strcpy(u.machine, "unknown");
    snprintf(out, n, "%ldc %s%s%s", sysconf(_SC_NPROCESSORS_ONLN), u.machine, model[0] ? " " : "", model);
    for (char *p = out; *p; p++)
        if (*p == '\t' || *p == '\n' || *p == '\r')
            *p = ' ';
}

static void tsv_cell(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

int cmd_run(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"wall", no_argument, NULL, 'W'},
        {"count", no_argument, NULL, 'C'},
        {"jobs", required_argument, NULL, 'j'},
        {"history", required_argument, NULL, 'H'},
        {"commit", required_argument, NULL, 'c'},
        {"shard", required_argument, NULL, 's'},
        {"runs", required_argument, NULL, 'n'},
        {"format", required_argument, NULL, 'f'},
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    const char *hist_dir = NULL, *commit_opt = NULL;
    long runs = 0;
    bool want_wall = false, want_count = false;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN), jobs = ncpu > 0 ? ncpu : 1;
    int shard_k = 1, shard_n = 1;
    enum out_format fmt = FMT_TEXT;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "n:j:f:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'W':
            want_wall = true;
            break;
        case 'C':
            want_count = true;
            break;
        case 'j':
            if (!cli_parse_count(CMD, cmd_run_usage, "--jobs", optarg, 1, 1024, &jobs))
                return EXIT_USAGE;
            break;
        case 'H':
            hist_dir = optarg;
            break;
        case 'c':
            commit_opt = optarg;
            break;
        case 's': {
            char tail;
            if (sscanf(optarg, "%d/%d%c", &shard_k, &shard_n, &tail) != 2 || shard_n < 1 ||
                shard_k < 1 || shard_k > shard_n)
                return cli_usage_error(CMD, cmd_run_usage, "bad value '%s' for --shard: want K/N "
                                       "with 1 <= K <= N", optarg);
            break;
        }
        case 'n':
            if (!cli_parse_count(CMD, cmd_run_usage, "--runs", optarg, 1, 1000000, &runs))
                return EXIT_USAGE;
            break;
        case 'f':
            if (!cli_parse_format(CMD, cmd_run_usage, optarg, FMT_TEXT | FMT_TSV | FMT_JSON, &fmt))
                return EXIT_USAGE;
            break;
        case 'h':
            cli_print_usage(stdout, cmd_run_usage);
            fputs(run_options, stdout);
            return EXIT_OK;
        default:
            cli_print_usage(stderr, cmd_run_usage);
            fprintf(stderr, "Try 'tare run --help' for the options.\n");
            return EXIT_USAGE;
        }
    }
    if (optind != argc - 1)
        return cli_usage_error(CMD, cmd_run_usage, optind >= argc ? "no SUITE file" : "one SUITE file only");
    struct suite su;
    struct err e = {0};
    if (suite_load(argv[optind], &su, &e) < 0)
        return cli_fail(CMD, &e);
    if (runs)
        su.runs = runs;
    suite_shard(&su, shard_k, shard_n);
    /* Neither flag: the wall pass, and the count pass too when the suite asks for it. */
    bool do_wall = want_wall || !want_count;
    bool do_count = want_count || (!want_wall && su.count);

    /* The count pass's tools, found before any measuring. */
    char valgrind[4096], alloc_lib[4096];
    struct err lib_err = {0};
    struct count_opts co = {.jobs = (int)jobs, .timeout_s = su.timeout > 1800 ? su.timeout : 1800};
    if (do_count) {
        if (count_find_valgrind(valgrind, sizeof valgrind, &e) < 0) {
            suite_free(&su);
            return cli_fail(CMD, &e);
        }
        co.valgrind = valgrind;
        if (cli_find_alloc_lib(alloc_lib, sizeof alloc_lib, &lib_err) == 0)
            co.alloc_lib = alloc_lib;
    }

    /* Everything the history rows need, before any measuring. */
    char *commit = NULL, date[32], runner[256];
    if (hist_dir) {
        if (commit_opt) {
            commit = strdup(commit_opt);
        } else {
            char *git[] = {"git", "rev-parse", "HEAD", NULL};
            if (!(commit = capture(git, su.dir))) {
                cli_error(CMD, "no --commit, and 'git rev-parse HEAD' failed in '%s'", su.dir);
                suite_free(&su);
                return EXIT_USAGE;
            }
        }
        if (mkdir(hist_dir, 0777) < 0 && errno != EEXIST) {
            cli_error(CMD, "cannot create '%s': %s", hist_dir, strerror(errno));
            free(commit);
            suite_free(&su);
            return EXIT_USAGE;
        }
    }
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    runner_desc(runner, sizeof runner);

    /* The series: every benchmark in every lane (or plain, without lanes). */
    int nl = su.nlanes ? su.nlanes : 1;
    int ns = su.nbench * nl;
    struct rseries *s = calloc(ns + 1, sizeof *s), *ref = calloc(su.nbench + 1, sizeof *ref);
    struct count_job *cj = calloc(ns + 1, sizeof *cj);
    struct wall_pass wp = {.su = &su};
    char *rows = NULL, *crows = NULL;
    int rc = EXIT_USAGE;
    if (!s || !ref || !cj)
        goto out;
    if ((rc = plan_series(&su, nl, s, ref, &e)) != 0)
        goto out;
    rc = EXIT_USAGE;

    cli_install_signal_handlers();
    bool progress = isatty(2);
    if (do_wall && measure_wall(&wp, nl, s, ref, progress, &e) < 0) {
        if (progress)
            fputs("\r\033[K", stderr);
        rc = cli_fail(CMD, &e);
        goto out;
    }
    if (progress)
        fputs("\r\033[K", stderr);

    /* The deterministic pass, every series at once (-j): counts do not depend on load. */
    if (do_count) {
        for (int i = 0; i < ns; i++) {
            cj[i].name = s[i].name;
            cj[i].argv = s[i].argv;
            cj[i].env = s[i].env;
            cj[i].cwd = su.dir;
            struct err te = {0};
            if (toolchain_of_command(s[i].argv[0], su.dir, s[i].toolchain, sizeof s[i].toolchain, &te) < 0)
                s[i].toolchain[0] = '\0';
        }
        struct count_progress cp = {.on = progress, .t0 = proc_now()};
        co.progress = count_progress_print;
        co.ctx = &cp;
        int crc = count_run(cj, ns, &co, &e);
        if (progress)
            fputs("\r\033[K", stderr);
        if (crc < 0) {
            rc = cli_fail(CMD, &e);
            goto out;
        }
        if (!co.alloc_lib)
            cli_error(CMD, "note: bytes and peak heap are NA: %s", lib_err.msg);
    }

    /* The table, and the history rows: the columns of the passes that ran. */
    const char *hdr[16];
    int nc = 0, c_wall = -1, c_count = -1;
    unsigned left = 1u | 2u;
    hdr[nc++] = "benchmark";
    hdr[nc++] = "lane";
    if (do_wall) {
        c_wall = nc;
        static const char *const wh[] = {"runs", "median_s", "min_s", "ref_median_s", "ratio"};
        for (int i = 0; i < 5; i++)
            hdr[nc++] = wh[i];
    }
    if (do_count) {
        c_count = nc;
        static const char *const ch[] = {"instructions", "allocations", "bytes", "peak_bytes"};
        for (int i = 0; i < 4; i++)
            hdr[nc++] = ch[i];
        if (fmt != FMT_TEXT) {
            left |= 1u << nc;
            hdr[nc++] = "toolchain";
        }
    }
    hdr[nc++] = "status";
    struct table t;
    table_init(&t, nc, hdr, left);
    size_t rlen = 0, clen = 0;
    FILE *h = open_memstream(&rows, &rlen), *ch = open_memstream(&crows, &clen);
    if (!h || !ch) {
        if (h)
            fclose(h);
        if (ch)
            fclose(ch);
        table_free(&t);
        goto out;
    }
    fputs("date\tcommit\tbenchmark\tmedian_s\tmin_s\tref_median_s\tratio\truns\trunner\treference\n", h);
    fputs("date\tcommit\tbenchmark\tinstructions\tallocations\tbytes\tpeak_bytes\ttoolchain\n", ch);
    bool any_failed = false;
    if (fmt == FMT_JSON) {
        fputs("{\"date\": ", stdout);
        json_str(stdout, date);
        fputs(", \"commit\": ", stdout);
        if (commit)
            json_str(stdout, commit);
        else
            fputs("null", stdout);
        fputs(", \"runner\": ", stdout);
        json_str(stdout, runner);
        fputs(", \"series\": [", stdout);
    }
    for (int b = 0; b < su.nbench; b++) {
        double refm = NAN;
        if (do_wall && su.reference && !ref[b].failed && ref[b].n)
            refm = stats_median(ref[b].times, ref[b].n);
        if (do_wall && su.reference && ref[b].failed) {
            cli_error(CMD, "reference for '%s' failed: %s", su.bench[b].name, ref[b].why);
            any_failed = true;
        }
        for (int l = 0; l < nl; l++) {
            struct rseries *x = &s[b * nl + l];
            const struct count_job *j = &cj[b * nl + l];
            bool failed = false;
            double med = NAN, mn = NAN;
            if (do_wall) {
                if (!x->failed && x->n) {
                    med = stats_median(x->times, x->n);
                    mn = stats_min(x->times, x->n);
                } else {
                    failed = true;
                    cli_error(CMD, "'%s' failed: %s%s%.200s", x->name, x->why,
                              x->tail[0] ? "; its stderr ended with: " : "", x->tail);
                }
            }
            /* A count that failed is NA in every column, never a partial or zero count. */
            uint64_t cnt[4] = {COUNT_NA, COUNT_NA, COUNT_NA, COUNT_NA};
            if (do_count) {
                if (j->note[0])
                    cli_error(CMD, "note: '%s': %s", x->name, j->note);
                if (j->status == COUNT_OK) {
                    cnt[0] = j->instructions;
                    cnt[1] = j->allocations;
                    cnt[2] = j->bytes;
                    cnt[3] = j->peak_bytes;
                } else {
                    failed = true;
                    cli_error(CMD, "'%s' count failed: %s%s%.200s", x->name, j->why,
                              j->tail[0] ? "; its stderr ended with: " : "", j->tail);
                }
            }
            any_failed |= failed;
            double ratio = med / refm;
            const char *tc = x->toolchain[0] ? x->toolchain : NULL;
            char nb[4][32];
            if (fmt == FMT_JSON) {
                fputs(b || l ? ", {\"benchmark\": " : "{\"benchmark\": ", stdout);
                json_str(stdout, x->name);
                fputs(", \"lane\": ", stdout);
                if (x->lane)
                    json_str(stdout, x->lane);
                else
                    fputs("null", stdout);
                if (do_wall) {
                    printf(", \"runs\": %d, \"median_s\": ", x->n);
                    json_num(stdout, med);
                    fputs(", \"min_s\": ", stdout);
                    json_num(stdout, mn);
                    fputs(", \"ref_median_s\": ", stdout);
                    json_num(stdout, refm);
                    fputs(", \"ratio\": ", stdout);
                    json_num(stdout, ratio);
                }
                if (do_count) {
                    static const char *const key[] = {"instructions", "allocations", "bytes", "peak_bytes"};
                    for (int k = 0; k < 4; k++) {
                        printf(", \"%s\": ", key[k]);
                        count_json(stdout, cnt[k]);
                    }
                    fputs(", \"toolchain\": ", stdout);
                    if (tc)
                        json_str(stdout, tc);
                    else
                        fputs("null", stdout);
                }
                printf(", \"status\": \"%s\"}", failed ? "failed" : "ok");
            } else {
                table_row(&t);
                table_set(&t, 0, "%s", x->name);
                table_set(&t, 1, "%s", x->lane ? x->lane : "-");
                if (do_wall) {
                    int cw = c_wall;
                    table_set(&t, cw, "%d", x->n);
                    if (fmt == FMT_TEXT) {
                        table_set(&t, cw + 1, "%s", fmt_seconds(nb[0], med));
                        table_set(&t, cw + 2, "%s", fmt_seconds(nb[1], mn));
                        table_set(&t, cw + 3, "%s", fmt_seconds(nb[2], refm));
                        table_set(&t, cw + 4, isnan(ratio) ? "NA" : "%.3f", ratio);
                    } else {
                        table_set(&t, cw + 1, "%s", fmt_num(nb[0], med));
                        table_set(&t, cw + 2, "%s", fmt_num(nb[1], mn));
                        table_set(&t, cw + 3, "%s", fmt_num(nb[2], refm));
                        table_set(&t, cw + 4, "%s", fmt_num(nb[3], ratio));
                    }
                }
                if (do_count) {
                    for (int k = 0; k < 4; k++)
                        table_set(&t, c_count + k, "%s", count_cell(nb[0], cnt[k], fmt == FMT_TEXT));
                    if (fmt != FMT_TEXT)
                        table_set(&t, c_count + 4, "%s", tc ? tc : "NA");
                }
                if (failed && fmt == FMT_TEXT && cli_use_color(stdout))
                    table_set(&t, nc - 1, "\033[31mfailed\033[0m");
                else
                    table_set(&t, nc - 1, "%s", failed ? "failed" : "ok");
            }
            if (do_wall) {
                fprintf(h, "%s\t%s\t", date, commit ? commit : "NA");
                tsv_cell(h, x->name);
                fprintf(h, "\t%s", fmt_num(nb[0], med));
                fprintf(h, "\t%s", fmt_num(nb[1], mn));
                fprintf(h, "\t%s", fmt_num(nb[2], refm));
                fprintf(h, "\t%s\t%d\t", fmt_num(nb[3], ratio), x->n);
                tsv_cell(h, runner);
                fputc('\t', h);
                tsv_cell(h, su.reference ? su.reference : "NA");
                fputc('\n', h);
            }
            if (do_count) {
                fprintf(ch, "%s\t%s\t", date, commit ? commit : "NA");
                tsv_cell(ch, x->name);
                for (int k = 0; k < 4; k++)
                    fprintf(ch, "\t%s", count_cell(nb[0], cnt[k], false));
                fputc('\t', ch);
                tsv_cell(ch, tc ? tc : "NA");
                fputc('\n', ch);
            }
        }
    }
    fclose(h);
    fclose(ch);
    if (fmt == FMT_JSON) {
        fputs("]}\n", stdout);
    } else {
        if (fmt == FMT_TEXT && do_count)
            printf("counts: instructions and allocations from one callgrind run, bytes and peak heap\n"
                   "from the counting allocator; toolchain: %s\n",
                   ns && s[0].toolchain[0] ? s[0].toolchain : "NA");
        table_print(&t, stdout, fmt);
    }
    table_free(&t);
    rc = any_failed ? EXIT_FAIL : EXIT_OK;
    /* Each file gets its rows in one locked write: whole rows or none. */
    if (hist_dir) {
        for (int k = 0; k < 2; k++) {
            if (!(k == 0 ? do_wall : do_count))
                continue;
            char *path = NULL;
            if (asprintf(&path, "%s/%s", hist_dir, k == 0 ? "wall.tsv" : "count.tsv") < 0 ||
                hist_append(path, k == 0 ? rows : crows, k == 0 ? rlen : clen, &e) < 0) {
                rc = cli_fail(CMD, &e);
                free(path);
                break;
            }
            free(path);
        }
    }
out:
    if (rc == EXIT_USAGE && !e.msg[0] && (!s || !ref || !cj))
        cli_error(CMD, "out of memory");
    free(rows);
    free(crows);
    for (int i = 0; s && i < ns; i++)
        rseries_free(&s[i]);
    for (int b = 0; ref && b < su.nbench; b++)
        rseries_free(&ref[b]);
    session_free(&wp.sess);
    free(wp.x);
    free(s);
    free(ref);
    free(cj);
    free(commit);
    suite_free(&su);
    return rc;
}
