/* HDF5 helpers shared by the problem store, the FCLib reader/writer and the solutions file
 * (h5util.h). */
#define _GNU_SOURCE /* memfd_create (discard_writes) */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>
#include <hdf5_hl.h>

#include "store/h5util.h"
#include "util/membudget.h"

/* ======================================================================================== */
/* HDF5 helpers (h5util.h)                                                                  */
/* ======================================================================================== */

void ncp_h5_quiet(void)
{
    /* Process-global HDF5 state (the default error stack): we report errors with our own
     * messages, HDF5's stack dump on stderr would only confuse. Idempotent. */
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void ncp_h5_path(char *buf, size_t n, const char *gpath, const char *name)
{
    int w;
    if (!gpath || !gpath[0] || (gpath[0] == '/' && !gpath[1]))
        w = snprintf(buf, n, "/%s", name);
    else
        w = snprintf(buf, n, "%s/%s", gpath, name);
    if (w < 0 || (size_t)w >= n) /* only messages and nested names use it: mark the cut */
        if (n > 4) memcpy(buf + n - 4, "...", 4);
}

#define jpath ncp_h5_path

int ncp_h5_werr(const ncp_h5ctx *c, const char *what, const char *gpath, const char *name)
{
    char p[512];
    int e = errno;
    jpath(p, sizeof p, gpath, name);
    if (e == ENOSPC || e == EFBIG || e == EDQUOT || e == EIO)
        return ncp_error_set(c->err, NCP_ERR_IO, "writing %s: cannot %s %s: %s", c->file, what, p, strerror(e));
    return ncp_error_set(c->err, NCP_ERR_IO, "writing %s: cannot %s %s", c->file, what, p);
}

static herr_t find_nomem(unsigned n, const H5E_error2_t *e, void *found)
{
    (void)n;
    if (e->maj_num == H5E_RESOURCE && (e->min_num == H5E_NOSPACE || e->min_num == H5E_CANTALLOC))
        *(int *)found = 1;
    return 0;
}

/* Address space a read may need beyond what it was given: libhdf5's chunk cache (1 MiB by
 * default), zlib's window and state, a chunk's buffers. */
#define NCP_H5_READ_ROOM (8.0 * 1048576.0)

/* 1 when the HDF5 call that failed last failed to allocate memory: its error stack says so
 * (every API call clears it on entry, so it holds the last failure's causes only), or, since
 * the deflate filter reports zlib's Z_MEM_ERROR as it reports a damaged stream ("inflate()
 * failed"), the address-space limit in force leaves less than NCP_H5_READ_ROOM. */
static int hdf5_out_of_memory(void)
{
    int found = 0;
    if (H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, find_nomem, &found) >= 0 && found) return 1;
    const double limit = ncp_mem_address_limit(), size = ncp_mem_process_size();
    return limit > 0.0 && size > 0.0 && limit - size < NCP_H5_READ_ROOM;
}

int ncp_h5_rerr(const ncp_h5ctx *c, const char *gpath, const char *name, const char *fmt, ...)
{
    char p[512], what[512];
    jpath(p, sizeof p, gpath, name);
    if (hdf5_out_of_memory()) { /* not the file's fault: under --max-memory, the budget's */
        char w[1100];
        snprintf(w, sizeof w, "reading %s: %s", c->file, p);
        return ncp_mem_refuse(c->budget, w, "the HDF5 library could not allocate memory", c->err);
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return ncp_error_set(c->err, NCP_ERR_INPUT, "%s: %s: %s", c->file, p, what);
}

/* Objects are created without modification times (H5Pset_obj_track_times(.., 0)), so the same
 * capture gives byte-identical files (issue 4: same seed, same bytes). */
hid_t ncp_h5_untimed_plist(hid_t cls)
{
    hid_t pl = H5Pcreate(cls);
    if (pl >= 0 && H5Pset_obj_track_times(pl, 0) < 0) {
        H5Pclose(pl);
        pl = -1;
    }
    return pl;
}

/* 1 when this HDF5 has the deflate filter with its encoder (Debian's libhdf5 has; a build
 * without zlib has not, and then datasets are written contiguous, readable everywhere). */
static int filter_encodes(H5Z_filter_t id)
{
    unsigned cfg = 0;
    return H5Zfilter_avail(id) > 0 && H5Zget_filter_info(id, &cfg) >= 0 &&
           (cfg & H5Z_FILTER_CONFIG_ENCODE_ENABLED);
}

#define NCP_H5_MAXRANK 8
/* Chunks of at most this many bytes: HDF5's default chunk cache is 1 MiB per dataset. */
#define NCP_H5_CHUNK_BYTES ((hsize_t)512 * 1024)

/* Name of the temporary fcpl property that marks a file of ncp_h5_create_file_compressed. */
#define NCP_H5_COMPRESS_PROP "ncpbench_compress"

/* 1 when loc lies in a file created by ncp_h5_create_file_compressed. */
static int file_compresses(hid_t loc)
{
    hid_t f = H5Iget_file_id(loc);
    if (f < 0) return 0;
    hid_t fcpl = H5Fget_create_plist(f);
    int yes = fcpl >= 0 && H5Pexist(fcpl, NCP_H5_COMPRESS_PROP) > 0;
    if (fcpl >= 0) H5Pclose(fcpl);
    H5Fclose(f);
    return yes;
}

/* The creation property list of a dataset: untimed; chunked and compressed (shuffle, then
 * deflate) in a compressed file when the data is large enough. Chunks split the first
 * dimension only, so each chunk holds whole rows. */
static hid_t data_plist(hid_t loc, hid_t type, int rank, const hsize_t *dims)
{
    hid_t dcpl = ncp_h5_untimed_plist(H5P_DATASET_CREATE);
    if (dcpl < 0 || rank < 1 || rank > NCP_H5_MAXRANK || !file_compresses(loc)) return dcpl;
    /* our datasets carry no attributes: minimal object headers (boltnut: 6.1 -> 5.6 MB) */
    if (H5Pset_dset_no_attrs_hint(dcpl, 1) < 0) {
        H5Pclose(dcpl);
        return -1;
    }
    hsize_t row = H5Tget_size(type), n;
    for (int k = 1; k < rank; k++) row *= dims[k];
    n = row * dims[0];
    if (row == 0 || n < NCP_H5_COMPRESS_MIN || !filter_encodes(H5Z_FILTER_DEFLATE)) return dcpl;
    hsize_t chunk[NCP_H5_MAXRANK];
    for (int k = 1; k < rank; k++) chunk[k] = dims[k];
    chunk[0] = NCP_H5_CHUNK_BYTES / row;
    if (chunk[0] < 1) chunk[0] = 1;
    if (chunk[0] > dims[0]) chunk[0] = dims[0];
    if (H5Pset_chunk(dcpl, rank, chunk) < 0 ||
        (filter_encodes(H5Z_FILTER_SHUFFLE) && H5Pset_shuffle(dcpl) < 0) ||
        H5Pset_deflate(dcpl, NCP_H5_DEFLATE_LEVEL) < 0) {
        H5Pclose(dcpl);
        return -1;
    }
    return dcpl;
}

/* A dataset written in one go, as H5LTmake_dataset_* would, but untimed (and compressed in a
 * compressed file). */
static herr_t make_dataset(hid_t loc, const char *name, hid_t type, hid_t space, const void *buf)
{
    int rank = H5Sget_simple_extent_ndims(space);
    hsize_t dims[NCP_H5_MAXRANK];
    if (rank < 0 || rank > NCP_H5_MAXRANK || H5Sget_simple_extent_dims(space, dims, NULL) < 0)
        return -1;
    errno = 0; /* ncp_h5_werr names a disk-full errno of this write */
    double bytes = (double)H5Tget_size(type);
    for (int k = 0; k < rank; k++) bytes *= (double)dims[k];
    if (ncp_h5_reserve(loc, bytes) < 0) return -1; /* disk full: libhdf5 must not see it */
    hid_t dcpl = data_plist(loc, type, rank, dims);
    if (dcpl < 0) return -1;
    hid_t d = H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    H5Pclose(dcpl);
    if (d < 0) return -1;
    herr_t st = H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
    if (H5Dclose(d) < 0) st = -1;
    return st;
}

static herr_t make_array(hid_t loc, const char *name, hid_t type, int rank,
                         const hsize_t *dims, const void *buf)
{
    hid_t sp = H5Screate_simple(rank, dims, NULL);
    if (sp < 0) return -1;
    herr_t st = make_dataset(loc, name, type, sp, buf);
    H5Sclose(sp);
    return st;
}

int ncp_h5_group(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name, hid_t *out)
{
    *out = -1;
    errno = 0;
    if (ncp_h5_reserve(loc, 0) < 0) return ncp_h5_werr(c, "create group", gpath, name);
    hid_t gcpl = ncp_h5_untimed_plist(H5P_GROUP_CREATE);
    *out = gcpl < 0 ? -1 : H5Gcreate2(loc, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
    if (gcpl >= 0) H5Pclose(gcpl);
    if (*out < 0) return ncp_h5_werr(c, "create group", gpath, name);
    return NCP_OK;
}

int ncp_h5_write_int1(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name, int v)
{
    hsize_t d = 1;
    if (make_array(loc, name, H5T_NATIVE_INT, 1, &d, &v) < 0)
        return ncp_h5_werr(c, "write dataset", gpath, name);
    return NCP_OK;
}

int ncp_h5_write_iarr(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                      int rank, const hsize_t *dims, const int *v)
{
    if (make_array(loc, name, H5T_NATIVE_INT, rank, dims, v) < 0)
        return ncp_h5_werr(c, "write dataset", gpath, name);
    return NCP_OK;
}

int ncp_h5_write_darr(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                      int rank, const hsize_t *dims, const double *v)
{
    if (make_array(loc, name, H5T_NATIVE_DOUBLE, rank, dims, v) < 0)
        return ncp_h5_werr(c, "write dataset", gpath, name);
    return NCP_OK;
}

int ncp_h5_write_ivec(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name, int n,
                      const int *v)
{
    hsize_t d = (hsize_t)n;
    return ncp_h5_write_iarr(c, loc, gpath, name, 1, &d, v);
}

int ncp_h5_write_dvec(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name, int n,
                      const double *v)
{
    hsize_t d = (hsize_t)n;
    return ncp_h5_write_darr(c, loc, gpath, name, 1, &d, v);
}

int ncp_h5_write_dmat(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                      int rows, int cols, const double *A)
{
    double *T = ncp_malloc(c->err, (size_t)rows * (size_t)cols, sizeof(double));
    if (!T) return NCP_ERR_NOMEM;
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < rows; i++) T[(size_t)i * cols + j] = A[i + (size_t)j * rows];
    hsize_t d[2] = {(hsize_t)rows, (hsize_t)cols};
    int rc = ncp_h5_write_darr(c, loc, gpath, name, 2, d, T);
    free(T);
    return rc;
}

int ncp_h5_write_string(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                        const char *s)
{
    /* the fixed-length, NUL-terminated C string H5LTmake_dataset_string writes, untimed */
    const char *str = s ? s : "";
    hid_t t = H5Tcopy(H5T_C_S1), sp = H5Screate(H5S_SCALAR);
    herr_t st = (t < 0 || sp < 0 || H5Tset_size(t, strlen(str) + 1) < 0) ? -1
                                                                        : make_dataset(loc, name, t, sp, str);
    if (t >= 0) H5Tclose(t);
    if (sp >= 0) H5Sclose(sp);
    if (st < 0) return ncp_h5_werr(c, "write string", gpath, name);
    return NCP_OK;
}

static int attr_write(const ncp_h5ctx *c, hid_t obj, const char *opath, const char *name,
                      hid_t ftype, hid_t mtype, const void *buf)
{
    int rc = NCP_OK;
    errno = 0;
    if (ncp_h5_reserve(obj, 0) < 0) return ncp_h5_werr(c, "create attribute", opath, name);
    hid_t sp = H5Screate(H5S_SCALAR);
    if (sp < 0) return ncp_h5_werr(c, "create attribute", opath, name);
    if (H5Aexists(obj, name) > 0 && H5Adelete(obj, name) < 0) rc = ncp_h5_werr(c, "replace attribute", opath, name);
    hid_t a = rc ? -1 : H5Acreate2(obj, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT);
    if (!rc && a < 0) rc = ncp_h5_werr(c, "create attribute", opath, name);
    if (!rc && H5Awrite(a, mtype, buf) < 0) rc = ncp_h5_werr(c, "write attribute", opath, name);
    if (a >= 0) H5Aclose(a);
    H5Sclose(sp);
    return rc;
}

int ncp_h5_attr_int(const ncp_h5ctx *c, hid_t obj, const char *opath, const char *name, int v)
{
    return attr_write(c, obj, opath, name, H5T_STD_I32LE, H5T_NATIVE_INT, &v);
}

int ncp_h5_attr_double(const ncp_h5ctx *c, hid_t obj, const char *opath, const char *name,
                       double v)
{
    return attr_write(c, obj, opath, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v);
}

int ncp_h5_attr_u64(const ncp_h5ctx *c, hid_t obj, const char *opath, const char *name,
                    uint64_t v)
{
    return attr_write(c, obj, opath, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &v);
}

int ncp_h5_attr_str(const ncp_h5ctx *c, hid_t obj, const char *opath, const char *name,
                    const char *s)
{
    /* Fixed-length, not variable-length: a VL string lives in the global heap, which has no
     * checksum, and libhdf5 1.10 overruns buffers on a damaged one (found by a bit-flip fuzz
     * run); a fixed-length attribute sits in the checksummed object header (or, when large,
     * in checksummed dense attribute storage, format >= 1.8). h5py reads it as bytes. */
    const char *buf = s ? s : "";
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0) return ncp_h5_werr(c, "create attribute", opath, name);
    int rc = NCP_OK;
    if (H5Tset_size(t, strlen(buf) + 1) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0 ||
        H5Tset_strpad(t, H5T_STR_NULLTERM) < 0)
        rc = ncp_h5_werr(c, "create attribute", opath, name);
    if (!rc) rc = attr_write(c, obj, opath, name, t, t, buf);
    H5Tclose(t);
    return rc;
}

int ncp_h5_write_sparse(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                        const ncp_h5_sparse *S)
{
    char mp[512];
    jpath(mp, sizeof mp, gpath, name);
    hid_t g;
    int rc = ncp_h5_group(c, loc, gpath, name, &g);
    if (rc) return rc;
    /* The same datasets, in the same order and with the same sizes, as libfclib's
     * write_matrix in libfclib's fclib.c. */
    int np = S->nz >= 0 ? S->nz : (S->nz == -1 ? S->n + 1 : S->m + 1);
    int ni = S->nz >= 0 ? S->nz : S->nzmax;
    if (S->nz < -2) rc = ncp_error_set(c->err, NCP_ERR_INTERNAL, "%s: bad storage nz = %d", mp, S->nz);
    if (!rc) rc = ncp_h5_write_int1(c, g, mp, "nzmax", S->nzmax);
    if (!rc) rc = ncp_h5_write_int1(c, g, mp, "m", S->m);
    if (!rc) rc = ncp_h5_write_int1(c, g, mp, "n", S->n);
    if (!rc) rc = ncp_h5_write_int1(c, g, mp, "nz", S->nz);
    if (!rc) rc = ncp_h5_write_ivec(c, g, mp, "p", np, S->p);
    if (!rc) rc = ncp_h5_write_ivec(c, g, mp, "i", ni, S->i);
    if (!rc) rc = ncp_h5_write_dvec(c, g, mp, "x", ni, S->x);
    if (H5Gclose(g) < 0 && !rc) rc = ncp_h5_werr(c, "close group", gpath, name);
    return rc;
}

int ncp_h5_csc_from_dense(int m, int n, const double *A, int **p, int **i, double **x, int *nnz,
                          ncp_error *err)
{
    size_t cnt = 0;
    for (size_t k = 0; k < (size_t)m * (size_t)n; k++)
        if (A[k] != 0.0) cnt++;
    if (cnt > INT_MAX)
        return ncp_error_set(err, NCP_ERR_INPUT, "matrix has %zu non-zeros, more than FCLib's int32 indices allow", cnt);
    *p = ncp_malloc(err, (size_t)n + 1, sizeof(int));
    *i = ncp_malloc(err, cnt, sizeof(int));
    *x = ncp_malloc(err, cnt, sizeof(double));
    if (!*p || !*i || !*x) {
        free(*p);
        free(*i);
        free(*x);
        *p = *i = NULL;
        *x = NULL;
        return NCP_ERR_NOMEM;
    }
    int k = 0;
    (*p)[0] = 0;
    for (int j = 0; j < n; j++) {
        for (int r = 0; r < m; r++) {
            double v = A[r + (size_t)j * m];
            if (v != 0.0) {
                (*i)[k] = r;
                (*x)[k] = v;
                k++;
            }
        }
        (*p)[j + 1] = k;
    }
    *nnz = k;
    return NCP_OK;
}

static hid_t create_file(const char *path, int compress)
{
    /* Format low bound 1.8: superblock v2 and object header v2 carry checksums, so a damaged
     * file is reported by HDF5 as such instead of being parsed (libhdf5 1.10 has memory-safety
     * bugs on corrupted object headers; a fuzz run of bit flips hit one in H5Aexists). Files
     * stay readable by HDF5 >= 1.8, h5py and libfclib. */
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0) return -1;
    int one = 1;
    hid_t f = -1, fcpl = ncp_h5_untimed_plist(H5P_FILE_CREATE); /* untimed root group (see above) */
    if (fcpl >= 0 && compress &&
        H5Pinsert2(fcpl, NCP_H5_COMPRESS_PROP, sizeof one, &one, NULL, NULL, NULL, NULL, NULL,
                   NULL) < 0) {
        H5Pclose(fcpl);
        fcpl = -1;
    }
    /* A compressed file uses the 1.10 format: a dataset of one chunk then needs no chunk B-tree
     * (the "single chunk" index), which is what keeps small compressed datasets small. (A
     * smaller B-tree order, H5Pset_istore_k, would do it in the 1.8 format but needs a
     * superblock extension whose object header carries creation times, so two captures of the
     * same seed would differ in those bytes.) Readers: HDF5 >= 1.10, h5py; plain FCLib files
     * (ncp_h5_create_file) keep the 1.8 format. */
    H5F_libver_t low = compress ? H5F_LIBVER_V110 : H5F_LIBVER_V18;
    if (fcpl >= 0 && H5Pset_libver_bounds(fapl, low, low) >= 0)
        f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, fapl);
    if (fcpl >= 0) H5Pclose(fcpl);
    H5Pclose(fapl);
    return f;
}

/* Disk full while writing an HDF5 file. libhdf5 1.10.8 cannot recover from a failed write of
 * its metadata (a flush, or an eviction from the metadata cache in the middle of any call):
 * the cache's skip list stays enabled ("slist already enabled?"), every later flush fails the
 * same way, H5Fclose leaves the file half-destroyed but registered, and the exit handler
 * (H5_term_library -> H5F__close_cb) then dereferences freed memory: SIGSEGV after the right
 * message (issue 13; H5F_CLOSE_STRONG does not help, the flush fails first). So libhdf5 must
 * never see a full disk: before every write of ours (a dataset, an attribute, a group, a
 * flush, the close) the file's blocks up to its end of address space, plus what the write
 * adds, plus a margin, are reserved with fallocate, and when that fails the write is not
 * attempted and the error goes up as NCP_ERR_IO. The margin (NCP_H5_MARGIN) covers the
 * metadata a flush allocates for objects written the first time: sphere-stack, 20 problems,
 * the end of address space grew from 190 313 to 222 268 bytes at the close (17%), so a
 * quarter of the file plus 64 KiB; a disk with less free space than that left reports "disk
 * full" (exit 3) for a file that might just have fit. The reservation is rounded up to 64 KiB
 * so that most writes find it already done. fallocate does not check the file size limit
 * (ulimit -f, RLIMIT_FSIZE) when it keeps the size, so that limit is checked here (EFBIG). A file that cannot be completed has its
 * descriptor (sec2 driver) pointed at an anonymous in-memory file before it is closed: its
 * last writes, lost anyway, and the close's truncation then succeed, the close frees
 * everything, and the file on disk keeps what the last successful flush wrote. (/dev/null
 * would not do: the close ftruncate()s the file.) File systems without fallocate
 * (EOPNOTSUPP) are written without the reservation. */
#define NCP_H5_MARGIN(eoa) ((off_t)(eoa) / 4 + NCP_H5_RESERVE_STEP)
#define NCP_H5_RESERVE_STEP ((off_t)64 << 10)

static int vfd_fd(hid_t f)
{
    void *h = NULL;
    int fd = -1;
    hid_t fapl = H5Fget_access_plist(f);
    if (fapl >= 0 && H5Pget_driver(fapl) == H5FD_SEC2 && H5Fget_vfd_handle(f, fapl, &h) >= 0 && h)
        fd = *(int *)h;
    if (fapl >= 0) H5Pclose(fapl);
    return fd;
}

static void discard_writes(hid_t f)
{
    int fd = vfd_fd(f);
    if (fd < 0) return;
    int mem = memfd_create("ncpbench-discarded", MFD_CLOEXEC);
    if (mem >= 0) {
        (void)dup2(mem, fd);
        close(mem);
    }
}

int ncp_h5_reserve(hid_t loc, double bytes)
{
    hsize_t size = 0;
    haddr_t eoa = 0;
    hid_t f = H5Iget_file_id(loc);
    if (f < 0) return 0;
    int fd = vfd_fd(f), rc = 0;
    if (fd >= 0 && H5Fget_filesize(f, &size) >= 0) {
        if (H5Fget_eoa(f, &eoa) >= 0 && eoa > size) size = eoa;
        const off_t step = NCP_H5_RESERVE_STEP;
        off_t want = (off_t)size + (bytes > 0 ? (off_t)bytes : 0) + NCP_H5_MARGIN(size);
        want = (want + step - 1) / step * step;
        struct stat sb;
        struct rlimit rl;
        if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
            (double)want > (double)rl.rlim_cur) {
            errno = EFBIG;
            rc = -1;
        } else if (!(fstat(fd, &sb) == 0 && (off_t)sb.st_blocks * 512 >= want) &&
                   /* st_blocks: 512-byte blocks, those reserved beyond the end included */
                   fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, want) != 0 && errno != EOPNOTSUPP &&
                   errno != ENOSYS) {
            rc = -1;
        }
    }
    int e = errno;
    H5Fclose(f);
    errno = e;
    return rc;
}

int ncp_h5_flush_file(hid_t f)
{
    if (ncp_h5_reserve(f, 0) < 0) return -1;
    return H5Fflush(f, H5F_SCOPE_LOCAL) < 0 ? -1 : 0;
}

int ncp_h5_close_file(hid_t f, int discard)
{
    if (f < 0) return 0;
    int bad = discard || ncp_h5_reserve(f, 0) < 0;
    if (bad) discard_writes(f);
    /* objects first: whatever an error path left open (a dataset whose close failed stays
     * registered) */
    const unsigned objs = H5F_OBJ_DATASET | H5F_OBJ_GROUP | H5F_OBJ_DATATYPE | H5F_OBJ_ATTR | H5F_OBJ_LOCAL;
    ssize_t n = H5Fget_obj_count(f, objs);
    hid_t *ids = n > 0 ? malloc((size_t)n * sizeof *ids) : NULL;
    ssize_t got = ids ? H5Fget_obj_ids(f, objs, (size_t)n, ids) : 0;
    for (ssize_t k = 0; k < got; k++)
        if ((H5Iget_type(ids[k]) == H5I_ATTR ? H5Aclose(ids[k]) : H5Oclose(ids[k])) < 0) bad = 1;
    free(ids);
    if (!bad && ncp_h5_reserve(f, 0) < 0) { /* closing them may have allocated more */
        bad = 1;
        discard_writes(f);
    }
    if (H5Fclose(f) < 0) bad = 1;
    return bad ? -1 : 0;
}

hid_t ncp_h5_create_file(const char *path) { return create_file(path, 0); }

hid_t ncp_h5_create_file_compressed(const char *path) { return create_file(path, 1); }

/* ---- reading ---- */

int ncp_h5_exists(hid_t loc, const char *name) { return H5Lexists(loc, name, H5P_DEFAULT) > 0; }

int ncp_h5_open_group(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                      hid_t *out)
{
    *out = -1;
    if (!ncp_h5_exists(loc, name)) return ncp_h5_rerr(c, gpath, name, "missing group");
    *out = H5Gopen2(loc, name, H5P_DEFAULT);
    if (*out < 0) return ncp_h5_rerr(c, gpath, name, "is not a readable group");
    return NCP_OK;
}

static void shape_str(char *buf, size_t n, int rank, const hsize_t *d)
{
    size_t o = 0;
    o += (size_t)snprintf(buf + o, n - o, "(");
    for (int k = 0; k < rank && o < n; k++)
        o += (size_t)snprintf(buf + o, n - o, "%s%llu", k ? ", " : "", (unsigned long long)d[k]);
    if (o < n) snprintf(buf + o, n - o, ")");
}

/* Opens a dataset and checks its class: want_int = 1 requires an integer type, 0 accepts float
 * or integer (converted to double). Returns the dataset and its shape. */
static int open_ds(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                   int want_int, hid_t *ds, int *rank, hsize_t *dims)
{
    *ds = -1;
    if (!ncp_h5_exists(loc, name)) return ncp_h5_rerr(c, gpath, name, "missing dataset");
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d < 0) return ncp_h5_rerr(c, gpath, name, "is not a readable dataset");
    hid_t t = H5Dget_type(d);
    H5T_class_t cls = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    if (t >= 0) H5Tclose(t);
    if (want_int ? cls != H5T_INTEGER : (cls != H5T_FLOAT && cls != H5T_INTEGER)) {
        H5Dclose(d);
        return ncp_h5_rerr(c, gpath, name, "has the wrong data type (expected %s)",
                    want_int ? "integers" : "floating-point numbers");
    }
    hid_t sp = H5Dget_space(d);
    int r = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
    H5S_class_t scls = sp >= 0 ? H5Sget_simple_extent_type(sp) : H5S_NO_CLASS;
    if (r < 0 || r > NCP_H5_MAXRANK || scls == H5S_NULL || scls == H5S_NO_CLASS ||
        (r > 0 && H5Sget_simple_extent_dims(sp, dims, NULL) < 0)) {
        if (sp >= 0) H5Sclose(sp);
        H5Dclose(d);
        return ncp_h5_rerr(c, gpath, name, "has an unreadable or unsupported shape");
    }
    H5Sclose(sp);
    *ds = d;
    *rank = r;
    return NCP_OK;
}

/* Reads the whole dataset. Two damaged-file cases that libhdf5 1.10 does not catch itself are
 * refused first (both found by tests/fuzz, inputs in tests/fuzz/regressions/fclib/): a file
 * datatype whose element size is 0 or absurd (a one-element integer dataset declaring a 4 GB
 * element made H5Dread allocate 4 GB; every number we read is at most 16 bytes), and a compact
 * dataset whose stored bytes are fewer than its elements need (H5Dread copied from a NULL
 * buffer). */
static int read_all(const ncp_h5ctx *c, hid_t ds, hid_t mtype, void *buf, const char *gpath,
                    const char *name)
{
    hid_t ft = H5Dget_type(ds), sp = H5Dget_space(ds), pl = H5Dget_create_plist(ds);
    size_t esz = ft >= 0 ? H5Tget_size(ft) : 0;
    hssize_t npts = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    H5D_layout_t lay = pl >= 0 ? H5Pget_layout(pl) : H5D_LAYOUT_ERROR;
    if (ft >= 0) H5Tclose(ft);
    if (sp >= 0) H5Sclose(sp);
    if (pl >= 0) H5Pclose(pl);
    if (esz == 0 || esz > 16)
        return ncp_h5_rerr(c, gpath, name, "has elements of %zu bytes, not a number (damaged file?)",
                           esz);
    if (npts < 0 || lay == H5D_LAYOUT_ERROR)
        return ncp_h5_rerr(c, gpath, name, "cannot be read (damaged or truncated file?)");
    if (lay == H5D_COMPACT && (double)H5Dget_storage_size(ds) < (double)npts * (double)esz)
        return ncp_h5_rerr(c, gpath, name, "stores %llu bytes for %lld elements of %zu bytes "
                           "(damaged file)", (unsigned long long)H5Dget_storage_size(ds),
                           (long long)npts, esz);
    if (H5Dread(ds, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        return ncp_h5_rerr(c, gpath, name, "cannot be read (damaged or truncated file?)");
    return NCP_OK;
}

static int check_finite(const ncp_h5ctx *c, const char *gpath, const char *name, size_t n,
                        const double *v)
{
    for (size_t k = 0; k < n; k++)
        if (!isfinite(v[k])) return ncp_h5_rerr(c, gpath, name, "entry %zu is %g (not finite)", k, v[k]);
    return NCP_OK;
}

int ncp_h5_read_int1(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name, int *v)
{
    hid_t ds;
    int rank;
    hsize_t d[NCP_H5_MAXRANK];
    int rc = open_ds(c, loc, gpath, name, 1, &ds, &rank, d);
    if (rc) return rc;
    if (!(rank == 0 || (rank == 1 && d[0] == 1))) {
        char s[128];
        shape_str(s, sizeof s, rank, d);
        rc = ncp_h5_rerr(c, gpath, name, "has shape %s, expected one integer", s);
    }
    if (!rc) rc = read_all(c, ds, H5T_NATIVE_INT, v, gpath, name);
    H5Dclose(ds);
    return rc;
}

/* Deflate's largest compression ratio is 1032:1 (RFC 1951: a 258-byte match costs at least 2
 * bits); shuffle does not change the size. */
#define NCP_H5_MAX_RATIO 1032.0

int ncp_h5_budget(const ncp_h5ctx *c, const char *gpath, const char *name, const char *what,
                  double bytes)
{
    char p[512], w[700];
    ncp_h5_path(p, sizeof p, gpath, name);
    snprintf(w, sizeof w, "%s: %s: %s", c->file, p, what);
    return ncp_mem_check(c->budget, bytes, w, c->err);
}

/* Below this many bytes a dataset may leave chunks unwritten (they read as the fill value, as
 * libhdf5 gives them): Siconos' FCLib samples declare /guesses/1/v without writing it. */
#define NCP_H5_FILL_MAX (1024.0 * 1024.0)

/* The rule of h5util.h ("a dataset's extent is only a declaration") for dataset ds of n
 * entries, `bytes` bytes in memory, checked before anything of that size is allocated: a
 * 155 KB file whose datasets declare 10^9 entries (chunked, no chunk written) made the reader
 * allocate 8 GB before this (issue 13). */
int ncp_h5_check_stored(const ncp_h5ctx *c, hid_t ds, const char *gpath, const char *name,
                        double n, double bytes)
{
    if (n <= 0.0) return NCP_OK;
    char what[96];
    snprintf(what, sizeof what, "%.0f entries", n);
    int rc = ncp_h5_budget(c, gpath, name, what, bytes);
    if (rc) return rc;
    hid_t dcpl = H5Dget_create_plist(ds), t = H5Dget_type(ds);
    size_t tsize = t >= 0 ? H5Tget_size(t) : 0;
    if (t >= 0) H5Tclose(t);
    H5D_layout_t layout = dcpl >= 0 ? H5Pget_layout(dcpl) : H5D_LAYOUT_ERROR;
    int next = dcpl >= 0 ? H5Pget_external_count(dcpl) : -1;
    int nfilt = dcpl >= 0 ? H5Pget_nfilters(dcpl) : -1;
    int rank = 0;
    hsize_t chunk[NCP_H5_MAXRANK], dims[NCP_H5_MAXRANK];
    if (layout == H5D_CHUNKED) rank = H5Pget_chunk(dcpl, NCP_H5_MAXRANK, chunk);
    if (dcpl >= 0) H5Pclose(dcpl);
    double filebytes = n * (double)tsize, held = (double)H5Dget_storage_size(ds);
    if (tsize == 0 || layout == H5D_LAYOUT_ERROR || next < 0 || nfilt < 0 ||
        (layout == H5D_CHUNKED && rank <= 0))
        return ncp_h5_rerr(c, gpath, name, "has an unreadable storage layout");
    if (layout == H5D_VIRTUAL || next > 0)
        return ncp_h5_rerr(c, gpath, name, "stores its data outside the file (%s); ncpbench reads data held in the file only",
                           next > 0 ? "external storage" : "virtual dataset");
    hsize_t fsize = 0;
    hid_t f = H5Iget_file_id(ds);
    if (f < 0 || H5Fget_filesize(f, &fsize) < 0) fsize = 0;
    if (f >= 0) H5Fclose(f);
    if (fsize > 0 && held > (double)fsize)
        return ncp_h5_rerr(c, gpath, name, "claims %.0f bytes of storage in a file of %llu bytes (damaged header)",
                           held, (unsigned long long)fsize);
    if (filebytes <= NCP_H5_FILL_MAX) return NCP_OK;
    char why[160] = "";
    if (layout == H5D_CONTIGUOUS && held < filebytes) {
        snprintf(why, sizeof why, "storage never allocated");
    } else if (layout == H5D_CHUNKED) {
        hid_t sp = H5Dget_space(ds);
        int r = sp >= 0 ? H5Sget_simple_extent_ndims(sp) : -1;
        double want = 1.0;
        if (r != rank || r > NCP_H5_MAXRANK || H5Sget_simple_extent_dims(sp, dims, NULL) < 0) want = -1.0;
        for (int k = 0; want > 0.0 && k < r; k++) want *= ceil((double)dims[k] / (double)(chunk[k] ? chunk[k] : 1));
        hsize_t got = 0;
        if (want < 0.0 || H5Dget_num_chunks(ds, sp, &got) < 0) {
            if (sp >= 0) H5Sclose(sp);
            return ncp_h5_rerr(c, gpath, name, "has an unreadable chunk index");
        }
        H5Sclose(sp);
        if ((double)got < want)
            snprintf(why, sizeof why, "only %llu of its %.0f chunks written", (unsigned long long)got, want);
        else if ((nfilt > 0 ? held * NCP_H5_MAX_RATIO : held) < filebytes)
            snprintf(why, sizeof why, "%s", nfilt > 0 ? "more than deflate can compress" : "chunks too small");
    }
    if (why[0])
        return ncp_h5_rerr(c, gpath, name, "declares %.0f MiB of data but the file holds %.0f bytes of it (%.0f entries; %s)",
                           filebytes / 1048576.0, held, n, why);
    return NCP_OK;
}

static int read_vec(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                    long expect, int is_int, void **v, int *n)
{
    hid_t ds;
    int rank;
    hsize_t d[NCP_H5_MAXRANK];
    *v = NULL;
    int rc = open_ds(c, loc, gpath, name, is_int, &ds, &rank, d);
    if (rc) return rc;
    if (rank != 1) {
        char s[128];
        shape_str(s, sizeof s, rank, d);
        rc = ncp_h5_rerr(c, gpath, name, "has shape %s, expected a vector", s);
    } else if (d[0] > (hsize_t)INT_MAX) {
        rc = ncp_h5_rerr(c, gpath, name, "has %llu entries, too many", (unsigned long long)d[0]);
    } else if (expect >= 0 && d[0] != (hsize_t)expect) {
        rc = ncp_h5_rerr(c, gpath, name, "has %llu entries, expected %ld", (unsigned long long)d[0], expect);
    }
    if (!rc) rc = ncp_h5_check_stored(c, ds, gpath, name, (double)d[0], (double)d[0] * (is_int ? sizeof(int) : sizeof(double)));
    if (!rc) {
        *v = ncp_malloc(c->err, d[0], is_int ? sizeof(int) : sizeof(double));
        if (!*v) rc = NCP_ERR_NOMEM;
    }
    if (!rc) rc = read_all(c, ds, is_int ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE, *v, gpath, name);
    if (!rc && !is_int) rc = check_finite(c, gpath, name, d[0], *v);
    H5Dclose(ds);
    if (rc) {
        free(*v);
        *v = NULL;
    } else if (n) {
        *n = (int)d[0];
    }
    return rc;
}

int ncp_h5_read_ivec(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                     long expect, int **v, int *n)
{
    void *p;
    int rc = read_vec(c, loc, gpath, name, expect, 1, &p, n);
    *v = p;
    return rc;
}

int ncp_h5_read_dvec(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                     long expect, double **v, int *n)
{
    void *p;
    int rc = read_vec(c, loc, gpath, name, expect, 0, &p, n);
    *v = p;
    return rc;
}

static int read_arr(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                    int want_rank, const hsize_t *want, int is_int, void *v)
{
    hid_t ds;
    int rank;
    hsize_t d[NCP_H5_MAXRANK];
    int rc = open_ds(c, loc, gpath, name, is_int, &ds, &rank, d);
    if (rc) return rc;
    int ok = rank == want_rank;
    size_t total = 1;
    for (int k = 0; ok && k < rank; k++) {
        ok = d[k] == want[k];
        total *= (size_t)want[k];
    }
    if (!ok) {
        char s1[128], s2[128];
        shape_str(s1, sizeof s1, rank, d);
        shape_str(s2, sizeof s2, want_rank, want);
        rc = ncp_h5_rerr(c, gpath, name, "has shape %s, expected %s", s1, s2);
    }
    if (!rc) rc = ncp_h5_check_stored(c, ds, gpath, name, (double)total, (double)total * (is_int ? sizeof(int) : sizeof(double)));
    if (!rc) rc = read_all(c, ds, is_int ? H5T_NATIVE_INT : H5T_NATIVE_DOUBLE, v, gpath, name);
    if (!rc && !is_int) rc = check_finite(c, gpath, name, total, v);
    H5Dclose(ds);
    return rc;
}

int ncp_h5_read_iarr(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                     int rank, const hsize_t *dims, int *v)
{
    return read_arr(c, loc, gpath, name, rank, dims, 1, v);
}

int ncp_h5_read_darr(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                     int rank, const hsize_t *dims, double *v)
{
    return read_arr(c, loc, gpath, name, rank, dims, 0, v);
}

int ncp_h5_dense_ok(const ncp_h5ctx *c, const char *gpath, const char *name, int rows, int cols)
{
    /* ncpbench keeps A and D dense: refuse what the budget cannot hold (a damaged or hostile
     * header, or a problem too large for this machine) before allocating it */
    char what[128];
    snprintf(what, sizeof what, "a dense %d x %d matrix", rows, cols);
    return ncp_h5_budget(c, gpath, name, what, (double)rows * (double)cols * sizeof(double));
}

int ncp_h5_read_dmat(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                     int rows, int cols, double **A)
{
    *A = NULL;
    hid_t ds;
    int rank;
    hsize_t d[NCP_H5_MAXRANK];
    /* the shape is checked before anything of that size is allocated */
    int rc = open_ds(c, loc, gpath, name, 0, &ds, &rank, d);
    if (rc) return rc;
    if (rank != 2 || d[0] != (hsize_t)rows || d[1] != (hsize_t)cols) {
        char s1[128];
        shape_str(s1, sizeof s1, rank, d);
        rc = ncp_h5_rerr(c, gpath, name, "has shape %s, expected (%d, %d)", s1, rows, cols);
    }
    if (!rc) rc = ncp_h5_check_stored(c, ds, gpath, name, (double)rows * cols, (double)rows * cols * sizeof(double));
    H5Dclose(ds);
    if (!rc) { /* read into T, transposed into M: twice the matrix at once */
        char what[128];
        snprintf(what, sizeof what, "a dense %d x %d matrix (read and transposed)", rows, cols);
        rc = ncp_h5_budget(c, gpath, name, what, 2.0 * (double)rows * (double)cols * sizeof(double));
    }
    if (rc) return rc;
    double *T = ncp_malloc(c->err, (size_t)rows * (size_t)cols, sizeof(double));
    double *M = ncp_malloc(c->err, (size_t)rows * (size_t)cols, sizeof(double));
    hsize_t dd[2] = {(hsize_t)rows, (hsize_t)cols};
    rc = (T && M) ? ncp_h5_read_darr(c, loc, gpath, name, 2, dd, T) : NCP_ERR_NOMEM;
    if (!rc)
        for (int j = 0; j < cols; j++)
            for (int i = 0; i < rows; i++) M[i + (size_t)j * rows] = T[(size_t)i * cols + j];
    free(T);
    if (rc) free(M);
    else *A = M;
    return rc;
}

/* Opens an attribute holding one value (scalar or 1-element dataspace) of class cls. */
static int open_attr(const ncp_h5ctx *c, hid_t obj, const char *opath, const char *name,
                     H5T_class_t cls, hid_t *out)
{
    *out = -1;
    if (H5Aexists(obj, name) <= 0) return ncp_h5_rerr(c, opath, name, "missing attribute");
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) return ncp_h5_rerr(c, opath, name, "unreadable attribute");
    hid_t t = H5Aget_type(a);
    H5T_class_t got = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    if (t >= 0) H5Tclose(t);
    int ok = got == cls || (cls == H5T_FLOAT && got == H5T_INTEGER);
    hid_t sp = H5Aget_space(a);
    hssize_t np = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    if (sp >= 0) H5Sclose(sp);
    if (!ok || np != 1) {
        H5Aclose(a);
        return ncp_h5_rerr(c, opath, name, "attribute has the wrong type or size (expected one %s)",
                    cls == H5T_STRING ? "string" : cls == H5T_INTEGER ? "integer" : "number");
    }
    *out = a;
    return NCP_OK;
}

static int read_attr_num(const ncp_h5ctx *c, hid_t obj, const char *opath, const char *name,
                         H5T_class_t cls, hid_t mtype, void *v)
{
    hid_t a;
    int rc = open_attr(c, obj, opath, name, cls, &a);
    if (rc) return rc;
    if (H5Aread(a, mtype, v) < 0) rc = ncp_h5_rerr(c, opath, name, "attribute cannot be read");
    H5Aclose(a);
    return rc;
}

int ncp_h5_read_attr_int(const ncp_h5ctx *c, hid_t obj, const char *opath, const char *name,
                         int *v)
{
    return read_attr_num(c, obj, opath, name, H5T_INTEGER, H5T_NATIVE_INT, v);
}

int ncp_h5_read_attr_double(const ncp_h5ctx *c, hid_t obj, const char *opath, const char *name,
                            double *v)
{
    int rc = read_attr_num(c, obj, opath, name, H5T_FLOAT, H5T_NATIVE_DOUBLE, v);
    if (!rc && !isfinite(*v)) rc = ncp_h5_rerr(c, opath, name, "attribute is %g (not finite)", *v);
    return rc;
}

int ncp_h5_read_attr_u64(const ncp_h5ctx *c, hid_t obj, const char *opath, const char *name,
                         uint64_t *v)
{
    return read_attr_num(c, obj, opath, name, H5T_INTEGER, H5T_NATIVE_UINT64, v);
}

/* One string from an attribute (is_attr) or a dataset, fixed or variable length. */
static int read_str(const ncp_h5ctx *c, hid_t obj, int is_attr, const char *opath,
                    const char *name, char **s)
{
    int rc = NCP_OK;
    const char *what = is_attr ? "attribute cannot be read" : "cannot be read";
    hid_t ft = is_attr ? H5Aget_type(obj) : H5Dget_type(obj);
    hid_t mt = H5Tcopy(H5T_C_S1);
    if (ft < 0 || mt < 0) rc = ncp_h5_rerr(c, opath, name, "%s", what);
    /* HDF5 converts between strings of the same character set only */
    H5T_cset_t cset = rc ? H5T_CSET_ASCII : H5Tget_cset(ft);
    if (!rc && (cset < 0 || H5Tset_cset(mt, cset) < 0)) rc = ncp_h5_rerr(c, opath, name, "%s", what);
    htri_t vl = rc ? 0 : H5Tis_variable_str(ft);
    if (!rc && vl < 0) rc = ncp_h5_rerr(c, opath, name, "%s", what);
    if (!rc && vl > 0) {
        char *tmp = NULL;
        if (H5Tset_size(mt, H5T_VARIABLE) < 0 ||
            (is_attr ? H5Aread(obj, mt, &tmp) : H5Dread(obj, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, &tmp)) < 0) {
            rc = ncp_h5_rerr(c, opath, name, "%s", what);
        } else {
            *s = ncp_strdup(c->err, tmp ? tmp : "");
            if (!*s) rc = NCP_ERR_NOMEM;
            H5free_memory(tmp);
        }
    } else if (!rc) {
        size_t sz = H5Tget_size(ft);
        /* a header can declare any size: cap it before allocating (titles, descriptions) */
        if (!is_attr && sz > ((size_t)1 << 20)) rc = ncp_h5_rerr(c, opath, name, "is a string of %zu bytes (more than 1 MiB)", sz);
        *s = (!rc && sz) ? ncp_calloc(c->err, sz + 1, 1) : NULL;
        if (!rc && !*s) rc = sz ? NCP_ERR_NOMEM : ncp_h5_rerr(c, opath, name, "%s", what);
        if (!rc && (H5Tset_size(mt, sz + 1) < 0 || H5Tset_strpad(mt, H5T_STR_NULLTERM) < 0 ||
                    (is_attr ? H5Aread(obj, mt, *s) : H5Dread(obj, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, *s)) < 0))
            rc = ncp_h5_rerr(c, opath, name, "%s", what);
        if (rc) {
            free(*s);
            *s = NULL;
        }
    }
    if (mt >= 0) H5Tclose(mt);
    if (ft >= 0) H5Tclose(ft);
    return rc;
}

int ncp_h5_read_attr_str(const ncp_h5ctx *c, hid_t obj, const char *opath, const char *name,
                         char **s)
{
    *s = NULL;
    hid_t a;
    int rc = open_attr(c, obj, opath, name, H5T_STRING, &a);
    if (rc) return rc;
    rc = read_str(c, a, 1, opath, name, s);
    H5Aclose(a);
    return rc;
}

int ncp_h5_read_string(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                       char **s)
{
    *s = NULL;
    if (!ncp_h5_exists(loc, name)) return ncp_h5_rerr(c, gpath, name, "missing dataset");
    hid_t d = H5Dopen2(loc, name, H5P_DEFAULT);
    if (d < 0) return ncp_h5_rerr(c, gpath, name, "is not a readable dataset");
    hid_t t = H5Dget_type(d), sp = H5Dget_space(d);
    H5T_class_t cls = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    hssize_t np = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;
    if (t >= 0) H5Tclose(t);
    if (sp >= 0) H5Sclose(sp);
    int rc = (cls != H5T_STRING || np != 1) ? ncp_h5_rerr(c, gpath, name, "is not one string") : NCP_OK;
    if (!rc) rc = read_str(c, d, 0, gpath, name, s);
    H5Dclose(d);
    return rc;
}

void ncp_h5_triplets_free(ncp_h5_triplets *T)
{
    if (!T) return;
    free(T->row);
    free(T->col);
    free(T->val);
    memset(T, 0, sizeof *T);
}

int ncp_h5_read_sparse(const ncp_h5ctx *c, hid_t loc, const char *gpath, const char *name,
                       ncp_h5_triplets *T)
{
    char mp[512];
    jpath(mp, sizeof mp, gpath, name);
    memset(T, 0, sizeof *T);
    hid_t g;
    int rc = ncp_h5_open_group(c, loc, gpath, name, &g);
    if (rc) return rc;
    int nzmax = 0, m = 0, n = 0, nz = 0;
    int *p = NULL, *ix = NULL;
    double *x = NULL;
    rc = ncp_h5_read_int1(c, g, mp, "nzmax", &nzmax);
    if (!rc) rc = ncp_h5_read_int1(c, g, mp, "m", &m);
    if (!rc) rc = ncp_h5_read_int1(c, g, mp, "n", &n);
    if (!rc) rc = ncp_h5_read_int1(c, g, mp, "nz", &nz);
    if (!rc && m < 0) rc = ncp_h5_rerr(c, mp, "m", "m = %d is negative", m);
    if (!rc && n < 0) rc = ncp_h5_rerr(c, mp, "n", "n = %d is negative", n);
    if (!rc && nz < -2)
        rc = ncp_h5_rerr(c, mp, "nz", "nz = %d is not an FCLib storage (>= 0 triplet, -1 CSC, -2 CSR)", nz);
    if (!rc && nz < 0 && nzmax < 0) rc = ncp_h5_rerr(c, mp, "nzmax", "nzmax = %d is negative", nzmax);
    if (rc) goto done;

    if (nz >= 0) {
        /* triplet: CSparse's reading (i = rows, p = columns: Siconos writes it, libfclib's
         * fclib_matrix is CSparse's cs) unless only the other one (p = rows, the fclib.h comment)
         * keeps every index inside m x n */
        int np = 0, ni = 0, nx = 0;
        if (nz > nzmax) rc = ncp_h5_rerr(c, mp, "nz", "nz = %d entries exceed nzmax = %d (triplet storage)", nz, nzmax);
        if (!rc) rc = ncp_h5_read_ivec(c, g, mp, "p", -1, &p, &np);
        if (!rc && np < nz) rc = ncp_h5_rerr(c, mp, "p", "has %d entries, fewer than nz = %d (triplet storage)", np, nz);
        if (!rc) rc = ncp_h5_read_ivec(c, g, mp, "i", -1, &ix, &ni);
        if (!rc && ni < nz) rc = ncp_h5_rerr(c, mp, "i", "has %d entries, fewer than nz = %d (triplet storage)", ni, nz);
        if (!rc) rc = ncp_h5_read_dvec(c, g, mp, "x", -1, &x, &nx);
        if (!rc && nx < nz) rc = ncp_h5_rerr(c, mp, "x", "has %d entries, fewer than nz = %d (triplet storage)", nx, nz);
        if (rc) goto done;
        int ka = -1, kb = -1; /* first entry outside m x n in the CSparse / the p = rows reading */
        for (int k = 0; k < nz && (ka < 0 || kb < 0); k++) {
            if (ka < 0 && (ix[k] < 0 || ix[k] >= m || p[k] < 0 || p[k] >= n)) ka = k;
            if (kb < 0 && (p[k] < 0 || p[k] >= m || ix[k] < 0 || ix[k] >= n)) kb = k;
        }
        if (ka >= 0 && kb >= 0) {
            char other[256];
            if (ix[ka] < 0 || ix[ka] >= m)
                snprintf(other, sizeof other, "row index i[%d] = %d is out of range [0, %d)", ka, ix[ka], m);
            else
                snprintf(other, sizeof other, "column index p[%d] = %d is out of range [0, %d)", ka, p[ka], n);
            int prow = p[kb] < 0 || p[kb] >= m;
            rc = ncp_h5_rerr(c, mp, prow ? "p" : "i",
                             "%s index %s[%d] = %d is out of range [0, %d) with p as row indices (the fclib.h comment), "
                             "and with i as row indices (CSparse, Siconos) %s: the triplets fit neither reading of a %d x %d matrix",
                             prow ? "row" : "column", prow ? "p" : "i", kb, prow ? p[kb] : ix[kb], prow ? m : n, other, m, n);
            goto done;
        }
        T->reading = ka < 0 ? NCP_H5_TRIPLET_I_ROWS : NCP_H5_TRIPLET_P_ROWS;
        T->both_fit = ka < 0 && kb < 0;
        T->row = ka < 0 ? ix : p;
        T->col = ka < 0 ? p : ix;
        T->val = x;
        T->nnz = nz;
        p = ix = NULL;
        x = NULL;
    } else {
        /* compressed: CSC (-1) has n + 1 column pointers and row indices in i; CSR (-2) has
         * m + 1 row pointers and column indices in i */
        int csc = nz == -1;
        int outer = csc ? n : m, inner = csc ? m : n;
        const char *kind = csc ? "CSC" : "CSR";
        rc = ncp_h5_read_ivec(c, g, mp, "p", (long)outer + 1, &p, NULL);
        if (!rc) rc = ncp_h5_read_ivec(c, g, mp, "i", nzmax, &ix, NULL);
        if (!rc) rc = ncp_h5_read_dvec(c, g, mp, "x", nzmax, &x, NULL);
        if (!rc && p[0] != 0) rc = ncp_h5_rerr(c, mp, "p", "p[0] = %d, expected 0 (%s storage)", p[0], kind);
        for (int k = 0; !rc && k < outer; k++)
            if (p[k + 1] < p[k])
                rc = ncp_h5_rerr(c, mp, "p", "pointers decrease: p[%d] = %d > p[%d] = %d (%s storage)", k, p[k], k + 1, p[k + 1], kind);
        if (!rc && p[outer] > nzmax)
            rc = ncp_h5_rerr(c, mp, "p", "p[%d] = %d exceeds nzmax = %d (%s storage)", outer, p[outer], nzmax, kind);
        int nnz = rc ? 0 : p[outer];
        for (int k = 0; !rc && k < nnz; k++)
            if (ix[k] < 0 || ix[k] >= inner)
                rc = ncp_h5_rerr(c, mp, "i", "%s index i[%d] = %d is out of range [0, %d) (%s storage)",
                          csc ? "row" : "column", k, ix[k], inner, kind);
        if (rc) goto done;
        int *outer_idx = ncp_malloc(c->err, (size_t)nnz, sizeof(int));
        if (!outer_idx) {
            rc = NCP_ERR_NOMEM;
            goto done;
        }
        for (int k = 0; k < outer; k++)
            for (int q = p[k]; q < p[k + 1]; q++) outer_idx[q] = k;
        T->row = csc ? ix : outer_idx;
        T->col = csc ? outer_idx : ix;
        T->val = x;
        T->nnz = nnz;
        ix = NULL;
        x = NULL;
    }
    T->m = m;
    T->n = n;
done:
    free(p);
    free(ix);
    free(x);
    H5Gclose(g);
    if (rc) ncp_h5_triplets_free(T);
    return rc;
}

void ncp_h5_triplets_to_dense(const ncp_h5_triplets *T, int transpose, double *A, int ld, int r0,
                              int c0)
{
    for (int k = 0; k < T->nnz; k++) {
        int r = transpose ? T->col[k] : T->row[k];
        int cc = transpose ? T->row[k] : T->col[k];
        double *a = &A[(size_t)(r0 + r) + (size_t)(c0 + cc) * (size_t)ld];
        /* first entry stored as is (keeps -0.0), duplicates summed */
        *a = (*a == 0.0) ? T->val[k] : *a + T->val[k];
    }
}

int ncp_h5_csr_from_triplets(int m, int n, int nt, const ncp_h5_triplets *const *T,
                             const int *transpose, const int *row0, ncp_csr *S, ncp_error *err)
{
    size_t total = 0;
    for (int t = 0; t < nt; t++) total += (size_t)T[t]->nnz;
    if (total > INT_MAX)
        return ncp_error_set(err, NCP_ERR_INPUT, "sparse matrix with %zu entries is too large", total);
    int N = (int)total;
    int *R = ncp_malloc(err, total, sizeof(int));
    int *C = ncp_malloc(err, total, sizeof(int));
    double *V = ncp_malloc(err, total, sizeof(double));
    int *perm = ncp_malloc(err, total, sizeof(int));
    int *perm2 = ncp_malloc(err, total, sizeof(int));
    int *cnt = ncp_calloc(err, (size_t)(m > n ? m : n) + 1, sizeof(int));
    int rc = (!R || !C || !V || !perm || !perm2 || !cnt) ? NCP_ERR_NOMEM : NCP_OK;
    int k = 0;
    for (int t = 0; !rc && t < nt; t++)
        for (int q = 0; q < T[t]->nnz; q++, k++) {
            R[k] = row0[t] + (transpose[t] ? T[t]->col[q] : T[t]->row[q]);
            C[k] = transpose[t] ? T[t]->row[q] : T[t]->col[q];
            V[k] = T[t]->val[q];
            if (R[k] < 0 || R[k] >= m || C[k] < 0 || C[k] >= n)
                rc = ncp_error_set(err, NCP_ERR_INTERNAL, "triplet (%d, %d) outside %d x %d", R[k], C[k], m, n);
        }
    if (!rc) {
        /* two stable counting sorts (by column, then by row): rows ascending, columns ascending
         * within a row, duplicates kept in file order so that their sum is deterministic */
        for (int q = 0; q < N; q++) cnt[C[q] + 1]++;
        for (int j = 0; j < n; j++) cnt[j + 1] += cnt[j];
        for (int q = 0; q < N; q++) perm[cnt[C[q]]++] = q;
        memset(cnt, 0, ((size_t)(m > n ? m : n) + 1) * sizeof(int));
        for (int q = 0; q < N; q++) cnt[R[q] + 1]++;
        for (int i = 0; i < m; i++) cnt[i + 1] += cnt[i];
        for (int q = 0; q < N; q++) perm2[cnt[R[perm[q]]]++] = perm[q];
        int nnz = 0;
        for (int q = 0; q < N; q++)
            if (q == 0 || R[perm2[q]] != R[perm2[q - 1]] || C[perm2[q]] != C[perm2[q - 1]]) nnz++;
        rc = ncp_csr_alloc(S, m, n, nnz, err);
        if (!rc) {
            int o = -1;
            for (int i = 0; i <= m; i++) S->rowptr[i] = 0;
            for (int q = 0; q < N; q++) {
                int e = perm2[q];
                if (q == 0 || R[e] != R[perm2[q - 1]] || C[e] != C[perm2[q - 1]]) {
                    o++;
                    S->col[o] = C[e];
                    S->val[o] = V[e];
                    S->rowptr[R[e] + 1]++;
                } else {
                    S->val[o] += V[e];
                }
            }
            for (int i = 0; i < m; i++) S->rowptr[i + 1] += S->rowptr[i];
        }
    }
    free(R);
    free(C);
    free(V);
    free(perm);
    free(perm2);
    free(cnt);
    return rc;
}

