/* solutions.h5 (docs/design.md): /solutions/<solver>/<problem>/{r, u, v} in FCLib's /solution
 * names (r = lambda, u = constraint velocity, v = the generalised velocity of r, A^{-1}(b + J^T
 * r), where the problem has primal data) and v_solver (the solver's own velocity, when it
 * reports one: an ADMM's primal iterate differs from v until it has converged), with attributes
 * iterations, converged and status.
 *
 * Written under path.tmp-<pid> and renamed by ncp_solutions_close. Every write ends with
 * H5Fflush, so the results finished so far are on disk (in the temporary file) if the run is
 * interrupted; a writer that turns this off (the bench, whose journal keeps the results) gets
 * the compact format instead (open_file). Writing the same solver/problem twice replaces the earlier result (e.g. several
 * budgets: the last one written stays). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "store/h5util.h"
#include "store/solutions.h"

struct ncp_solutions {
    hid_t file;
    hid_t root; /* /solutions */
    char *path;
    char *tmp;
    int failed; /* a write failed for want of space: the close discards its own writes */
    int noflush; /* ncp_solutions_set_flush(s, 0) */
    int written; /* a result was written */
    int deferred_rc; /* the compact file could not be created (ncp_solutions_set_flush) */
};

static void sol_free(ncp_solutions *s)
{
    free(s->path);
    free(s->tmp);
    free(s);
}

/* The temporary file with its /solutions group. compact: the HDF5 1.10 format with r, u and v
 * chunked, shuffled and deflated (h5util.h; lambda is mostly exact zeros: boltnut's 2 500
 * answers 17.4 -> 9 MB), for a writer that flushes only at the close; else the 1.8 format, whose
 * superblock lets a byte copy of the flushed file be opened after a crash (1.10's marks the
 * file open for writing until it is closed). */
static int open_file(ncp_solutions *s, int compact, ncp_error *err)
{
    s->file = compact ? ncp_h5_create_file_compressed(s->tmp) : ncp_h5_create_file(s->tmp);
    if (s->file < 0)
        return ncp_error_set(err, NCP_ERR_IO, "cannot create %s (does the directory exist and is it writable?)", s->tmp);
    ncp_h5ctx c = {.file = s->tmp, .err = err};
    int rc = ncp_h5_group(&c, s->file, "/", "solutions", &s->root);
    if (!rc && ncp_h5_flush_file(s->file) < 0)
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot flush %s: %s", s->tmp, strerror(errno));
    if (rc) {
        if (s->root >= 0) H5Gclose(s->root);
        ncp_h5_close_file(s->file, 1);
        remove(s->tmp);
        s->file = s->root = -1;
    }
    return rc;
}

int ncp_solutions_create(const char *path, ncp_solutions **out, ncp_error *err)
{
    ncp_h5_quiet();
    *out = NULL;
    ncp_solutions *s = ncp_calloc(err, 1, sizeof *s);
    if (!s) return NCP_ERR_NOMEM;
    s->file = s->root = -1;
    size_t tl = strlen(path) + 48;
    s->path = ncp_strdup(err, path);
    s->tmp = ncp_malloc(err, tl, 1);
    if (!s->path || !s->tmp) {
        sol_free(s);
        return NCP_ERR_NOMEM;
    }
    snprintf(s->tmp, tl, "%s.tmp-%ld", path, (long)getpid());
    int rc = open_file(s, 0, err);
    if (rc) {
        sol_free(s);
        return rc;
    }
    *out = s;
    return NCP_OK;
}

static int usable(const char *what, const char *name, ncp_error *err)
{
    if (!name || !name[0] || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
        return ncp_error_set(err, NCP_ERR_INPUT, "%s name \"%s\" is not usable as an HDF5 group name (empty, '.', or contains '/')",
                             what, name ? name : "(null)");
    return NCP_OK;
}

int ncp_solutions_write(ncp_solutions *s, const char *solver, const char *problem, int m,
                        const double *r, const double *u, int nv, const double *v, int nsv,
                        const double *solver_v, int iterations,
                        int converged, const char *status, ncp_error *err)
{
    ncp_h5_quiet();
    if (s && s->deferred_rc)
        return ncp_error_set(err, s->deferred_rc, "cannot create %s (does the directory exist "
                             "and is it writable?)", s->tmp);
    if (!s || s->root < 0) return ncp_error_set(err, NCP_ERR_INTERNAL, "ncp_solutions_write on a closed file");
    s->written = 1;
    int rc = usable("solver", solver, err);
    if (!rc) rc = usable("problem", problem, err);
    if (!rc && (m < 0 || nv < 0 || nsv < 0 || (m > 0 && (!r || !u))))
        rc = ncp_error_set(err, NCP_ERR_INTERNAL, "ncp_solutions_write(%s, %s): bad sizes m = %d, nv = %d", solver, problem, m, nv);
    if (rc) return rc;
    ncp_h5ctx c = {.file = s->tmp, .err = err};
    errno = 0;
    char sp[512], pp[1024];
    snprintf(sp, sizeof sp, "/solutions/%s", solver);
    snprintf(pp, sizeof pp, "%s/%s", sp, problem);
    hid_t sg = -1, pg = -1;
    if (ncp_h5_exists(s->root, solver)) {
        sg = H5Gopen2(s->root, solver, H5P_DEFAULT);
        if (sg < 0) rc = ncp_error_set(err, NCP_ERR_IO, "writing %s: cannot open group %s", s->tmp, sp);
    } else {
        rc = ncp_h5_group(&c, s->root, "/solutions", solver, &sg);
    }
    if (!rc && ncp_h5_exists(sg, problem) && H5Ldelete(sg, problem, H5P_DEFAULT) < 0)
        rc = ncp_error_set(err, NCP_ERR_IO, "writing %s: cannot replace %s", s->tmp, pp);
    if (!rc) rc = ncp_h5_group(&c, sg, sp, problem, &pg);
    if (!rc) rc = ncp_h5_write_dvec(&c, pg, pp, "r", m, r);
    if (!rc) rc = ncp_h5_write_dvec(&c, pg, pp, "u", m, u);
    if (!rc && nv > 0 && v) rc = ncp_h5_write_dvec(&c, pg, pp, "v", nv, v);
    if (!rc && nsv > 0 && solver_v) rc = ncp_h5_write_dvec(&c, pg, pp, "v_solver", nsv, solver_v);
    if (!rc) rc = ncp_h5_attr_int(&c, pg, pp, "iterations", iterations);
    if (!rc) rc = ncp_h5_attr_int(&c, pg, pp, "converged", converged);
    if (!rc) rc = ncp_h5_attr_str(&c, pg, pp, "status", status);
    if (pg >= 0) H5Gclose(pg);
    if (rc && pg >= 0) H5Ldelete(sg, problem, H5P_DEFAULT); /* no half-written result */
    if (sg >= 0) H5Gclose(sg);
    /* flushed after every result: an interrupted run keeps what it finished */
    if (!rc && !s->noflush && ncp_h5_flush_file(s->file) < 0)
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot flush %s: %s", s->tmp, errno ? strerror(errno) : "disk full?");
    if (rc == NCP_ERR_IO) s->failed = 1; /* the close must not write any more */
    return rc;
}

int ncp_solutions_close(ncp_solutions *s, ncp_error *err)
{
    ncp_h5_quiet();
    if (!s) return NCP_OK;
    int rc = NCP_OK;
    if (s->file < 0) { /* the compact file could not be created: nothing to keep */
        rc = ncp_error_set(err, s->deferred_rc ? s->deferred_rc : NCP_ERR_IO, "cannot create %s",
                           s->tmp);
        sol_free(s);
        return rc;
    }
    if (s->root >= 0 && H5Gclose(s->root) < 0) rc = NCP_ERR_IO;
    if (ncp_h5_close_file(s->file, rc || s->failed) < 0) rc = NCP_ERR_IO;
    if (rc) {
        /* keep the temporary file: what was flushed may still be readable */
        ncp_error_set(err, NCP_ERR_IO, "cannot finish writing %s (disk full?); the partial results stay in that file", s->tmp);
    } else if (rename(s->tmp, s->path) != 0) {
        rc = ncp_error_set(err, NCP_ERR_IO, "cannot rename %s to %s: %s", s->tmp, s->path, strerror(errno));
    }
    sol_free(s);
    return rc;
}

void ncp_solutions_set_flush(ncp_solutions *s, int on)
{
    if (!s) return;
    s->noflush = !on;
    /* a file flushed only at its close is never read before: the compact format (open_file),
     * while nothing is written yet; a failure shows at the next write or the close */
    if (on || s->written || s->file < 0) return;
    ncp_error e = {0};
    if (s->root >= 0) H5Gclose(s->root);
    ncp_h5_close_file(s->file, 1);
    remove(s->tmp);
    s->file = s->root = -1;
    if (open_file(s, 1, &e)) s->deferred_rc = e.code ? e.code : NCP_ERR_IO;
}
