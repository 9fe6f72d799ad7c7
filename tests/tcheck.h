/* Minimal test helpers: every check prints what failed with file:line and the values; main
 * returns tcheck_exit() so meson counts the test as failed if any check failed. */
#ifndef NCP_TCHECK_H
#define NCP_TCHECK_H

#include <math.h>
#include <stdio.h>

extern int tcheck_failures;
extern int tcheck_checks;

#define CHECK(cond)                                                                    \
    do {                                                                               \
        tcheck_checks++;                                                               \
        if (!(cond)) {                                                                 \
            tcheck_failures++;                                                         \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
        }                                                                              \
    } while (0)

/* |a - b| <= tol (absolute); NaN fails. */
#define CHECK_NEAR(a, b, tol)                                                          \
    do {                                                                               \
        double ta_ = (a), tb_ = (b), tt_ = (tol);                                      \
        tcheck_checks++;                                                               \
        if (!(fabs(ta_ - tb_) <= tt_)) {                                               \
            tcheck_failures++;                                                         \
            fprintf(stderr, "%s:%d: CHECK_NEAR failed: %s = %.17g, %s = %.17g, tol %g\n", \
                    __FILE__, __LINE__, #a, ta_, #b, tb_, tt_);                        \
        }                                                                              \
    } while (0)

/* Relative: |a - b| <= tol * max(1, |b|). */
#define CHECK_REL(a, b, tol)                                                           \
    CHECK_NEAR((a), (b), (tol) * fmax(1.0, fabs((double)(b))))

#define CHECK_OK(expr, errp)                                                           \
    do {                                                                               \
        int rc_ = (expr);                                                              \
        tcheck_checks++;                                                               \
        if (rc_ != 0) {                                                                \
            tcheck_failures++;                                                         \
            fprintf(stderr, "%s:%d: %s returned %d: %s\n", __FILE__, __LINE__, #expr,  \
                    rc_, (errp)->msg);                                                 \
        }                                                                              \
    } while (0)

int tcheck_exit(const char *name);

#endif
