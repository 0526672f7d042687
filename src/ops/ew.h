/* Element-wise operators, declared as data.
 *
 * An emu_ew_def says everything phase 1 needs: the argument names, the
 * dtype tables per product, how the result dtype follows from the inputs
 * (and a scalar), how the output dtype must relate to it, whether inputs
 * broadcast, and which kernel body computes it (kernels/ew/list.h).
 * emu_ew_get_workspace_size validates in CANN's order
 *   null (done by the entry point, which knows its scalars) -> dtypes ->
 *   promotion and output cast -> ranks and shapes -> our extras (data
 *   addresses, device memory, in-place aliasing)
 * and plans a strided N-D loop: broadcast inputs get stride 0, dimensions
 * that are dense together are merged, and each block of a row is gathered
 * and converted to the compute type (fp32, fp64 or int64) in L1-sized
 * buffers, computed by the ISA's kernel and converted back with round to
 * nearest even. No workspace is ever needed.
 *
 * EMU_EW_UNARY and friends write the public entry points of the common
 * signatures. */
#ifndef EMU_OPS_EW_H_
#define EMU_OPS_EW_H_

#include "kernels/ew/ew.h"
#include "meta/executor.h"
#include "ops/check.h"
#include "ops/opdef.h"

typedef enum {
    EMU_EW_RESULT_PROMOTE,  /* the promotion of the inputs (and of a scalar marked in the call) */
    EMU_EW_RESULT_FLOATING, /* the promotion, with integers and BOOL computed as FLOAT */
    EMU_EW_RESULT_BOOL,     /* comparisons: BOOL */
    EMU_EW_RESULT_OUT       /* copies and casts: the output's dtype */
} emu_ew_result_rule;

typedef enum {
    EMU_EW_OUT_SAME,               /* the output has the result dtype */
    EMU_EW_OUT_CASTABLE,           /* the result can be cast to the output's dtype (emu_can_cast) */
    EMU_EW_OUT_CASTABLE_FROM_SELF, /* the first input's dtype can be cast to the output's */
    EMU_EW_OUT_ANY                 /* any dtype of the output's table */
} emu_ew_out_rule;

struct emu_ew_call_;
typedef struct emu_ew_def_ {
    const char *api; /* phase-2 name: "aclnnAdd" */
    emu_ew_kernel kernel;
    int input_count; /* tensor inputs */
    /* inputs, then the output ("out", or "selfRef" for in-place forms) */
    const char *names[EMU_EW_MAX_INPUTS + 1];
    const emu_dtype_table *in_dtypes;
    const emu_dtype_table *out_dtypes;
    emu_ew_result_rule result;
    emu_ew_out_rule out_rule;
    /* Inputs broadcast to the output's shape; otherwise every shape equals it. */
    bool broadcast;
    /* The broadcast includes the output (InplaceCopy: src broadcasts into
     * selfRef); otherwise the inputs' broadcast shape must be the output's. */
    bool broadcast_into_out;
    /* For an operator whose op_api checks dtypes and shapes in an order of
     * its own (SiluBackward: the inputs' ranks before any shape, BF16 on
     * the training series after the mixed-dtype check): replaces the
     * layer's dtype and shape checks; the memory and aliasing checks stay. */
    aclnnStatus (*validate)(const char *api, const struct emu_ew_def_ *def, const struct emu_ew_call_ *call);
} emu_ew_def;

/* What one phase-1 call passes besides the definition. */
typedef struct emu_ew_call_ {
    const aclTensor *inputs[EMU_EW_MAX_INPUTS];
    const aclTensor *out;
    /* Attribute values in double (bodies read them as P(k)); for int64
     * compute, params_int gives exact values where set. */
    double params[EMU_EW_MAX_PARAMS];
    int64_t params_int[EMU_EW_MAX_PARAMS];
    bool has_params_int;
    /* A scalar that takes part in promotion (Adds, Muls ...), or ACL_DT_UNDEFINED. */
    aclDataType scalar_dtype;
    /* Set by operators whose own rule decides the dtype the result is
     * computed in (the promotion is then not computed); ACL_DT_UNDEFINED
     * otherwise (EMU_EW_CALL sets both to it). */
    aclDataType result_dtype;
} emu_ew_call;

/* A call with no scalar and no dtype of the operator's own. */
#define EMU_EW_CALL(...) {.scalar_dtype = ACL_DT_UNDEFINED, .result_dtype = ACL_DT_UNDEFINED, __VA_ARGS__}

enum { EMU_EW_MAX_RANK = 8 };
typedef enum { EMU_EW_COMPUTE_F32, EMU_EW_COMPUTE_F64, EMU_EW_COMPUTE_I64, EMU_EW_COMPUTE_RAW } emu_ew_compute;

/* A planned element-wise loop, stored in an executor's plan area. */
typedef struct {
    emu_ew_kernel kernel;
    emu_ew_compute compute;
    int input_count;
    int slot[EMU_EW_MAX_INPUTS + 1]; /* executor tensor slots of the inputs and the output */
    int32_t rank;                    /* after merging; 0 for a single element, -1 for nothing to do */
    int64_t shape[EMU_EW_MAX_RANK];
    int64_t strides[EMU_EW_MAX_INPUTS + 1][EMU_EW_MAX_RANK]; /* in elements; the output last */
    emu_ew_params params;
} emu_ew_plan;

/* Phase 1 of every element-wise operator after its null checks. */
aclnnStatus emu_ew_get_workspace_size(const emu_ew_def *def, const emu_ew_call *call, uint64_t *workspace_size,
                                      aclOpExecutor **executor);
/* The checks of emu_ew_get_workspace_size alone, for operators that plan
 * with kernels of their own (SiLU's tuned kernels; their definitions name
 * EMU_EW_OWN_KERNELS). */
aclnnStatus emu_ew_check(const char *api, const emu_ew_def *def, const emu_ew_call *call);
/* The checks and plan of emu_ew_get_workspace_size without an executor,
 * for operators that run several element-wise loops: operand k is executor
 * slot slots[k] (NULL: slot k). */
aclnnStatus emu_ew_prepare(const char *api, const emu_ew_def *def, const emu_ew_call *call, const int *slots,
                           emu_ew_plan *plan);
/* Runs a plan over the executor's views; returns the kernel's name. */
const char *emu_ew_execute(const emu_ew_plan *plan, const emu_view *views);

/* The public pair of an element-wise operator with the usual phase-2 form. */
#define EMU_EW_PHASE2(Name)                                                                                    \
    aclnnStatus aclnn##Name(void *workspace, uint64_t workspaceSize, aclOpExecutor *executor,                  \
                            aclrtStream stream)                                                                \
    {                                                                                                          \
        return emu_executor_run("aclnn" #Name, workspace, workspaceSize, executor, stream);                   \
    }

/* emu_ew_get_workspace_size after the null checks of workspaceSize and
 * executor: for operators that null-check their own arguments first. */
aclnnStatus emu_ew_phase1(const emu_ew_def *def, const emu_ew_call *call, uint64_t *workspace_size,
                          aclOpExecutor **executor);

/* Phase 1 of a unary operator: null checks of `in` and `out` (named as in
 * the definition), then emu_ew_get_workspace_size. In-place forms pass the
 * same tensor twice. */
aclnnStatus emu_ew_unary(const emu_ew_def *def, const aclTensor *in, const aclTensor *out, uint64_t *workspace_size,
                         aclOpExecutor **executor);

/* The kernel of a definition whose operator runs tuned kernels of its own:
 * the layer validates it and never plans it. */
#define EMU_EW_OWN_KERNELS EMU_EWK_COUNT

/* The dtype list shorthands of the operator tables. */
#define EMU_F EMU_DT(ACL_FLOAT)
#define EMU_H EMU_DT(ACL_FLOAT16)
#define EMU_B EMU_DT(ACL_BF16)
#define EMU_D EMU_DT(ACL_DOUBLE)
#define EMU_I8 EMU_DT(ACL_INT8)
#define EMU_U8 EMU_DT(ACL_UINT8)
#define EMU_I16 EMU_DT(ACL_INT16)
#define EMU_I32 EMU_DT(ACL_INT32)
#define EMU_I64 EMU_DT(ACL_INT64)
#define EMU_U16 EMU_DT(ACL_UINT16)
#define EMU_U32 EMU_DT(ACL_UINT32)
#define EMU_U64 EMU_DT(ACL_UINT64)
#define EMU_BOOL EMU_DT(ACL_BOOL)
/* No list: the tensor's dtype is not checked against one. */
#define EMU_ANY (~(emu_dtype_set)0)

#endif /* EMU_OPS_EW_H_ */
