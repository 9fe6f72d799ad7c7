/* Fuzz target: the FCLib reader (store/fclib_io.h ncp_fclib_read_file) on arbitrary bytes,
 * opened in memory (HDF5 core driver with the input as its file image: no file per input). */
#include <stdlib.h>

#include <hdf5.h>

#include "fuzz.h"
#include "fuzz_problems.h"
#include "store/fclib_io.h"

typedef struct image {
    const uint8_t *data;
    size_t size;
} image;

static int read_image(void *ctx);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ncp_h5_quiet();
    if (size == 0) return 0; /* H5Pset_file_image: an empty image means "no image" */
    image im = {data, size};
    if (ncp_fuzz_hdf5_crashes(read_image, &im)) return 0; /* libhdf5's own fault */
    read_image(&im);
    return 0;
}

/* The image read and checked: 0 (a finding aborts) */
static int read_image(void *ctx)
{
    const uint8_t *data = ((const image *)ctx)->data;
    size_t size = ((const image *)ctx)->size;
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0) abort();
    /* as ncp_load_problems: closing the file closes whatever an error path left open */
    if (H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) < 0 || H5Pset_fapl_core(fapl, 1 << 16, 0) < 0 ||
        H5Pset_file_image(fapl, (void *)data, size) < 0)
        abort();
    hid_t f = H5Fopen("fuzz-input.hdf5", H5F_ACC_RDONLY, fapl);
    H5Pclose(fapl);
    if (f < 0) return 0;
    if (ncp_h5_exists(f, "fclib_local") || ncp_h5_exists(f, "fclib_global")) {
        ncp_error err = {0};
        ncp_h5ctx c = {.file = "fuzz-input.hdf5", .err = &err, .budget = NCP_FUZZ_BUDGET};
        ncp_problem p;
        ncp_problem_init(&p);
        if (ncp_fclib_read_file(&c, f, "fuzz-input", &p) == NCP_OK)
            ncp_fuzz_check_problems(&p, 1, "FCLib");
        else if (!err.msg[0])
            ncp_fuzz_fail("FCLib", "refused without a message");
        ncp_problem_free(&p);
    }
    H5Fclose(f);
    return 0;
}
