/* Fuzz target: the scene parser (scene/scene.h ncp_scene_parse) on arbitrary bytes, with the
 * registry's solver catalog as `ncpbench run` uses it (robot model files from the data directory). Valid scenes must parse into a scene
 * whose text round-trips; everything else must be refused with a message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "scene/scene.h"
#include "solvers/registry.h"
#include "util/fsutil.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 20)) return 0; /* the scenes we ship are < 200 KB */
    char *text = malloc(size + 1);
    if (!text) return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    ncp_scene *s = NULL;
    ncp_error err = {0};
    /* named as if it lay in the shipped scenes' folder, so that robot model files
     * ("model": "robots/panda.json") resolve and the robot parser is reached too */
    char where[4200];
    snprintf(where, sizeof where, "%s/fuzz-input.json", ncp_scenes_dir());
    int rc = ncp_scene_parse(text, where, ncp_registry_catalog(), &s, &err);
    if (rc == NCP_OK) {
        if (!s || !ncp_scene_model(s) || !ncp_scene_name(s) || !ncp_scene_bench(s))
            ncp_fuzz_fail("scene", "parsed without a model, name or benchmark section");
        if (strcmp(ncp_scene_text(s), text) != 0)
            ncp_fuzz_fail("scene", "stored text differs from the input");
    } else {
        if (s) ncp_fuzz_fail("scene", "refused but returned a scene");
        if (!err.msg[0]) ncp_fuzz_fail("scene", "refused without a message");
    }
    ncp_scene_free(s);
    free(text);
    return 0;
}
