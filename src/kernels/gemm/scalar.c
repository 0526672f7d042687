/* Portable implementation: the determinism contract of gemm.h written
 * out directly, one fma chain per element of C. */
#include <math.h>

#include "kernels/gemm/gemm.h"

void emu_f32_gemm__scalar(const emu_sgemm_args* args, void* scratch) {
    (void)scratch;
    for (int64_t i = 0; i < args->m; i++) {
        float* c_row = args->c + i * args->c_row_stride;
        const float* a_row = args->a + i * args->a_row_stride;
        for (int64_t j = 0; j < args->n; j++) {
            const float* b_col = args->b + j * args->b_col_stride;
            float acc = args->accumulate ? c_row[j] : 0.0f;
            for (int64_t p = 0; p < args->k; p++) {
                acc = fmaf(a_row[p * args->a_col_stride], b_col[p * args->b_row_stride], acc);
            }
            c_row[j] = acc;
        }
    }
}
