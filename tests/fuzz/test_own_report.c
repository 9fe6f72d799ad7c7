/* ncp_fuzz_hdf5_own_report (fuzz.h) on sanitizer reports shaped as ASan prints them: a fault
 * of libhdf5's own is told from one in our code, from libhdf5 overrunning memory of ours, and
 * from an allocation refused for its size. Exits 1 on a wrong verdict. */
#include <stdio.h>

#include "fuzz.h"

#define HDF5 "(/lib/x86_64-linux-gnu/libhdf5_serial.so.103+0xf54de)"
#define OURS "/src/store/store.c:983:22"

int main(void)
{
    static const struct {
        const char *name, *report;
        int own;
    } cases[] = {
        {"wild read in libhdf5 under memcpy",
         "==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000\n"
         "    #0 0x7f in __memcpy_evex_unaligned_erms string/../sysdeps/x86_64/multiarch/m.S:273\n"
         "    #1 0x56 in __interceptor_memcpy (/x/fuzz-problems+0x13a9e7)\n"
         "    #2 0x7f in H5F__accum_read " HDF5 "\n"
         "    #3 0x56 in unknown_file " OURS "\n",
         1},
        {"null write in our code",
         "==1==ERROR: AddressSanitizer: SEGV on unknown address 0x000000000000\n"
         "    #0 0x56 in unknown_file " OURS "\n"
         "    #1 0x56 in load_file /src/store/store.c:1241:14\n",
         0},
        {"our H5Literate callback faulting under libhdf5",
         "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020\n"
         "    #0 0x56 in collect /src/store/traces.c:440:9\n"
         "    #1 0x7f in H5L_iterate " HDF5 "\n",
         0},
        {"libhdf5 overrunning a buffer we allocated",
         "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020\n"
         "WRITE of size 8\n"
         "    #0 0x56 in __interceptor_memcpy (/x/fuzz-problems+0x13a9e7)\n"
         "    #1 0x7f in H5D__contig_readvv " HDF5 "\n"
         "0x6020 is located 0 bytes to the right of 16-byte region\n"
         "allocated by thread T0 here:\n"
         "    #0 0x56 in malloc (/x/fuzz-problems+0x1)\n"
         "    #1 0x56 in ncp_malloc /src/util/mem.c:20:5\n",
         0},
        {"libhdf5 overrunning its own buffer",
         "==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020\n"
         "    #0 0x7f in H5HL__cache_datablock_deserialize " HDF5 "\n"
         "allocated by thread T0 here:\n"
         "    #0 0x56 in __interceptor_malloc (/x/fuzz-problems+0x1)\n"
         "    #1 0x7f in H5FL_blk_malloc " HDF5 "\n",
         1},
        {"an allocation refused for its size",
         "==1==ERROR: AddressSanitizer: requested allocation size 0x7272727272727272 exceeds "
         "maximum supported size\n"
         "    #0 0x56 in malloc (/x/fuzz-problems+0x1)\n"
         "    #1 0x7f in H5MM_malloc " HDF5 "\n",
         0},
        {"no stack at all", "==1==ERROR: AddressSanitizer: SEGV on unknown address\n", 0},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        int got = ncp_fuzz_hdf5_own_report(cases[i].report);
        if (got != cases[i].own) {
            printf("FAIL: %s: %d, expected %d\n", cases[i].name, got, cases[i].own);
            bad = 1;
        }
    }
    printf("own_report: %zu cases, %s\n", sizeof cases / sizeof *cases, bad ? "FAILED" : "ok");
    return bad;
}
