"""aclnn_emu: Huawei CANN's aclnn operator API, emulated on the CPU.

Two layers:

* ``ffi`` and ``lib``: the raw cffi binding of the public C headers (acl/,
  aclnn/, aclnnop/, aclnn_emu/), for porting CANN host code line by line;
* a numpy layer: a function per seed operator (:func:`silu`,
  :func:`silu_backward`, the rotary, MoE and Floyd attention functions),
  :func:`run` for every implemented operator by name (:func:`operators`
  lists them), all on one machine (``ops._launch``);
  :class:`DeviceTensor`, :class:`Stream`, :class:`Event` and the settings
  helpers.

Importing the package holds the runtime up (``aclnnEmuRetainRuntime``, which
host code never sees: its own ``aclInit`` still returns 0) and calls
``aclrtSetDevice(0)``; the matching ``aclrtResetDevice`` and
``aclnnEmuReleaseRuntime`` run at exit.
Failures raise :class:`AclnnError` carrying the C status code and message.
"""

import atexit as _atexit

from ._aclnn_emu_cffi import ffi, lib
from .errors import AclnnError, check

__version__ = "0.1.0"

# A hold of our own rather than aclInit: host code that calls aclInit itself
# (before or after this import) gets ACL_SUCCESS, as without the package.
check(lib.aclnnEmuRetainRuntime(), "aclnnEmuRetainRuntime")
check(lib.aclrtSetDevice(0), "aclrtSetDevice")

from . import errors, ops, runtime, tensor  # noqa: E402,F401  (need the initialised runtime)
from .ops import silu, silu_backward  # noqa: E402
from .ops import moe_token_permute, moe_token_permute_grad  # noqa: E402
from .ops import (  # noqa: E402
    rotary_mul,
    rotary_mul_backward,
    rotary_position_embedding,
    rotary_position_embedding_grad,
)
from .ops import fused_floyd_attention, fused_floyd_attention_grad  # noqa: E402
from .generic import operators, run  # noqa: E402
from .runtime import (  # noqa: E402
    Event,
    Stream,
    available_isas,
    detected_isa,
    get_isa,
    get_num_threads,
    invalidate_plans,
    last_kernel,
    library_version,
    set_isa_cap,
    set_num_threads,
    set_soc_name,
    set_verbose,
    get_verbose,
    soc_name,
    synchronize,
)
from .tensor import DeviceTensor, acl_dtype, numpy_dtype  # noqa: E402

__all__ = [
    "operators",
    "run",
    "ffi",
    "lib",
    "AclnnError",
    "check",
    "DeviceTensor",
    "Stream",
    "Event",
    "silu",
    "silu_backward",
    "moe_token_permute",
    "moe_token_permute_grad",
    "rotary_position_embedding",
    "rotary_position_embedding_grad",
    "rotary_mul",
    "rotary_mul_backward",
    "fused_floyd_attention",
    "fused_floyd_attention_grad",
    "synchronize",
    "set_isa_cap",
    "get_isa",
    "detected_isa",
    "available_isas",
    "set_num_threads",
    "get_num_threads",
    "set_soc_name",
    "soc_name",
    "set_verbose",
    "get_verbose",
    "last_kernel",
    "library_version",
    "invalidate_plans",
    "acl_dtype",
    "numpy_dtype",
    "__version__",
]


@_atexit.register
def _finalize():
    """Release cached workspaces and live DeviceTensors, then drop our aclInit reference."""
    try:
        ops.release_plans()
        ops.release_workspaces()
        tensor.close_all()
        lib.aclrtResetDevice(0)
        lib.aclnnEmuReleaseRuntime()
    except Exception:
        pass
