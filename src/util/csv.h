/* The CSV reader of ncpbench: the benchmark's metrics.csv and traces.csv as read back by
 * `ncpbench plot` (bench/plot.c) and the figure sets (src/figures).
 *
 * Format: the first line is the header (column names); every other non-blank line is a row with
 * as many fields as the header has columns. Fields are separated by commas; a field that starts
 * with '"' is quoted (RFC 4180: commas inside, "" for a quote; no line breaks inside). Spaces and
 * tabs around a field are dropped, and so are a UTF-8 byte-order mark before the header and the
 * line ends (\n or \r\n). Numbers are read with ncp_csv_number ("nan" and "inf" as written by the
 * benchmark for missing and infinite values).
 *
 * Every error is NCP_ERR_INPUT (NCP_ERR_IO for a read error) with a message naming the file and
 * the line, "<path>:<line>: <what is wrong>". */
#ifndef NCP_CSV_H
#define NCP_CSV_H

#include <stdio.h>

#include "util/ncp_error.h"

/* Columns a file may have (the benchmark writes fewer than 40). */
#define NCP_CSV_MAX_COLS 64

/* Returned by ncp_csv_next at the end of the file; distinct from NCP_OK and every NCP_ERR_*. */
#define NCP_CSV_END (-1)

/* A CSV file being read, row by row. */
typedef struct ncp_csv {
    const char *path; /* as given to ncp_csv_open, for messages */
    long line;        /* line last read, from 1 (the header) */
    int ncols;        /* columns of the header */
    char *header[NCP_CSV_MAX_COLS]; /* their names */
    char *field[NCP_CSV_MAX_COLS];  /* the fields of the row last read by ncp_csv_next */
    /* private */
    FILE *f;
    char *hline, *buf; /* the header line (owns header[]) and the current line */
    size_t cap;
} ncp_csv;

/* Opens path and reads its header into r. `missing`, if not NULL, is advice appended to the
 * message when the file cannot be opened ("cannot open P: No such file (run the benchmark
 * first)"). Errors: cannot open, empty file, a NUL byte, a bad quote, more than
 * NCP_CSV_MAX_COLS columns; r then needs no ncp_csv_close. */
int ncp_csv_open(ncp_csv *r, const char *path, const char *missing, ncp_error *err);

/* Reads the next row into r->field (r->ncols fields, valid until the next call), skipping blank
 * lines. Returns NCP_OK, NCP_CSV_END after the last row, or an error: a row with another number
 * of fields than the header, a bad quote, a NUL byte, a read error. */
int ncp_csv_next(ncp_csv *r, ncp_error *err);

/* Index of the header column `name`, or -1. */
int ncp_csv_column(const ncp_csv *r, const char *name);

/* Index of the header column `name` into *col; absent: NCP_ERR_INPUT "<path>:1: the header has
 * no column '<name>' (<hint>)". */
int ncp_csv_need_column(const ncp_csv *r, const char *name, const char *hint, int *col,
                        ncp_error *err);

/* Closes the file and frees r's buffers (safe to call twice). */
void ncp_csv_close(ncp_csv *r);

/* A whole field as a number: 0 and *out set, or -1 (empty, or text after the number). "nan" and
 * "inf" are numbers; an overflow gives +-inf and an underflow a denormal or 0, as strtod. */
int ncp_csv_number(const char *field, double *out);

/* ---- one call for a benchmark output ---- */

/* Called once per row by ncp_csv_read: fields[k] is the text of the column names[k]. Return
 * NCP_OK to go on, or an error code (err set) to stop the reading. */
typedef int (*ncp_csv_row_fn)(void *ctx, const char *const *fields, const char *path, long line,
                              ncp_error *err);

/* Reads a CSV file written by the benchmark and calls row() for every row with the fields of the
 * columns `names` (n of them, 1 to 16) in that order. Errors are those of ncp_csv_open and
 * ncp_csv_next, a missing column ("... (is this a benchmark output?)"), or row()'s. */
int ncp_csv_read(const char *path, const char *const *names, int n, ncp_csv_row_fn row, void *ctx,
                 ncp_error *err);

#endif
