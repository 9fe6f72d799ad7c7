/* Shapes as the narrow phase sees them: the shape types and a shape posed in the world. */
#ifndef NCP_SHAPE_H
#define NCP_SHAPE_H

/* Shape types, in the order the narrow phase dispatches on (a pair is handled as (lower type,
 * higher type)). */
typedef enum ncp_shape_type {
    NCP_SHAPE_PLANE = 0,
    NCP_SHAPE_SPHERE = 1,
    NCP_SHAPE_CAPSULE = 2,
    NCP_SHAPE_BOX = 3,
    NCP_SHAPE_SDF = 4 /* signed distance shape (sdf.h): bolt, nut, revolved dishes, bottle */
} ncp_shape_type;

const char *ncp_shape_type_name(int type);

/* A posed shape in world coordinates (what the narrow phase reads). */
typedef struct ncp_geom {
    int type;
    double pos[3];       /* centre (unused for planes) */
    double rot[9];       /* shape axes in world (row-major: world = rot * local) */
    double radius, half_length, half[3];
    double normal[3];    /* plane: world unit normal; solid is normal.x <= offset */
    double offset;
    const struct ncp_sdf *sdf; /* sdf: the shape model's geometry */
} ncp_geom;

#endif
