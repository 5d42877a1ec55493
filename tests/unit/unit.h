/* unit.h: the tiny assertion harness every tests/unit/test_*.c uses. */
#ifndef TARE_UNIT_H
#define TARE_UNIT_H

#include <math.h>
#include <stdio.h>
#include <string.h>

static int unit_passed, unit_failed;

static inline void unit_report(int ok, const char *file, int line, const char *what)
{
    if (ok) {
        unit_passed++;
    } else {
        unit_failed++;
        printf("not ok - %s:%d: %s\n", file, line, what);
    }
}

#define CHECK(cond) unit_report(!!(cond), __FILE__, __LINE__, #cond)

#define CHECK_INT(got, want)                                                                       \
    do {                                                                                           \
        long long g_ = (long long)(got), w_ = (long long)(want);                                   \
        char m_[256];                                                                              \
        snprintf(m_, sizeof m_, "%s == %s (got %lld, want %lld)", #got, #want, g_, w_);            \
        unit_report(g_ == w_, __FILE__, __LINE__, m_);                                             \
    } while (0)

#define CHECK_NEAR(got, want, tol)                                                                 \
    do {                                                                                           \
        double g_ = (got), w_ = (want);                                                            \
        char m_[256];                                                                              \
        snprintf(m_, sizeof m_, "%s ~= %s (got %.9g, want %.9g)", #got, #want, g_, w_);            \
        unit_report(fabs(g_ - w_) <= (tol), __FILE__, __LINE__, m_);                               \
    } while (0)

#define CHECK_STR(got, want)                                                                       \
    do {                                                                                           \
        const char *g_ = (got), *w_ = (want);                                                      \
        char m_[1024];                                                                             \
        snprintf(m_, sizeof m_, "%.200s == \"%.300s\" (got \"%.300s\")", #got, w_,                 \
                 g_ ? g_ : "(null)");                                                              \
        unit_report(g_ &&strcmp(g_, w_) == 0, __FILE__, __LINE__, m_);                             \
    } while (0)

/* The closing line tests/run reads; a test that made no check fails. */
static inline int unit_done(const char *name)
{
    if (unit_passed + unit_failed == 0)
        unit_report(0, name, 0, "no check was made");
    printf("%s: %d passed, %d failed\n", name, unit_passed, unit_failed);
    return unit_failed ? 1 : 0;
}

#endif
