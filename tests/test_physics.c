/* Rigid-body pipeline: collision geometry against hand-computed answers, the broad phase
 * against brute force, mass properties against grid integration, the Jacobian against finite
 * differences of moving bodies, the captured dual against an independent LU computation, and
 * trajectories against closed-form mechanics (free fall, resting box, block on an incline). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/driver.h"
#include "sim/assemble.h"
#include "geometry/collision.h"
#include "scene/scene.h"
#include "core/spatial.h"
#include "tcheck.h"
#include "testutil.h"
#include "sim/world.h"
#include "solvers/registry.h"
#include "capture/capture.h"
#include "geometry/contact.h"
#include "sim/collide.h"
#include "sim/kinematics.h"
#include "sim/step.h"

static const double G = 9.81, H = 1.0 / 240.0, PI = 3.14159265358979323846;

/* ---------------------------------------------------------------- helpers */

static ncp_scene *parse(const char *json)
{
    ncp_error err = {0};
    ncp_scene *s = NULL;
    CHECK_OK(ncp_scene_parse(json, "test", ncp_registry_catalog(), &s, &err), &err);
    return s;
}

static ncp_geom geom(int type, double x, double y, double z)
{
    ncp_geom g;
    memset(&g, 0, sizeof g);
    g.type = type;
    ncp_v3_set(g.pos, x, y, z);
    ncp_m3_identity(g.rot);
    return g;
}

/* rotation about a unit coordinate axis, written out by hand (not through the quaternion code) */
static void rot_axis(int axis, double a, double R[9])
{
    double c = cos(a), s = sin(a);
    ncp_m3_identity(R);
    int i = (axis + 1) % 3, j = (axis + 2) % 3;
    R[3 * i + i] = c;
    R[3 * i + j] = -s;
    R[3 * j + i] = s;
    R[3 * j + j] = c;
}

static void check_frame(const double *f, const double n[3], double tol)
{
    for (int i = 0; i < 3; i++) CHECK_NEAR(f[i], n[i], tol);
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) CHECK_NEAR(ncp_v3_dot(f + 3 * r, f + 3 * c), r == c ? 1.0 : 0.0, 1e-12);
    double cr[3];
    ncp_v3_cross(f + 3, f + 6, cr); /* t1 x t2 = n: right-handed */
    for (int i = 0; i < 3; i++) CHECK_NEAR(cr[i], f[i], 1e-12);
}

static void check_contact(const ncp_contact *c, double dist, const double n[3], const double p[3],
                          double tol)
{
    CHECK_NEAR(c->dist, dist, tol);
    check_frame(c->frame, n, tol);
    if (p)
        for (int i = 0; i < 3; i++) CHECK_NEAR(c->point[i], p[i], tol);
}

/* ---------------------------------------------------------------- narrow phase */

static void test_narrow_phase(void)
{
    ncp_contact c[NCP_MAX_PAIR_CONTACTS];
    const double up[3] = {0, 0, 1}, down[3] = {0, 0, -1};

    /* sphere above a plane: phi = 0.5 - 0.3; point halfway between (1,2,0.2) and (1,2,0) */
    ncp_geom pl = geom(NCP_SHAPE_PLANE, 0, 0, 0), sp = geom(NCP_SHAPE_SPHERE, 1, 2, 0.5);
    ncp_v3_set(pl.normal, 0, 0, 1);
    sp.radius = 0.3;
    CHECK(ncp_collide_geoms(&pl, &sp, 0.5, c) == 1);
    check_contact(&c[0], 0.2, up, (double[3]){1, 2, 0.1}, 1e-14);
    CHECK(ncp_collide_geoms(&pl, &sp, 0.1, c) == 0); /* beyond the margin */
    /* swapped order: the normal points from the sphere to the plane */
    CHECK(ncp_collide_geoms(&sp, &pl, 0.5, c) == 1);
    check_contact(&c[0], 0.2, down, (double[3]){1, 2, 0.1}, 1e-14);
    /* tilted plane n = (0, 0.6, 0.8), offset 1 (the plane n.x = 1) */
    ncp_v3_set(pl.normal, 0, 0.6, 0.8);
    pl.offset = 1.0;
    ncp_v3_set(sp.pos, 3, 1.2, 1.6); /* n.c = 2: height 1 above the plane */
    sp.radius = 0.5;
    CHECK(ncp_collide_geoms(&pl, &sp, 0.0, c) == 0);
    CHECK(ncp_collide_geoms(&pl, &sp, 0.6, c) == 1);
    /* point: centre - n (r + h)/2 = (3, 1.2, 1.6) - 0.75 (0, 0.6, 0.8) */
    check_contact(&c[0], 0.5, pl.normal, (double[3]){3, 0.75, 1.0}, 1e-14);

    /* two spheres, centres 5 apart: phi = 5 - 2.5, n = (0.6, 0.8, 0); point halfway between
     * the surface points (0.6, 0.8, 0) and (2.1, 2.8, 0) */
    ncp_geom s1 = geom(NCP_SHAPE_SPHERE, 0, 0, 0), s2 = geom(NCP_SHAPE_SPHERE, 3, 4, 0);
    s1.radius = 1.0;
    s2.radius = 1.5;
    CHECK(ncp_collide_geoms(&s1, &s2, 3.0, c) == 1);
    check_contact(&c[0], 2.5, (double[3]){0.6, 0.8, 0}, (double[3]){1.35, 1.8, 0}, 1e-14);
    s2.radius = 4.5; /* overlapping by 0.5: midpoint of (0.6, 0.8, 0) and (0.3, 0.4, 0) */
    CHECK(ncp_collide_geoms(&s1, &s2, 0.0, c) == 1);
    check_contact(&c[0], -0.5, (double[3]){0.6, 0.8, 0}, (double[3]){0.45, 0.6, 0}, 1e-14);

    /* box corner on a plane: the rotation taking (1,1,1)/sqrt3 to +z puts the corner
     * -(h,h,h) straight below the centre at depth sqrt(3) h; the 3 neighbouring corners are
     * at z0 - h/sqrt3, far beyond the margin */
    ncp_geom bx = geom(NCP_SHAPE_BOX, 0.3, -0.2, 0);
    double hh = 0.5, ax[3] = {1, -1, 0}, q[4];
    ncp_quat_from_axis_angle(ax, acos(1.0 / sqrt(3.0)), q);
    ncp_quat_to_mat(q, bx.rot);
    ncp_v3_set(bx.half, hh, hh, hh);
    bx.pos[2] = sqrt(3.0) * hh + 0.004;
    ncp_v3_set(pl.normal, 0, 0, 1);
    pl.offset = 0.0;
    CHECK(ncp_collide_geoms(&pl, &bx, 0.01, c) == 1);
    check_contact(&c[0], 0.004, up, (double[3]){0.3, -0.2, 0.002}, 1e-12);
    CHECK(c[0].feature == 0); /* corner index 0 is (-h, -h, -h) */
    /* box face down, 1 mm into the plane: 4 corners, phi = -0.001, points at z = -0.0005 */
    bx = geom(NCP_SHAPE_BOX, 0, 0, 0.099);
    ncp_v3_set(bx.half, 0.2, 0.3, 0.1);
    CHECK(ncp_collide_geoms(&pl, &bx, 0.01, c) == 4);
    for (int k = 0; k < 4; k++) {
        double x = (c[k].feature & 1) ? 0.2 : -0.2, y = (c[k].feature & 2) ? 0.3 : -0.3;
        check_contact(&c[k], -0.001, up, (double[3]){x, y, -0.0005}, 1e-14);
        CHECK(c[k].feature == k); /* the 4 bottom corners, in corner order */
    }

    /* plane-capsule: capsule along x (local z rotated onto x), 5 cm above the plane */
    ncp_geom ca = geom(NCP_SHAPE_CAPSULE, 0, 0, 0.15);
    rot_axis(1, (PI / 2), ca.rot); /* about y: local z -> world x */
    ca.radius = 0.1;
    ca.half_length = 1.0;
    CHECK(ncp_collide_geoms(&pl, &ca, 0.1, c) == 2);
    for (int k = 0; k < 2; k++) {
        double x = c[k].feature == 0 ? -1.0 : 1.0; /* end 0 is -half_length along the axis */
        check_contact(&c[k], 0.05, up, (double[3]){x, 0, 0.025}, 1e-14);
    }

    /* capsule-capsule crossing at right angles: A along x at the origin, B along y at z = 0.25;
     * closest core points (0,0,0) and (0,0,0.25): phi = 0.25 - 0.2, point (0, 0, 0.125) */
    ncp_geom cb = geom(NCP_SHAPE_CAPSULE, 0, 0, 0.25);
    ca.pos[2] = 0.0;
    rot_axis(0, (PI / 2), cb.rot); /* about x: local z -> world -y */
    cb.radius = 0.1;
    cb.half_length = 1.0;
    CHECK(ncp_collide_geoms(&ca, &cb, 0.1, c) == 1);
    check_contact(&c[0], 0.05, up, (double[3]){0, 0, 0.125}, 1e-14);
    /* parallel: B along x at z = 0.15, shifted by 0.5: the cores overlap on x in [-0.5, 1];
     * two contacts at the ends, phi = 0.15 - 0.2 */
    cb = ca;
    ncp_v3_set(cb.pos, 0.5, 0, 0.15);
    CHECK(ncp_collide_geoms(&ca, &cb, 0.0, c) == 2);
    check_contact(&c[0], -0.05, up, (double[3]){-0.5, 0, 0.075}, 1e-14);
    check_contact(&c[1], -0.05, up, (double[3]){1.0, 0, 0.075}, 1e-14);

    /* sphere-capsule: capsule along z (identity) from z = -1 to 1, r = 0.2; sphere at
     * (0.5, 0, 2), r = 0.3: closest core point (0,0,1), distance sqrt(1.25) */
    ncp_geom cz = geom(NCP_SHAPE_CAPSULE, 0, 0, 0), ss = geom(NCP_SHAPE_SPHERE, 0.5, 0, 2);
    cz.radius = 0.2;
    cz.half_length = 1.0;
    ss.radius = 0.3;
    CHECK(ncp_collide_geoms(&ss, &cz, 1.0, c) == 1);
    double L = sqrt(1.25), nsc[3] = {-0.5 / L, 0, -1.0 / L}; /* sphere -> capsule */
    double psc[3] = {0.5 + nsc[0] * 0.3, 0, 2 + nsc[2] * 0.3}, qsc[3] = {-nsc[0] * 0.2, 0, 1 - nsc[2] * 0.2};
    check_contact(&c[0], L - 0.5, nsc, (double[3]){(psc[0] + qsc[0]) / 2, 0, (psc[2] + qsc[2]) / 2}, 1e-14);

    /* sphere-box, face region: box half (1,1,1), sphere at (2, 0.5, 0), r 0.5: closest box
     * point (1, 0.5, 0), phi 0.5, normal sphere -> box = (-1, 0, 0) */
    ncp_geom b1 = geom(NCP_SHAPE_BOX, 0, 0, 0), s3 = geom(NCP_SHAPE_SPHERE, 2, 0.5, 0);
    ncp_v3_set(b1.half, 1, 1, 1);
    s3.radius = 0.5;
    CHECK(ncp_collide_geoms(&s3, &b1, 1.0, c) == 1);
    check_contact(&c[0], 0.5, (double[3]){-1, 0, 0}, (double[3]){1.25, 0.5, 0}, 1e-14);
    /* edge region: sphere at (2, 2, 0.3): closest point (1, 1, 0.3) */
    ncp_v3_set(s3.pos, 2, 2, 0.3);
    CHECK(ncp_collide_geoms(&b1, &s3, 1.0, c) == 1);
    double r2 = 1.0 / sqrt(2.0);
    check_contact(&c[0], sqrt(2.0) - 0.5, (double[3]){r2, r2, 0},
                  (double[3]){1 + 0.5 * (1 - 0.5 * r2), 1 + 0.5 * (1 - 0.5 * r2), 0.3}, 1e-14);
    /* centre inside the box, nearest the +y face at depth 0.1 */
    ncp_v3_set(s3.pos, 0.2, 0.9, -0.3);
    s3.radius = 0.2;
    CHECK(ncp_collide_geoms(&b1, &s3, 0.0, c) == 1);
    check_contact(&c[0], -0.3, (double[3]){0, 1, 0}, (double[3]){0.2, 0.5 * (1.0 + 0.7), -0.3}, 1e-14);

    /* box-capsule: capsule along x lying on the top face of box half (1,1,1), 5 cm deep:
     * two contacts at the ends of the core, normal box -> capsule = +z */
    ncp_geom cx = geom(NCP_SHAPE_CAPSULE, 0.1, 0.2, 1.1);
    rot_axis(1, (PI / 2), cx.rot);
    cx.radius = 0.15;
    cx.half_length = 0.5;
    CHECK(ncp_collide_geoms(&b1, &cx, 0.0, c) == 2);
    check_contact(&c[0], -0.05, up, (double[3]){-0.4, 0.2, 0.975}, 1e-12);
    check_contact(&c[1], -0.05, up, (double[3]){0.6, 0.2, 0.975}, 1e-12);
    /* hanging over the +x edge: the clipped core ends at x = 1 */
    cx.pos[0] = 0.8;
    CHECK(ncp_collide_geoms(&cx, &b1, 0.0, c) == 2);
    check_contact(&c[0], -0.05, down, (double[3]){0.3, 0.2, 0.975}, 1e-12);
    check_contact(&c[1], -0.05, down, (double[3]){1.0, 0.2, 0.975}, 1e-12);
    /* across the edge x = 1, z = 1 (capsule along y at (1.1, 0, 1.1)): edge contact with
     * normal (1, 0, 1)/sqrt2 and phi = 0.1 sqrt2 - 0.2 (the point's y is not unique) */
    ncp_v3_set(cx.pos, 1.1, 0, 1.1);
    rot_axis(0, (PI / 2), cx.rot);
    cx.radius = 0.2;
    CHECK(ncp_collide_geoms(&b1, &cx, 0.0, c) == 1);
    check_contact(&c[0], 0.1 * sqrt(2.0) - 0.2, (double[3]){r2, 0, r2}, NULL, 1e-9);
    CHECK_NEAR(c[0].point[0], 1.0 + 0.5 * (0.1 - 0.2 * r2), 1e-9);
    CHECK_NEAR(c[0].point[2], 1.0 + 0.5 * (0.1 - 0.2 * r2), 1e-9);

    /* box-box face contact: B (half 0.5) turned 0.3 rad about z, resting 1 cm deep on top of
     * A (half 1): the 4 bottom corners of B, phi = -0.01, midpoints at z = 0.995 */
    ncp_geom A = geom(NCP_SHAPE_BOX, 0, 0, 0), B = geom(NCP_SHAPE_BOX, 0.2, 0.1, 1.49);
    ncp_v3_set(A.half, 1, 1, 1);
    ncp_v3_set(B.half, 0.5, 0.5, 0.5);
    rot_axis(2, 0.3, B.rot);
    int n = ncp_collide_geoms(&A, &B, 0.0, c);
    CHECK(n == 4);
    int seen[4] = {0};
    for (int k = 0; k < n; k++) {
        CHECK_NEAR(c[k].dist, -0.01, 1e-12);
        check_frame(c[k].frame, up, 1e-12);
        CHECK_NEAR(c[k].point[2], 0.995, 1e-12);
        /* the point must be one of B's bottom corners (x, y) */
        for (int j = 0; j < 4; j++) {
            double l[3] = {(j & 1) ? 0.5 : -0.5, (j & 2) ? 0.5 : -0.5, -0.5}, w[3];
            ncp_m3_mulv(B.rot, l, w);
            if (fabs(c[k].point[0] - (0.2 + w[0])) < 1e-12 && fabs(c[k].point[1] - (0.1 + w[1])) < 1e-12) seen[j]++;
        }
    }
    CHECK(seen[0] == 1 && seen[1] == 1 && seen[2] == 1 && seen[3] == 1);
    /* clipping: B (half 1, 1, 0.5) shifted by (1, 1): the overlap is the square [0,1]^2, whose
     * corners are the 4 contacts; normal from B to A when the pair is (B, A) */
    B = geom(NCP_SHAPE_BOX, 1, 1, 1.49);
    ncp_v3_set(B.half, 1, 1, 0.5);
    n = ncp_collide_geoms(&B, &A, 0.0, c);
    CHECK(n == 4);
    int corner[4] = {0};
    for (int k = 0; k < n; k++) {
        CHECK_NEAR(c[k].dist, -0.01, 1e-12);
        check_frame(c[k].frame, down, 1e-12);
        CHECK_NEAR(c[k].point[2], 0.995, 1e-12);
        int ix = fabs(c[k].point[0] - 1.0) < 1e-12, iy = fabs(c[k].point[1] - 1.0) < 1e-12;
        int zx = fabs(c[k].point[0]) < 1e-12, zy = fabs(c[k].point[1]) < 1e-12;
        CHECK((ix || zx) && (iy || zy));
        corner[2 * ix + iy]++;
    }
    CHECK(corner[0] == 1 && corner[1] == 1 && corner[2] == 1 && corner[3] == 1);
    /* reduction: B's bottom face turned 45 deg over A's top face clips to an octagon (8 points
     * with |x| + |y| = sqrt2 and max(|x|, |y|) = 1); 4 distinct vertices are kept, 2 on each
     * side of the diagonal through the first two */
    B = geom(NCP_SHAPE_BOX, 0, 0, 1.49);
    ncp_v3_set(B.half, 1, 1, 0.5);
    rot_axis(2, PI / 4, B.rot);
    n = ncp_collide_geoms(&A, &B, 0.0, c);
    CHECK(n == 4);
    for (int k = 0; k < n; k++) {
        double x = fabs(c[k].point[0]), y = fabs(c[k].point[1]);
        CHECK_NEAR(c[k].dist, -0.01, 1e-12);
        CHECK_NEAR(x + y, sqrt(2.0), 1e-12);
        CHECK_NEAR(fmax(x, y), 1.0, 1e-12);
        for (int j = 0; j < k; j++)
            CHECK(fabs(c[k].point[0] - c[j].point[0]) + fabs(c[k].point[1] - c[j].point[1]) > 0.1);
    }
    if (n == 4) {
        int side[2] = {0, 0};
        for (int a = 0; a < 4; a++)
            for (int b2 = a + 1; b2 < 4; b2++) {
                /* for the pair (a, b2) whose line has the other two on opposite sides */
                double d0[3], d1[3], d2[3], c1[3], c2[3];
                int o1 = -1, o2 = -1;
                for (int k = 0; k < 4; k++) {
                    if (k == a || k == b2) continue;
                    if (o1 < 0) o1 = k;
                    else o2 = k;
                }
                ncp_v3_sub(c[b2].point, c[a].point, d0);
                ncp_v3_sub(c[o1].point, c[a].point, d1);
                ncp_v3_sub(c[o2].point, c[a].point, d2);
                ncp_v3_cross(d0, d1, c1);
                ncp_v3_cross(d0, d2, c2);
                if (c1[2] * c2[2] < 0) side[0]++;
                else side[1]++;
            }
        CHECK(side[0] == 2); /* a convex quadrilateral has exactly 2 separating diagonals */
    }
    /* separated boxes beyond the margin: nothing */
    B = geom(NCP_SHAPE_BOX, 1, 1, 1.6);
    ncp_v3_set(B.half, 1, 1, 0.5);
    CHECK(ncp_collide_geoms(&A, &B, 0.05, c) == 0);
    CHECK(ncp_collide_geoms(&A, &B, 0.2, c) == 4);
    /* face-edge: B (half 1) turned 45 deg about y has its lowest edge along y at x = 0, 2 cm
     * above A's top face; B spans y in [0, 2], A's face y in [-1, 1]: the edge clipped to the
     * face gives 2 contacts at y = 0 and y = 1 */
    B = geom(NCP_SHAPE_BOX, 0, 1.0, 0);
    ncp_v3_set(B.half, 1, 1, 1);
    rot_axis(1, (PI / 4), B.rot);
    B.pos[2] = 1.0 + sqrt(2.0) + 0.02;
    n = ncp_collide_geoms(&A, &B, 0.05, c);
    CHECK(n == 2);
    for (int k = 0; k < n; k++) {
        CHECK_NEAR(c[k].dist, 0.02, 1e-12);
        check_frame(c[k].frame, up, 1e-12);
        CHECK_NEAR(c[k].point[0], 0.0, 1e-12);
        CHECK_NEAR(c[k].point[2], 1.01, 1e-12);
    }
    CHECK(n == 2 && fabs(fmin(c[0].point[1], c[1].point[1]) - 0.0) < 1e-12 &&
          fabs(fmax(c[0].point[1], c[1].point[1]) - 1.0) < 1e-12);
    /* true edge-edge: B's lowest edge along y (as above) over A rotated 45 deg about x so
     * that A's top edge runs along x: crossed edges at (0, 1, zA), separation 0.02 */
    A = geom(NCP_SHAPE_BOX, 0, 1.0, 0);
    ncp_v3_set(A.half, 1, 1, 1);
    rot_axis(0, (PI / 4), A.rot);
    B.pos[2] = 2.0 * sqrt(2.0) + 0.02;
    n = ncp_collide_geoms(&A, &B, 0.05, c);
    CHECK(n == 1);
    if (n == 1) check_contact(&c[0], 0.02, up, (double[3]){0, 1.0, sqrt(2.0) + 0.01}, 1e-12);
}

/* ---------------------------------------------------------------- broad phase */

/* n random finite shapes (one per body, every 7th static) above a plane, spread over a cube of
 * side `side`, sizes scaled by a factor drawn in [1, size_spread]; with `slabs`, two long static
 * boxes (a floor slab and a wall) that cover more cells than the grid takes; with `far`, every
 * other shape moved 40 sides away (a sparse grid: the sorted route). ncp_collide must
 * give exactly the contacts of brute force over every eligible pair, in the same order, bit
 * for bit (the order fixes the rows of the captured problem). */
static void broad_phase_case(uint64_t rng_seed, int n, double side, double size_spread, int slabs,
                             int far)
{
    trng r = {rng_seed};
    size_t cap = 4096 + (size_t)n * 400, len = 0;
    char *json = malloc(cap);
    if (!json) {
        CHECK(0);
        return;
    }
    len += (size_t)snprintf(json + len, cap - len,
                            "{\"name\":\"bp\",\"timestep\":0.01,\"steps\":1,"
                            "\"contact\":{\"margin\":0.02},\"materials\":[{\"name\":\"a\",\"friction\":0.3},"
                            "{\"name\":\"b\",\"friction\":0.7}],\"bodies\":[{\"name\":\"g\",\"type\":\"static\","
                            "\"shapes\":[{\"type\":\"plane\",\"material\":\"a\"}]}");
    if (slabs)
        len += (size_t)snprintf(json + len, cap - len,
                                ",{\"name\":\"slab\",\"type\":\"static\",\"position\":[%.6f,%.6f,0.02],"
                                "\"shapes\":[{\"type\":\"box\",\"half_extents\":[%.6f,%.6f,0.05]}]},"
                                "{\"name\":\"wall\",\"type\":\"static\",\"position\":[%.6f,0,%.6f],"
                                "\"shapes\":[{\"type\":\"box\",\"half_extents\":[0.05,%.6f,%.6f]}]}",
                                0.5 * side, 0.5 * side, 3.0 * side, 3.0 * side, 0.5 * side, 0.3 * side,
                                3.0 * side, 0.3 * side);
    for (int i = 0; i < n; i++) {
        double x = side * trng_uniform(&r), y = side * trng_uniform(&r), z = 0.6 * side * trng_uniform(&r);
        if (far && i % 2) x += 40.0 * side, y += 40.0 * side, z += 40.0 * side;
        double ax = trng_normal(&r), ay = trng_normal(&r), az = trng_normal(&r), an = 3 * trng_uniform(&r);
        double f = 1.0 + (size_spread - 1.0) * trng_uniform(&r);
        char shape[160];
        int t = i % 3;
        if (t == 0) snprintf(shape, sizeof shape, "{\"type\":\"sphere\",\"radius\":%.6f", 0.12 * f);
        else if (t == 1) snprintf(shape, sizeof shape, "{\"type\":\"box\",\"half_extents\":[%.6f,%.6f,%.6f]",
                                  0.1 * f, 0.07 * f, 0.05 * f);
        else snprintf(shape, sizeof shape, "{\"type\":\"capsule\",\"radius\":%.6f,\"half_length\":%.6f",
                      0.05 * f, 0.1 * f);
        len += (size_t)snprintf(json + len, cap - len,
                                ",{\"name\":\"b%d\",\"type\":\"%s\",%s\"position\":[%.6f,%.6f,%.6f],"
                                "\"axis\":[%.6f,%.6f,%.6f],\"angle\":%.6f,\"shapes\":[%s,\"material\":\"%s\"}]}",
                                i, i % 7 == 3 ? "static" : "dynamic", i % 7 == 3 ? "" : "\"density\":500,",
                                x, y, z, ax, ay, az, an, shape, i % 2 ? "a" : "b");
    }
    snprintf(json + len, cap - len, "]}");
    ncp_scene *s = parse(json);
    free(json);
    if (!s) return;
    ncp_error err = {0};
    ncp_world *w = NULL;
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &w, &err), &err);
    ncp_contact_list cl = {0, 0, NULL};
    CHECK_OK(ncp_collide(w, &cl, &err), &err);
    const ncp_model *m = w->model;
    int k = 0, mismatch = 0, pairs = 0, finite_pairs = 0;
    for (int a = 0; a < m->nshapes; a++)
        for (int b = a + 1; b < m->nshapes; b++) {
            int ba = m->shapes[a].body, bb = m->shapes[b].body;
            if (ba == bb || (!m->bodies[ba].dynamic && !m->bodies[bb].dynamic)) continue;
            int s0 = a, s1 = b; /* body[0] static if one is, else the lower body */
            if (m->bodies[ba].dynamic && (!m->bodies[bb].dynamic || bb < ba)) s0 = b, s1 = a;
            ncp_contact c[NCP_MAX_PAIR_CONTACTS];
            int nc = ncp_collide_geoms(&w->geoms[s0], &w->geoms[s1], m->margin, c);
            if (nc) pairs++;
            if (nc && m->shapes[a].type != NCP_SHAPE_PLANE && m->shapes[b].type != NCP_SHAPE_PLANE) finite_pairs++;
            for (int i = 0; i < nc; i++, k++) {
                c[i].shape[0] = s0;
                c[i].shape[1] = s1;
                c[i].body[0] = m->shapes[s0].body;
                c[i].body[1] = m->shapes[s1].body;
                c[i].mu = m->pair_friction[m->shapes[s0].material * m->nmaterials + m->shapes[s1].material];
                if (k >= cl.n || memcmp(&cl.c[k], &c[i], sizeof c[i]) != 0) mismatch++;
            }
        }
    CHECK(k == cl.n);
    CHECK(mismatch == 0);
    CHECK(finite_pairs >= 5); /* the grid itself is exercised, not only the plane pairs */
    printf("broad phase: %d contacts from %d touching pairs (%d without the plane) of %d shapes\n",
           cl.n, pairs, finite_pairs, m->nshapes);
    ncp_contact_list_free(&cl);
    ncp_world_free(w);
    ncp_scene_free(s);
}

static void test_broad_phase(void)
{
    broad_phase_case(12345, 40, 1.0, 1.0, 0, 0);  /* a few shapes of one size */
    broad_phase_case(777, 400, 2.0, 1.0, 0, 0);   /* a dense pile: many shapes per cell */
    broad_phase_case(2024, 300, 2.5, 6.0, 1, 0);  /* mixed sizes, slabs beyond the cell cap */
    broad_phase_case(99, 200, 0.5, 3.0, 1, 0);    /* everything overlapping */
    broad_phase_case(4242, 300, 2.0, 2.0, 0, 1);  /* two clusters far apart: a sparse grid */
}

/* ---------------------------------------------------------------- mass properties */

/* Grid (midpoint rule) integration of mass, COM and inertia of a set of shapes in body
 * coordinates, given an inside() test. */
typedef int (*inside_fn)(const double x[3]);

static int in_capsule(const double x[3])
{
    /* radius 0.1, half length 0.2 along z, centred at 0 */
    double z = fmax(-0.2, fmin(0.2, x[2]));
    return x[0] * x[0] + x[1] * x[1] + (x[2] - z) * (x[2] - z) <= 0.01;
}

static int in_composite(const double x[3])
{
    /* box half (0.2, 0.1, 0.05) at 0, turned 0.4 rad about z; sphere r 0.1 at (0, 0, 0.25) */
    double R[9], l[3];
    rot_axis(2, 0.4, R);
    ncp_m3_mulv_t(R, x, l);
    int box = fabs(l[0]) <= 0.2 && fabs(l[1]) <= 0.1 && fabs(l[2]) <= 0.05;
    double d2 = x[0] * x[0] + x[1] * x[1] + (x[2] - 0.25) * (x[2] - 0.25);
    return box || d2 <= 0.01;
}

static void grid_inertia(inside_fn in, const double lo[3], const double hi[3], int n, double rho,
                         double *mass, double com[3], double I[9])
{
    double dx[3], m = 0, c[3] = {0, 0, 0}, S[9] = {0};
    for (int i = 0; i < 3; i++) dx[i] = (hi[i] - lo[i]) / n;
    double dv = dx[0] * dx[1] * dx[2];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++) {
                double x[3] = {lo[0] + (i + 0.5) * dx[0], lo[1] + (j + 0.5) * dx[1], lo[2] + (k + 0.5) * dx[2]};
                if (!in(x)) continue;
                m += rho * dv;
                for (int a = 0; a < 3; a++) {
                    c[a] += rho * dv * x[a];
                    for (int b = 0; b < 3; b++) S[3 * a + b] += rho * dv * x[a] * x[b];
                }
            }
    for (int a = 0; a < 3; a++) c[a] /= m;
    /* I_com = sum rho (|x|^2 I - x x^T) - m (|c|^2 I - c c^T) */
    double tr = S[0] + S[4] + S[8], cc = ncp_v3_dot(c, c);
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            I[3 * a + b] = (a == b ? tr : 0.0) - S[3 * a + b] - m * ((a == b ? cc : 0.0) - c[a] * c[b]);
    *mass = m;
    ncp_v3_copy(c, com);
}

static void test_mass_properties(void)
{
    ncp_scene *s = parse(
        "{\"name\":\"mp\",\"timestep\":0.01,\"steps\":1,\"bodies\":["
        "{\"name\":\"cap\",\"type\":\"dynamic\",\"density\":1000,"
        " \"shapes\":[{\"type\":\"capsule\",\"radius\":0.1,\"half_length\":0.2}]},"
        "{\"name\":\"comp\",\"type\":\"dynamic\",\"density\":1000,\"position\":[1,2,3],"
        " \"shapes\":[{\"type\":\"box\",\"half_extents\":[0.2,0.1,0.05],\"axis\":[0,0,1],\"angle\":0.4},"
        "             {\"type\":\"sphere\",\"radius\":0.1,\"position\":[0,0,0.25]}]},"
        "{\"name\":\"heavy\",\"type\":\"dynamic\",\"mass\":7.5,"
        " \"shapes\":[{\"type\":\"box\",\"half_extents\":[0.3,0.2,0.1]}]}]}");
    if (!s) return;
    const ncp_model *m = ncp_scene_model(s);
    const double pi = 3.14159265358979323846;
    /* capsule: closed-form volume, grid-integrated inertia (grid error ~ 1e-3 relative) */
    double vcap = pi * 0.01 * 0.4 + 4.0 / 3.0 * pi * 0.001;
    CHECK_REL(m->bodies[0].mass, 1000 * vcap, 1e-12);
    double mass, com[3], I[9];
    grid_inertia(in_capsule, (double[3]){-0.1, -0.1, -0.3}, (double[3]){0.1, 0.1, 0.3}, 160, 1000, &mass, com, I);
    CHECK_NEAR(mass / m->bodies[0].mass, 1.0, 3e-3);
    for (int i = 0; i < 9; i++) CHECK_NEAR(m->bodies[0].inertia[i], I[i], 3e-3 * I[0]);
    /* composite: COM offset from the frame origin and parallel-axis terms */
    /* z cells aligned with the box's faces (z = +-0.05): the indicator's quantisation error is
     * then set by the slanted x-y faces only */
    grid_inertia(in_composite, (double[3]){-0.25, -0.25, -0.05}, (double[3]){0.25, 0.25, 0.35}, 200, 1000, &mass, com, I);
    const ncp_body_model *bc = &m->bodies[1];
    double vcomp = 8 * 0.2 * 0.1 * 0.05 + 4.0 / 3.0 * pi * 0.001;
    CHECK_REL(bc->mass, 1000 * vcomp, 1e-12);
    CHECK_NEAR(bc->mass / mass, 1.0, 3e-3);
    for (int i = 0; i < 3; i++) CHECK_NEAR(bc->com_local[i], com[i], 1e-3);
    /* exact COM: the sphere's share of the volume times its offset */
    CHECK_NEAR(bc->com_local[2], 0.25 * (4.0 / 3.0 * pi * 0.001) / vcomp, 1e-14);
    for (int i = 0; i < 9; i++) CHECK_NEAR(bc->inertia[i], I[i], 5e-3 * I[0]);
    /* the state is the COM: initial position = frame origin + com */
    CHECK_NEAR(bc->pos0[2], 3.0 + bc->com_local[2], 1e-14);
    /* mass given: density = mass / volume; cuboid inertia m (b^2 + c^2) / 3 */
    const ncp_body_model *bh = &m->bodies[2];
    CHECK_NEAR(bh->mass, 7.5, 1e-14);
    CHECK_REL(bh->inertia[0], 7.5 * (0.04 + 0.01) / 3.0, 1e-14);
    CHECK_REL(bh->inertia[4], 7.5 * (0.09 + 0.01) / 3.0, 1e-14);
    CHECK_REL(bh->inertia[8], 7.5 * (0.09 + 0.04) / 3.0, 1e-14);
    ncp_scene_free(s);
}

/* ---------------------------------------------------------------- assembly */

/* A scene with dynamic-dynamic and static-dynamic contacts of several pair types, all within
 * the (large) margin. */
static const char *stack_json =
    "{\"name\":\"jac\",\"timestep\":0.004166666666666667,\"steps\":10,"
    "\"contact\":{\"margin\":0.05},"
    "\"bodies\":["
    "{\"name\":\"ground\",\"type\":\"static\",\"shapes\":[{\"type\":\"plane\"}]},"
    "{\"name\":\"box\",\"type\":\"dynamic\",\"mass\":2,\"position\":[0,0,0.102],"
    " \"axis\":[1,2,3],\"angle\":0.05,\"shapes\":[{\"type\":\"box\",\"half_extents\":[0.1,0.12,0.1]}]},"
    "{\"name\":\"ball\",\"type\":\"dynamic\",\"mass\":0.5,\"position\":[0.03,-0.02,0.31],"
    " \"shapes\":[{\"type\":\"sphere\",\"radius\":0.1}]},"
    "{\"name\":\"rod\",\"type\":\"dynamic\",\"density\":800,\"position\":[0.03,0,0.46],"
    " \"axis\":[0,1,0],\"angle\":1.5707963267948966,"
    " \"shapes\":[{\"type\":\"capsule\",\"radius\":0.05,\"half_length\":0.2}]}]}";

/* Material-point motion: body b moved for time dt with its current velocity (rigid motion). */
static void moved_point(const ncp_world *w, int b, const double p[3], double dt, double out[3])
{
    const ncp_body_model *bd = &w->model->bodies[b];
    if (!bd->dynamic) {
        ncp_v3_copy(p, out);
        return;
    }
    const double *v = w->v + bd->dof, *om = w->v + bd->dof + 3, *x = w->pos + 3 * b;
    double rv[3], q[4], R[9], r[3];
    ncp_v3_scale(om, dt, rv);
    ncp_quat_from_rotvec(rv, q);
    ncp_quat_to_mat(q, R);
    ncp_v3_sub(p, x, r);
    ncp_m3_mulv(R, r, out);
    for (int i = 0; i < 3; i++) out[i] += x[i] + dt * v[i];
}

/* Moves every dynamic body of w by dt with its velocity (for the gap finite difference). */
static void move_world(ncp_world *w, const ncp_world *from, double dt)
{
    for (int b = 0; b < w->model->nbodies; b++) {
        const ncp_body_model *bd = &w->model->bodies[b];
        if (!bd->dynamic) continue;
        double p[3], rv[3], dq[4], q[4];
        ncp_v3_copy(from->pos + 3 * b, p);
        ncp_v3_axpy(dt, from->v + bd->dof, p);
        ncp_v3_scale(from->v + bd->dof + 3, dt, rv);
        ncp_quat_from_rotvec(rv, dq);
        ncp_quat_mul(dq, from->quat + 4 * b, q);
        ncp_world_set_body_state(w, b, p, q, NULL, NULL);
    }
    ncp_world_kinematics(w);
}

static void test_jacobian(void)
{
    ncp_scene *s = parse(stack_json);
    if (!s) return;
    ncp_error err = {0};
    ncp_world *w = NULL, *w2 = NULL;
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &w, &err), &err);
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &w2, &err), &err);
    trng r = {777};
    int nv = w->model->nv;
    for (int i = 0; i < nv; i++) w->v[i] = trng_normal(&r);
    ncp_contact_list cl = {0, 0, NULL};
    CHECK_OK(ncp_collide(w, &cl, &err), &err);
    CHECK(cl.n >= 6); /* 4 box corners, box-ball, ball-rod */
    int types[4][4] = {{0}};
    for (int i = 0; i < cl.n; i++)
        types[w->model->shapes[cl.c[i].shape[0]].type][w->model->shapes[cl.c[i].shape[1]].type]++;
    CHECK(types[NCP_SHAPE_PLANE][NCP_SHAPE_BOX] == 4);
    CHECK(types[NCP_SHAPE_BOX][NCP_SHAPE_SPHERE] == 1);
    CHECK(types[NCP_SHAPE_SPHERE][NCP_SHAPE_CAPSULE] == 1);
    ncp_problem p;
    CHECK_OK(ncp_assemble(w, cl.c, cl.n, &p, &err), &err);
    CHECK(!p.has_dual && !p.D && p.vf); /* D only on demand (core/problem.h) */
    CHECK_OK(ncp_problem_need_dual(&p, &err), &err);
    double *u = calloc((size_t)p.m, sizeof(double));
    ncp_csr_gemv(&p.J, 1.0, w->v, 0.0, u);
    const double dt = 1e-6;
    double worst_row = 0.0, worst_gap = 0.0;
    for (int i = 0; i < cl.n; i++) {
        const ncp_contact *c = &cl.c[i];
        const ncp_block *bk = &p.blocks[i];
        CHECK(bk->type == NCP_CONTACT && bk->contact == i);
        /* rows: frame . d/dt (p1(t) - p0(t)) for the material points at the contact point */
        double a0[3], a1[3], b0[3], b1[3], rate[3];
        moved_point(w, c->body[1], c->point, dt, a1);
        moved_point(w, c->body[0], c->point, dt, a0);
        moved_point(w, c->body[1], c->point, -dt, b1);
        moved_point(w, c->body[0], c->point, -dt, b0);
        for (int k = 0; k < 3; k++) rate[k] = ((a1[k] - a0[k]) - (b1[k] - b0[k])) / (2 * dt);
        for (int rr = 0; rr < 3; rr++) {
            double fd = ncp_v3_dot(c->frame + 3 * rr, rate);
            worst_row = fmax(worst_row, fabs(u[bk->row + rr] - fd));
            CHECK_NEAR(u[bk->row + rr], fd, 1e-7);
        }
        /* normal row: also the rate of the signed distance itself (smooth features) */
        double ph[2];
        for (int sgn = 0; sgn < 2; sgn++) {
            move_world(w2, w, sgn ? -dt : dt);
            ncp_contact_list c2 = {0, 0, NULL};
            CHECK_OK(ncp_collide(w2, &c2, &err), &err);
            ph[sgn] = NAN;
            for (int k = 0; k < c2.n; k++)
                if (c2.c[k].shape[0] == c->shape[0] && c2.c[k].shape[1] == c->shape[1] &&
                    c2.c[k].feature == c->feature)
                    ph[sgn] = c2.c[k].dist;
            ncp_contact_list_free(&c2);
        }
        double gap_rate = (ph[0] - ph[1]) / (2 * dt);
        worst_gap = fmax(worst_gap, fabs(u[bk->row] - gap_rate));
        CHECK_NEAR(u[bk->row], gap_rate, 1e-7);
        /* e: phi / h when separated */
        CHECK_NEAR(p.e[bk->row], ncp_contact_bias(w->model, c->dist), 0.0);
        CHECK(p.e[bk->row + 1] == 0.0 && p.e[bk->row + 2] == 0.0);
        /* geometry copied into the problem; static bodies are -1 */
        CHECK(p.contacts[i].gap == c->dist);
        CHECK(p.contacts[i].body[0] == (w->model->bodies[c->body[0]].dynamic ? c->body[0] : -1));
    }
    printf("jacobian: max |J v - FD| = %.2e (material points), %.2e (gap rate)\n", worst_row, worst_gap);

    /* A and b against hand-written formulas for the box: A = blkdiag(m I, R I R^T),
     * b = M v + h (m g + f - omega x I omega) */
    const ncp_body_model *bx = &w->model->bodies[1];
    int d = bx->dof;
    double R[9], Ib[9] = {0}, Iw[9];
    ncp_quat_to_mat(w->quat + 4, R);
    Ib[0] = 2.0 * (0.0144 + 0.01) / 3.0;
    Ib[4] = 2.0 * (0.01 + 0.01) / 3.0;
    Ib[8] = 2.0 * (0.01 + 0.0144) / 3.0;
    ncp_m3_rotate_sym(R, Ib, Iw);
    for (int i = 0; i < 3; i++) {
        CHECK_NEAR(p.A[(size_t)(d + i) * nv + d + i], 2.0, 0.0);
        for (int j = 0; j < 3; j++) CHECK_NEAR(p.A[(size_t)(d + 3 + j) * nv + d + 3 + i], Iw[3 * i + j], 1e-15);
    }
    double *om = w->v + d + 3, Io[3], gy[3];
    ncp_m3_mulv(Iw, om, Io);
    ncp_v3_cross(om, Io, gy);
    for (int i = 0; i < 3; i++) {
        CHECK_NEAR(p.b[d + i], 2.0 * w->v[d + i] + H * 2.0 * (i == 2 ? -G : 0.0), 1e-14);
        CHECK_NEAR(p.b[d + 3 + i], Io[i] - H * gy[i], 1e-14);
    }
    /* the dual data against an independent computation: dense J, A^{-1} by LU */
    int m = p.m;
    double *Jd = calloc((size_t)m * nv, sizeof(double)), *X = calloc((size_t)nv * m, sizeof(double));
    double *LU = malloc((size_t)nv * nv * sizeof(double)), *y = malloc((size_t)nv * sizeof(double));
    int *piv = malloc((size_t)nv * sizeof(int));
    ncp_csr_to_dense(&p.J, Jd);
    for (int i = 0; i < m; i++)
        for (int k = 0; k < nv; k++) X[k + (size_t)i * nv] = Jd[i + (size_t)k * m];
    memcpy(LU, p.A, (size_t)nv * nv * sizeof(double));
    CHECK_OK(ncp_lu_solve(nv, LU, piv, m, X, &err), &err);
    memcpy(LU, p.A, (size_t)nv * nv * sizeof(double));
    memcpy(y, p.b, (size_t)nv * sizeof(double));
    CHECK_OK(ncp_lu_solve(nv, LU, piv, 1, y, &err), &err);
    double dmax = 0.0, derr = 0.0, verr = 0.0;
    for (int i = 0; i < m; i++) {
        for (int j = 0; j < m; j++) {
            double s2 = 0.0;
            for (int k = 0; k < nv; k++) s2 += Jd[i + (size_t)k * m] * X[k + (size_t)j * nv];
            dmax = fmax(dmax, fabs(s2));
            derr = fmax(derr, fabs(s2 - p.D[i + (size_t)j * m]));
        }
        double vf = p.e[i];
        for (int k = 0; k < nv; k++) vf += Jd[i + (size_t)k * m] * y[k];
        verr = fmax(verr, fabs(vf - p.vf[i]) / fmax(1.0, fabs(vf)));
    }
    CHECK(derr <= 1e-12 * dmax);
    CHECK(verr <= 1e-12);
    printf("assembly: |D - J A^-1 J^T| = %.2e (max |D| %.2e), |v_f - (J A^-1 b + e)| = %.2e\n", derr, dmax, verr);

    /* structure: A_j = J_b^T M_b J_b and J_i|_j = sum_b J_ib J_bj, with one subsystem per body */
    const ncp_structure *st = p.structure;
    CHECK(st && st->nsub == 3 && st->nbodies == 3);
    for (int j = 0; st && j < st->nsub; j++) {
        const ncp_structure_body *sb = &st->bodies[j];
        int d0 = st->sub_dof_start[j];
        for (int a = 0; a < 6; a++)
            for (int b = 0; b < 6; b++) {
                double s3 = 0.0;
                for (int k = 0; k < 6; k++)
                    for (int l = 0; l < 6; l++) s3 += sb->Jb[k + 6 * a] * sb->M[k + 6 * l] * sb->Jb[l + 6 * b];
                CHECK_NEAR(s3, p.A[(size_t)(d0 + b) * nv + d0 + a], 1e-14);
            }
    }
    double *Jrec = calloc((size_t)m * nv, sizeof(double));
    for (int l = 0; st && l < st->nlinks; l++) {
        const ncp_structure_link *lk = &st->links[l];
        const ncp_structure_body *sb = &st->bodies[lk->body];
        int rows = ncp_block_type_size(p.blocks[lk->block].type), r0 = p.blocks[lk->block].row;
        int d0 = st->sub_dof_start[sb->subsystem];
        for (int rr = 0; rr < rows; rr++)
            for (int c = 0; c < sb->ndof; c++) {
                double s4 = 0.0;
                for (int k = 0; k < 6; k++) s4 += lk->Jib[rr + rows * k] * sb->Jb[k + 6 * c];
                Jrec[(r0 + rr) + (size_t)(d0 + c) * m] += s4;
            }
    }
    double jerr = 0.0;
    for (int i = 0; i < m * nv; i++) jerr = fmax(jerr, fabs(Jrec[i] - Jd[i]));
    CHECK(jerr <= 1e-15);
    free(Jrec);
    free(Jd);
    free(X);
    free(LU);
    free(y);
    free(piv);
    free(u);
    ncp_problem_free(&p);
    ncp_contact_list_free(&cl);
    ncp_world_free(w);
    ncp_world_free(w2);
    ncp_scene_free(s);
}

/* ---------------------------------------------------------------- trajectories */

static int run(ncp_world *w, const char *driver, int steps, double tol, int *max_iter_hits)
{
    ncp_error err = {0};
    ncp_driver o_drv = {ncp_solver_find(driver), NULL, {tol, 200, 0.0}, NULL};
    ncp_step_opts o;
    ncp_driver_step_opts(&o_drv, 1, &o);
    CHECK(o.driver != NULL);
    if (!o.driver) return 1;
    for (int k = 0; k < steps; k++) {
        ncp_step_info info;
        int rc = ncp_world_step(w, &o, NULL, NULL, &info, &err);
        CHECK_OK(rc, &err);
        if (rc) return rc;
        if (max_iter_hits && info.status == NCP_STATUS_MAX_ITER) (*max_iter_hits)++;
    }
    return 0;
}

static void test_free_fall(void)
{
    /* symplectic Euler from rest: v_k = -g t_k exactly and z_k = z0 - g h^2 k (k+1) / 2, which
     * differs from the continuous z0 - g t^2/2 by exactly g h t / 2 (first order in h) */
    ncp_scene *s = parse("{\"name\":\"fall\",\"timestep\":0.004166666666666667,\"duration\":1.2,"
                         "\"bodies\":[{\"name\":\"g\",\"type\":\"static\",\"shapes\":[{\"type\":\"plane\"}]},"
                         "{\"name\":\"ball\",\"type\":\"dynamic\",\"mass\":1,\"position\":[0.1,0.2,1.0],"
                         "\"shapes\":[{\"type\":\"sphere\",\"radius\":0.1}]}]}");
    if (!s) return;
    ncp_error err = {0};
    ncp_world *w = NULL;
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &w, &err), &err);
    int b = ncp_world_find_body(w, "ball");
    double worst = 0.0;
    for (int k = 1; k <= 96; k++) { /* 0.4 s: z = 0.215 m, still above the 0.1 m radius */
        run(w, "nsn-nm", 1, 1e-10, NULL);
        double p[3], v[3], t = k * H;
        ncp_world_body_position(w, b, p);
        ncp_world_body_velocity(w, b, v, NULL);
        CHECK_NEAR(v[2], -G * t, 1e-12);
        CHECK_NEAR(p[2], 1.0 - G * H * H * k * (k + 1) / 2.0, 1e-12);
        double cont = 1.0 - 0.5 * G * t * t;
        CHECK_NEAR(p[2] - cont, -0.5 * G * H * t, 1e-12);
        worst = fmax(worst, fabs((p[2] - cont) / (0.5 * G * t * t)));
        CHECK(p[0] == 0.1 && p[1] == 0.2);
    }
    printf("free fall: z matches z0 - g t^2/2 up to the O(h) term g h t/2 (relative %.3g at "
           "t = 0.4 s)\n", fabs(-0.5 * G * H * 0.4 / (0.5 * G * 0.16)));
    (void)worst;
    /* lands without bouncing or sinking: the speculative contact (phi/h) stops it at phi = 0 */
    run(w, "nsn-nm", 288 - 96, 1e-10, NULL);
    double p[3], v[3];
    ncp_world_body_position(w, b, p);
    ncp_world_body_velocity(w, b, v, NULL);
    CHECK_NEAR(p[2], 0.1, 1e-9);
    CHECK_NEAR(v[2], 0.0, 1e-9);
    ncp_world_free(w);
    ncp_scene_free(s);
}

static void test_resting_box(void)
{
    /* A box resting on 4 corners (hyperstatic: the normal impulses are not unique, but v is):
     * with an exact solve v_{k+1} = 0 every step. The solver stops at a natural-map residual of
     * 1e-10 relative to ~ g h = 0.04 m/s, i.e. velocity errors ~ 1e-12 m/s, so over 480 steps
     * of 1/240 s the COM may move ~ 1e-12 m. The bound 1e-7 m leaves 5 orders of margin and still
     * catches any real creep (a net residual acceleration of only 1e-7 m/s^2 moves 2e-7 m). */
    ncp_scene *s = parse("{\"name\":\"rest\",\"timestep\":0.004166666666666667,\"duration\":2,"
                         "\"bodies\":[{\"name\":\"g\",\"type\":\"static\",\"shapes\":[{\"type\":\"plane\"}]},"
                         "{\"name\":\"box\",\"type\":\"dynamic\",\"mass\":3,\"position\":[0.5,-0.2,0.1],"
                         "\"axis\":[0,0,1],\"angle\":0.7,"
                         "\"shapes\":[{\"type\":\"box\",\"half_extents\":[0.3,0.2,0.1]}]}]}");
    if (!s) return;
    ncp_error err = {0};
    ncp_world *w = NULL;
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &w, &err), &err);
    int b = ncp_world_find_body(w, "box");
    double p0[3], q0[4], p[3], q[4];
    ncp_world_body_position(w, b, p0);
    ncp_world_body_orientation(w, b, q0);
    run(w, "nsn-nm", 480, 1e-10, NULL);
    ncp_world_body_position(w, b, p);
    ncp_world_body_orientation(w, b, q);
    double dp = 0.0, dq = 0.0;
    for (int i = 0; i < 3; i++) dp = fmax(dp, fabs(p[i] - p0[i]));
    for (int i = 0; i < 4; i++) dq = fmax(dq, fabs(q[i] - q0[i]));
    CHECK(dp < 1e-7);
    CHECK(dq < 1e-7);
    printf("resting box: drift over 2 s = %.2e m, quaternion change %.2e\n", dp, dq);
    ncp_world_free(w);
    ncp_scene_free(s);
}

/* Block (box, 4 corner contacts) on a plane inclined by theta (the plane and the block turned
 * about y; gravity vertical). Returns the least-squares acceleration along the downhill
 * direction d = (cos theta, 0, -sin theta) fitted to the velocities of steps 10..n, and the
 * displacement along d after n steps. */
static void incline(const char *driver, double theta, double mu, int n, double *acc, double *disp,
                    double *offplane)
{
    char json[2048];
    double hz = 0.1;
    snprintf(json, sizeof json,
             "{\"name\":\"incline\",\"timestep\":%.17g,\"steps\":%d,"
             "\"materials\":[{\"name\":\"m\",\"friction\":%.17g}],"
             "\"bodies\":[{\"name\":\"slope\",\"type\":\"static\",\"axis\":[0,1,0],\"angle\":%.17g,"
             "  \"shapes\":[{\"type\":\"plane\",\"material\":\"m\"}]},"
             " {\"name\":\"block\",\"type\":\"dynamic\",\"mass\":2,\"axis\":[0,1,0],\"angle\":%.17g,"
             "  \"position\":[%.17g,0,%.17g],"
             "  \"shapes\":[{\"type\":\"box\",\"half_extents\":[0.1,0.15,%.17g],\"material\":\"m\"}]}]}",
             H, n, mu, theta, theta, hz * sin(theta), hz * cos(theta), hz);
    ncp_scene *s = parse(json);
    *acc = *disp = *offplane = NAN;
    if (!s) return;
    ncp_error err = {0};
    ncp_world *w = NULL;
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &w, &err), &err);
    int b = ncp_world_find_body(w, "block");
    double d[3] = {cos(theta), 0, -sin(theta)}, nrm[3] = {sin(theta), 0, cos(theta)}, p0[3];
    ncp_world_body_position(w, b, p0);
    double st = 0, sv = 0, stt = 0, stv = 0, cnt = 0, worst_off = 0;
    for (int k = 1; k <= n; k++) {
        run(w, driver, 1, 1e-10, NULL);
        double v[3], p[3], om[3];
        ncp_world_body_velocity(w, b, v, om);
        ncp_world_body_position(w, b, p);
        worst_off = fmax(worst_off, fabs(ncp_v3_dot(nrm, p) - hz)); /* stays on the plane */
        worst_off = fmax(worst_off, ncp_v3_norm(om) * hz);          /* and does not tip */
        if (k < 10) continue;
        double t = k * H, vd = ncp_v3_dot(v, d);
        st += t, sv += vd, stt += t * t, stv += t * vd, cnt += 1;
    }
    double p[3], dp[3];
    ncp_world_body_position(w, b, p);
    ncp_v3_sub(p, p0, dp);
    *disp = ncp_v3_dot(dp, d);
    *acc = (cnt * stv - st * sv) / (cnt * stt - st * st);
    *offplane = worst_off;
    ncp_world_free(w);
    ncp_scene_free(s);
}

static void test_incline(void)
{
    const double theta = 0.3; /* tan = 0.3093 */
    double acc, disp, off;
    /* slides: a = g (sin theta - mu cos theta) */
    incline("nsn-nm", theta, 0.2, 240, &acc, &disp, &off);
    double a_ref = G * (sin(theta) - 0.2 * cos(theta));
    CHECK_NEAR(acc / a_ref, 1.0, 0.01);
    CHECK(off < 1e-6);
    printf("incline theta = 0.3, mu = 0.2: a = %.9f m/s^2, g (sin - mu cos) = %.9f (rel. error %.2e), "
           "off-plane/tilt %.1e\n", acc, a_ref, fabs(acc / a_ref - 1.0), off);
    /* frictionless: a = g sin theta */
    incline("nsn-nm", theta, 0.0, 120, &acc, &disp, &off);
    CHECK_NEAR(acc / (G * sin(theta)), 1.0, 0.01);
    /* sticks when mu >= tan theta. Static friction can hold, so with an exact solve v = 0 each
     * step; the solver's residual (1e-10 relative to ~ g h) allows ~ 1e-12 m/s, i.e. ~ 1e-12 m in
     * 1 s. The bound 1e-7 m is 5 orders above that and far below the 1e-3 m a slip with even
     * a = 2e-3 m/s^2 would produce. */
    incline("nsn-nm", theta, 0.4, 240, &acc, &disp, &off);
    CHECK(fabs(disp) < 1e-7);
    printf("incline theta = 0.3, mu = 0.4 (>= tan 0.3 = 0.309): displacement over 1 s = %.2e m\n", disp);
    /* at the threshold mu = tan theta exactly it must still stick (a = 0) */
    incline("nsn-nm", theta, tan(theta), 240, &acc, &disp, &off);
    CHECK(fabs(disp) < 1e-6);
    printf("incline mu = tan theta: displacement over 1 s = %.2e m\n", disp);
    /* the same physics with PGS as the driver (200 sweeps per step at most) */
    incline("pgs", theta, 0.2, 240, &acc, &disp, &off);
    CHECK_NEAR(acc / a_ref, 1.0, 0.01);
    printf("incline with pgs: a = %.9f m/s^2 (rel. error %.2e)\n", acc, fabs(acc / a_ref - 1.0));
    incline("pgs", theta, 0.4, 240, &acc, &disp, &off);
    printf("incline with pgs, mu = 0.4: displacement over 1 s = %.2e m\n", disp);
    CHECK(fabs(disp) < 1e-7);
}

static void test_odd_mass_stack(void)
{
    /* Spheres of 1, 100 and 10000 kg stacked on a plane (Tasora et al. 2021 TEST 1.A: all contacts
     * active, exact solution known): every contact carries the weight above it, so an exact
     * solve keeps v = 0 and the stack does not move; the bound is argued as for the resting
     * box. With PGS the heavy sphere sinks (mass ratio 1e4), which the benchmark shows. */
    ncp_scene *s = parse("{\"name\":\"stack\",\"timestep\":0.004166666666666667,\"duration\":1,"
                         "\"bodies\":[{\"name\":\"g\",\"type\":\"static\",\"shapes\":[{\"type\":\"plane\"}]},"
                         "{\"name\":\"a\",\"type\":\"dynamic\",\"mass\":1,\"position\":[0,0,0.1],\"shapes\":[{\"type\":\"sphere\",\"radius\":0.1}]},"
                         "{\"name\":\"b\",\"type\":\"dynamic\",\"mass\":100,\"position\":[0,0,0.3],\"shapes\":[{\"type\":\"sphere\",\"radius\":0.1}]},"
                         "{\"name\":\"c\",\"type\":\"dynamic\",\"mass\":10000,\"position\":[0,0,0.5],\"shapes\":[{\"type\":\"sphere\",\"radius\":0.1}]}]}");
    if (!s) return;
    ncp_error err = {0};
    ncp_world *w = NULL;
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &w, &err), &err);
    run(w, "nsn-nm", 240, 1e-10, NULL);
    double worst = 0.0;
    for (int b = 1; b <= 3; b++) {
        double p[3];
        ncp_world_body_position(w, b, p);
        worst = fmax(worst, fabs(p[2] - (0.1 + 0.2 * (b - 1))));
        worst = fmax(worst, fabs(p[0]) + fabs(p[1]));
    }
    CHECK(worst < 1e-7);
    printf("odd-mass stack (1 : 100 : 10000 kg): drift over 1 s = %.2e m\n", worst);
    ncp_world_free(w);
    ncp_scene_free(s);
}

static void test_sliding_to_rest(void)
{
    /* A box pushed along a flat plane (4 corner contacts) decelerates at mu g and then sticks:
     * with symplectic Euler v_k = v0 - mu g t_k exactly until the step where it would reverse,
     * after which static friction holds v = 0. The distance is h sum v_k, within h v0 of the
     * continuous v0^2 / (2 mu g). */
    const double mu = 0.5, v0 = 1.0;
    char json[1024];
    snprintf(json, sizeof json,
             "{\"name\":\"slide\",\"timestep\":%.17g,\"steps\":120,"
             "\"materials\":[{\"name\":\"m\",\"friction\":%g}],"
             "\"bodies\":[{\"name\":\"g\",\"type\":\"static\",\"shapes\":[{\"type\":\"plane\",\"material\":\"m\"}]},"
             "{\"name\":\"box\",\"type\":\"dynamic\",\"mass\":4,\"position\":[0,0,0.1],\"velocity\":[%g,0,0],"
             "\"shapes\":[{\"type\":\"box\",\"half_extents\":[0.2,0.1,0.1],\"material\":\"m\"}]}]}",
             H, mu, v0);
    ncp_scene *s = parse(json);
    if (!s) return;
    ncp_error err = {0};
    ncp_world *w = NULL;
    CHECK_OK(ncp_world_create(ncp_scene_model(s), &w, &err), &err);
    int b = ncp_world_find_body(w, "box");
    int kstop = (int)floor(v0 / (mu * G * H)); /* last step with v > 0 */
    double worst = 0.0;
    for (int k = 1; k <= 120; k++) {
        run(w, "nsn-nm", 1, 1e-12, NULL);
        double v[3], om[3];
        ncp_world_body_velocity(w, b, v, om);
        double expect = k <= kstop ? v0 - mu * G * k * H : 0.0;
        worst = fmax(worst, fabs(v[0] - expect));
        CHECK_NEAR(v[0], expect, 1e-9);
        CHECK_NEAR(v[1], 0.0, 1e-12);
        CHECK_NEAR(v[2], 0.0, 1e-12);
        CHECK(ncp_v3_norm(om) < 1e-9);
    }
    double p[3];
    ncp_world_body_position(w, b, p);
    double cont = v0 * v0 / (2 * mu * G), discrete = 0.0;
    for (int k = 1; k <= kstop; k++) discrete += H * (v0 - mu * G * k * H);
    CHECK_NEAR(p[0], discrete, 1e-9);
    CHECK(fabs(p[0] - cont) <= H * v0);
    printf("sliding to rest: |v - (v0 - mu g t)| <= %.1e, distance %.6f m (continuous %.6f m)\n", worst, p[0], cont);
    ncp_world_free(w);
    ncp_scene_free(s);
}

/* ---------------------------------------------------------------- capture */

typedef struct cap_store {
    int n;
    ncp_problem probs[16];
} cap_store;

static int keep(void *ctx, const ncp_problem *p, ncp_error *err)
{
    cap_store *cs = ctx;
    if (cs->n >= 16) return ncp_error_set(err, NCP_ERR_INTERNAL, "too many captures");
    return ncp_problem_copy(&cs->probs[cs->n++], p, err);
}

static void test_capture(void)
{
    /* box-on-plane quick capture: names, provenance, validity, and the dual from the primal */
    ncp_error err = {0};
    ncp_scene *s = NULL;
    CHECK_OK(ncp_scene_load("scenes/box-on-plane.json", ncp_registry_catalog(), &s, &err), &err);
    if (!s) return;
    cap_store cs;
    memset(&cs, 0, sizeof cs);
    ncp_capture_opts o = {42, 1, 0, NULL, NULL};
    CHECK_OK(ncp_capture_scene(s, &o, keep, &cs, &err), &err);
    const ncp_bench_cfg *bc = ncp_scene_bench(s);
    CHECK(cs.n == bc->quick_steps);
    for (int i = 0; i < cs.n; i++) {
        ncp_problem *p = &cs.probs[i];
        CHECK_OK(ncp_problem_need_dual(p, &err), &err); /* D on demand, checked below */
        char name[16];
        snprintf(name, sizeof name, "%06d", i);
        CHECK(strcmp(p->name, name) == 0);
        CHECK(strcmp(p->scene, "box-on-plane") == 0);
        CHECK(strcmp(p->driver, bc->driver) == 0);
        CHECK(p->seed == 42 && p->case_index == -1);
        CHECK(p->step == bc->skip + i * bc->every);
        CHECK(p->h == ncp_scene_timestep(s));
        CHECK_OK(ncp_problem_validate(p, "capture", &err), &err);
        CHECK(p->ncontacts >= 1 && p->m == 3 * p->ncontacts && p->nv == 6);
        for (int k = 0; k < p->nblocks; k++) CHECK(p->blocks[k].mu == 0.5); /* min(0.8, 0.5) */
        /* D and v_f against D = J A^{-1} J^T computed here with a different factorisation:
         * A is block diagonal, so invert the 3x3 inertia by LU */
        int m = p->m, nv = p->nv;
        double *Jd = calloc((size_t)m * nv, sizeof(double)), Ainv[36] = {0}, LU[9], I3[9];
        int piv[3];
        ncp_csr_to_dense(&p->J, Jd);
        for (int a = 0; a < 3; a++) Ainv[a * 6 + a] = 1.0 / p->A[a * 6 + a];
        for (int a = 0; a < 3; a++)
            for (int c = 0; c < 3; c++) {
                LU[a + 3 * c] = p->A[(3 + a) + 6 * (3 + c)];
                I3[a + 3 * c] = a == c;
            }
        CHECK_OK(ncp_lu_solve(3, LU, piv, 3, I3, &err), &err);
        for (int a = 0; a < 3; a++)
            for (int c = 0; c < 3; c++) Ainv[(3 + a) + 6 * (3 + c)] = I3[a + 3 * c];
        double derr = 0, dmax = 0, verr = 0;
        for (int r = 0; r < m; r++) {
            for (int c = 0; c < m; c++) {
                double sum = 0;
                for (int k = 0; k < nv; k++)
                    for (int l = 0; l < nv; l++) sum += Jd[r + m * k] * Ainv[k + 6 * l] * Jd[c + m * l];
                derr = fmax(derr, fabs(sum - p->D[r + (size_t)m * c]));
                dmax = fmax(dmax, fabs(sum));
            }
            double vf = p->e[r];
            for (int k = 0; k < nv; k++)
                for (int l = 0; l < nv; l++) vf += Jd[r + m * k] * Ainv[k + 6 * l] * p->b[l];
            verr = fmax(verr, fabs(vf - p->vf[r]));
        }
        CHECK(derr <= 1e-12 * dmax);
        CHECK(verr <= 1e-12);
        free(Jd);
    }
    for (int i = 0; i < cs.n; i++) ncp_problem_free(&cs.probs[i]);
    ncp_scene_free(s);
}

int main(void)
{
    test_narrow_phase();
    test_broad_phase();
    test_mass_properties();
    test_jacobian();
    test_free_fall();
    test_resting_box();
    test_incline();
    test_sliding_to_rest();
    test_odd_mass_stack();
    test_capture();
    return tcheck_exit("test_physics");
}
