/* The CSV reader (csv.h). */
#include "util/csv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

enum { CSV_MAX_WANT = 16 };

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Splits line in place into fields (see csv.h for the format). Returns the number of fields (all
 * counted, at most maxf stored), or -1 for a quote that is not closed or is followed by more
 * text than blanks before the next comma. */
static int split(char *line, char **fields, int maxf)
{
    int nf = 0;
    char *p = line;
    for (;;) {
        while (is_blank(*p)) p++;
        char *start = p, *end;
        if (*p == '"') {
            char *w = start;
            for (p++;; p++) {
                if (*p == '\0') return -1;
                if (*p == '"') {
                    if (p[1] != '"') break;
                    p++; /* "" is one quote */
                }
                *w++ = *p;
            }
            end = w;
            for (p++; is_blank(*p); p++) {}
            if (*p != ',' && *p != '\0') return -1;
        } else {
            while (*p != ',' && *p != '\0') p++;
            end = p;
            while (end > start && is_blank(end[-1])) end--;
        }
        char sep = *p;
        *end = '\0';
        if (nf < maxf) fields[nf] = start;
        nf++;
        if (sep == '\0') return nf;
        p++;
    }
}

/* The next line into r->buf without its line end. 1: read; 0: end of file; else an error. */
static int read_line(ncp_csv *r, ncp_error *err)
{
    errno = 0;
    ssize_t len = getline(&r->buf, &r->cap, r->f);
    if (len < 0) {
        if (feof(r->f)) return 0;
        int code = errno == ENOMEM ? NCP_ERR_NOMEM : NCP_ERR_IO;
        return ncp_error_set(err, code, "%s:%ld: read error: %s", r->path, r->line + 1,
                             strerror(errno));
    }
    r->line++;
    while (len > 0 && (r->buf[len - 1] == '\n' || r->buf[len - 1] == '\r')) r->buf[--len] = '\0';
    if ((size_t)len != strlen(r->buf))
        return ncp_error_set(err, NCP_ERR_INPUT, "%s:%ld: contains a NUL byte (not a text CSV)",
                             r->path, r->line);
    return 1;
}

static int quote_error(const ncp_csv *r, ncp_error *err)
{
    return ncp_error_set(err, NCP_ERR_INPUT, "%s:%ld: unterminated or misplaced quote", r->path,
                         r->line);
}

int ncp_csv_open(ncp_csv *r, const char *path, const char *missing, ncp_error *err)
{
    memset(r, 0, sizeof *r);
    r->path = path;
    r->f = fopen(path, "r");
    if (!r->f)
        return ncp_error_set(err, NCP_ERR_INPUT, "cannot open %s: %s%s%s%s", path,
                             strerror(errno), missing ? " (" : "", missing ? missing : "",
                             missing ? ")" : "");
    int rc = read_line(r, err);
    if (rc == 0)
        rc = ncp_error_set(err, NCP_ERR_INPUT, "%s:1: empty file (expected a header line)", path);
    if (rc == 1) rc = (r->hline = ncp_strdup(err, r->buf)) ? NCP_OK : NCP_ERR_NOMEM;
    if (rc == NCP_OK) {
        /* A UTF-8 byte-order mark (spreadsheet exports) is not part of the first name. */
        char *h = strncmp(r->hline, "\xEF\xBB\xBF", 3) == 0 ? r->hline + 3 : r->hline;
        r->ncols = split(h, r->header, NCP_CSV_MAX_COLS);
        if (r->ncols < 0) rc = quote_error(r, err);
        else if (r->ncols > NCP_CSV_MAX_COLS)
            rc = ncp_error_set(err, NCP_ERR_INPUT, "%s:1: more than %d columns", path,
                               NCP_CSV_MAX_COLS);
    }
    if (rc) ncp_csv_close(r);
    return rc;
}

int ncp_csv_next(ncp_csv *r, ncp_error *err)
{
    int rc;
    while ((rc = read_line(r, err)) == 1) {
        if (r->buf[0] == '\0') continue; /* blank lines (a trailing one) carry no row */
        int nf = split(r->buf, r->field, NCP_CSV_MAX_COLS);
        if (nf < 0) return quote_error(r, err);
        if (nf != r->ncols)
            return ncp_error_set(err, NCP_ERR_INPUT, "%s:%ld: %d fields, but the header has %d "
                                 "columns", r->path, r->line, nf, r->ncols);
        return NCP_OK;
    }
    return rc == 0 ? NCP_CSV_END : rc;
}

int ncp_csv_column(const ncp_csv *r, const char *name)
{
    for (int i = 0; i < r->ncols; i++)
        if (strcmp(r->header[i], name) == 0) return i;
    return -1;
}

int ncp_csv_need_column(const ncp_csv *r, const char *name, const char *hint, int *col,
                        ncp_error *err)
{
    *col = ncp_csv_column(r, name);
    if (*col < 0)
        return ncp_error_set(err, NCP_ERR_INPUT, "%s:1: the header has no column '%s' (%s)",
                             r->path, name, hint);
    return NCP_OK;
}

void ncp_csv_close(ncp_csv *r)
{
    if (r->f) fclose(r->f); /* read only: nothing to lose on close */
    free(r->hline);
    free(r->buf);
    r->f = NULL;
    r->hline = r->buf = NULL;
    r->cap = 0;
}

int ncp_csv_number(const char *field, double *out)
{
    if (*field == '\0') return -1;
    char *end;
    double v = strtod(field, &end);
    if (*end != '\0') return -1;
    *out = v;
    return 0;
}

int ncp_csv_read(const char *path, const char *const *names, int n, ncp_csv_row_fn row, void *ctx,
                 ncp_error *err)
{
    if (n < 1 || n > CSV_MAX_WANT)
        return ncp_error_set(err, NCP_ERR_INTERNAL, "ncp_csv_read: %d columns requested", n);
    ncp_csv r;
    int rc = ncp_csv_open(&r, path, NULL, err), col[CSV_MAX_WANT];
    if (rc) return rc;
    for (int k = 0; k < n && !rc; k++)
        rc = ncp_csv_need_column(&r, names[k], "is this a benchmark output?", &col[k], err);
    const char *want[CSV_MAX_WANT];
    while (!rc && !(rc = ncp_csv_next(&r, err))) {
        for (int k = 0; k < n; k++) want[k] = r.field[col[k]];
        rc = row(ctx, want, path, r.line, err);
    }
    ncp_csv_close(&r);
    return rc == NCP_CSV_END ? NCP_OK : rc;
}
