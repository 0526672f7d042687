/**
 * @file aclnnop/aclnn_rotary_position_embedding_grad.h
 * @brief aclnnRotaryPositionEmbeddingGrad: gradient of rotary position embedding.
 *
 * dy is the gradient of y = x*cos + rotate(x)*sin (aclnnRotaryPositionEmbedding).
 * With `dims` the axes along which cos/sin broadcast to dy:
 *  - mode 0 (half): split dy, cos, sin, x in halves (1, 2) of the last axis:
 *      dx   = cat(cos1*dy1 + sin2*dy2, cos2*dy2 - sin1*dy1)
 *      dcos = sum(dy * x, dims),  dsin = sum(dy * cat(-x2, x1), dims)
 *  - mode 1 (interleave): the same on even (1) / odd (2) elements, dx and
 *    the rotated x interleaved back;
 *  - mode 2 (quarter): four quarters, pairs (1, 2) and (3, 4):
 *      dx = cat(cos1*dy1 + sin2*dy2, cos2*dy2 - sin1*dy1, cos3*dy3 + sin4*dy4, cos4*dy4 - sin3*dy3),
 *      dsin = sum(dy * cat(-x2, x1, -x4, x3), dims);
 *  - mode 3 (interleave-half): dy, cos, sin in halves, x split even/odd
 *    (x1 = x[..., 0::2], x2 = x[..., 1::2]); dx as in half mode, then
 *    interleaved (dx[..., 0::2] = first half, dx[..., 1::2] = second half);
 *    dcos = sum(dy * cat(x1, x2), dims), dsin = sum(dy * cat(-x2, x1), dims).
 * Computed in fp32 (dx: one rounded product added to the other by a fused
 * multiply-add), stored in the tensors' dtype with round-to-nearest-even.
 * dcos/dsin accumulate dy*x in fp32 with fused multiply-adds in a fixed
 * order: results are bit-identical for any thread count, SIMD level and run
 * (the real operator is deterministic).
 *
 * Layouts: dy is BNSD, BSND or SBND (rank 4) or TND (rank 3); cos and sin
 * have dy's rank, and each of their axes but the last is 1 or equal to dy's.
 * Which patterns the product accepts is checked as CANN's tiling does (see
 * aclnnRotaryPositionEmbeddingGradGetWorkspaceSize).
 */
#ifndef ACLNNOP_ACLNN_ROTARY_POSITION_EMBEDDING_GRAD_H_
#define ACLNNOP_ACLNN_ROTARY_POSITION_EMBEDDING_GRAD_H_

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Phase 1 of aclnnRotaryPositionEmbeddingGrad.
 *
 * Checks, in this order:
 *  1. @p workspaceSize, @p executor, @p dy, @p cos, @p sin, @p dxOut,
 *     @p dcosOut or @p dsinOut NULL -> ACLNN_ERR_PARAM_NULLPTR (161001);
 *  2. the emulated product is Ascend910 (Atlas training series), which has
 *     no kernel for this operator -> ACLNN_ERR_INNER_FIND_KERNEL_ERROR (561003);
 *  3. a dtype not FLOAT, FLOAT16 or BFLOAT16, a dtype differing from dy's,
 *     or a format other than ACL_FORMAT_ND -> ACLNN_ERR_PARAM_INVALID (161002);
 *  4. ACLNN_ERR_INNER_TILING_ERROR (561002), as CANN's tiling:
 *     - @p mode not 0 or 1 (Atlas A2/A3), not 0..3 (Ascend950);
 *     - dy of rank other than 3 or 4; cos of another rank than dy;
 *       sin shape != cos shape; dxOut shape != dy shape;
 *     - D (last axis) of cos != D of dy; D > 896 (A2/A3) or > 1024
 *       (Ascend950); D odd, or not a multiple of 4 in quarter mode;
 *     - with xOptional: its shape != dy shape, dcosOut/dsinOut shape != cos shape;
 *     - a broadcast pattern the product's tiling does not recognise. With
 *       x = [B0, B1, B2, D] (TND read as [1, T, N, D]) and cos = [C0, C1, C2, D]:
 *       Ascend950: every Ci is 1 or Bi. A2/A3 half mode: cos == dy, or
 *       1S1D (B0 != 1), BS1D (B0 < B1), 11SD (B0 != 1), B1SD (B0 < B2), S11D
 *       (B1 != 1) or SB1D, each read against dy's axes as named (so TND
 *       accepts T1D and TND). A2/A3 interleave mode: 1S1D, 11SD or S11D
 *       (TND: T1D), and then B*N < 1000 for the layout that matched;
 *     - Ascend950 only: an empty dy, cos or xOptional;
 *  5. a non-contiguous dxOut, dcosOut or dsinOut (CANN writes outputs
 *     densely), a non-empty tensor with NULL data, or data outside device
 *     memory -> 161002; an output overlapping (first to last byte) an
 *     input or an earlier output -> 161002 (aclnn_emu only: CANN leaves
 *     it undefined).
 * Inputs may be non-contiguous (staged through the workspace).
 * When @p xOptional is NULL, dcosOut and dsinOut are not checked beyond
 * 1-3 and never written: pass empty tensors with NULL data, as CANN's
 * sample does. An empty dy succeeds (on A2/A3); with x, dcos and dsin are
 * then zero (empty sums).
 *
 * @param dy gradient of the forward output y; BNSD/BSND/SBND or TND.
 * @param cos the forward's cos, broadcastable to dy as above.
 * @param sin the forward's sin, shaped like cos.
 * @param xOptional the forward input x (shape of dy), or NULL to skip dcos/dsin.
 * @param mode 0 half, 1 interleave, 2 quarter, 3 interleave-half (2, 3: Ascend950).
 * @param dxOut gradient of x, shape of dy, contiguous.
 * @param dcosOut gradient of cos (shape of cos, contiguous) when x is given.
 * @param dsinOut gradient of sin (shape of sin, contiguous) when x is given.
 * @param workspaceSize out: bytes of workspace phase 2 needs (staging of
 *        non-contiguous inputs; 0 when all are contiguous).
 * @param executor out: the plan, consumed by aclnnRotaryPositionEmbeddingGrad.
 */
ACLNN_API aclnnStatus aclnnRotaryPositionEmbeddingGradGetWorkspaceSize(const aclTensor *dy, const aclTensor *cos,
                                                                       const aclTensor *sin,
                                                                       const aclTensor *xOptional, int64_t mode,
                                                                       const aclTensor *dxOut,
                                                                       const aclTensor *dcosOut,
                                                                       const aclTensor *dsinOut,
                                                                       uint64_t *workspaceSize,
                                                                       aclOpExecutor **executor);

/**
 * Phase 2 of aclnnRotaryPositionEmbeddingGrad: runs the plan on @p stream (NULL: default).
 * @return ACLNN_SUCCESS, or a phase-2 code (see aclnn/aclnn_base.h).
 */
ACLNN_API aclnnStatus aclnnRotaryPositionEmbeddingGrad(void *workspace, uint64_t workspaceSize,
                                                       aclOpExecutor *executor, aclrtStream stream);

#ifdef __cplusplus
}
#endif

#endif /* ACLNNOP_ACLNN_ROTARY_POSITION_EMBEDDING_GRAD_H_ */
