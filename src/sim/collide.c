/* Collision of the world (collide.h): broad phase by a uniform grid over the posed shapes,
 * narrow phase per pair (geometry/collision.h), pairs the model excludes dropped. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/spatial.h"
#include "util/stats.h"
#include "geometry/collision.h"
#include "geometry/sdf_contact.h"
#include "sim/collide.h"
#include "geometry/contact.h"

/* ---- broad phase ---- */

typedef struct aabb {
    double lo[3], hi[3];
    int shape;
} aabb;

static void geom_aabb(const ncp_geom *g, double inflate, aabb *bx)
{
    double ext[3];
    if (g->type == NCP_SHAPE_SDF) {
        ncp_sdf_geom_aabb(g, bx->lo, bx->hi);
        for (int k = 0; k < 3; k++) bx->lo[k] -= inflate, bx->hi[k] += inflate;
        return;
    }
    for (int k = 0; k < 3; k++) {
        switch (g->type) {
        case NCP_SHAPE_SPHERE: ext[k] = g->radius; break;
        case NCP_SHAPE_CAPSULE: ext[k] = g->half_length * fabs(g->rot[3 * k + 2]) + g->radius; break;
        default: /* box: sum over its axes of |axis_k| * half extent */
            ext[k] = g->half[0] * fabs(g->rot[3 * k]) + g->half[1] * fabs(g->rot[3 * k + 1]) +
                     g->half[2] * fabs(g->rot[3 * k + 2]);
        }
        bx->lo[k] = g->pos[k] - ext[k] - inflate;
        bx->hi[k] = g->pos[k] + ext[k] + inflate;
    }
}

typedef struct pair {
    int a, b;
} pair;

static int cmp_pair(const void *x, const void *y)
{
    const pair *p = x, *q = y;
    if (p->a != q->a) return (p->a > q->a) - (p->a < q->a);
    return (p->b > q->b) - (p->b < q->b);
}

static int push_pair(pair **ps, int *n, int *cap, int a, int b, ncp_error *err)
{
    if (*n == *cap) {
        int nc = *cap ? 2 * *cap : 64;
        pair *np = realloc(*ps, (size_t)nc * sizeof(pair));
        if (!np) return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory in the broad phase");
        *ps = np;
        *cap = nc;
    }
    (*ps)[(*n)++] = (pair){a < b ? a : b, a < b ? b : a};
    return NCP_OK;
}

static int pair_wanted(const ncp_model *m, int a, int b)
{
    int ba = m->shapes[a].body, bb = m->shapes[b].body;
    return ba != bb && (m->bodies[ba].dynamic || m->bodies[bb].dynamic);
}

/* Closed intervals in all three axes: the pairs a sweep over every pair would keep. */
static int aabb_overlap(const aabb *a, const aabb *b)
{
    for (int k = 0; k < 3; k++)
        if (!(a->lo[k] <= b->hi[k] && b->lo[k] <= a->hi[k])) return 0;
    return 1;
}

/* The grid: cubic cells of side `size` from `origin`; a shape is entered in every cell its AABB
 * touches, unless that is more than GRID_MAX_CELLS cells (a floor slab, a long wall, a shape
 * much larger than the typical one), then it is tested against every shape instead. */
#define GRID_MAX_CELLS 64

typedef struct grid {
    double origin[3], size;
} grid;

/* The one rounding both the cell ranges and the owner cell of a pair use: monotonic in x, so an
 * overlapping pair's owner cell lies in both shapes' ranges. */
static long long cell_of(const grid *g, int k, double x)
{
    return (long long)floor((x - g->origin[k]) / g->size);
}

static int cmp_key4(const void *x, const void *y)
{
    const long long *a = x, *b = y;
    for (int k = 0; k < 4; k++)
        if (a[k] != b[k]) return (a[k] > b[k]) - (a[k] < b[k]);
    return 0;
}

/* Cell side: the median over the shapes of their AABB's longest edge, so that a typical shape
 * touches 1 to 8 cells and a cell holds a few shapes (piles and walls of similar bodies). */
static int grid_make(const aabb *boxes, int nbox, grid *g, ncp_error *err)
{
    double *ext = ncp_malloc(err, (size_t)nbox, sizeof(double));
    if (!ext) return NCP_ERR_NOMEM;
    int ne = 0;
    for (int k = 0; k < 3; k++) g->origin[k] = HUGE_VAL;
    for (int i = 0; i < nbox; i++) {
        double e = 0.0;
        for (int k = 0; k < 3; k++) {
            e = fmax(e, boxes[i].hi[k] - boxes[i].lo[k]);
            if (isfinite(boxes[i].lo[k])) g->origin[k] = fmin(g->origin[k], boxes[i].lo[k]);
        }
        if (isfinite(e) && e > 0.0) ext[ne++] = e;
    }
    g->size = ne ? ncp_median(ext, ne) : 1.0;
    for (int k = 0; k < 3; k++)
        if (!isfinite(g->origin[k])) g->origin[k] = 0.0;
    free(ext);
    return NCP_OK;
}

/* The cells box b touches (lo, hi per axis); 0 when it goes to the list of large shapes (too
 * many cells, or a non-finite box of a diverged state, which overlaps nothing). */
static int grid_range(const grid *g, const aabb *b, long long lo[3], long long hi[3])
{
    double cells = 1.0;
    for (int k = 0; k < 3; k++) {
        double a = (b->lo[k] - g->origin[k]) / g->size, z = (b->hi[k] - g->origin[k]) / g->size;
        if (!(isfinite(a) && isfinite(z) && fabs(a) < 1e15 && fabs(z) < 1e15)) return 0;
        lo[k] = cell_of(g, k, b->lo[k]);
        hi[k] = cell_of(g, k, b->hi[k]);
        cells *= (double)(hi[k] - lo[k] + 1);
    }
    return cells <= GRID_MAX_CELLS;
}

/* The pairs among the boxes ids[0..n) listed in one cell, each pair reported only in its owner
 * cell: the one holding the low corner of the intersection of the two AABBs. */
static int cell_pairs(const ncp_model *m, const grid *g, const aabb *boxes, const int *ids, int n,
                      const long long cell[3], pair **ps, int *np, int *capp, ncp_error *err)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            const aabb *a = &boxes[ids[i]], *b = &boxes[ids[j]];
            if (!aabb_overlap(a, b)) continue;
            int owner = 1;
            for (int k = 0; k < 3 && owner; k++) owner = cell_of(g, k, fmax(a->lo[k], b->lo[k])) == cell[k];
            if (owner && pair_wanted(m, a->shape, b->shape)) {
                int rc = push_pair(ps, np, capp, a->shape, b->shape, err);
                if (rc) return rc;
            }
        }
    return NCP_OK;
}

/* The broad phase: shape pairs (a < b) whose world AABBs, grown by `inflate`, overlap, planes
 * paired with every finite shape of another body; unordered (caller frees *out). The same set
 * as testing every pair of AABBs (tests/test_physics.c checks the contacts against that).
 * The boxes are bucketed by cell with a counting sort over the grid's bounding block of cells
 * (O(n) when the shapes fill it, as piles and walls do; sparse scenes fall back to sorting the
 * (cell, box) entries, O(n log n)); then O(pairs found) for shapes of similar size. */
static int broad_phase(const ncp_world *w, double inflate, pair **out, int *npairs, ncp_error *err)
{
    const ncp_model *m = w->model;
    int ns = m->nshapes, nbox = 0, np = 0, capp = 0, nlarge = 0, rc = NCP_OK;
    size_t nent = 0;
    aabb *boxes = ncp_malloc(err, (size_t)ns, sizeof(aabb));
    pair *pairs = NULL;
    long long (*rng)[6] = NULL; /* per box: lo[3], hi[3] cells; lo[0] = -1 for a large box */
    int *large = NULL, *ids = NULL;
    size_t *start = NULL;
    *out = NULL;
    *npairs = 0;
    if (!boxes) return NCP_ERR_NOMEM;
    for (int s = 0; s < ns; s++) {
        if (m->shapes[s].type == NCP_SHAPE_PLANE) {
            /* planes are infinite: pair with every finite shape of another, dynamic body */
            for (int t = 0; t < ns && !rc; t++)
                if (m->shapes[t].type != NCP_SHAPE_PLANE && pair_wanted(m, s, t))
                    rc = push_pair(&pairs, &np, &capp, s, t, err);
            continue;
        }
        geom_aabb(&w->geoms[s], inflate, &boxes[nbox]);
        boxes[nbox++].shape = s;
    }
    grid g = {{0.0, 0.0, 0.0}, 1.0};
    long long dim[3] = {1, 1, 1};
    if (!rc && nbox > 1) {
        rc = grid_make(boxes, nbox, &g, err);
        rng = rc ? NULL : ncp_malloc(err, (size_t)nbox, sizeof *rng);
        large = rc ? NULL : ncp_malloc(err, (size_t)nbox, sizeof(int));
        if (!rc && (!rng || !large)) rc = NCP_ERR_NOMEM;
    }
    for (int i = 0; i < nbox && rng && !rc; i++) {
        long long *lo = rng[i], *hi = rng[i] + 3;
        if (!grid_range(&g, &boxes[i], lo, hi)) {
            large[nlarge++] = i;
            lo[0] = -1;
            continue;
        }
        nent += (size_t)((hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1));
        for (int k = 0; k < 3; k++) dim[k] = hi[k] + 1 > dim[k] ? hi[k] + 1 : dim[k];
    }
    /* the cells' lists: start[c] .. start[c + 1] in ids, c = (x dim[1] + y) dim[2] + z over the
     * bounding block when it holds at most a few cells per entry, else over the occupied cells */
    double block = (double)dim[0] * (double)dim[1] * (double)dim[2];
    int counting = block <= 4.0 * (double)nent + 4096.0;
    long long *key = NULL; /* the sorting route: cell index per entry, sorted with its box */
    size_t ncell = 0;
    if (!rc && nent > 1) {
        ids = ncp_malloc(err, nent, sizeof(int));
        if (!ids) rc = NCP_ERR_NOMEM;
    }
    if (!rc && nent > 1 && counting) {
        ncell = (size_t)block;
        start = ncp_calloc(err, ncell + 1, sizeof(size_t));
        if (!start) rc = NCP_ERR_NOMEM;
        for (int pass = 0; pass < 2 && !rc; pass++) {
            for (int i = 0; i < nbox; i++) { /* boxes in order: every list ascending */
                const long long *lo = rng[i], *hi = rng[i] + 3;
                if (lo[0] < 0) continue;
                for (long long x = lo[0]; x <= hi[0]; x++)
                    for (long long y = lo[1]; y <= hi[1]; y++)
                        for (long long z = lo[2]; z <= hi[2]; z++) {
                            size_t c = (size_t)((x * dim[1] + y) * dim[2] + z);
                            if (pass == 0) start[c + 1]++;
                            else ids[start[c]++] = i;
                        }
            }
            if (pass == 0)
                for (size_t c = 0; c < ncell; c++) start[c + 1] += start[c];
            else /* start[c] advanced to the end of list c: shift back */
                for (size_t c = ncell; c > 0; c--) start[c] = start[c - 1];
        }
        if (!rc) start[0] = 0;
        for (size_t c = 0; c < ncell && !rc; c++) {
            if (start[c + 1] - start[c] < 2) continue;
            long long cell[3] = {(long long)c / (dim[1] * dim[2]), ((long long)c / dim[2]) % dim[1],
                                 (long long)c % dim[2]};
            rc = cell_pairs(m, &g, boxes, ids + start[c], (int)(start[c + 1] - start[c]), cell,
                            &pairs, &np, &capp, err);
        }
    } else if (!rc && nent > 1) {
        /* sparse: (cell, box) entries sorted lexicographically */
        key = ncp_malloc(err, 4 * nent, sizeof(long long));
        if (!key) rc = NCP_ERR_NOMEM;
        size_t e = 0;
        for (int i = 0; i < nbox && !rc; i++) {
            const long long *lo = rng[i], *hi = rng[i] + 3;
            if (lo[0] < 0) continue;
            for (long long x = lo[0]; x <= hi[0]; x++)
                for (long long y = lo[1]; y <= hi[1]; y++)
                    for (long long z = lo[2]; z <= hi[2]; z++, e++) {
                        key[4 * e] = x;
                        key[4 * e + 1] = y;
                        key[4 * e + 2] = z;
                        key[4 * e + 3] = i;
                    }
        }
        if (!rc) qsort(key, nent, 4 * sizeof(long long), cmp_key4);
        for (size_t r0 = 0, r1; r0 < nent && !rc; r0 = r1) {
            for (r1 = r0; r1 < nent && !memcmp(key + 4 * r1, key + 4 * r0, 3 * sizeof(long long)); r1++)
                ids[r1 - r0] = (int)key[4 * r1 + 3];
            if (r1 - r0 > 1) rc = cell_pairs(m, &g, boxes, ids, (int)(r1 - r0), key + 4 * r0, &pairs, &np, &capp, err);
        }
    }
    /* the large shapes against every shape (a pair of two large shapes once: from the later) */
    for (int l = 0; l < nlarge && !rc; l++) {
        int i = large[l];
        for (int j = 0, next = 0; j < nbox && !rc; j++) {
            while (next < nlarge && large[next] < j) next++;
            if (j == i || (next < nlarge && large[next] == j && j > i)) continue;
            if (aabb_overlap(&boxes[i], &boxes[j]) && pair_wanted(m, boxes[i].shape, boxes[j].shape))
                rc = push_pair(&pairs, &np, &capp, boxes[i].shape, boxes[j].shape, err);
        }
    }
    free(key);
    free(start);
    free(ids);
    free(large);
    free(rng);
    free(boxes);
    if (rc) {
        free(pairs);
        return rc;
    }
    *out = pairs;
    *npairs = np;
    return NCP_OK;
}

/* Contacts a pair of primitives can return (collision.c): one for a sphere, two for a capsule
 * on a capsule or a plane (its two end caps), four otherwise (after the reduction). */
static int primitive_pair_cap(int ta, int tb)
{
    if (ta == NCP_SHAPE_SPHERE || tb == NCP_SHAPE_SPHERE) return 1;
    if (ta == NCP_SHAPE_CAPSULE && (tb == NCP_SHAPE_CAPSULE || tb == NCP_SHAPE_PLANE)) return 2;
    if (tb == NCP_SHAPE_CAPSULE && ta == NCP_SHAPE_PLANE) return 2;
    return 4;
}

/* The broad phase pairs a plane with every shape; the bound keeps those whose grown AABB
 * reaches the plane's solid (normal . x <= offset). */
static int reaches_plane(const ncp_geom *pl, const ncp_geom *g, double inflate)
{
    aabb bx;
    geom_aabb(g, inflate, &bx);
    double low = 0.0; /* min over the box's corners of normal . x */
    for (int k = 0; k < 3; k++) low += pl->normal[k] * (pl->normal[k] > 0.0 ? bx.lo[k] : bx.hi[k]);
    return low <= pl->offset;
}

int ncp_world_contact_bound(const ncp_world *w, double inflate, long *npairs, long *ncontacts,
                            ncp_error *err)
{
    const ncp_model *m = w->model;
    pair *pairs = NULL;
    int np = 0;
    int rc = broad_phase(w, 0.5 * m->margin + inflate, &pairs, &np, err);
    *npairs = *ncontacts = 0;
    if (rc) return rc;
    for (int k = 0; k < np; k++) {
        const ncp_geom *g0 = &w->geoms[pairs[k].a], *g1 = &w->geoms[pairs[k].b];
        if (!ncp_model_bodies_collide(m, m->shapes[pairs[k].a].body, m->shapes[pairs[k].b].body)) continue;
        double grow = 0.5 * m->margin + inflate;
        if ((g0->type == NCP_SHAPE_PLANE && !reaches_plane(g0, g1, grow)) ||
            (g1->type == NCP_SHAPE_PLANE && !reaches_plane(g1, g0, grow)))
            continue;
        int sdf = g0->type == NCP_SHAPE_SDF || g1->type == NCP_SHAPE_SDF;
        (*npairs)++;
        *ncontacts += sdf ? ncp_sdf_pair_cap(g0, g1) : primitive_pair_cap(g0->type, g1->type);
    }
    free(pairs);
    return NCP_OK;
}

int ncp_collide(const ncp_world *w, ncp_contact_list *out, ncp_error *err)
{
    const ncp_model *m = w->model;
    out->n = 0;
    pair *pairs = NULL;
    int np = 0;
    int rc = broad_phase(w, 0.5 * m->margin, &pairs, &np, err);
    if (rc) return rc;
    if (np > 1) qsort(pairs, (size_t)np, sizeof(pair), cmp_pair); /* contact order independent of the sweep */
    for (int k = 0; k < np; k++) {
        int s0 = pairs[k].a, s1 = pairs[k].b;
        /* body[0] is the static body if there is one, else the lower body index */
        if (!m->bodies[m->shapes[s0].body].dynamic) {
            /* keep */
        } else if (!m->bodies[m->shapes[s1].body].dynamic || m->shapes[s1].body < m->shapes[s0].body) {
            int t = s0;
            s0 = s1;
            s1 = t;
        }
        const ncp_geom *g0 = &w->geoms[s0], *g1 = &w->geoms[s1];
        int sdf = g0->type == NCP_SHAPE_SDF || g1->type == NCP_SHAPE_SDF;
        int room = sdf ? ncp_sdf_pair_cap(g0, g1) : NCP_MAX_PAIR_CONTACTS;
        if (out->n + room > out->cap) {
            int nc = out->cap ? 2 * out->cap : 64;
            while (nc < out->n + room) nc *= 2;
            ncp_contact *c = realloc(out->c, (size_t)nc * sizeof(ncp_contact));
            if (!c) {
                free(pairs);
                return ncp_error_set(err, NCP_ERR_NOMEM, "out of memory storing contacts");
            }
            out->c = c;
            out->cap = nc;
        }
        int n = 0;
        if (sdf) { /* contact-rich pairs (sdf_contact.h): up to the pair's cap */
            int rc2 = ncp_sdf_collide(g0, g1, m->margin, room, out->c + out->n, &n, err);
            if (rc2) {
                free(pairs);
                return rc2;
            }
        } else {
            n = ncp_collide_geoms(g0, g1, m->margin, out->c + out->n);
        }
        const ncp_shape_model *sh0 = &m->shapes[s0], *sh1 = &m->shapes[s1];
        double mu = m->pair_friction[sh0->material * m->nmaterials + sh1->material];
        for (int i = 0; i < n; i++) {
            ncp_contact *c = &out->c[out->n + i];
            c->shape[0] = s0;
            c->shape[1] = s1;
            c->body[0] = sh0->body;
            c->body[1] = sh1->body;
            c->mu = mu;
        }
        out->n += n;
    }
    free(pairs);
    return NCP_OK;
}

int ncp_world_collide(const ncp_world *w, ncp_contact_list *out, ncp_error *err)
{
    int rc = ncp_collide(w, out, err);
    if (rc) return rc;
    const ncp_model *m = w->model;
    int k = 0;
    for (int i = 0; i < out->n; i++)
        if (ncp_model_bodies_collide(m, out->c[i].body[0], out->c[i].body[1])) out->c[k++] = out->c[i];
    out->n = k;
    return NCP_OK;
}
