#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/ncp_error.h"

int ncp_error_set(ncp_error *err, int code, const char *fmt, ...)
{
    if (err && (err->code == NCP_OK || err->msg[0] == '\0')) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->code = code;
    }
    return code;
}

int ncp_error_prefix(ncp_error *err, const char *fmt, ...)
{
    if (!err) return NCP_OK;
    char pre[512], old[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pre, sizeof pre, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    /* prefix + old message, truncated to the buffer (explicit copies: the length is known) */
    size_t lp = strlen(pre), lo = strlen(old), cap = sizeof err->msg - 1;
    if (lp > cap) lp = cap;
    if (lo > cap - lp) lo = cap - lp;
    memcpy(err->msg, pre, lp);
    memcpy(err->msg + lp, old, lo);
    err->msg[lp + lo] = '\0';
    return err->code;
}

void ncp_error_clear(ncp_error *err)
{
    if (err) {
        err->code = NCP_OK;
        err->msg[0] = '\0';
    }
}

void *ncp_calloc(ncp_error *err, size_t n, size_t size)
{
    if (n == 0 || size == 0) n = size = 1;
    if (n > (size_t)-1 / size) {
        ncp_error_set(err, NCP_ERR_NOMEM, "allocation of %zu x %zu bytes overflows", n, size);
        return NULL;
    }
    void *p = calloc(n, size);
    if (!p) ncp_error_set(err, NCP_ERR_NOMEM, "out of memory allocating %zu bytes", n * size);
    return p;
}

void *ncp_malloc(ncp_error *err, size_t n, size_t size)
{
    if (n == 0 || size == 0) n = size = 1;
    if (n > (size_t)-1 / size) {
        ncp_error_set(err, NCP_ERR_NOMEM, "allocation of %zu x %zu bytes overflows", n, size);
        return NULL;
    }
    void *p = malloc(n * size);
    if (!p) ncp_error_set(err, NCP_ERR_NOMEM, "out of memory allocating %zu bytes", n * size);
    return p;
}

char *ncp_strdup(ncp_error *err, const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = ncp_malloc(err, n, 1);
    if (p) memcpy(p, s, n);
    return p;
}
