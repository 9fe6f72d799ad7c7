/* Shape types (shape.h). */
#include "geometry/shape.h"

const char *ncp_shape_type_name(int type)
{
    switch (type) {
    case NCP_SHAPE_PLANE: return "plane";
    case NCP_SHAPE_SPHERE: return "sphere";
    case NCP_SHAPE_CAPSULE: return "capsule";
    case NCP_SHAPE_BOX: return "box";
    case NCP_SHAPE_SDF: return "sdf";
    default: return "unknown";
    }
}
