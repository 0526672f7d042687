/* Deterministic randomized robustness test of every operator's public API,
 * run by ctest and, in CI, under ASan + UBSan + LeakSanitizer.
 *
 * tests/test_streams.py fuzzes phase 1 from random descriptions; this
 * program starts each trial from a VALID argument set instead, so that
 * single faults meet every validation step and plenty of mutated calls
 * still reach phase 2. Per operator and trial:
 *  1. a valid baseline (random small shapes, dtypes, strides and offsets
 *     the operator accepts) must pass phase 1 and phase 2;
 *  2. copies of its descriptors and attributes get 1-3 mutations (NULL
 *     tensor or data, dtype, format, rank, one dimension, strides, offset,
 *     storage shape, host memory, a device block too short for the view,
 *     an output aliasing an input, out-of-range attributes, NULL
 *     out-pointers);
 *  3. phase 1 must return success or a code the operator documents, with
 *     a message naming the API; the codes the headers' validation order
 *     fixes (NULL -> 161001, then dtype/format -> 161002) must be exact; a
 *     failed call must not hand out a live executor, and a successful one
 *     must not have accepted a non-empty view outside device memory;
 *  4. a successful phase 1 is run: the output blocks are filled with a
 *     canary and every byte outside the output views must keep it; every
 *     other block (inputs, host buffers) must be unchanged, and so must
 *     the bytes just past the workspace;
 *  5. once per operator, the phase-2 misuses (NULL executor, workspace
 *     NULL or short, another operator's executor, a bad stream, a consumed
 *     executor, a destroyed repeatable one);
 *  6. repeat trials: a valid call's executor made repeatable and launched
 *     several times on the default stream and two created ones, its
 *     addresses rebound between launches (every setter and its alias, with
 *     and without the descriptor) to other device blocks; each launch must
 *     equal, bit for bit, a fresh single-use run on copies of the same
 *     bytes, and write nothing outside its output views. In between, calls
 *     that must be refused and leave the executor as it was: rebinding to
 *     host memory, NULL, a block too short or freed, an index out of
 *     range, an optional slot absent in phase 1; a NULL executor, another
 *     operator's phase 2, a destroyed stream, a workspace in host memory,
 *     freed, NULL or short. aclrtFree of a block the executor is bound to
 *     (a launch using it sometimes queued) must wait, and the next launch
 *     be refused. Then the hazards: a workspace overlapping a tensor's view,
 *     an output rebound onto an input or another output (refused where
 *     phase 1 refuses such a call; Silu's in-place call must equal a fresh
 *     in-place run). Last, the executor is destroyed with launches queued
 *     (their results must be there at once), then refused.
 * 400 trials per operator (300 for Floyd attention, whose phase 2 runs
 * on a sample of 20 calls: 0.1 s each under ASan), and 40 repeat trials
 * (2 for Floyd). Every trial seeds the generator from (operator, trial),
 * so a failure printed as "aclnnXxx trial N" reproduces alone with
 * `test_fuzz aclnnXxx N`, and one printed as "aclnnXxx trial N
 * (repeatable executor: ...)" with `test_fuzz aclnnXxx rN`; with
 * TEST_FUZZ_TRACE=1 every call (every step of a repeat trial) is printed
 * before it is made, which names the trial behind a sanitizer abort.
 * Prints "N passed, M failed". */
#define TEST_RNG_SEED 0xF022C0DEull
#include "test_util.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>

#include "acl/acl.h"
#include "aclnn_emu/aclnn_emu.h"
#include "aclnnop/aclnn_fused_floyd_attention.h"
#include "aclnnop/aclnn_fused_floyd_attention_grad.h"
#include "aclnnop/aclnn_moe_token_permute.h"
#include "aclnnop/aclnn_moe_token_permute_grad.h"
#include "aclnnop/aclnn_rotary_position_embedding.h"
#include "aclnnop/aclnn_rotary_position_embedding_grad.h"
#include "aclnnop/aclnn_silu.h"
#include "aclnnop/aclnn_silu_backward.h"

enum {
    MAX_TENSORS = 16,
    /* Descriptors go up to rank 33, one above aclCreateTensor's limit. */
    MAX_RANK = 40,
    /* Bytes of every tensor's block before its baseline data pointer, so a
     * write just before a view lands on canary bytes. */
    FRONT_GUARD = 64,
    /* Checked bytes allocated past the workspace size phase 1 reported. */
    WORKSPACE_GUARD = 256,
    HOST_BUFFER_BYTES = 512,
    MAX_HOST_BUFFER = 1 << 22,
    MAX_EXTRA_BLOCKS = MAX_TENSORS,
    /* Phase 2 is skipped (the executor destroyed instead) when a view has
     * more elements than this: its coverage could not be checked quickly. */
    MAX_RUN_ELEMENTS = 1 << 22,
    /* Short-block mutations of views larger than this get a small block. */
    MAX_SHORT_BLOCK = 1 << 26,
    MAX_FAILURE_LINES = 25,
    MAX_CODES = 8,
    FILL_TILE_BYTES = 4096,
};

/* ------------------------------------------------------------ operators */

typedef enum { CONTENT_REAL, CONTENT_INDEX, CONTENT_MASK, CONTENT_STATS_MAX, CONTENT_STATS_SUM } content_kind;
typedef enum { FORMAT_ANY, FORMAT_ND_ONLY, FORMAT_NO_PRIVATE } format_rule;

/* One tensor argument as the operator's header documents it. */
typedef struct {
    const char *name;
    bool output;
    bool optional;                /* NULL is a valid value */
    aclDataType allowed[3];       /* dtypes the operator accepts */
    int allowed_count;
    int same_dtype_as;            /* index of the tensor whose dtype this one must equal, or -1 */
    content_kind content;         /* what the baseline data looks like */
} tensor_spec;

/* Where a tensor's data pointer points in a trial. */
typedef enum {
    MEM_OWN_BLOCK,   /* its own device block, FRONT_GUARD bytes in */
    MEM_NULL,
    MEM_HOST,        /* a malloc'd host buffer */
    MEM_SHORT_BLOCK, /* a device block shorter than the view */
    MEM_ALIAS,       /* the data pointer of another tensor (an output aliasing an input) */
} memory_kind;

typedef struct {
    bool present; /* false: the argument is NULL */
    int rank;
    int64_t shape[MAX_RANK];
    int64_t strides[MAX_RANK]; /* as the library sees them (contiguous ones when default_strides) */
    bool default_strides;      /* pass NULL, so that aclCreateTensor computes them */
    int64_t offset;
    aclDataType dtype;
    aclFormat format;
    int storage_rank;
    int64_t storage[MAX_RANK];
    memory_kind memory;
    int alias_of;     /* MEM_ALIAS: tensor index */
    uint64_t short_by; /* MEM_SHORT_BLOCK: bytes missing from the view's extent */
} tensor_desc;

typedef struct {
    int64_t mode;      /* RoPE */
    int64_t count;     /* MoE: numOutTokens (permute) or numTopk (grad) */
    bool padded_mode;  /* MoE */
    double scale;      /* Floyd */
    int64_t index_lo, index_hi; /* range of the values in index tensors */
    bool mask_all;     /* Floyd: every key masked */
} op_attrs;

struct op_spec;

typedef struct {
    const struct op_spec *op;
    int number;
    bool baseline;
    tensor_desc t[MAX_TENSORS];
    op_attrs attrs;
    bool null_workspace_size_out, null_executor_out;
    char what[1024]; /* the mutations, for failure reports */
} trial;

typedef aclnnStatus (*phase1_fn)(const trial *tr, aclTensor *const *t, uint64_t *workspace_size,
                                 aclOpExecutor **executor);
typedef aclnnStatus (*phase2_fn)(void *workspace, uint64_t workspace_size, aclOpExecutor *executor,
                                 aclrtStream stream);

typedef struct op_spec {
    const char *name;        /* the phase-2 API */
    const char *phase1_name; /* the phase-1 API */
    int tensor_count;
    const tensor_spec *tensors;
    format_rule formats;
    /* The tensor that must be ACL_BOOL when tensor 0 is ACL_FLOAT (Floyd
     * grad: CANN has no FLOAT kernel with a UINT8 mask), or -1. */
    int bool_when_float;
    aclnnStatus codes[4]; /* the phase-1 failure codes the header documents */
    int code_count;
    void (*make_baseline)(trial *tr);
    phase1_fn phase1;
    phase2_fn phase2;
    /* Whether phase 1 reads the tensor's memory description at all
     * (NULL: every tensor). A tensor it ignores may point anywhere. */
    bool (*memory_checked)(const trial *tr, aclTensor *const *t, int index);
    /* Whether phase 1 must succeed once the out-pointers are not NULL,
     * whatever the other arguments (RoPE forward with an empty out), or NULL. */
    bool (*short_circuit)(aclTensor *const *t);
    /* Mutates the attributes (NULL: the operator has none). */
    void (*mutate_attrs)(trial *tr);
    int trials;
    int baseline_run_every;   /* run the baseline's phase 2 on every n-th trial */
    int mutated_run_budget;   /* phase-2 runs of mutated calls per operator (-1: all) */
    /* Phase 1 refuses an output sharing bytes with an input or another
     * output (161002); Silu's pair accepts in-place calls. */
    bool outputs_separate;
    int repeat_trials;        /* repeatable-executor trials (each several launches) */
    int repeat_groups;        /* synchronizations per repeatable-executor trial */
} op_spec;

/* ------------------------------------------------------------ reporting */

typedef struct {
    int failures;
    int printed;
    int trials;
    int phase2_runs;
    int phase2_skipped;
    int mutated_runs;
    int repeat_launches;  /* launches of repeatable executors checked against a fresh single-use run */
    int repeat_refusals;  /* rebindings and launches of repeatable executors refused as they should be */
    aclnnStatus codes[MAX_CODES];
    int code_counts[MAX_CODES];
    int code_kinds;
} op_stats;

static op_stats *current_stats;

static void append(char *buf, size_t size, const char *fmt, ...)
{
    size_t used = strlen(buf);
    if (used + 1 >= size) {
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + used, size - used, fmt, ap);
    va_end(ap);
}

/* Counts a check; a failing one is printed with the trial that reproduces it. */
static bool expect(bool ok, const trial *tr, const char *fmt, ...)
{
    if (ok) {
        ++g_passed;
        return true;
    }
    ++g_failed;
    ++current_stats->failures;
    if (current_stats->printed++ < MAX_FAILURE_LINES) {
        printf("FAIL %s trial %d (%s): ", tr->op->name, tr->number, tr->baseline ? "baseline" : tr->what);
        va_list ap;
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf("\n");
    } else if (current_stats->printed == MAX_FAILURE_LINES + 1) {
        printf("FAIL %s: further failures not shown\n", tr->op->name);
    }
    fflush(stdout);
    return false;
}

static void count_code(aclnnStatus code)
{
    op_stats *s = current_stats;
    for (int i = 0; i < s->code_kinds; ++i) {
        if (s->codes[i] == code) {
            ++s->code_counts[i];
            return;
        }
    }
    if (s->code_kinds < MAX_CODES) {
        s->codes[s->code_kinds] = code;
        s->code_counts[s->code_kinds++] = 1;
    }
}

/* The message phase 1 or 2 left: non-empty and naming the API. */
static bool message_names(const char *message, const char *api)
{
    return message != NULL && message[0] != '\0' && strstr(message, api) != NULL;
}

/* ------------------------------------------------------------ random numbers */

static int64_t rnd_below(int64_t n) { return n > 0 ? (int64_t)(rnd64() % (uint64_t)n) : 0; }
static int64_t rnd_range(int64_t lo, int64_t hi) { return lo + rnd_below(hi - lo + 1); }
static bool rnd_chance(int one_in) { return rnd_below(one_in) == 0; }

static int64_t add_sat(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_add_overflow(a, b, &r) ? (b > 0 ? INT64_MAX : INT64_MIN) : r;
}
static int64_t mul_sat(int64_t a, int64_t b)
{
    int64_t r;
    return __builtin_mul_overflow(a, b, &r) ? ((a < 0) != (b < 0) ? INT64_MIN : INT64_MAX) : r;
}

/* ------------------------------------------------------------ descriptors */

static const aclDataType FLOAT_TYPES[3] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};

/* The strides aclCreateTensor computes when given NULL. */
static void contiguous_strides(tensor_desc *d)
{
    int64_t running = 1;
    for (int i = d->rank - 1; i >= 0; --i) {
        d->strides[i] = running;
        running = mul_sat(running, d->shape[i] > 0 ? d->shape[i] : 1);
    }
}

static bool desc_is_empty(const tensor_desc *d)
{
    for (int i = 0; i < d->rank; ++i) {
        if (d->shape[i] == 0) {
            return true;
        }
    }
    return false;
}

static int64_t desc_numel(const tensor_desc *d)
{
    int64_t n = 1;
    for (int i = 0; i < d->rank; ++i) {
        n = mul_sat(n, d->shape[i] > 0 ? d->shape[i] : 0);
    }
    return n;
}

/* Elements from the data pointer to the view's last element, plus one;
 * -1 when that overflows (the view cannot exist). Non-empty views only. */
static int64_t desc_span_elements(const tensor_desc *d)
{
    int64_t last = d->offset;
    for (int i = 0; i < d->rank; ++i) {
        int64_t reach;
        if (d->shape[i] <= 0 || d->strides[i] < 0 || __builtin_mul_overflow(d->shape[i] - 1, d->strides[i], &reach) ||
            __builtin_add_overflow(last, reach, &last)) {
            return -1;
        }
    }
    return last < 0 || last == INT64_MAX ? -1 : last + 1;
}

/* The view's bytes [*first, *first + *bytes) relative to the data pointer,
 * for a non-empty view; false when they cannot be represented. */
static bool desc_byte_range(const tensor_desc *d, uint64_t *first, uint64_t *bytes)
{
    uint64_t item = aclDataTypeSize(d->dtype);
    int64_t span = desc_span_elements(d);
    if (item == 0 || span < 0 || d->offset < 0) {
        return false;
    }
    uint64_t end;
    if (__builtin_mul_overflow((uint64_t)d->offset, item, first) ||
        __builtin_mul_overflow((uint64_t)span, item, &end)) {
        return false;
    }
    *bytes = end - *first;
    return true;
}

static void set_tensor(tensor_desc *d, int rank, const int64_t *shape, aclDataType dtype)
{
    memset(d, 0, sizeof *d);
    d->present = true;
    d->rank = rank;
    for (int i = 0; i < rank; ++i) {
        d->shape[i] = shape[i];
    }
    d->dtype = dtype;
    d->format = ACL_FORMAT_ND;
    d->default_strides = true;
    contiguous_strides(d);
    d->memory = MEM_OWN_BLOCK;
    d->alias_of = -1;
    d->storage_rank = 1;
    d->storage[0] = desc_numel(d);
}

/* The storage shape CANN callers pass: one dimension covering the view. */
static void set_storage_to_view(tensor_desc *d)
{
    int64_t span = desc_is_empty(d) ? 0 : desc_span_elements(d);
    d->storage_rank = 1;
    d->storage[0] = span > 0 ? span : 0;
}

typedef enum { LAYOUT_INPUT, LAYOUT_OUTPUT, LAYOUT_DENSE } layout_kind;

/* A random layout the operators accept: contiguous (NULL or explicit
 * strides), dimensions permuted (a transposed view), padded rows, or for
 * inputs a broadcast (stride 0) dimension; plus a small offset. Outputs
 * never overlap; LAYOUT_DENSE stays row-major contiguous. */
static void random_layout(tensor_desc *d, layout_kind kind)
{
    int variant = kind == LAYOUT_DENSE ? (int)rnd_below(2) : (int)rnd_below(kind == LAYOUT_INPUT ? 6 : 5);
    if (variant == 0 || d->rank == 0) {
        d->default_strides = true;
        contiguous_strides(d);
    } else if (variant == 1 || variant == 2) {
        d->default_strides = false;
        contiguous_strides(d);
    } else if (variant == 3) { /* permuted: dense in another dimension order */
        int order[MAX_RANK];
        for (int i = 0; i < d->rank; ++i) {
            order[i] = i;
        }
        for (int i = d->rank - 1; i > 0; --i) {
            int j = (int)rnd_below(i + 1), tmp = order[i];
            order[i] = order[j];
            order[j] = tmp;
        }
        int64_t running = 1;
        for (int i = d->rank - 1; i >= 0; --i) {
            d->strides[order[i]] = running;
            running *= d->shape[order[i]] > 0 ? d->shape[order[i]] : 1;
        }
        d->default_strides = false;
    } else if (variant == 4) { /* padded: gaps between rows and elements */
        int64_t running = 1 + rnd_below(2);
        for (int i = d->rank - 1; i >= 0; --i) {
            d->strides[i] = running;
            running = running * (d->shape[i] > 0 ? d->shape[i] : 1) + rnd_below(3);
        }
        d->default_strides = false;
    } else { /* an input read with one broadcast dimension */
        contiguous_strides(d);
        d->strides[rnd_below(d->rank)] = 0;
        d->default_strides = false;
    }
    d->offset = rnd_chance(2) ? 0 : rnd_range(1, 7);
    set_storage_to_view(d);
}

/* ------------------------------------------------------------ baselines */

enum { SILU_SELF, SILU_OUT };
static const tensor_spec SILU_TENSORS[] = {
    {"self", false, false, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, 3, -1, CONTENT_REAL},
    {"out", true, false, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, 3, SILU_SELF, CONTENT_REAL},
};

enum { SB_GRAD_OUTPUT, SB_SELF, SB_GRAD_INPUT };
static const tensor_spec SILU_BACKWARD_TENSORS[] = {
    {"gradOutput", false, false, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, 3, SB_GRAD_INPUT, CONTENT_REAL},
    {"self", false, false, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, 3, SB_GRAD_INPUT, CONTENT_REAL},
    {"gradInput", true, false, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, 3, -1, CONTENT_REAL},
};

/* A random shape of the given rank with at most `max_elements` elements. */
static void random_shape(int rank, int64_t max_dim, int64_t max_elements, int64_t *shape)
{
    int64_t total = 1;
    for (int i = 0; i < rank; ++i) {
        shape[i] = rnd_range(1, max_dim);
        if (total * shape[i] > max_elements) {
            shape[i] = 1;
        }
        total *= shape[i];
    }
}

static void silu_baseline(trial *tr)
{
    int64_t shape[8];
    int rank = (int)rnd_below(9);
    random_shape(rank, 5, 300, shape);
    aclDataType dtype = FLOAT_TYPES[rnd_below(3)];
    set_tensor(&tr->t[SILU_SELF], rank, shape, dtype);
    set_tensor(&tr->t[SILU_OUT], rank, shape, dtype);
    random_layout(&tr->t[SILU_SELF], LAYOUT_INPUT);
    random_layout(&tr->t[SILU_OUT], LAYOUT_OUTPUT);
}

static void silu_backward_baseline(trial *tr)
{
    int64_t shape[8];
    int rank = (int)rnd_below(9);
    random_shape(rank, 5, 300, shape);
    aclDataType dtype = FLOAT_TYPES[rnd_below(3)];
    for (int i = 0; i < 3; ++i) {
        set_tensor(&tr->t[i], rank, shape, dtype);
        random_layout(&tr->t[i], i == SB_GRAD_INPUT ? LAYOUT_OUTPUT : LAYOUT_INPUT);
    }
}

/* RoPE layouts of dy/x and the broadcast forms of cos the A2/A3 tiling
 * accepts (tests/test_rotary_position_embedding.py): the leading axes of
 * cos that are 1. Half mode takes every form, interleave mode the first of
 * each layout. */
typedef struct {
    const char *name;
    int layout; /* 0 BNSD, 1 BSND, 2 SBND, 3 TND */
    bool ones[3];
    bool interleave;
} rope_form;

static const rope_form ROPE_FORMS[] = {
    {"BNSD/11SD", 0, {true, true, false}, true},  {"BNSD/B1SD", 0, {false, true, false}, false},
    {"BNSD/BNSD", 0, {false, false, false}, false}, {"BSND/1S1D", 1, {true, false, true}, true},
    {"BSND/BS1D", 1, {false, false, true}, false}, {"BSND/BSND", 1, {false, false, false}, false},
    {"SBND/S11D", 2, {false, true, true}, true},  {"SBND/SB1D", 2, {false, false, true}, false},
    {"SBND/SBND", 2, {false, false, false}, false}, {"TND/T1D", 3, {false, true, false}, true},
    {"TND/TND", 3, {false, false, false}, false},
};

/* dy (or x) and cos shapes of a random form; returns the rank. B >= 2 and
 * S, N > B meet every form's condition (B != 1, B < S, B < N). */
static int rope_shapes(trial *tr, int64_t *main_shape, int64_t *cos_shape)
{
    tr->attrs.mode = rnd_below(2);
    const rope_form *form;
    do {
        form = &ROPE_FORMS[rnd_below((int64_t)(sizeof ROPE_FORMS / sizeof ROPE_FORMS[0]))];
    } while (tr->attrs.mode == 1 && !form->interleave);
    int64_t b = rnd_range(2, 3), s = b + rnd_range(1, 2), n = b + rnd_range(1, 2), t = rnd_range(1, 6);
    int64_t d = 2 * rnd_range(1, 16);
    int64_t lead[3];
    int rank = 4;
    switch (form->layout) {
    case 0: lead[0] = b, lead[1] = n, lead[2] = s; break;
    case 1: lead[0] = b, lead[1] = s, lead[2] = n; break;
    case 2: lead[0] = s, lead[1] = b, lead[2] = n; break;
    default: lead[0] = t, lead[1] = n, rank = 3; break;
    }
    for (int i = 0; i < rank - 1; ++i) {
        main_shape[i] = lead[i];
        cos_shape[i] = form->ones[i] ? 1 : lead[i];
    }
    main_shape[rank - 1] = cos_shape[rank - 1] = d;
    return rank;
}

enum { ROPE_X, ROPE_COS, ROPE_SIN, ROPE_OUT };
static const tensor_spec ROPE_TENSORS[] = {
    {"x", false, false, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, 3, -1, CONTENT_REAL},
    {"cos", false, false, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, 3, ROPE_X, CONTENT_REAL},
    {"sin", false, false, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, 3, ROPE_X, CONTENT_REAL},
    {"out", true, false, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, 3, ROPE_X, CONTENT_REAL},
};

/* The forward's and the gradient's shared first three tensors (x or dy,
 * cos, sin) in slots 0-2, any layout; returns the rank, fills the shapes
 * and the dtype for the rest. */
static int rope_inputs(trial *tr, int64_t main_shape[4], int64_t cos_shape[4], aclDataType *dtype)
{
    int rank = rope_shapes(tr, main_shape, cos_shape);
    *dtype = FLOAT_TYPES[rnd_below(3)];
    set_tensor(&tr->t[0], rank, main_shape, *dtype);
    set_tensor(&tr->t[1], rank, cos_shape, *dtype);
    set_tensor(&tr->t[2], rank, cos_shape, *dtype);
    for (int i = 0; i < 3; ++i) {
        random_layout(&tr->t[i], LAYOUT_INPUT);
    }
    return rank;
}

static void rope_baseline(trial *tr)
{
    int64_t main_shape[4], cos_shape[4];
    aclDataType dtype;
    int rank = rope_inputs(tr, main_shape, cos_shape, &dtype);
    set_tensor(&tr->t[ROPE_OUT], rank, main_shape, dtype);
    random_layout(&tr->t[ROPE_OUT], LAYOUT_DENSE); /* RoPE writes its outputs densely */
}

enum { RG_DY, RG_COS, RG_SIN, RG_X, RG_DX, RG_DCOS, RG_DSIN };
static const tensor_spec ROPE_GRAD_TENSORS[] = {
    {"dy", false, false, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, 3, -1, CONTENT_REAL},
    {"cos", false, false, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, 3, RG_DY, CONTENT_REAL},
    {"sin", false, false, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, 3, RG_DY, CONTENT_REAL},
    {"xOptional", false, true, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, 3, RG_DY, CONTENT_REAL},
    {"dxOut", true, false, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, 3, RG_DY, CONTENT_REAL},
    {"dcosOut", true, false, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, 3, RG_DY, CONTENT_REAL},
    {"dsinOut", true, false, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, 3, RG_DY, CONTENT_REAL},
};

static void rope_grad_baseline(trial *tr)
{
    int64_t main_shape[4], cos_shape[4];
    aclDataType dtype;
    int rank = rope_inputs(tr, main_shape, cos_shape, &dtype);
    set_tensor(&tr->t[RG_X], rank, main_shape, dtype);
    set_tensor(&tr->t[RG_DX], rank, main_shape, dtype);
    set_tensor(&tr->t[RG_DCOS], rank, cos_shape, dtype);
    set_tensor(&tr->t[RG_DSIN], rank, cos_shape, dtype);
    random_layout(&tr->t[RG_X], LAYOUT_INPUT);
    for (int i = RG_DX; i <= RG_DSIN; ++i) {
        random_layout(&tr->t[i], LAYOUT_DENSE);
    }
    if (rnd_chance(3)) {
        /* dx only. dcosOut/dsinOut are then "not checked beyond the NULL,
         * dtype and format checks and never written" (the header): as CANN's
         * sample passes them (empty, NULL data), in device memory, or
         * anywhere else (host memory). */
        tr->t[RG_X].present = false;
        int64_t form = rnd_below(3);
        for (int i = RG_DCOS; i <= RG_DSIN && form != 1; ++i) {
            static const int64_t empty[4] = {1, 1, 1, 0};
            if (form == 0) {
                set_tensor(&tr->t[i], 4, empty, dtype);
                tr->t[i].memory = MEM_NULL;
            } else {
                tr->t[i].memory = MEM_HOST;
            }
        }
    }
}

enum { MP_TOKENS, MP_INDICES, MP_PERMUTED, MP_SORTED };
static const tensor_spec MOE_PERMUTE_TENSORS[] = {
    {"tokens", false, false, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, 3, -1, CONTENT_REAL},
    {"indices", false, false, {ACL_INT32, ACL_INT64}, 2, -1, CONTENT_INDEX},
    {"permuteTokensOut", true, false, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, 3, MP_TOKENS, CONTENT_REAL},
    {"sortedIndicesOut", true, false, {ACL_INT32}, 1, -1, CONTENT_INDEX},
};

static void moe_permute_baseline(trial *tr)
{
    int64_t tokens = rnd_range(1, 8), topk = rnd_range(1, 4), slots = tokens * topk;
    int row_rank = (int)rnd_range(1, 2);
    int64_t row[2] = {rnd_range(1, 9), rnd_range(1, 4)};
    int64_t numOutTokens;
    switch (rnd_below(3)) {
    case 0: numOutTokens = 0; break;
    case 1: numOutTokens = rnd_range(1, slots + 2); break;
    default: numOutTokens = -rnd_range(1, slots + 1); break;
    }
    int64_t kept = numOutTokens > 0 ? numOutTokens : numOutTokens + slots;
    kept = kept < 0 ? 0 : kept > slots ? slots : kept;
    tr->attrs.count = numOutTokens;
    tr->attrs.index_lo = -3;
    tr->attrs.index_hi = 9;
    aclDataType dtype = FLOAT_TYPES[rnd_below(3)];
    int64_t shape[3] = {tokens, row[0], row[1]};
    set_tensor(&tr->t[MP_TOKENS], 1 + row_rank, shape, dtype);
    int64_t ids[2] = {tokens, topk};
    set_tensor(&tr->t[MP_INDICES], topk == 1 && rnd_chance(2) ? 1 : 2, ids, rnd_chance(2) ? ACL_INT32 : ACL_INT64);
    shape[0] = kept;
    set_tensor(&tr->t[MP_PERMUTED], 1 + row_rank, shape, dtype);
    set_tensor(&tr->t[MP_SORTED], 1, &slots, ACL_INT32);
    random_layout(&tr->t[MP_TOKENS], LAYOUT_INPUT);
    random_layout(&tr->t[MP_INDICES], LAYOUT_INPUT);
    random_layout(&tr->t[MP_PERMUTED], LAYOUT_OUTPUT);
    random_layout(&tr->t[MP_SORTED], LAYOUT_OUTPUT);
}

enum { MG_GRAD, MG_INDICES, MG_OUT };
static const tensor_spec MOE_GRAD_TENSORS[] = {
    {"permutedOutputGrad", false, false, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, 3, -1, CONTENT_REAL},
    {"sortedIndices", false, false, {ACL_INT32}, 1, -1, CONTENT_INDEX},
    {"out", true, false, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, 3, MG_GRAD, CONTENT_REAL},
};

static void moe_grad_baseline(trial *tr)
{
    int64_t tokens = rnd_range(1, 8), topk = rnd_range(1, 4), slots = tokens * topk;
    int64_t rows = rnd_below(slots + 3), width = rnd_range(1, 40);
    tr->attrs.count = topk;
    tr->attrs.index_lo = -2;
    tr->attrs.index_hi = rows + 2; /* out-of-range indices are skipped */
    aclDataType dtype = FLOAT_TYPES[rnd_below(3)];
    int64_t grad[2] = {rows, width}, out[2] = {tokens, width};
    set_tensor(&tr->t[MG_GRAD], 2, grad, dtype);
    set_tensor(&tr->t[MG_INDICES], 1, &slots, ACL_INT32);
    set_tensor(&tr->t[MG_OUT], 2, out, dtype);
    random_layout(&tr->t[MG_GRAD], LAYOUT_INPUT);
    random_layout(&tr->t[MG_INDICES], LAYOUT_INPUT);
    random_layout(&tr->t[MG_OUT], LAYOUT_OUTPUT);
}

/* Floyd attention: the smallest shapes the tiling accepts. */
enum { FLOYD_B = 1, FLOYD_H = 1, FLOYD_N = 16, FLOYD_M = 128, FLOYD_K = 128, FLOYD_D = 32 };
static const int64_t FLOYD_QUERY[5] = {FLOYD_B, FLOYD_H, FLOYD_N, FLOYD_M, FLOYD_D};
static const int64_t FLOYD_KEY1[5] = {FLOYD_B, FLOYD_H, FLOYD_N, FLOYD_K, FLOYD_D};
static const int64_t FLOYD_KEY2[5] = {FLOYD_B, FLOYD_H, FLOYD_K, FLOYD_M, FLOYD_D};
static const int64_t FLOYD_STATS[5] = {FLOYD_B, FLOYD_H, FLOYD_N, FLOYD_M, 8};
static const int64_t FLOYD_SHARED_MASK[5] = {FLOYD_B, 1, FLOYD_N, 1, FLOYD_K};
static const int64_t FLOYD_FULL_MASK[5] = {FLOYD_B, FLOYD_H, FLOYD_N, FLOYD_M, FLOYD_K};

/* Floyd tensors are large for a fuzzer: mostly contiguous, sometimes transposed or padded. */
static void floyd_layout(tensor_desc *d, bool output)
{
    if (rnd_chance(4)) {
        random_layout(d, output ? LAYOUT_OUTPUT : LAYOUT_INPUT);
    } else {
        d->default_strides = rnd_chance(2);
        contiguous_strides(d);
        d->offset = rnd_chance(2) ? 0 : rnd_range(1, 3);
        set_storage_to_view(d);
    }
}

#define FLOYD_FLOAT(name, output) {name, output, false, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, 3, 0, CONTENT_REAL}
#define FLOYD_STATS_SPEC(name, output, content) {name, output, false, {ACL_FLOAT}, 1, -1, content}
#define FLOYD_MASK_SPEC {"attenMaskOptional", false, true, {ACL_BOOL, ACL_UINT8}, 2, -1, CONTENT_MASK}

enum { FF_QUERY, FF_KEY1, FF_VALUE1, FF_KEY2, FF_VALUE2, FF_MASK, FF_MAX, FF_SUM, FF_OUT };
static const tensor_spec FLOYD_TENSORS[] = {
    {"query", false, false, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, 3, -1, CONTENT_REAL},
    FLOYD_FLOAT("key1", false), FLOYD_FLOAT("value1", false), FLOYD_FLOAT("key2", false),
    FLOYD_FLOAT("value2", false), FLOYD_MASK_SPEC,
    FLOYD_STATS_SPEC("softmaxMaxOut", true, CONTENT_STATS_MAX), FLOYD_STATS_SPEC("softmaxSumOut", true, CONTENT_STATS_SUM),
    FLOYD_FLOAT("attentionOutOut", true),
};

static void floyd_baseline(trial *tr)
{
    aclDataType dtype = FLOAT_TYPES[rnd_below(3)];
    set_tensor(&tr->t[FF_QUERY], 5, FLOYD_QUERY, dtype);
    set_tensor(&tr->t[FF_KEY1], 5, FLOYD_KEY1, dtype);
    set_tensor(&tr->t[FF_VALUE1], 5, FLOYD_KEY1, dtype);
    set_tensor(&tr->t[FF_KEY2], 5, FLOYD_KEY2, dtype);
    set_tensor(&tr->t[FF_VALUE2], 5, FLOYD_KEY2, dtype);
    int mask_form = (int)rnd_below(3); /* none, [B,1,N,1,K] or [B,H,N,M,K] */
    set_tensor(&tr->t[FF_MASK], 5, mask_form == 2 ? FLOYD_FULL_MASK : FLOYD_SHARED_MASK,
               rnd_chance(2) ? ACL_BOOL : ACL_UINT8);
    tr->t[FF_MASK].present = mask_form != 0;
    set_tensor(&tr->t[FF_MAX], 5, FLOYD_STATS, ACL_FLOAT);
    set_tensor(&tr->t[FF_SUM], 5, FLOYD_STATS, ACL_FLOAT);
    set_tensor(&tr->t[FF_OUT], 5, FLOYD_QUERY, dtype);
    for (int i = FF_QUERY; i <= FF_OUT; ++i) {
        floyd_layout(&tr->t[i], FLOYD_TENSORS[i].output);
    }
    tr->attrs.scale = (0.5 + (double)rnd_below(1000) / 1000.0) / sqrt((double)FLOYD_D);
}

enum { FG_QUERY, FG_KEY1, FG_VALUE1, FG_KEY2, FG_VALUE2, FG_DY, FG_MASK, FG_MAX, FG_SUM, FG_ATTENTION,
       FG_DQ, FG_DK1, FG_DV1, FG_DK2, FG_DV2 };
static const tensor_spec FLOYD_GRAD_TENSORS[] = {
    {"query", false, false, {ACL_FLOAT, ACL_FLOAT16, ACL_BF16}, 3, -1, CONTENT_REAL},
    FLOYD_FLOAT("key1", false), FLOYD_FLOAT("value1", false), FLOYD_FLOAT("key2", false),
    FLOYD_FLOAT("value2", false), FLOYD_FLOAT("dy", false), FLOYD_MASK_SPEC,
    FLOYD_STATS_SPEC("softmaxMax", false, CONTENT_STATS_MAX), FLOYD_STATS_SPEC("softmaxSum", false, CONTENT_STATS_SUM),
    FLOYD_FLOAT("attentionIn", false), FLOYD_FLOAT("dqOut", true), FLOYD_FLOAT("dk1Out", true),
    FLOYD_FLOAT("dv1Out", true), FLOYD_FLOAT("dk2Out", true), FLOYD_FLOAT("dv2Out", true),
};

static void floyd_grad_baseline(trial *tr)
{
    aclDataType dtype = FLOAT_TYPES[rnd_below(3)];
    static const int SHAPE_OF[] = {0, 1, 1, 2, 2, 0, -1, 3, 3, 0, 0, 1, 1, 2, 2};
    const int64_t *shapes[4] = {FLOYD_QUERY, FLOYD_KEY1, FLOYD_KEY2, FLOYD_STATS};
    for (int i = FG_QUERY; i <= FG_DV2; ++i) {
        if (i == FG_MASK) {
            /* BOOL, or UINT8 unless the tensors are FLOAT (no such kernel). */
            bool uint8 = dtype != ACL_FLOAT && rnd_chance(2);
            set_tensor(&tr->t[i], 5, FLOYD_SHARED_MASK, uint8 ? ACL_UINT8 : ACL_BOOL);
            tr->t[i].present = rnd_chance(2);
        } else {
            set_tensor(&tr->t[i], 5, shapes[SHAPE_OF[i]], i == FG_MAX || i == FG_SUM ? ACL_FLOAT : dtype);
        }
        floyd_layout(&tr->t[i], FLOYD_GRAD_TENSORS[i].output);
    }
    tr->attrs.scale = (0.5 + (double)rnd_below(1000) / 1000.0) / sqrt((double)FLOYD_D);
}

/* ------------------------------------------------------------ phase 1 wrappers */

static aclnnStatus silu_phase1(const trial *tr, aclTensor *const *t, uint64_t *ws, aclOpExecutor **ex)
{
    (void)tr;
    return aclnnSiluGetWorkspaceSize(t[0], t[1], ws, ex);
}

static aclnnStatus silu_backward_phase1(const trial *tr, aclTensor *const *t, uint64_t *ws, aclOpExecutor **ex)
{
    (void)tr;
    return aclnnSiluBackwardGetWorkspaceSize(t[0], t[1], t[2], ws, ex);
}

static aclnnStatus rope_phase1(const trial *tr, aclTensor *const *t, uint64_t *ws, aclOpExecutor **ex)
{
    return aclnnRotaryPositionEmbeddingGetWorkspaceSize(t[0], t[1], t[2], tr->attrs.mode, t[3], ws, ex);
}

static aclnnStatus rope_grad_phase1(const trial *tr, aclTensor *const *t, uint64_t *ws, aclOpExecutor **ex)
{
    return aclnnRotaryPositionEmbeddingGradGetWorkspaceSize(t[0], t[1], t[2], t[3], tr->attrs.mode, t[4], t[5], t[6],
                                                            ws, ex);
}

static aclnnStatus moe_permute_phase1(const trial *tr, aclTensor *const *t, uint64_t *ws, aclOpExecutor **ex)
{
    return aclnnMoeTokenPermuteGetWorkspaceSize(t[0], t[1], tr->attrs.count, tr->attrs.padded_mode, t[2], t[3], ws,
                                                ex);
}

static aclnnStatus moe_grad_phase1(const trial *tr, aclTensor *const *t, uint64_t *ws, aclOpExecutor **ex)
{
    return aclnnMoeTokenPermuteGradGetWorkspaceSize(t[0], t[1], tr->attrs.count, tr->attrs.padded_mode, t[2], ws,
                                                    ex);
}

static aclnnStatus floyd_phase1(const trial *tr, aclTensor *const *t, uint64_t *ws, aclOpExecutor **ex)
{
    return aclnnFusedFloydAttentionGetWorkspaceSize(t[0], t[1], t[2], t[3], t[4], t[5], tr->attrs.scale, t[6], t[7],
                                                    t[8], ws, ex);
}

static aclnnStatus floyd_grad_phase1(const trial *tr, aclTensor *const *t, uint64_t *ws, aclOpExecutor **ex)
{
    return aclnnFusedFloydAttentionGradGetWorkspaceSize(t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9],
                                                        tr->attrs.scale, t[10], t[11], t[12], t[13], t[14], ws, ex);
}

/* ------------------------------------------------------------ operator rules */

static bool tensor_is_empty(const aclTensor *t, const tensor_desc *d) { return t != NULL && desc_is_empty(d); }

/* RoPE forward: an empty out succeeds before any other check, reading nothing. */
static bool rope_short_circuit(aclTensor *const *t)
{
    if (t[ROPE_OUT] == NULL) {
        return false;
    }
    int64_t *dims = NULL;
    uint64_t rank = 0;
    bool empty = false;
    if (aclGetViewShape(t[ROPE_OUT], &dims, &rank) == ACLNN_SUCCESS) {
        for (uint64_t i = 0; i < rank; ++i) {
            empty = empty || dims[i] == 0;
        }
    }
    aclnnEmuFreeArray(dims);
    return empty;
}

static bool rope_memory_checked(const trial *tr, aclTensor *const *t, int index)
{
    return !tensor_is_empty(t[ROPE_OUT], &tr->t[ROPE_OUT]) || index == ROPE_OUT;
}

/* Without xOptional, dcosOut and dsinOut are neither checked nor written. */
static bool rope_grad_memory_checked(const trial *tr, aclTensor *const *t, int index)
{
    (void)tr;
    return t[RG_X] != NULL || (index != RG_DCOS && index != RG_DSIN);
}

/* ------------------------------------------------------------ attribute mutations */

static void rope_mutate_attrs(trial *tr)
{
    static const int64_t MODES[] = {-1, 0, 1, 2, 3, 4, 5, INT64_MIN, INT64_MAX};
    int64_t was = tr->attrs.mode;
    tr->attrs.mode = MODES[rnd_below(9)];
    append(tr->what, sizeof tr->what, "; mode %lld (was %lld)", (long long)tr->attrs.mode, (long long)was);
}

/* Index values far outside every valid range (read in phase 2 only). */
static void extreme_indices(trial *tr, int64_t lo, int64_t hi)
{
    tr->attrs.index_lo = lo;
    tr->attrs.index_hi = hi;
    append(tr->what, sizeof tr->what, "; index values in [%lld, %lld]", (long long)lo, (long long)hi);
}

/* Padded mode, extreme index values in [index_lo, index_hi], or the count
 * attribute (`label`) set to one of `choices`: the MoE pair's attribute
 * mutations. */
static void moe_mutate_attrs(trial *tr, int64_t index_lo, int64_t index_hi, const int64_t *choices, int64_t count,
                             const char *label, int64_t was)
{
    switch (rnd_below(4)) {
    case 0:
        tr->attrs.padded_mode = true;
        append(tr->what, sizeof tr->what, "; paddedMode true");
        break;
    case 1:
        extreme_indices(tr, index_lo, index_hi);
        break;
    default:
        tr->attrs.count = choices[rnd_below(count)];
        append(tr->what, sizeof tr->what, "; %s %lld (was %lld)", label, (long long)tr->attrs.count, (long long)was);
        break;
    }
}

static void moe_permute_mutate_attrs(trial *tr)
{
    int64_t slots = desc_numel(&tr->t[MP_SORTED]); /* T * topK, unless a mutation changed it */
    slots = slots < (INT64_C(1) << 20) ? slots : INT64_C(1) << 20;
    const int64_t choices[] = {0, 1, slots - 1, slots, slots + 1, -1, -slots, -slots - 1, INT64_MIN, INT64_MAX,
                               rnd_range(-3 * slots, 3 * slots)};
    moe_mutate_attrs(tr, INT64_MIN, INT64_MAX, choices, 11, "numOutTokens", tr->attrs.count);
}

static void moe_grad_mutate_attrs(trial *tr)
{
    int64_t was = tr->attrs.count;
    const int64_t choices[] = {-1, 0, 1, add_sat(was, -1), add_sat(was, 1), mul_sat(was, 2), 513, INT64_MIN,
                               INT64_MAX, INT64_C(1) << 40};
    moe_mutate_attrs(tr, INT32_MIN, INT32_MAX, choices, 10, "numTopk", was);
}

static void floyd_mutate_attrs(trial *tr)
{
    if (rnd_chance(4)) {
        tr->attrs.mask_all = true;
        append(tr->what, sizeof tr->what, "; every key masked");
        return;
    }
    const double choices[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, -1.0, DBL_MAX, 4.9e-324, 1e300, -1e-300};
    tr->attrs.scale = choices[rnd_below(10)];
    append(tr->what, sizeof tr->what, "; scaleValue %g", tr->attrs.scale);
}

/* ------------------------------------------------------------ the operator table */

#define SPEC_COUNT(array) ((int)(sizeof array / sizeof array[0]))
static const op_spec OPS[] = {
    {"aclnnSilu", "aclnnSiluGetWorkspaceSize", SPEC_COUNT(SILU_TENSORS), SILU_TENSORS, FORMAT_ANY, -1,
     {ACLNN_ERR_PARAM_NULLPTR, ACLNN_ERR_PARAM_INVALID}, 2, silu_baseline, silu_phase1, aclnnSilu, NULL, NULL, NULL,
     400, 1, -1, false, 40, 2},
    {"aclnnSiluBackward", "aclnnSiluBackwardGetWorkspaceSize", SPEC_COUNT(SILU_BACKWARD_TENSORS),
     SILU_BACKWARD_TENSORS, FORMAT_ANY, -1, {ACLNN_ERR_PARAM_NULLPTR, ACLNN_ERR_PARAM_INVALID}, 2,
     silu_backward_baseline, silu_backward_phase1, aclnnSiluBackward, NULL, NULL, NULL, 400, 1, -1, false, 40, 2},
    {"aclnnRotaryPositionEmbedding", "aclnnRotaryPositionEmbeddingGetWorkspaceSize", SPEC_COUNT(ROPE_TENSORS),
     ROPE_TENSORS, FORMAT_ND_ONLY, -1,
     {ACLNN_ERR_PARAM_NULLPTR, ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_INNER_TILING_ERROR}, 3, rope_baseline, rope_phase1,
     aclnnRotaryPositionEmbedding, rope_memory_checked, rope_short_circuit, rope_mutate_attrs, 400, 1, -1, true, 40,
     2},
    {"aclnnRotaryPositionEmbeddingGrad", "aclnnRotaryPositionEmbeddingGradGetWorkspaceSize",
     SPEC_COUNT(ROPE_GRAD_TENSORS), ROPE_GRAD_TENSORS, FORMAT_ND_ONLY, -1,
     {ACLNN_ERR_PARAM_NULLPTR, ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_INNER_TILING_ERROR}, 3, rope_grad_baseline,
     rope_grad_phase1, aclnnRotaryPositionEmbeddingGrad, rope_grad_memory_checked, NULL, rope_mutate_attrs, 400, 1,
     -1, true, 40, 2},
    {"aclnnMoeTokenPermute", "aclnnMoeTokenPermuteGetWorkspaceSize", SPEC_COUNT(MOE_PERMUTE_TENSORS),
     MOE_PERMUTE_TENSORS, FORMAT_ANY, -1,
     {ACLNN_ERR_PARAM_NULLPTR, ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_INNER_TILING_ERROR}, 3, moe_permute_baseline,
     moe_permute_phase1, aclnnMoeTokenPermute, NULL, NULL, moe_permute_mutate_attrs, 400, 1, -1, true, 40, 2},
    {"aclnnMoeTokenPermuteGrad", "aclnnMoeTokenPermuteGradGetWorkspaceSize", SPEC_COUNT(MOE_GRAD_TENSORS),
     MOE_GRAD_TENSORS, FORMAT_ANY, -1,
     {ACLNN_ERR_PARAM_NULLPTR, ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_INNER_TILING_ERROR}, 3, moe_grad_baseline,
     moe_grad_phase1, aclnnMoeTokenPermuteGrad, NULL, NULL, moe_grad_mutate_attrs, 400, 1, -1, true, 40, 2},
    /* Floyd runs cost ~0.1 s under ASan: phase 1 on every trial, phase 2 on a sample. */
    {"aclnnFusedFloydAttention", "aclnnFusedFloydAttentionGetWorkspaceSize", SPEC_COUNT(FLOYD_TENSORS),
     FLOYD_TENSORS, FORMAT_NO_PRIVATE, -1,
     {ACLNN_ERR_PARAM_NULLPTR, ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_INNER_TILING_ERROR}, 3, floyd_baseline,
     floyd_phase1, aclnnFusedFloydAttention, NULL, NULL, floyd_mutate_attrs, 300, 50, 14, true, 2, 1},
    {"aclnnFusedFloydAttentionGrad", "aclnnFusedFloydAttentionGradGetWorkspaceSize",
     SPEC_COUNT(FLOYD_GRAD_TENSORS), FLOYD_GRAD_TENSORS, FORMAT_NO_PRIVATE, FG_MASK,
     {ACLNN_ERR_PARAM_NULLPTR, ACLNN_ERR_PARAM_INVALID, ACLNN_ERR_INNER_TILING_ERROR}, 3, floyd_grad_baseline,
     floyd_grad_phase1, aclnnFusedFloydAttentionGrad, NULL, NULL, floyd_mutate_attrs, 300, 50, 14, true, 2, 1},
};
enum { OP_COUNT = (int)(sizeof OPS / sizeof OPS[0]) };

/* ------------------------------------------------------------ tensor mutations */

static const aclDataType ANY_DTYPES[] = {
    ACL_FLOAT,   ACL_FLOAT16,     ACL_BF16,          ACL_INT8,          ACL_INT32,    ACL_UINT8,
    ACL_INT16,   ACL_UINT16,      ACL_UINT32,        ACL_INT64,         ACL_UINT64,   ACL_DOUBLE,
    ACL_BOOL,    ACL_STRING,      ACL_COMPLEX64,     ACL_COMPLEX128,    ACL_INT4,     ACL_UINT1,
    ACL_COMPLEX32, ACL_HIFLOAT8,  ACL_FLOAT8_E5M2,   ACL_FLOAT4_E2M1,   ACL_DT_UNDEFINED,
    (aclDataType)5, (aclDataType)999,
};
static const aclFormat ANY_FORMATS[] = {
    ACL_FORMAT_NCHW,       ACL_FORMAT_NHWC,    ACL_FORMAT_ND,          ACL_FORMAT_NC1HWC0, ACL_FORMAT_FRACTAL_Z,
    ACL_FORMAT_NC1HWC0_C04, ACL_FORMAT_HWCN,   ACL_FORMAT_NDHWC,       ACL_FORMAT_FRACTAL_NZ, ACL_FORMAT_NCDHW,
    ACL_FORMAT_NDC1HWC0,   ACL_FRACTAL_Z_3D,   ACL_FORMAT_NC,          ACL_FORMAT_NCL,     ACL_FORMAT_FRACTAL_NZ_C0_16,
    ACL_FORMAT_FRACTAL_NZ_C0_8, ACL_FORMAT_UNDEFINED, (aclFormat)999,
};
#define PICK(array) (array[rnd_below((int64_t)(sizeof array / sizeof array[0]))])

static bool is_private_format(aclFormat f)
{
    switch (f) {
    case ACL_FORMAT_NC1HWC0: case ACL_FORMAT_FRACTAL_Z: case ACL_FORMAT_NC1HWC0_C04: case ACL_FORMAT_FRACTAL_NZ:
    case ACL_FORMAT_NDC1HWC0: case ACL_FORMAT_FRACTAL_NZ_C0_16: case ACL_FORMAT_FRACTAL_NZ_C0_32:
    case ACL_FORMAT_FRACTAL_NZ_C0_2: case ACL_FORMAT_FRACTAL_NZ_C0_4: case ACL_FORMAT_FRACTAL_NZ_C0_8:
        return true;
    default:
        return false;
    }
}

/* A dimension value: the edges (0, 1, +-1, x2), huge, or negative. */
static int64_t mutated_dim(int64_t was)
{
    switch (rnd_below(9)) {
    case 0: return 0;
    case 1: return 1;
    case 2: return add_sat(was, 1);
    case 3: return was > INT64_MIN ? was - 1 : was;
    case 4: return mul_sat(was, 2);
    case 5: return INT64_C(1) << 40;
    case 6: return -1;
    case 7: return INT64_MAX;
    default: return rnd_range(2, 9);
    }
}

static void mutate_rank(tensor_desc *d, const char *name, char *what, size_t size)
{
    int was = d->rank;
    int rank = rnd_chance(16) ? 33 : (int)rnd_below(10);
    bool at_front = rnd_chance(2); /* add or drop leading rather than trailing dimensions */
    int64_t shape[MAX_RANK];
    for (int i = 0; i < rank; ++i) {
        int from = at_front ? i - (rank - was) : i; /* the old dimension kept at i, if any */
        shape[i] = from >= 0 && from < was ? d->shape[from] : rnd_range(1, 3);
    }
    memcpy(d->shape, shape, sizeof shape);
    d->rank = rank;
    contiguous_strides(d);
    append(what, size, "; %s rank %d (was %d)", name, rank, was);
}

static void mutate_strides(tensor_desc *d, const char *name, char *what, size_t size)
{
    if (d->rank == 0) {
        d->offset = add_sat(d->offset, 1);
        append(what, size, "; %s offset +1 (rank 0: no strides)", name);
        return;
    }
    int dim = (int)rnd_below(d->rank);
    int64_t was = d->strides[dim];
    d->default_strides = false;
    switch (rnd_below(7)) {
    case 0:
        d->strides[dim] = 0;
        append(what, size, "; %s stride[%d] 0 (was %lld: elements overlap)", name, dim, (long long)was);
        break;
    case 1:
        d->strides[dim] = rnd_chance(2) ? -1 : ~was; /* -was - 1 */
        append(what, size, "; %s stride[%d] %lld (negative)", name, dim, (long long)d->strides[dim]);
        break;
    case 2: {
        int other = (int)rnd_below(d->rank);
        d->strides[dim] = d->strides[other];
        d->strides[other] = was;
        append(what, size, "; %s strides %d and %d swapped (transposed)", name, dim, other);
        break;
    }
    case 3:
        d->strides[dim] = add_sat(mul_sat(was, rnd_range(2, 3)), rnd_below(2));
        append(what, size, "; %s stride[%d] %lld (was %lld)", name, dim, (long long)d->strides[dim], (long long)was);
        break;
    case 4:
        d->strides[dim] = rnd_chance(2) ? INT64_C(1) << 40 : INT64_MAX / 2;
        append(what, size, "; %s stride[%d] %lld (past any storage)", name, dim, (long long)d->strides[dim]);
        break;
    case 5:
        for (int i = 0; i < d->rank; ++i) {
            d->strides[i] = rnd_below(5);
        }
        append(what, size, "; %s strides random 0..4 (overlapping)", name);
        break;
    default:
        d->strides[dim] = was > 1 ? was / 2 : was + 1;
        append(what, size, "; %s stride[%d] %lld (was %lld)", name, dim, (long long)d->strides[dim], (long long)was);
        break;
    }
}

static void mutate_offset(tensor_desc *d, const char *name, char *what, size_t size)
{
    int64_t was = d->offset;
    const int64_t choices[] = {-1, ~was /* -was - 1 */, add_sat(was, 1), add_sat(was, rnd_range(2, 64)), INT64_C(1) << 20,
                               INT64_C(1) << 40, INT64_C(1) << 61, INT64_MAX / 2, INT64_MAX - 1};
    d->offset = PICK(choices);
    append(what, size, "; %s offset %lld (was %lld)", name, (long long)d->offset, (long long)was);
}

static void mutate_storage(tensor_desc *d, const char *name, char *what, size_t size)
{
    switch (rnd_below(4)) {
    case 0:
        d->storage_rank = 0;
        append(what, size, "; %s storage rank 0", name);
        break;
    case 1:
        d->storage_rank = 1;
        d->storage[0] = 1;
        append(what, size, "; %s storage [1] (smaller than the view)", name);
        break;
    case 2:
        d->storage_rank = 1;
        d->storage[0] = INT64_C(1) << 40;
        append(what, size, "; %s storage [2^40]", name);
        break;
    default:
        d->storage_rank = 2;
        d->storage[0] = 4;
        d->storage[1] = -3;
        append(what, size, "; %s storage [4, -3]", name);
        break;
    }
}

static void mutate_tensor(trial *tr, int index)
{
    const op_spec *op = tr->op;
    tensor_desc *d = &tr->t[index];
    const char *name = op->tensors[index].name;
    char *what = tr->what;
    size_t size = sizeof tr->what;
    if (!d->present) {
        /* An absent optional tensor comes back with its baseline description. */
        d->present = true;
        append(what, size, "; %s given", name);
        return;
    }
    switch (rnd_below(14)) {
    case 0:
        d->present = false;
        append(what, size, "; %s NULL", name);
        break;
    case 1:
        d->memory = MEM_NULL;
        append(what, size, "; %s data NULL", name);
        break;
    case 2:
    case 3: {
        aclDataType was = d->dtype;
        d->dtype = rnd_chance(3) ? FLOAT_TYPES[rnd_below(3)] : PICK(ANY_DTYPES);
        append(what, size, "; %s dtype %d (was %d)", name, (int)d->dtype, (int)was);
        break;
    }
    case 4:
        d->format = PICK(ANY_FORMATS);
        append(what, size, "; %s format %d", name, (int)d->format);
        break;
    case 5:
        mutate_rank(d, name, what, size);
        break;
    case 6:
    case 7:
        if (d->rank == 0) {
            mutate_rank(d, name, what, size);
        } else {
            int dim = (int)rnd_below(d->rank);
            int64_t was = d->shape[dim];
            d->shape[dim] = mutated_dim(was);
            if (d->default_strides) {
                contiguous_strides(d);
            }
            append(what, size, "; %s dim[%d] %lld (was %lld)", name, dim, (long long)d->shape[dim], (long long)was);
        }
        break;
    case 8:
    case 9:
        mutate_strides(d, name, what, size);
        break;
    case 10:
        mutate_offset(d, name, what, size);
        break;
    case 11:
        mutate_storage(d, name, what, size);
        break;
    case 12:
        if (rnd_chance(2)) {
            d->memory = MEM_HOST;
            append(what, size, "; %s data in host memory", name);
        } else {
            d->memory = MEM_SHORT_BLOCK;
            d->short_by = (uint64_t)rnd_range(1, 64);
            append(what, size, "; %s in a device block %llu bytes short of its view", name,
                   (unsigned long long)d->short_by);
        }
        break;
    default: {
        /* An output aliasing an input: the output takes the input's data pointer. */
        int inputs[MAX_TENSORS], outputs[MAX_TENSORS], in_count = 0, out_count = 0;
        for (int i = 0; i < op->tensor_count; ++i) {
            if (op->tensors[i].output) {
                outputs[out_count++] = i;
            } else {
                inputs[in_count++] = i;
            }
        }
        int out = op->tensors[index].output ? index : outputs[rnd_below(out_count)];
        int in = op->tensors[index].output ? inputs[rnd_below(in_count)] : index;
        tr->t[out].memory = MEM_ALIAS;
        tr->t[out].alias_of = in;
        append(what, size, "; %s aliases %s", op->tensors[out].name, op->tensors[in].name);
        break;
    }
    }
}

static void mutate(trial *tr)
{
    const op_spec *op = tr->op;
    int count = (int)rnd_range(1, 3);
    tr->what[0] = '\0';
    for (int m = 0; m < count; ++m) {
        int64_t pick = rnd_below(100);
        if (pick < 3) {
            if (rnd_chance(2)) {
                tr->null_workspace_size_out = true;
                append(tr->what, sizeof tr->what, "; workspaceSize out-pointer NULL");
            } else {
                tr->null_executor_out = true;
                append(tr->what, sizeof tr->what, "; executor out-pointer NULL");
            }
        } else if (pick < 15 && op->mutate_attrs != NULL) {
            op->mutate_attrs(tr);
        } else {
            mutate_tensor(tr, (int)rnd_below(op->tensor_count));
        }
    }
    /* Drop the leading "; ". */
    memmove(tr->what, tr->what + 2, strlen(tr->what + 2) + 1);
}

/* ------------------------------------------------------------ memory */

typedef struct {
    unsigned char *base;
    size_t size;
    bool device;
    int owner; /* the tensor whose baseline content fills it, or -1 */
} block;

/* The device blocks of one operator, one per tensor argument, grown as
 * trials need; reused across trials (Floyd's are megabytes). */
typedef struct {
    block blocks[MAX_TENSORS];
} arena;

typedef struct {
    block blocks[MAX_TENSORS + MAX_EXTRA_BLOCKS];
    int count;
    int extra_first;
    void *data[MAX_TENSORS];
    aclTensor *tensors[MAX_TENSORS];
} call_memory;

static unsigned char *device_alloc(size_t bytes)
{
    void *p = NULL;
    if (aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) {
        (void)aclGetRecentErrMsg();
        return NULL;
    }
    return p;
}

/* A device block the test cannot do without. */
static unsigned char *device_block(size_t bytes)
{
    unsigned char *base = device_alloc(bytes);
    if (base == NULL) {
        fprintf(stderr, "aclrtMalloc of %zu bytes failed\n", bytes);
        exit(2);
    }
    return base;
}

/* The block a tensor of this description gets: FRONT_GUARD bytes, then the
 * view with slack, so that mutated views sometimes still fit. */
static size_t block_bytes_for(const tensor_desc *d)
{
    uint64_t first = 0, bytes = 0;
    if (desc_is_empty(d) || !desc_byte_range(d, &first, &bytes)) {
        return FRONT_GUARD + 256;
    }
    uint64_t end = first + bytes;
    return FRONT_GUARD + (size_t)(end + end / 2) + 64;
}

/* Room for the baseline views. */
static void arena_fit(arena *a, const trial *tr)
{
    for (int i = 0; i < tr->op->tensor_count; ++i) {
        size_t need = block_bytes_for(&tr->t[i]);
        if (a->blocks[i].size < need) {
            if (a->blocks[i].base != NULL) {
                aclrtFree(a->blocks[i].base);
            }
            a->blocks[i].base = device_block(need);
            a->blocks[i].size = need;
            a->blocks[i].device = true;
            a->blocks[i].owner = i;
        }
    }
}

static void arena_release(arena *a)
{
    for (int i = 0; i < MAX_TENSORS; ++i) {
        if (a->blocks[i].base != NULL) {
            aclrtFree(a->blocks[i].base);
        }
    }
    memset(a, 0, sizeof *a);
}

static void add_extra(call_memory *mem, unsigned char *base, size_t size, bool device, int owner)
{
    mem->blocks[mem->count++] = (block){base, size, device, owner};
}

/* Resolves every tensor's data pointer, allocating host buffers and short
 * blocks, and creates the descriptors (NULL where aclCreateTensor refuses). */
static void setup_call(const trial *tr, const arena *a, call_memory *mem)
{
    const op_spec *op = tr->op;
    memset(mem, 0, sizeof *mem);
    for (int i = 0; i < op->tensor_count; ++i) {
        mem->blocks[mem->count++] = a->blocks[i];
    }
    mem->extra_first = mem->count;
    for (int i = 0; i < op->tensor_count; ++i) {
        const tensor_desc *d = &tr->t[i];
        switch (d->memory) {
        case MEM_OWN_BLOCK:
            mem->data[i] = a->blocks[i].base + FRONT_GUARD;
            break;
        case MEM_NULL:
        case MEM_ALIAS:
            mem->data[i] = NULL;
            break;
        case MEM_HOST: {
            /* Large enough for the view: an operator that wrongly wrote it
             * would be reported by the content check, not corrupt the heap. */
            uint64_t first = 0, bytes = 0;
            size_t size = HOST_BUFFER_BYTES;
            if (!desc_is_empty(d) && desc_byte_range(d, &first, &bytes) && first + bytes <= MAX_HOST_BUFFER) {
                size = first + bytes > size ? (size_t)(first + bytes) : size;
            }
            unsigned char *host = xmalloc(size);
            add_extra(mem, host, size, false, i);
            mem->data[i] = host;
            break;
        }
        case MEM_SHORT_BLOCK: {
            uint64_t first = 0, bytes = 0;
            size_t size = 64;
            if (!desc_is_empty(d) && desc_byte_range(d, &first, &bytes) && first + bytes <= MAX_SHORT_BLOCK) {
                uint64_t end = first + bytes;
                size = end > d->short_by ? (size_t)(end - d->short_by) : 1;
            }
            unsigned char *base = device_block(size);
            add_extra(mem, base, size, true, i);
            mem->data[i] = base;
            break;
        }
        }
    }
    for (int i = 0; i < op->tensor_count; ++i) {
        if (tr->t[i].memory == MEM_ALIAS) {
            mem->data[i] = mem->data[tr->t[i].alias_of];
        }
    }
    for (int i = 0; i < op->tensor_count; ++i) {
        const tensor_desc *d = &tr->t[i];
        if (!d->present) {
            continue;
        }
        mem->tensors[i] = aclCreateTensor(d->shape, (uint64_t)d->rank, d->dtype, d->default_strides ? NULL : d->strides,
                                          d->offset, d->format, d->storage, (uint64_t)d->storage_rank, mem->data[i]);
        const char *message = aclGetRecentErrMsg();
        if (mem->tensors[i] == NULL) {
            expect(message_names(message, "aclCreateTensor"), tr,
                   "aclCreateTensor refused %s without a message naming it (message: %s)", op->tensors[i].name,
                   message ? message : "(null)");
        }
    }
}

static void teardown_call(call_memory *mem, const op_spec *op)
{
    for (int i = 0; i < op->tensor_count; ++i) {
        aclDestroyTensor(mem->tensors[i]);
    }
    for (int b = mem->extra_first; b < mem->count; ++b) {
        if (mem->blocks[b].device) {
            aclrtFree(mem->blocks[b].base);
        } else {
            free(mem->blocks[b].base);
        }
    }
}

/* The block that holds [address, address + bytes) whole, or -1. */
static int find_block(const call_memory *mem, uintptr_t address, uint64_t bytes, bool device_only)
{
    for (int b = 0; b < mem->count; ++b) {
        const block *k = &mem->blocks[b];
        uintptr_t base = (uintptr_t)k->base;
        if ((k->device || !device_only) && address >= base && address - base < k->size &&
            bytes <= k->size - (address - base)) {
            return b;
        }
    }
    return -1;
}

/* Where tensor i's view lies: its block, and the view's first byte in it.
 * False when the view is not inside one block (or cannot exist). */
static bool locate_view(const trial *tr, const call_memory *mem, int i, bool device_only, int *block_index,
                        uint64_t *at)
{
    uint64_t first = 0, bytes = 0;
    if (mem->data[i] == NULL || !desc_byte_range(&tr->t[i], &first, &bytes)) {
        return false;
    }
    uintptr_t origin;
    if (__builtin_add_overflow((uintptr_t)mem->data[i], (uintptr_t)first, &origin)) {
        return false;
    }
    int b = find_block(mem, origin, bytes, device_only);
    if (b < 0) {
        return false;
    }
    *block_index = b;
    *at = origin - (uintptr_t)mem->blocks[b].base;
    return true;
}

/* ------------------------------------------------------------ oracles */

typedef enum { EXPECT_ANY, EXPECT_SUCCESS, EXPECT_CODE } expectation_kind;

typedef struct {
    expectation_kind kind;
    aclnnStatus code;
    const char *why;
} expectation;

static bool dtype_allowed(const tensor_spec *spec, aclDataType dtype)
{
    for (int k = 0; k < spec->allowed_count; ++k) {
        if (spec->allowed[k] == dtype) {
            return true;
        }
    }
    return false;
}

/* What the headers' validation order fixes: NULL out-pointers and required
 * tensors first (161001), then dtypes and formats (161002); the shape
 * checks after them are the operator's own. */
static expectation predict(const trial *tr, aclTensor *const *t)
{
    const op_spec *op = tr->op;
    if (tr->null_workspace_size_out) {
        return (expectation){EXPECT_CODE, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize"};
    }
    if (tr->null_executor_out) {
        return (expectation){EXPECT_CODE, ACLNN_ERR_PARAM_NULLPTR, "executor"};
    }
    if (op->short_circuit != NULL && op->short_circuit(t)) {
        return (expectation){EXPECT_SUCCESS, 0, "an empty output succeeds before other checks"};
    }
    for (int i = 0; i < op->tensor_count; ++i) {
        if (t[i] == NULL && !op->tensors[i].optional) {
            return (expectation){EXPECT_CODE, ACLNN_ERR_PARAM_NULLPTR, op->tensors[i].name};
        }
    }
    for (int i = 0; i < op->tensor_count; ++i) {
        const tensor_spec *spec = &op->tensors[i];
        const tensor_desc *d = &tr->t[i];
        if (t[i] == NULL) {
            continue;
        }
        bool bad_dtype = !dtype_allowed(spec, d->dtype) ||
                         (spec->same_dtype_as >= 0 && d->dtype != tr->t[spec->same_dtype_as].dtype) ||
                         (i == op->bool_when_float && tr->t[0].dtype == ACL_FLOAT && d->dtype != ACL_BOOL);
        bool bad_format = (op->formats == FORMAT_ND_ONLY && d->format != ACL_FORMAT_ND) ||
                          (op->formats == FORMAT_NO_PRIVATE && is_private_format(d->format));
        if (bad_dtype || bad_format) {
            return (expectation){EXPECT_CODE, ACLNN_ERR_PARAM_INVALID, spec->name};
        }
    }
    return (expectation){EXPECT_ANY, 0, NULL};
}

static bool memory_checked(const trial *tr, aclTensor *const *t, int i)
{
    return tr->op->memory_checked == NULL || tr->op->memory_checked(tr, t, i);
}

/* ------------------------------------------------------------ phase 2 */

static unsigned char canary_at(size_t position)
{
    return (unsigned char)(0xA5u ^ (unsigned)(position * 131u) ^ (unsigned)(position >> 9));
}

/* Fills `bytes` with values of `dtype` like the tensor's baseline content:
 * one random tile, repeated (cheap for Floyd's megabytes). */
static void fill_content(unsigned char *out, size_t bytes, aclDataType dtype, content_kind content,
                         const op_attrs *attrs)
{
    unsigned char tile[FILL_TILE_BYTES];
    size_t item = aclDataTypeSize(dtype);
    if (item == 0 || item > 8) {
        item = 1;
        dtype = ACL_UINT8;
        content = CONTENT_INDEX;
    }
    for (size_t at = 0; at + item <= sizeof tile; at += item) {
        double value = 0.0;  /* for float dtypes */
        int64_t integer = 0; /* for integer dtypes, never through a double */
        switch (content) {
        case CONTENT_INDEX: {
            uint64_t range = (uint64_t)attrs->index_hi - (uint64_t)attrs->index_lo + 1u; /* 0: the full range */
            integer = (int64_t)((uint64_t)attrs->index_lo + (range ? rnd64() % range : rnd64()));
            value = (double)integer;
            break;
        }
        case CONTENT_MASK: integer = attrs->mask_all || rnd_chance(4); value = (double)integer; break;
        case CONTENT_STATS_MAX: value = (double)rnd_range(-8, 8) / 8.0; break;
        case CONTENT_STATS_SUM: value = (double)rnd_range(1, 128); break;
        default: value = (double)rnd_range(-16, 16) / 8.0; integer = (int64_t)value; break;
        }
        unsigned char *p = tile + at;
        switch (dtype) {
        case ACL_FLOAT: { float f = (float)value; memcpy(p, &f, 4); break; }
        case ACL_FLOAT16: { aclFloat16 h = aclFloatToFloat16((float)value); memcpy(p, &h, 2); break; }
        case ACL_BF16: { uint16_t h = (uint16_t)(fbits((float)value) >> 16); memcpy(p, &h, 2); break; }
        case ACL_DOUBLE: memcpy(p, &value, 8); break;
        case ACL_INT32: {
            int32_t i = (int32_t)(integer < INT32_MIN ? INT32_MIN : integer > INT32_MAX ? INT32_MAX : integer);
            memcpy(p, &i, 4);
            break;
        }
        case ACL_INT64: memcpy(p, &integer, 8); break;
        case ACL_BOOL: case ACL_UINT8: case ACL_INT8: *p = (unsigned char)(integer != 0); break;
        default:
            for (size_t k = 0; k < item; ++k) {
                p[k] = (unsigned char)rnd64();
            }
            break;
        }
    }
    size_t tile_bytes = sizeof tile / item * item;
    for (size_t at = 0; at < bytes; at += tile_bytes) {
        memcpy(out + at, tile, bytes - at < tile_bytes ? bytes - at : tile_bytes);
    }
}

static void device_write(unsigned char *base, const unsigned char *from, size_t size)
{
    aclrtMemcpy(base, size, from, size, ACL_MEMCPY_HOST_TO_DEVICE);
}

static void device_read(const unsigned char *base, unsigned char *to, size_t size)
{
    aclrtMemcpy(to, size, base, size, ACL_MEMCPY_DEVICE_TO_HOST);
}

static void block_write(const block *k, const unsigned char *from)
{
    if (k->device) {
        device_write(k->base, from, k->size);
    } else {
        memcpy(k->base, from, k->size);
    }
}

static void block_read(const block *k, unsigned char *to)
{
    if (k->device) {
        device_read(k->base, to, k->size);
    } else {
        memcpy(to, k->base, k->size);
    }
}

/* Copies the bytes of every element of the view (from its first byte `at`
 * in the block) from `actual` into `expected`: those are the output's to
 * write. Rows whose innermost stride is 1 are copied whole (Floyd's views
 * have half a million elements). */
static void accept_view_bytes(const tensor_desc *d, uint64_t at, const unsigned char *actual,
                              unsigned char *expected)
{
    size_t item = aclDataTypeSize(d->dtype);
    int inner = d->rank - 1;
    bool dense_rows = d->rank > 0 && d->strides[inner] == 1;
    int outer_rank = dense_rows ? inner : d->rank;
    size_t run = dense_rows ? (size_t)d->shape[inner] * item : item;
    int64_t index[MAX_RANK] = {0};
    int64_t runs = 1;
    for (int i = 0; i < outer_rank; ++i) {
        runs *= d->shape[i];
    }
    for (int64_t r = 0; r < runs; ++r) {
        int64_t element = 0;
        for (int i = 0; i < outer_rank; ++i) {
            element += index[i] * d->strides[i];
        }
        size_t pos = (size_t)at + (size_t)element * item;
        memcpy(expected + pos, actual + pos, run);
        for (int i = outer_rank - 1; i >= 0 && ++index[i] == d->shape[i]; --i) {
            index[i] = 0;
        }
    }
}

/* First differing byte and how many differ. */
static size_t count_differences(const unsigned char *a, const unsigned char *b, size_t size, size_t *first)
{
    size_t count = 0;
    *first = size;
    for (size_t i = 0; i < size; ++i) {
        if (a[i] != b[i]) {
            if (count++ == 0) {
                *first = i;
            }
        }
    }
    return count;
}

typedef struct {
    const op_spec *op;
    op_stats *stats;
    arena memory;
    aclrtStream stream;
    unsigned char *canary; /* canary_at(0..canary_size) */
    size_t canary_size;
} op_state;

static const unsigned char *canary_of(op_state *state, size_t size)
{
    if (state->canary_size < size) {
        free(state->canary);
        state->canary = xmalloc(size);
        for (size_t i = 0; i < size; ++i) {
            state->canary[i] = canary_at(i);
        }
        state->canary_size = size;
    }
    return state->canary;
}

/* Runs phase 2 of a successful phase 1 and checks what it wrote. Consumes
 * the executor (run, or destroyed when the run is skipped). */
static void run_and_verify(const trial *tr, op_state *state, call_memory *mem, aclOpExecutor *executor,
                           uint64_t workspace_size)
{
    const op_spec *op = tr->op;
    aclTensor *const *t = mem->tensors;
    /* Outputs phase 2 writes: present, read by phase 1, non-empty. */
    bool written[MAX_TENSORS] = {false};
    int written_block[MAX_TENSORS];
    uint64_t written_at[MAX_TENSORS];
    bool skip = false;
    for (int i = 0; i < op->tensor_count; ++i) {
        if (t[i] == NULL || desc_is_empty(&tr->t[i])) {
            continue;
        }
        skip = skip || desc_numel(&tr->t[i]) > MAX_RUN_ELEMENTS;
        if (op->tensors[i].output && memory_checked(tr, t, i)) {
            written[i] = locate_view(tr, mem, i, true, &written_block[i], &written_at[i]);
            skip = skip || !written[i]; /* reported by the memory oracle */
        }
    }
    unsigned char *workspace = NULL;
    if (!skip && workspace_size > 0) {
        workspace = workspace_size <= SIZE_MAX - WORKSPACE_GUARD ? device_alloc((size_t)workspace_size + WORKSPACE_GUARD)
                                                                   : NULL;
        skip = workspace == NULL;
    }
    if (skip) {
        ++state->stats->phase2_skipped;
        expect(aclDestroyAclOpExecutor(executor) == ACLNN_SUCCESS, tr, "aclDestroyAclOpExecutor of an unrun executor");
        return;
    }

    /* Output blocks (an output's own block, or one an output view lies in)
     * get the canary; every other block its baseline content. */
    bool output_block[MAX_TENSORS + MAX_EXTRA_BLOCKS] = {false};
    for (int i = 0; i < op->tensor_count; ++i) {
        if (!op->tensors[i].output || t[i] == NULL) {
            continue;
        }
        int b = find_block(mem, (uintptr_t)mem->data[i], 1, false);
        if (b >= 0) {
            output_block[b] = true;
        }
        if (written[i]) {
            output_block[written_block[i]] = true;
        }
    }
    unsigned char *expected[MAX_TENSORS + MAX_EXTRA_BLOCKS];
    for (int b = 0; b < mem->count; ++b) {
        const block *k = &mem->blocks[b];
        expected[b] = xmalloc(k->size);
        if (output_block[b]) {
            memcpy(expected[b], canary_of(state, k->size), k->size);
        } else if (k->owner >= 0) {
            const tensor_desc *d = &tr->t[k->owner];
            fill_content(expected[b], k->size, d->dtype, op->tensors[k->owner].content, &tr->attrs);
        } else {
            fill_content(expected[b], k->size, ACL_UINT8, CONTENT_INDEX, &tr->attrs);
        }
        block_write(k, expected[b]);
    }
    if (workspace != NULL) {
        aclrtMemcpy(workspace + workspace_size, WORKSPACE_GUARD, canary_of(state, WORKSPACE_GUARD), WORKSPACE_GUARD,
                    ACL_MEMCPY_HOST_TO_DEVICE);
    }

    /* Some runs go through a stream's worker thread, the rest run inline. */
    aclrtStream stream = rnd_chance(4) ? state->stream : NULL;
    aclnnStatus status = op->phase2(workspace, workspace_size, executor, stream);
    const char *message = aclGetRecentErrMsg();
    ++state->stats->phase2_runs;
    expect(status == ACLNN_SUCCESS, tr, "%s returned %d after a successful phase 1 (%s)", op->name, (int)status,
           message ? message : "no message");
    if (status != ACLNN_SUCCESS) {
        aclDestroyAclOpExecutor(executor);
    } else if (stream != NULL) {
        expect(aclrtSynchronizeStream(stream) == ACL_SUCCESS, tr, "aclrtSynchronizeStream after %s", op->name);
    }

    unsigned char *actual = NULL;
    for (int b = 0; b < mem->count; ++b) {
        const block *k = &mem->blocks[b];
        actual = realloc(actual, k->size);
        if (actual == NULL) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
        block_read(k, actual);
        if (output_block[b]) {
            for (int i = 0; i < op->tensor_count; ++i) {
                if (written[i] && written_block[i] == b) {
                    accept_view_bytes(&tr->t[i], written_at[i], actual, expected[b]);
                }
            }
        }
        size_t first = 0;
        size_t differ = memcmp(actual, expected[b], k->size) == 0 ? 0 : count_differences(actual, expected[b], k->size,
                                                                                            &first);
        const char *owner = k->owner >= 0 ? op->tensors[k->owner].name : "?";
        expect(differ == 0, tr,
               "%zu byte(s) %s in the %s%s block of %s (%zu bytes), the first at byte %zu: 0x%02x, was 0x%02x",
               differ, output_block[b] ? "outside every output view changed" : "changed (no output lies there)",
               b < mem->extra_first ? "" : "extra ", k->device ? "device" : "host", owner, k->size, first,
               first < k->size ? actual[first] : 0, first < k->size ? expected[b][first] : 0);
        free(expected[b]);
    }
    free(actual);
    if (workspace != NULL) {
        unsigned char guard[WORKSPACE_GUARD];
        aclrtMemcpy(guard, sizeof guard, workspace + workspace_size, sizeof guard, ACL_MEMCPY_DEVICE_TO_HOST);
        expect(memcmp(guard, canary_of(state, WORKSPACE_GUARD), sizeof guard) == 0, tr,
               "phase 2 wrote past the %llu-byte workspace phase 1 asked for", (unsigned long long)workspace_size);
        aclrtFree(workspace);
    }
}

/* ------------------------------------------------------------ one call */

static bool run_allowed(const trial *tr, op_state *state)
{
    const op_spec *op = tr->op;
    if (tr->baseline) {
        return tr->number % op->baseline_run_every == 0;
    }
    if (op->mutated_run_budget < 0 || state->stats->mutated_runs < op->mutated_run_budget) {
        ++state->stats->mutated_runs;
        return true;
    }
    return false;
}

/* TEST_FUZZ_TRACE=1 prints every call before it is made: a sanitizer abort
 * then shows which trial and mutations it came from. */
static bool trace_calls;

static void run_call(const trial *tr, op_state *state)
{
    const op_spec *op = tr->op;
    if (trace_calls) {
        printf("%s trial %d: %s\n", op->name, tr->number, tr->baseline ? "baseline" : tr->what);
        fflush(stdout);
    }
    call_memory mem;
    setup_call(tr, &state->memory, &mem);
    aclTensor *const *t = mem.tensors;
    expectation want = predict(tr, t);

    uint64_t workspace_size = 0;
    aclOpExecutor *executor = NULL;
    aclnnStatus status = op->phase1(tr, t, tr->null_workspace_size_out ? NULL : &workspace_size,
                                    tr->null_executor_out ? NULL : &executor);
    const char *message = aclGetRecentErrMsg();
    if (!tr->baseline) {
        count_code(status);
    }

    if (tr->baseline) {
        expect(status == ACLNN_SUCCESS, tr, "phase 1 of a valid call returned %d: %s", (int)status,
               message ? message : "(no message)");
    } else if (want.kind == EXPECT_SUCCESS) {
        expect(status == ACLNN_SUCCESS && workspace_size == 0, tr,
               "expected success with workspace 0 (%s); got %d, workspace %llu: %s", want.why, (int)status,
               (unsigned long long)workspace_size, message ? message : "(no message)");
    } else if (want.kind == EXPECT_CODE) {
        expect(status == want.code, tr, "expected %d for %s (the validation order); got %d: %s", (int)want.code,
               want.why, (int)status, message ? message : "(no message)");
    }
    if (status != ACLNN_SUCCESS) {
        bool documented = false;
        for (int k = 0; k < op->code_count; ++k) {
            documented = documented || status == op->codes[k];
        }
        expect(documented, tr, "phase 1 returned %d, which %s's header does not document: %s", (int)status,
               op->phase1_name, message ? message : "(no message)");
        expect(message_names(message, op->phase1_name), tr, "phase 1 failed with %d but left %s%s%s", (int)status,
               message ? "the message \"" : "no message", message ? message : "", message ? "\" (no API name)" : "");
        if (executor != NULL) {
            /* A live executor here would leak: destroying it must fail. */
            expect(aclDestroyAclOpExecutor(executor) != ACLNN_SUCCESS, tr,
                   "phase 1 failed with %d but handed out a live executor", (int)status);
            (void)aclGetRecentErrMsg();
        }
        teardown_call(&mem, op);
        return;
    }

    /* Success: every non-empty view phase 1 looked at lies in one device block. */
    bool memory_ok = true;
    for (int i = 0; i < op->tensor_count; ++i) {
        if (t[i] == NULL || desc_is_empty(&tr->t[i]) || !memory_checked(tr, t, i)) {
            continue;
        }
        int b;
        uint64_t at;
        bool inside = locate_view(tr, &mem, i, true, &b, &at);
        memory_ok = memory_ok && inside;
        expect(inside, tr, "phase 1 accepted %s, whose view is not inside one device block (%s data)",
               op->tensors[i].name,
               mem.data[i] == NULL ? "NULL" : tr->t[i].memory == MEM_HOST ? "host" : "device");
    }
    if (!memory_ok || !run_allowed(tr, state)) {
        expect(aclDestroyAclOpExecutor(executor) == ACLNN_SUCCESS, tr, "aclDestroyAclOpExecutor of an unrun executor");
    } else {
        run_and_verify(tr, state, &mem, executor, workspace_size);
    }
    teardown_call(&mem, op);
}

static void seed_trial(int op_index, int number)
{
    g_rng = TEST_RNG_SEED ^ ((uint64_t)(op_index + 1) << 48) ^ ((uint64_t)number * 0x9E3779B97F4A7C15ull);
}

static void run_trial(op_state *state, int op_index, int number)
{
    trial base;
    memset(&base, 0, sizeof base);
    base.op = state->op;
    base.number = number;
    base.baseline = true;
    seed_trial(op_index, number);
    state->op->make_baseline(&base);
    /* Mutated before anything runs, so the mutations depend on (operator, trial) only. */
    trial mutated = base;
    mutated.baseline = false;
    mutate(&mutated);
    arena_fit(&state->memory, &base);
    run_call(&base, state);
    run_call(&mutated, state);
    ++state->stats->trials;
}

/* ------------------------------------------------------------ phase-2 misuse */

/* The status and the message of the call just made: the code, and a
 * message naming the API, `word` and `word2` (each may be NULL). */
static void expect_error(const trial *tr, aclnnStatus status, aclnnStatus code, const char *api, const char *word,
                         const char *word2, const char *what)
{
    const char *message = aclGetRecentErrMsg();
    bool named = message_names(message, api) && (word == NULL || strstr(message, word) != NULL) &&
                 (word2 == NULL || strstr(message, word2) != NULL);
    expect(status == code && named, tr, "%s: expected %d and a message naming %s%s%s%s%s; got %d: %s", what, (int)code,
           api, word ? " and " : "", word ? word : "", word2 ? " and " : "", word2 ? word2 : "", (int)status,
           message ? message : "(no message)");
}

static void misuse_phase2(op_state *state, int op_index)
{
    const op_spec *op = state->op;
    const op_spec *other = &OPS[(op_index + 1) % OP_COUNT];
    trial tr;
    memset(&tr, 0, sizeof tr);
    tr.op = op;
    tr.number = -1;
    tr.baseline = true;
    seed_trial(op_index, -1);
    op->make_baseline(&tr);
    arena_fit(&state->memory, &tr);
    call_memory mem;
    setup_call(&tr, &state->memory, &mem);
    snprintf(tr.what, sizeof tr.what, "phase-2 misuse");
    tr.baseline = false;

    uint64_t size = 0;
    aclOpExecutor *executor = NULL;
    aclnnStatus status = op->phase1(&tr, mem.tensors, &size, &executor);
    expect(status == ACLNN_SUCCESS, &tr, "phase 1 of the misuse baseline returned %d", (int)status);
    if (status != ACLNN_SUCCESS) {
        teardown_call(&mem, op);
        return;
    }
    unsigned char *workspace = size > 0 ? device_alloc((size_t)size) : NULL;
    expect_error(&tr, op->phase2(workspace, size, NULL, NULL), ACLNN_ERR_PARAM_NULLPTR, op->name, "executor", NULL,
                 "NULL executor");
    expect_error(&tr, op->phase2(NULL, size > 0 ? size : 1, executor, NULL), ACLNN_ERR_PARAM_NULLPTR, op->name,
                 "workspace", NULL, "NULL workspace with a size");
    if (size > 0) {
        expect_error(&tr, op->phase2(workspace, size - 1, executor, NULL), ACLNN_ERR_PARAM_INVALID, op->name,
                     "workspaceSize", NULL, "workspace one byte short");
    }
    expect_error(&tr, other->phase2(workspace, size, executor, NULL), ACLNN_ERR_PARAM_INVALID, other->name,
                 "executor", NULL, "another operator's phase 2");
    int not_a_stream = 0;
    expect_error(&tr, op->phase2(workspace, size, executor, &not_a_stream), ACLNN_ERR_PARAM_INVALID, op->name,
                 "stream", NULL, "a host pointer as stream");
    /* The errors above left the executor usable. */
    status = op->phase2(workspace, size, executor, NULL);
    expect(status == ACLNN_SUCCESS, &tr, "phase 2 after rejected misuses returned %d", (int)status);
    expect_error(&tr, op->phase2(workspace, size, executor, NULL), ACLNN_ERR_PARAM_INVALID, op->name, "consumed",
                 NULL, "a consumed executor run again");
    expect_error(&tr, aclDestroyAclOpExecutor(executor), ACLNN_ERR_INNER, "aclDestroyAclOpExecutor", NULL,
                 NULL, "destroying a consumed executor");

    /* A repeatable executor: two runs, destroyed, then refused. */
    status = op->phase1(&tr, mem.tensors, &size, &executor);
    expect(status == ACLNN_SUCCESS && aclSetAclOpExecutorRepeatable(executor) == ACLNN_SUCCESS, &tr,
           "phase 1 and aclSetAclOpExecutorRepeatable (%d)", (int)status);
    for (int run = 0; run < 2; ++run) {
        status = op->phase2(workspace, size, executor, NULL);
        expect(status == ACLNN_SUCCESS, &tr, "run %d of a repeatable executor returned %d", run, (int)status);
    }
    expect(aclDestroyAclOpExecutor(executor) == ACLNN_SUCCESS, &tr, "destroying a repeatable executor");
    expect_error(&tr, op->phase2(workspace, size, executor, NULL), ACLNN_ERR_PARAM_INVALID, op->name, "executor",
                 NULL, "a destroyed repeatable executor");
    expect_error(&tr, aclDestroyAclOpExecutor(executor), ACLNN_ERR_INNER, "aclDestroyAclOpExecutor", NULL,
                 NULL, "destroying an executor twice");
    if (workspace != NULL) {
        aclrtFree(workspace);
    }
    teardown_call(&mem, op);
}

/* ------------------------------------------------------------ repeatable executors */

/* Round 2: each repeat trial plans one valid baseline call, makes the
 * executor repeatable and launches it several times, rebinding addresses
 * between launches. Every launch is compared bit for bit with a fresh
 * single-use run of the same views on copies of the blocks it is bound to;
 * the launches between two synchronizations write distinct output blocks
 * (an address setter waits for the launches still queued), so each one's
 * result can be checked after the synchronization. */

enum {
    POOL_SETS = 3, /* device blocks per tensor; a launch writes outputs no other launch since the last sync wrote */
    MAX_LAUNCHES = 4 * POOL_SETS,
    /* Repeat trial n seeds the generator as trial REPEAT_TRIAL_BASE + n. */
    REPEAT_TRIAL_BASE = 1 << 20,
    WORKSPACE_ALIGN = 64,
};

/* What the executor has for one tensor slot. */
typedef struct {
    unsigned char *addr;          /* the address bound to the slot */
    unsigned char *block;         /* the device block it lies in, or NULL (an unused slot bound elsewhere) */
    size_t block_size;
    const unsigned char *content; /* what the block holds before a launch (outputs: the canary) */
} binding;

/* A device block a launch may write, checked once its stream is synchronized. */
typedef struct {
    int slot;                     /* the output whose view lies there, or -1 */
    unsigned char *block;
    size_t size;
    uint64_t at;                  /* the view's first byte in the block */
    const unsigned char *before;  /* the block's bytes before the launch */
    unsigned char *expected;      /* the bytes a fresh single-use run left in its copy (owned), or NULL */
    uint64_t scratch_at, scratch_bytes; /* a workspace placed in the block: anything may be left there */
} written_block;

typedef struct {
    written_block out[MAX_TENSORS + 1];
    int count;
    char what[160]; /* the step that launched it */
} launch_record;

typedef aclnnStatus (*address_setter)(aclOpExecutor *executor, size_t index, aclTensor *tensor, void *addr);
typedef enum { SLOTS_INPUTS, SLOTS_OUTPUTS, SLOTS_ALL } slot_range;

static const struct {
    address_setter fn;
    const char *api; /* the name its messages use (the Acl* spellings forward to the acl* ones) */
    slot_range range;
} SETTERS[] = {
    {aclSetInputTensorAddr, "aclSetInputTensorAddr", SLOTS_INPUTS},
    {aclSetOutputTensorAddr, "aclSetOutputTensorAddr", SLOTS_OUTPUTS},
    {aclSetTensorAddr, "aclSetTensorAddr", SLOTS_ALL},
    {AclSetInputTensorAddr, "aclSetInputTensorAddr", SLOTS_INPUTS},
    {AclSetOutputTensorAddr, "aclSetOutputTensorAddr", SLOTS_OUTPUTS},
    {AclSetTensorAddr, "aclSetTensorAddr", SLOTS_ALL},
};
enum { SETTER_COUNT = (int)(sizeof SETTERS / sizeof SETTERS[0]) };

typedef struct {
    trial tr; /* the baseline; `what` names the step being made */
    op_state *state;
    int op_index;
    int input_count;
    aclrtStream streams[3]; /* the default stream, the operator's, and one of this trial's (NULL once destroyed) */
    aclOpExecutor *executor;
    uint64_t workspace_size;
    unsigned char *workspace; /* workspace_size + WORKSPACE_GUARD bytes, or NULL */
    aclTensor *tensors[MAX_TENSORS]; /* the phase-1 descriptors; NULL where absent or destroyed early */
    /* Absent, empty, or ignored by the plan (RoPE grad's dcosOut/dsinOut
     * without xOptional): phase 2 neither checks nor touches the slot. */
    bool unused[MAX_TENSORS];
    size_t pool_size[MAX_TENSORS];
    unsigned char *pool[MAX_TENSORS][POOL_SETS];
    unsigned char *image[MAX_TENSORS][POOL_SETS]; /* inputs: their content; outputs: NULL (the canary) */
    unsigned char *mirror[MAX_TENSORS]; /* the reference run's copies of pool-sized blocks */
    unsigned char *mirror_workspace;   /* and its workspace (reused: fresh pages cost Floyd more than its run) */
    binding bound[MAX_TENSORS];
    const unsigned char *canary; /* canary_at(0 .. largest) */
    size_t largest;              /* the largest pool block, or WORKSPACE_GUARD */
    unsigned char *decoy;        /* device block descriptors are pointed at by aclSetRawTensorAddr alone */
    unsigned char *foreign;      /* host bytes (the canary) that unused slots may be bound to */
    launch_record launches[MAX_LAUNCHES];
    int launch_count;
    unsigned used_sets; /* output sets launches wrote since the last synchronization */
} repeat_state;

/* Names the step about to be made: failures print it, and TEST_FUZZ_TRACE=1 prints every step. */
static void step(repeat_state *rs, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = snprintf(rs->tr.what, sizeof rs->tr.what, "repeatable executor: ");
    vsnprintf(rs->tr.what + n, sizeof rs->tr.what - (size_t)n, fmt, ap);
    va_end(ap);
    if (trace_calls) {
        printf("%s repeat trial %d: %s\n", rs->tr.op->name, rs->tr.number, rs->tr.what);
        fflush(stdout);
    }
}

static const char *slot_name(const repeat_state *rs, int slot) { return rs->tr.op->tensors[slot].name; }
static bool slot_is_output(const repeat_state *rs, int slot) { return rs->tr.op->tensors[slot].output; }

/* A random slot: present, of the role asked (-1 any, 0 input, 1 output),
 * used by the plan when `used`, not `except`; -1 when there is none. */
static int random_slot(const repeat_state *rs, int role, bool used, int except)
{
    int candidates[MAX_TENSORS], count = 0;
    for (int i = 0; i < rs->tr.op->tensor_count; ++i) {
        if (rs->tr.t[i].present && i != except && (!used || !rs->unused[i]) &&
            (role < 0 || (role == 1) == slot_is_output(rs, i))) {
            candidates[count++] = i;
        }
    }
    return count > 0 ? candidates[rnd_below(count)] : -1;
}

/* A random setter that reaches slot `i`, and the index it knows the slot by. */
static int pick_setter(const repeat_state *rs, int i, size_t *index)
{
    bool output = slot_is_output(rs, i);
    for (;;) {
        int s = (int)rnd_below(SETTER_COUNT);
        if (SETTERS[s].range == SLOTS_ALL) {
            *index = (size_t)i;
            return s;
        }
        if ((SETTERS[s].range == SLOTS_OUTPUTS) == output) {
            *index = (size_t)(output ? i - rs->input_count : i);
            return s;
        }
    }
}

/* Slot `i` in pool set `set`, a few elements off the block's usual place. */
static binding pool_binding(const repeat_state *rs, int i, int set)
{
    int64_t delta = rnd_range(-2, 2) * (int64_t)aclDataTypeSize(rs->tr.t[i].dtype);
    unsigned char *block = rs->pool[i][set];
    return (binding){block + FRONT_GUARD + delta, block, rs->pool_size[i],
                     rs->image[i][set] != NULL ? rs->image[i][set] : rs->canary};
}

/* After a setter call that passed `tensor`: the descriptor holds `want`. */
static void expect_descriptor_address(repeat_state *rs, aclTensor *tensor, int i, const void *want)
{
    void *now = NULL;
    if (tensor != NULL) {
        expect(aclGetRawTensorAddr(tensor, &now) == ACLNN_SUCCESS && now == want, &rs->tr,
               "the descriptor of %s holds %p; expected %p", slot_name(rs, i), now, want);
    }
}

/* A rebinding that must succeed, through a random setter, with or without the descriptor. */
static void rebind(repeat_state *rs, int i, binding to)
{
    size_t index;
    int s = pick_setter(rs, i, &index);
    aclTensor *tensor = rnd_chance(3) ? NULL : rs->tensors[i];
    aclnnStatus status = SETTERS[s].fn(rs->executor, index, tensor, to.addr);
    const char *message = aclGetRecentErrMsg();
    expect(status == ACLNN_SUCCESS, &rs->tr, "%s(index %zu) of %s to %p returned %d: %s", SETTERS[s].api, index,
           slot_name(rs, i), (void *)to.addr, (int)status, message ? message : "(no message)");
    if (status == ACLNN_SUCCESS) {
        rs->bound[i] = to;
        expect_descriptor_address(rs, tensor, i, to.addr);
    }
}

/* Uploads what every output block holds before a launch and lists the
 * blocks the launch may write (all but the block of output `skip`). */
static void prepare_outputs(repeat_state *rs, launch_record *rec, int skip)
{
    rec->count = 0;
    snprintf(rec->what, sizeof rec->what, "%s", rs->tr.what + strlen("repeatable executor: "));
    for (int o = rs->input_count; o < rs->tr.op->tensor_count; ++o) {
        const binding *b = &rs->bound[o];
        uint64_t first = 0, bytes = 0;
        if (!rs->tr.t[o].present || rs->unused[o] || b->block == NULL) {
            continue;
        }
        device_write(b->block, b->content, b->block_size);
        if (o != skip && desc_byte_range(&rs->tr.t[o], &first, &bytes)) {
            rec->out[rec->count++] = (written_block){o, b->block, b->block_size,
                                                     (uint64_t)(b->addr - b->block) + first, b->content, NULL, 0, 0};
        }
    }
}

/* A fresh single-use run of the same call on copies of the blocks the
 * executor is bound to (slots sharing a block share the copy), on the
 * default stream: what it leaves in them becomes each written block's
 * `expected`. */
static void reference_run(repeat_state *rs, launch_record *rec)
{
    const op_spec *op = rs->tr.op;
    unsigned char *copy[MAX_TENSORS] = {NULL};
    bool owns[MAX_TENSORS] = {false};
    aclTensor *t[MAX_TENSORS] = {NULL};
    for (int i = 0; i < op->tensor_count; ++i) {
        const binding *b = &rs->bound[i];
        const tensor_desc *d = &rs->tr.t[i];
        if (!d->present) {
            continue;
        }
        void *data = b->addr;
        if (b->block != NULL) {
            for (int k = 0; k < i && copy[i] == NULL; ++k) {
                copy[i] = rs->bound[k].block == b->block ? copy[k] : NULL;
            }
            if (copy[i] == NULL) {
                owns[i] = b->block_size > rs->pool_size[i];
                copy[i] = owns[i] ? device_block(b->block_size) : rs->mirror[i];
                device_write(copy[i], b->content, b->block_size);
            }
            data = copy[i] + (b->addr - b->block);
        }
        t[i] = aclCreateTensor(d->shape, (uint64_t)d->rank, d->dtype, d->default_strides ? NULL : d->strides, d->offset,
                               d->format, d->storage, (uint64_t)d->storage_rank, data);
    }
    uint64_t size = 0;
    aclOpExecutor *executor = NULL;
    aclnnStatus status = op->phase1(&rs->tr, t, &size, &executor);
    const char *message = aclGetRecentErrMsg();
    expect(status == ACLNN_SUCCESS && size == rs->workspace_size, &rs->tr,
           "phase 1 of the fresh single-use reference returned %d, workspace %llu (the repeatable one: %llu): %s",
           (int)status, (unsigned long long)size, (unsigned long long)rs->workspace_size,
           status ? message : "");
    if (status == ACLNN_SUCCESS) {
        status = op->phase2(rs->mirror_workspace, size, executor, NULL);
        message = aclGetRecentErrMsg();
        expect(status == ACLNN_SUCCESS, &rs->tr, "phase 2 of the fresh single-use reference returned %d: %s",
               (int)status, message ? message : "(no message)");
        if (status != ACLNN_SUCCESS) {
            aclDestroyAclOpExecutor(executor);
        }
        for (int e = 0; e < rec->count; ++e) {
            written_block *w = &rec->out[e];
            if (w->slot >= 0 && copy[w->slot] != NULL) {
                w->expected = xmalloc(w->size);
                device_read(copy[w->slot], w->expected, w->size);
            }
        }
    }
    for (int i = 0; i < op->tensor_count; ++i) {
        aclDestroyTensor(t[i]);
        if (owns[i]) {
            aclrtFree(copy[i]);
        }
    }
}

static void settle(repeat_state *rs, bool synchronize);

/* Launches the executor as bound now on `stream` after a reference run;
 * the launch is checked at the next settle(). The block of output
 * `unchecked` is not (it is about to be freed). */
static void launch(repeat_state *rs, aclrtStream stream, int unchecked)
{
    const op_spec *op = rs->tr.op;
    if (rs->launch_count == MAX_LAUNCHES) {
        settle(rs, true);
    }
    launch_record *rec = &rs->launches[rs->launch_count];
    prepare_outputs(rs, rec, unchecked);
    reference_run(rs, rec);
    aclnnStatus status = op->phase2(rs->workspace, rs->workspace_size, rs->executor, stream);
    const char *message = aclGetRecentErrMsg();
    expect(status == ACLNN_SUCCESS, &rs->tr, "%s of the repeatable executor on stream %p returned %d: %s", op->name,
           stream, (int)status, message ? message : "(no message)");
    if (status == ACLNN_SUCCESS) {
        ++rs->launch_count;
        ++rs->state->stats->repeat_launches;
    } else {
        for (int e = 0; e < rec->count; ++e) {
            free(rec->out[e].expected);
        }
    }
}

/* The same launch again on the same stream: it runs after the first and
 * writes the same bytes. */
static void launch_again(repeat_state *rs, aclrtStream stream)
{
    aclnnStatus status = rs->tr.op->phase2(rs->workspace, rs->workspace_size, rs->executor, stream);
    const char *message = aclGetRecentErrMsg();
    expect(status == ACLNN_SUCCESS, &rs->tr, "a second launch with the same addresses on stream %p returned %d: %s",
           stream, (int)status, message ? message : "(no message)");
}

/* Checks device bytes against `want`. */
static void expect_device_bytes(repeat_state *rs, const unsigned char *base, size_t size, const unsigned char *want,
                                const char *what)
{
    unsigned char *actual = xmalloc(size);
    device_read(base, actual, size);
    size_t first = 0, differ = memcmp(actual, want, size) == 0 ? 0 : count_differences(actual, want, size, &first);
    expect(differ == 0, &rs->tr, "%zu byte(s) of %s changed, the first at byte %zu: 0x%02x, was 0x%02x", differ, what,
           first, first < size ? actual[first] : 0, first < size ? want[first] : 0);
    free(actual);
}

/* Checks the blocks a launch wrote: each equals the fresh run's copy, and
 * outside the output views (and workspaces placed there) holds what it held
 * before. With `ran` false (a refused launch) nothing may have changed. */
static void check_record(repeat_state *rs, launch_record *rec, bool ran)
{
    for (int e = 0; e < rec->count; ++e) {
        written_block *w = &rec->out[e];
        bool first_in_block = true;
        for (int k = 0; k < e; ++k) {
            first_in_block = first_in_block && rec->out[k].block != w->block;
        }
        if (!first_in_block) {
            continue;
        }
        const char *name = w->slot >= 0 ? slot_name(rs, w->slot) : "a tensor";
        unsigned char *actual = xmalloc(w->size), *allowed = xmalloc(w->size);
        device_read(w->block, actual, w->size);
        size_t first = 0, differ;
        if (ran && w->expected != NULL) {
            differ = memcmp(actual, w->expected, w->size) == 0 ? 0
                                                               : count_differences(actual, w->expected, w->size, &first);
            expect(differ == 0, &rs->tr, "%zu byte(s) of %s's block differ from a fresh single-use run, the first "
                   "at byte %zu (view from byte %llu): 0x%02x, expected 0x%02x (launch: %s)", differ, name, first,
                   (unsigned long long)w->at, first < w->size ? actual[first] : 0,
                   first < w->size ? w->expected[first] : 0, rec->what);
        }
        memcpy(allowed, w->before, w->size);
        for (int k = e; k < rec->count && ran; ++k) {
            const written_block *v = &rec->out[k];
            if (v->block == w->block && v->slot >= 0) {
                accept_view_bytes(&rs->tr.t[v->slot], v->at, actual, allowed);
            }
            if (v->block == w->block && v->scratch_bytes > 0) {
                memcpy(allowed + v->scratch_at, actual + v->scratch_at, v->scratch_bytes);
            }
        }
        differ = memcmp(actual, allowed, w->size) == 0 ? 0 : count_differences(actual, allowed, w->size, &first);
        expect(differ == 0, &rs->tr, "%zu byte(s) %s in %s's block (%zu bytes, view from byte %llu), the first at "
               "byte %zu: 0x%02x, was 0x%02x (launch: %s)", differ, ran ? "outside the output views changed" :
               "changed by a refused launch", name, w->size, (unsigned long long)w->at, first,
               first < w->size ? actual[first] : 0, first < w->size ? allowed[first] : 0, rec->what);
        free(actual);
        free(allowed);
    }
    for (int e = 0; e < rec->count; ++e) {
        free(rec->out[e].expected);
        rec->out[e].expected = NULL;
    }
}

/* Synchronizes (unless `synchronize` is false: the caller knows the
 * launches ran) and checks every launch since the last settle, the input
 * blocks, the blocks of unused outputs, the decoy, the host bytes and the
 * bytes past the workspace. */
static void settle(repeat_state *rs, bool synchronize)
{
    const op_spec *op = rs->tr.op;
    step(rs, "synchronize and check %d launch(es)", rs->launch_count);
    for (int s = 1; s < 3 && synchronize; ++s) {
        if (rs->streams[s] != NULL) {
            expect(aclrtSynchronizeStream(rs->streams[s]) == ACL_SUCCESS, &rs->tr, "aclrtSynchronizeStream");
        }
    }
    for (int r = 0; r < rs->launch_count; ++r) {
        check_record(rs, &rs->launches[r], true);
    }
    rs->launch_count = 0;
    rs->used_sets = 0;
    char what[128];
    for (int i = 0; i < op->tensor_count; ++i) {
        for (int set = 0; set < POOL_SETS && rs->pool[i][0] != NULL; ++set) {
            if (!slot_is_output(rs, i) || rs->unused[i]) {
                snprintf(what, sizeof what, "%s's block %d (%s)", slot_name(rs, i), set,
                         slot_is_output(rs, i) ? "an output the plan does not write" : "an input");
                expect_device_bytes(rs, rs->pool[i][set], rs->pool_size[i],
                                    rs->image[i][set] != NULL ? rs->image[i][set] : rs->canary, what);
            }
        }
    }
    expect_device_bytes(rs, rs->decoy, rs->largest, rs->canary, "the block descriptors alone were pointed at");
    expect(memcmp(rs->foreign, rs->canary, rs->largest) == 0, &rs->tr,
           "the host bytes unused slots were bound to changed");
    if (rs->workspace != NULL) {
        expect_device_bytes(rs, rs->workspace + rs->workspace_size, WORKSPACE_GUARD, rs->canary,
                            "the guard past the workspace");
    }
}

/* The status and message of a refused call, counted. */
static void expect_refusal(repeat_state *rs, aclnnStatus status, aclnnStatus code, const char *api, const char *word,
                           const char *word2, const char *what)
{
    ++rs->state->stats->repeat_refusals;
    expect_error(&rs->tr, status, code, api, word, word2, what);
}

typedef enum { BAD_HOST, BAD_NULL, BAD_SHORT, BAD_FREED, BAD_KINDS } bad_address;

/* A rebinding to an address the view does not fit: host memory, NULL, a
 * block too short, a freed block. 161002 naming the setter, the slot and
 * the descriptor keep their address. A slot the plan does not use accepts
 * anything (its view is empty to phase 2): host bytes and NULL stay bound,
 * and later launches must leave the host bytes alone. */
static void bind_bad_address(repeat_state *rs)
{
    static const char *const KIND_NAMES[] = {"host memory", "NULL", "a block too short", "a freed block"};
    static const char *const WORDS[] = {"not in device memory", "addr", "past the end", "not in device memory"};
    int i = random_slot(rs, -1, false, -1);
    bad_address kind = (bad_address)rnd_below(BAD_KINDS);
    const tensor_desc *d = &rs->tr.t[i];
    uint64_t first = 0, bytes = 0;
    bool checked = !rs->unused[i] && desc_byte_range(d, &first, &bytes);
    unsigned char *addr = NULL, *scratch = NULL;
    if (kind == BAD_SHORT && checked && bytes < 2) {
        kind = BAD_HOST; /* a view of one byte cannot start inside a block and end past it */
    }
    if (kind == BAD_HOST) {
        addr = rs->foreign;
    } else if (kind == BAD_SHORT) {
        /* The view starts inside the block and runs 1-64 bytes past its end. */
        uint64_t span = checked ? bytes : 64;
        uint64_t short_by = (uint64_t)rnd_range(1, span - 1 < 64 ? (int64_t)span - 1 : 64);
        scratch = device_block((size_t)(64 + first + span - short_by));
        addr = scratch + 64;
    } else if (kind == BAD_FREED) {
        unsigned char *gone = device_block(rs->pool_size[i]);
        addr = gone + FRONT_GUARD;
        aclrtFree(gone);
    }
    step(rs, "rebind %s to %s", slot_name(rs, i), KIND_NAMES[kind]);
    size_t index;
    int s = pick_setter(rs, i, &index);
    aclTensor *tensor = rnd_chance(2) ? rs->tensors[i] : NULL;
    void *was = NULL;
    if (tensor != NULL) {
        aclGetRawTensorAddr(tensor, &was);
    }
    aclnnStatus status = SETTERS[s].fn(rs->executor, index, tensor, addr);
    if (checked) {
        /* The setters name the slot by its argument name and the operator. */
        char what[160], slot_word[128];
        snprintf(what, sizeof what, "%s rebound to %s", slot_name(rs, i), KIND_NAMES[kind]);
        snprintf(slot_word, sizeof slot_word, "%s (", slot_name(rs, i));
        expect_refusal(rs, status, ACLNN_ERR_PARAM_INVALID, SETTERS[s].api, slot_word, WORDS[kind], what);
        expect_descriptor_address(rs, tensor, i, was);
    } else {
        const char *message = aclGetRecentErrMsg();
        expect(status == ACLNN_SUCCESS, &rs->tr, "%s refused %s for %s, a slot the plan does not use (%d): %s",
               SETTERS[s].api, KIND_NAMES[kind], slot_name(rs, i), (int)status, message ? message : "(no message)");
        if (status == ACLNN_SUCCESS && (kind == BAD_HOST || kind == BAD_NULL)) {
            rs->bound[i] = (binding){addr, NULL, 0, NULL};
        } else if (status == ACLNN_SUCCESS) {
            rebind(rs, i, pool_binding(rs, i, 0)); /* the block is going away */
        }
    }
    if (scratch != NULL) {
        aclrtFree(scratch);
    }
}

/* One call the library must refuse, leaving the executor as it was: a bad
 * address, an index out of range, an optional slot absent in phase 1, a
 * NULL executor, another operator's phase 2, a destroyed stream, a
 * workspace that is host memory, freed, NULL or short. Or a descriptor
 * moved with aclSetRawTensorAddr alone, which the executor must not see. */
static void refused_call(repeat_state *rs)
{
    const op_spec *op = rs->tr.op;
    int absent = -1;
    for (int i = 0; i < rs->input_count; ++i) {
        absent = rs->tr.t[i].present ? absent : i;
    }
    int moved = random_slot(rs, -1, false, -1);
    unsigned char *valid = rs->pool[moved][0] + FRONT_GUARD;
    aclrtStream stream = rs->streams[rnd_below(3)];
    char what[160];
    switch (rnd_below(10)) {
    case 0:
    case 1:
        bind_bad_address(rs);
        break;
    case 2: {
        int s = (int)rnd_below(SETTER_COUNT);
        int outputs = op->tensor_count - rs->input_count;
        size_t count = (size_t)(SETTERS[s].range == SLOTS_INPUTS ? rs->input_count
                                : SETTERS[s].range == SLOTS_OUTPUTS ? outputs : op->tensor_count);
        size_t index = rnd_chance(4) ? SIZE_MAX : count + (size_t)rnd_below(3);
        step(rs, "%s index %zu of %zu", SETTERS[s].api, index, count);
        snprintf(what, sizeof what, "%s with index %zu (%zu slots)", SETTERS[s].api, index, count);
        expect_refusal(rs, SETTERS[s].fn(rs->executor, index, NULL, valid), ACLNN_ERR_PARAM_INVALID, SETTERS[s].api,
                       "index", NULL, what);
        break;
    }
    case 3:
        if (absent >= 0) {
            int s = rnd_chance(2) ? 0 : 2; /* aclSetInputTensorAddr or aclSetTensorAddr: the same index */
            step(rs, "%s on %s, absent in phase 1", SETTERS[s].api, slot_name(rs, absent));
            snprintf(what, sizeof what, "rebinding %s, absent in phase 1", slot_name(rs, absent));
            expect_refusal(rs, SETTERS[s].fn(rs->executor, (size_t)absent, NULL, valid), ACLNN_ERR_PARAM_INVALID,
                           SETTERS[s].api, "optional", NULL, what);
            break;
        }
        /* fall through */
    case 4: {
        int s = (int)rnd_below(SETTER_COUNT);
        step(rs, "%s with a NULL executor; aclSetRawTensorAddr of a NULL tensor", SETTERS[s].api);
        expect_refusal(rs, SETTERS[s].fn(NULL, 0, NULL, valid), ACLNN_ERR_PARAM_NULLPTR, SETTERS[s].api, "executor",
                       NULL, "a NULL executor");
        expect_refusal(rs, aclSetRawTensorAddr(NULL, valid), ACLNN_ERR_PARAM_NULLPTR, "aclSetRawTensorAddr",
                       "tensor", NULL, "aclSetRawTensorAddr of a NULL tensor");
        break;
    }
    case 5:
        if (rs->tensors[moved] != NULL) {
            step(rs, "aclSetRawTensorAddr of %s's descriptor alone", slot_name(rs, moved));
            expect(aclSetRawTensorAddr(rs->tensors[moved], rs->decoy + FRONT_GUARD) == ACLNN_SUCCESS, &rs->tr,
                   "aclSetRawTensorAddr");
            expect_descriptor_address(rs, rs->tensors[moved], moved, rs->decoy + FRONT_GUARD);
            break;
        }
        /* fall through */
    case 6: {
        const op_spec *other = &OPS[(rs->op_index + 1 + (int)rnd_below(OP_COUNT - 1)) % OP_COUNT];
        step(rs, "%s given the executor", other->name);
        snprintf(what, sizeof what, "%s given a repeatable executor of %s", other->name, op->name);
        expect_refusal(rs, other->phase2(rs->workspace, rs->workspace_size, rs->executor, stream),
                       ACLNN_ERR_PARAM_INVALID, other->name, "executor", NULL, what);
        break;
    }
    case 7: {
        aclrtStream gone = NULL;
        expect(aclrtCreateStream(&gone) == ACL_SUCCESS && aclrtDestroyStream(gone) == ACL_SUCCESS, &rs->tr,
               "aclrtCreateStream and aclrtDestroyStream");
        step(rs, "a launch on a destroyed stream");
        expect_refusal(rs, op->phase2(rs->workspace, rs->workspace_size, rs->executor, gone), ACLNN_ERR_PARAM_INVALID,
                       op->name, "stream", NULL, "a launch on a destroyed stream");
        break;
    }
    default: {
        uint64_t size = rs->workspace_size;
        if (size == 0) {
            bind_bad_address(rs);
            break;
        }
        static const char *const KINDS[] = {"in host memory", "freed", "NULL", "one byte short"};
        int kind = (int)rnd_below(4);
        unsigned char *host = kind == 0 ? xmalloc((size_t)size) : NULL, *gone = NULL;
        if (kind == 1) {
            gone = device_block((size_t)size);
            aclrtFree(gone);
        }
        unsigned char *workspace = kind == 0 ? host : kind == 1 ? gone : kind == 2 ? NULL : rs->workspace;
        step(rs, "a launch with the workspace %s", KINDS[kind]);
        snprintf(what, sizeof what, "a launch with the workspace %s", KINDS[kind]);
        expect_refusal(rs, op->phase2(workspace, kind == 3 ? size - 1 : size, rs->executor, stream),
                       kind == 2 ? ACLNN_ERR_PARAM_NULLPTR : ACLNN_ERR_PARAM_INVALID, op->name,
                       kind == 3 ? "workspaceSize" : "workspace", NULL, what);
        free(host);
        break;
    }
    }
}

/* aclrtFree of a block the executor is bound to: the free waits for a
 * launch still queued that uses it; the next launch is refused (161002
 * naming the tensor), never a use after free; rebound, the executor runs
 * again. The launch before the free is queued, run, or not made. */
static void free_bound_block(repeat_state *rs)
{
    const op_spec *op = rs->tr.op;
    int i = random_slot(rs, -1, true, -1);
    if (i < 0) {
        return;
    }
    binding kept = rs->bound[i];
    unsigned char *victim = device_block(kept.block_size);
    device_write(victim, kept.content, kept.block_size);
    step(rs, "rebind %s to a block about to be freed", slot_name(rs, i));
    rebind(rs, i, (binding){victim + (kept.addr - kept.block), victim, kept.block_size, kept.content});
    int how = (int)rnd_below(3);
    if (how < 2) {
        step(rs, "launch with %s in the block about to be freed", slot_name(rs, i));
        launch(rs, how == 0 ? rs->streams[1 + rnd_below(2)] : NULL, slot_is_output(rs, i) ? i : -1);
    }
    step(rs, "aclrtFree of %s's block, %s", slot_name(rs, i), how == 0 ? "a launch queued" : "no launch queued");
    expect(aclrtFree(victim) == ACL_SUCCESS, &rs->tr, "aclrtFree of a block the executor is bound to");
    /* Nothing is allocated before the launch: the block's address must not be live again. */
    char what[160];
    snprintf(what, sizeof what, "a launch with %s in a freed block", slot_name(rs, i));
    expect_refusal(rs, op->phase2(rs->workspace, rs->workspace_size, rs->executor, rs->streams[rnd_below(3)]),
                   ACLNN_ERR_PARAM_INVALID, op->name, slot_name(rs, i), "not in device memory", what);
    step(rs, "rebind %s back from the freed block", slot_name(rs, i));
    rebind(rs, i, kept);
}

/* Launches between two synchronizations: each moves every output to a set
 * no launch since the last synchronization wrote, may move inputs, makes
 * calls that must be refused, and launches on the default stream or a
 * created one, sometimes twice. */
static void repeat_group(repeat_state *rs, int group)
{
    const op_spec *op = rs->tr.op;
    int launches = (int)rnd_range(1, POOL_SETS);
    for (int k = 0; k < launches; ++k) {
        int set;
        do {
            set = (int)rnd_below(POOL_SETS);
        } while (rs->used_sets & (1u << set));
        step(rs, "group %d launch %d: outputs to set %d", group, k, set);
        for (int i = 0; i < op->tensor_count; ++i) {
            if (rs->tr.t[i].present && !rs->unused[i] && (slot_is_output(rs, i) || rnd_chance(3))) {
                rebind(rs, i, pool_binding(rs, i, slot_is_output(rs, i) ? set : (int)rnd_below(POOL_SETS)));
            }
        }
        for (int n = (int)rnd_below(3); n > 0; --n) {
            refused_call(rs);
        }
        if (k == 0 && rnd_chance(3)) {
            free_bound_block(rs);
        }
        int s = (int)rnd_below(3);
        step(rs, "group %d launch %d on stream %d", group, k, s);
        int recorded = rs->launch_count;
        launch(rs, rs->streams[s], -1);
        if (rnd_chance(4)) {
            launch_again(rs, rs->streams[s]);
        }
        rs->used_sets |= 1u << set;
        int i = random_slot(rs, 0, true, -1);
        if (s > 0 && i >= 0 && rs->launch_count > recorded && rnd_chance(4)) {
            /* A setter waits for the launches still queued: their results are there without a synchronize. */
            step(rs, "group %d launch %d: rebind %s with the launch queued, check at once", group, k,
                 slot_name(rs, i));
            rebind(rs, i, pool_binding(rs, i, (int)rnd_below(POOL_SETS)));
            check_record(rs, &rs->launches[--rs->launch_count], true);
        }
    }
    settle(rs, true);
}

/* A shared block for the hazards below: `size` bytes, the canary but for
 * `content` copied in at `at`. Its host image is returned in *image. */
static unsigned char *shared_block(size_t size, const unsigned char *content, size_t content_size, size_t at,
                                   unsigned char **image)
{
    *image = xmalloc(size);
    for (size_t p = 0; p < size; ++p) {
        (*image)[p] = canary_at(p);
    }
    memcpy(*image + at, content, content_size);
    unsigned char *block = device_block(size);
    device_write(block, *image, size);
    return block;
}

/* A workspace that overlaps a tensor's view (inside one device block):
 * undefined on the device, and here the staging copies would overlap
 * (memcpy) and MoE's sort order, kept in the workspace, would be
 * overwritten. Phase 2 must refuse it (161002 naming the workspace and the
 * tensor); should it run, nothing outside the output views and the
 * workspace may change either. */
static void overlapping_workspace(repeat_state *rs)
{
    const op_spec *op = rs->tr.op;
    uint64_t size = rs->workspace_size, first = 0, bytes = 0;
    int i = random_slot(rs, -1, true, -1);
    if (size == 0 || i < 0 || !desc_byte_range(&rs->tr.t[i], &first, &bytes)) {
        return;
    }
    binding kept = rs->bound[i];
    uint64_t start = (uint64_t)(kept.addr - kept.block) + first, end = start + bytes;
    /* An aligned workspace with at least one byte in the view. */
    int64_t lo = start >= size ? (int64_t)((start - size) / WORKSPACE_ALIGN + 1) : 0;
    int64_t hi = (int64_t)((end - 1) / WORKSPACE_ALIGN);
    if (lo > hi) {
        return;
    }
    uint64_t at = WORKSPACE_ALIGN * (uint64_t)rnd_range(lo, hi);
    size_t block_size = kept.block_size > at + size + WORKSPACE_GUARD ? kept.block_size
                                                                       : (size_t)(at + size + WORKSPACE_GUARD);
    unsigned char *image;
    unsigned char *shared = shared_block(block_size, kept.content, kept.block_size, 0, &image);
    step(rs, "a workspace overlapping %s (bytes %llu..%llu of its view's %llu..%llu)", slot_name(rs, i),
         (unsigned long long)at, (unsigned long long)(at + size), (unsigned long long)start,
         (unsigned long long)end);
    rebind(rs, i, (binding){shared + (kept.addr - kept.block), shared, block_size, image});
    launch_record rec;
    prepare_outputs(rs, &rec, -1);
    int entry = rec.count;
    for (int e = 0; e < rec.count; ++e) {
        entry = rec.out[e].block == shared ? e : entry;
    }
    if (entry == rec.count) {
        rec.out[rec.count++] = (written_block){-1, shared, block_size, 0, image, NULL, 0, 0};
    }
    rec.out[entry].scratch_at = at;
    rec.out[entry].scratch_bytes = size;
    aclnnStatus status = op->phase2(shared + at, size, rs->executor, NULL);
    char what[160];
    snprintf(what, sizeof what, "a workspace overlapping %s", slot_name(rs, i));
    expect_refusal(rs, status, ACLNN_ERR_PARAM_INVALID, op->name, "workspace", slot_name(rs, i), what);
    check_record(rs, &rec, status == ACLNN_SUCCESS);
    rebind(rs, i, kept);
    aclrtFree(shared);
    free(image);
}

static bool same_layout(const tensor_desc *a, const tensor_desc *b)
{
    bool same = a->dtype == b->dtype && a->rank == b->rank && a->offset == b->offset;
    for (int k = 0; k < a->rank && same; ++k) {
        same = a->shape[k] == b->shape[k] && a->strides[k] == b->strides[k];
    }
    return same;
}

/* An output rebound onto the bytes of an input or another output. Phase 1
 * refuses such a call where outputs must stay separate (161002), so
 * rebinding must too, by the setter or at the next launch: a launch would
 * race and, for MoE, copy overlapping rows. Silu's pair accepts in-place
 * calls: on an input's very view the launch must give what a fresh in-place
 * run gives; any other overlap must at least change nothing outside the
 * output views. */
static void overlapping_output(repeat_state *rs)
{
    const op_spec *op = rs->tr.op;
    int o = random_slot(rs, 1, true, -1);
    int j = o < 0 ? -1 : random_slot(rs, op->outputs_separate ? -1 : 0, true, o);
    uint64_t first_o = 0, bytes_o = 0, first_j = 0, bytes_j = 0;
    if (j < 0 || !desc_byte_range(&rs->tr.t[o], &first_o, &bytes_o) ||
        !desc_byte_range(&rs->tr.t[j], &first_j, &bytes_j)) {
        return;
    }
    binding kept_o = rs->bound[o], kept_j = rs->bound[j];
    bool in_place = !rnd_chance(3) && same_layout(&rs->tr.t[o], &rs->tr.t[j]);
    uint64_t shift = in_place ? 0 : (uint64_t)rnd_range(0, 8) * aclDataTypeSize(rs->tr.t[o].dtype);
    /* j keeps its place in a copy of its block, put far enough in that o's
     * address stays inside; both addresses stay aligned to their elements. */
    size_t item_o = aclDataTypeSize(rs->tr.t[o].dtype);
    uint64_t pad = (FRONT_GUARD + first_o + WORKSPACE_ALIGN - 1) / WORKSPACE_ALIGN * WORKSPACE_ALIGN;
    uint64_t j_at = pad + (uint64_t)(kept_j.addr - kept_j.block);
    uint64_t o_at = (j_at + first_j + shift - first_o) / item_o * item_o;
    size_t size = pad + kept_j.block_size > o_at + first_o + bytes_o + 64 ? pad + kept_j.block_size
                                                                           : o_at + first_o + bytes_o + 64;
    unsigned char *image;
    unsigned char *shared = shared_block(size, kept_j.content, kept_j.block_size, pad, &image);
    step(rs, "%s rebound onto %s, %llu bytes in%s", slot_name(rs, o), slot_name(rs, j), (unsigned long long)shift,
         in_place ? " (the same view)" : "");
    rebind(rs, j, (binding){shared + j_at, shared, size, image});
    size_t index;
    int s = pick_setter(rs, o, &index);
    aclnnStatus status = SETTERS[s].fn(rs->executor, index, NULL, shared + o_at);
    char what[200];
    snprintf(what, sizeof what, "%s rebound onto %s", slot_name(rs, o), slot_name(rs, j));
    if (status != ACLNN_SUCCESS) {
        expect_refusal(rs, status, ACLNN_ERR_PARAM_INVALID, SETTERS[s].api, NULL, NULL, what);
        expect(op->outputs_separate, &rs->tr, "%s refused %s, which phase 1 of %s accepts", SETTERS[s].api, what,
               op->name);
    } else {
        rs->bound[o] = (binding){shared + o_at, shared, size, image};
        launch_record rec;
        prepare_outputs(rs, &rec, -1);
        if (in_place && !op->outputs_separate) {
            reference_run(rs, &rec);
        }
        step(rs, "launch with %s rebound onto %s", slot_name(rs, o), slot_name(rs, j));
        status = op->phase2(rs->workspace, rs->workspace_size, rs->executor, NULL);
        /* A shift past the end of j's bytes leaves the two apart: a valid call. */
        const uint64_t o_first = o_at + first_o, j_first = j_at + first_j;
        const bool overlap = o_first < j_first + bytes_j && j_first < o_first + bytes_o;
        const bool refuse = op->outputs_separate && overlap;
        if (status != ACLNN_SUCCESS) {
            expect_refusal(rs, status, ACLNN_ERR_PARAM_INVALID, op->name, slot_name(rs, o), slot_name(rs, j), what);
            expect(refuse, &rs->tr, "%s refused a launch with %s (%d), which phase 1 accepts", op->name, what,
                   (int)status);
        } else {
            expect(!refuse, &rs->tr, "%s and %s accepted %s and ran it; phase 1 refuses such a call (161002: an "
                   "output overlapping an input or another output)", SETTERS[s].api, op->name, what);
        }
        check_record(rs, &rec, status == ACLNN_SUCCESS);
        rebind(rs, o, kept_o);
    }
    rebind(rs, j, kept_j);
    aclrtFree(shared);
    free(image);
}

/* The end of a repeat trial: the last launch (sometimes two) may still be
 * queued when the executor is destroyed, or its stream destroyed first;
 * aclDestroyAclOpExecutor waits, so the results are there without a
 * synchronize. A second destroy, a rebinding and a launch of the destroyed
 * executor are refused. */
static void destroy_while_queued(repeat_state *rs)
{
    const op_spec *op = rs->tr.op;
    int set = (int)rnd_below(POOL_SETS), s = (int)rnd_below(3);
    step(rs, "last launch on stream %d, then destroy", s);
    for (int o = rs->input_count; o < op->tensor_count; ++o) {
        if (rs->tr.t[o].present && !rs->unused[o]) {
            rebind(rs, o, pool_binding(rs, o, set));
        }
    }
    launch(rs, rs->streams[s], -1);
    if (rnd_chance(2)) {
        launch_again(rs, rs->streams[s]);
    }
    if (s == 2 && rnd_chance(2)) {
        step(rs, "aclrtDestroyStream with the last launch queued");
        expect(aclrtDestroyStream(rs->streams[2]) == ACL_SUCCESS, &rs->tr, "aclrtDestroyStream with a launch queued");
        rs->streams[2] = NULL;
    }
    step(rs, "aclDestroyAclOpExecutor with the last launch queued");
    aclOpExecutor *gone = rs->executor;
    expect(aclDestroyAclOpExecutor(gone) == ACLNN_SUCCESS, &rs->tr, "aclDestroyAclOpExecutor");
    /* Nothing is allocated until these are made: the address must not be live again. */
    expect_refusal(rs, aclDestroyAclOpExecutor(gone), ACLNN_ERR_INNER, "aclDestroyAclOpExecutor", "executor", NULL,
                   "destroying a repeatable executor twice");
    size_t index;
    int setter = pick_setter(rs, random_slot(rs, -1, false, -1), &index);
    expect_refusal(rs, SETTERS[setter].fn(gone, index, NULL, rs->pool[0][0] + FRONT_GUARD), ACLNN_ERR_PARAM_INVALID,
                   SETTERS[setter].api, "executor", NULL, "rebinding a destroyed executor");
    expect_refusal(rs, op->phase2(rs->workspace, rs->workspace_size, gone, rs->streams[rnd_below(2)]),
                   ACLNN_ERR_PARAM_INVALID, op->name, "executor", NULL, "launching a destroyed executor");
    rs->executor = NULL;
    settle(rs, false);
}

/* Pools, descriptors, the repeatable executor and its workspace of trial
 * `number`; false when phase 1 failed (reported). */
static bool repeat_setup(repeat_state *rs, op_state *state, int op_index, int number)
{
    const op_spec *op = state->op;
    memset(rs, 0, sizeof *rs);
    rs->state = state;
    rs->op_index = op_index;
    rs->tr.op = op;
    rs->tr.number = number;
    seed_trial(op_index, REPEAT_TRIAL_BASE + number);
    op->make_baseline(&rs->tr);
    rs->largest = WORKSPACE_GUARD; /* the canary also covers the guard past the workspace */
    for (int i = 0; i < op->tensor_count; ++i) {
        rs->input_count += !op->tensors[i].output;
        rs->pool_size[i] = block_bytes_for(&rs->tr.t[i]);
        rs->largest = rs->pool_size[i] > rs->largest ? rs->pool_size[i] : rs->largest;
    }
    rs->canary = canary_of(state, rs->largest);
    rs->decoy = device_block(rs->largest);
    device_write(rs->decoy, rs->canary, rs->largest);
    rs->foreign = xmalloc(rs->largest);
    memcpy(rs->foreign, rs->canary, rs->largest);
    for (int i = 0; i < op->tensor_count; ++i) {
        const tensor_desc *d = &rs->tr.t[i];
        if (!d->present) {
            continue;
        }
        rs->mirror[i] = device_block(rs->pool_size[i]);
        for (int set = 0; set < POOL_SETS; ++set) {
            rs->pool[i][set] = device_block(rs->pool_size[i]);
            if (!op->tensors[i].output) {
                rs->image[i][set] = xmalloc(rs->pool_size[i]);
                fill_content(rs->image[i][set], rs->pool_size[i], d->dtype, op->tensors[i].content, &rs->tr.attrs);
            }
            device_write(rs->pool[i][set], rs->image[i][set] != NULL ? rs->image[i][set] : rs->canary,
                         rs->pool_size[i]);
        }
        binding b = pool_binding(rs, i, 0);
        if (d->memory != MEM_OWN_BLOCK) { /* RoPE grad's unused dcosOut/dsinOut, as the baseline put them */
            b = (binding){d->memory == MEM_HOST ? rs->foreign : NULL, NULL, 0, NULL};
        }
        rs->bound[i] = b;
        rs->tensors[i] = aclCreateTensor(d->shape, (uint64_t)d->rank, d->dtype, d->default_strides ? NULL : d->strides,
                                         d->offset, d->format, d->storage, (uint64_t)d->storage_rank, b.addr);
    }
    step(rs, "phase 1 and aclSetAclOpExecutorRepeatable");
    aclnnStatus status = op->phase1(&rs->tr, rs->tensors, &rs->workspace_size, &rs->executor);
    const char *message = aclGetRecentErrMsg();
    expect(status == ACLNN_SUCCESS, &rs->tr, "phase 1 of a valid call returned %d: %s", (int)status,
           message ? message : "(no message)");
    if (status != ACLNN_SUCCESS) {
        return false;
    }
    expect(aclSetAclOpExecutorRepeatable(rs->executor) == ACLNN_SUCCESS, &rs->tr, "aclSetAclOpExecutorRepeatable");
    for (int i = 0; i < op->tensor_count; ++i) {
        rs->unused[i] = !rs->tr.t[i].present || desc_is_empty(&rs->tr.t[i]) || !memory_checked(&rs->tr, rs->tensors, i);
    }
    if (rs->workspace_size > 0) {
        rs->workspace = device_block((size_t)rs->workspace_size + WORKSPACE_GUARD);
        device_write(rs->workspace + rs->workspace_size, rs->canary, WORKSPACE_GUARD);
        rs->mirror_workspace = device_block((size_t)rs->workspace_size);
    }
    if (rnd_chance(4)) {
        /* The executor holds its own copy of every view: the descriptors may go. */
        for (int i = 0; i < op->tensor_count; ++i) {
            aclDestroyTensor(rs->tensors[i]);
            rs->tensors[i] = NULL;
        }
    }
    rs->streams[1] = state->stream;
    expect(aclrtCreateStream(&rs->streams[2]) == ACL_SUCCESS, &rs->tr, "aclrtCreateStream");
    return true;
}

static void repeat_teardown(repeat_state *rs)
{
    const op_spec *op = rs->tr.op;
    if (rs->executor != NULL) {
        aclDestroyAclOpExecutor(rs->executor);
    }
    if (rs->streams[2] != NULL) {
        aclrtDestroyStream(rs->streams[2]);
    }
    for (int i = 0; i < op->tensor_count; ++i) {
        aclDestroyTensor(rs->tensors[i]);
        if (rs->mirror[i] != NULL) {
            aclrtFree(rs->mirror[i]);
        }
        for (int set = 0; set < POOL_SETS; ++set) {
            if (rs->pool[i][set] != NULL) {
                aclrtFree(rs->pool[i][set]);
            }
            free(rs->image[i][set]);
        }
    }
    if (rs->workspace != NULL) {
        aclrtFree(rs->workspace);
        aclrtFree(rs->mirror_workspace);
    }
    aclrtFree(rs->decoy);
    free(rs->foreign);
}

static void repeat_trial(op_state *state, int op_index, int number)
{
    repeat_state *rs = xmalloc(sizeof *rs);
    if (repeat_setup(rs, state, op_index, number)) {
        for (int g = 0; g < state->op->repeat_groups; ++g) {
            repeat_group(rs, g);
        }
        /* Hazards use blocks of their own and rebind back, so the pools stay as the checks expect. */
        overlapping_workspace(rs);
        overlapping_output(rs);
        destroy_while_queued(rs);
    }
    repeat_teardown(rs);
    free(rs);
}

/* ------------------------------------------------------------ main */

/* only_trial / only_repeat: run that trial alone (-1: all of them; both -1: everything). */
static void fuzz_operator(int op_index, int only_trial, int only_repeat)
{
    op_stats stats;
    memset(&stats, 0, sizeof stats);
    current_stats = &stats;
    op_state state;
    memset(&state, 0, sizeof state);
    state.op = &OPS[op_index];
    state.stats = &stats;
    if (aclrtCreateStream(&state.stream) != ACL_SUCCESS) {
        fprintf(stderr, "aclrtCreateStream failed\n");
        exit(2);
    }
    if (only_trial >= 0) {
        run_trial(&state, op_index, only_trial);
    } else if (only_repeat >= 0) {
        repeat_trial(&state, op_index, only_repeat);
    } else {
        for (int n = 0; n < state.op->trials; ++n) {
            run_trial(&state, op_index, n);
        }
        misuse_phase2(&state, op_index);
        for (int n = 0; n < state.op->repeat_trials; ++n) {
            repeat_trial(&state, op_index, n);
        }
    }
    aclrtDestroyStream(state.stream);
    arena_release(&state.memory);
    free(state.canary);

    char codes[256] = "";
    for (int i = 0; i < stats.code_kinds; ++i) {
        append(codes, sizeof codes, "%s%d x%d", i ? ", " : "", (int)stats.codes[i], stats.code_counts[i]);
    }
    check(stats.failures == 0, "%s: %d trials, %d failed checks; mutated phase 1: %s; %d phase-2 runs checked, %d "
          "skipped; repeatable: %d launches checked, %d calls refused", state.op->name, stats.trials, stats.failures,
          codes, stats.phase2_runs, stats.phase2_skipped, stats.repeat_launches, stats.repeat_refusals);
}

int main(int argc, char **argv)
{
    const char *only_op = argc > 1 ? argv[1] : NULL;
    /* "N" reruns trial N, "rN" repeat trial N. */
    bool repeat = argc > 2 && argv[2][0] == 'r';
    int only_trial = argc > 2 && !repeat ? atoi(argv[2]) : -1;
    int only_repeat = repeat ? atoi(argv[2] + 1) : -1;
    const char *trace = getenv("TEST_FUZZ_TRACE");
    trace_calls = trace != NULL && strcmp(trace, "0") != 0;
    if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS) {
        fprintf(stderr, "aclInit/aclrtSetDevice failed\n");
        return 2;
    }
    /* The expectations are those of the default product, with host memory refused. */
    aclnnEmuSetSocName("Ascend910B");
    aclnnEmuSetHostMemoryAllowed(0);
    for (int i = 0; i < OP_COUNT; ++i) {
        if (only_op == NULL || strcmp(only_op, OPS[i].name) == 0) {
            fuzz_operator(i, only_trial, only_repeat);
        }
    }
    aclrtResetDevice(0);
    aclFinalize();
    printf("%d passed, %d failed\n", g_passed, g_failed);
    return g_failed == 0 ? 0 : 1;
}
