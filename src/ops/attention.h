/* aclnnFusedInferAttentionScoreV2: the plan phase 1 (attention.c) hands to
 * phase 2 (attention_run.c). Private to the two files. */
#ifndef EMU_OPS_ATTENTION_H_
#define EMU_OPS_ATTENTION_H_

#include "meta/executor.h"

enum { FIA_QUERY, FIA_KEY, FIA_VALUE, FIA_PSE, FIA_OUT, FIA_TENSORS };
enum { FIA_ALIGN = 64, FIA_LANES = 16, FIA_MAX_SLOTS = 64 };

/* Strides are in elements, in the order (b, n, s, d) for query, key, value
 * and attentionOut, and (b, n, s, k) for pseShift (b is 0 when pseShift
 * has one batch for all). */
typedef struct {
    int64_t B, N, S, D, KVN, S2, G; /* G = N / KVN query heads per key/value head */
    int64_t q_str[4], k_str[4], v_str[4], o_str[4], pse_str[4];
    bool has_pse;
    bool row_invalid_zero; /* innerPrecise bit 1: a row with every score -inf gives 0 */
    float scale;
    int64_t rows;    /* query rows (g, s) of one (b, kv head) per task */
    int64_t chunks;  /* tasks per (b, kv head) */
    int64_t ld;      /* S2 rounded up to FIA_LANES: a score row */
    int slots;
    uint64_t slot_bytes;
    uint64_t workspace;
} fia_plan;

_Static_assert(sizeof(fia_plan) <= EMU_PLAN_BYTES, "fia_plan must fit in the executor");

/* Floats of one slot before its gemm scratch: K and V in fp32 (S2 x D each),
 * the query rows (rows x D), their scores (rows x ld), the output rows
 * (rows x D), the row sums and one pseShift row (ld). */
uint64_t fia_slot_floats(const fia_plan *plan);
const char *fia_run(aclOpExecutor *executor, void *workspace);

#endif /* EMU_OPS_ATTENTION_H_ */
