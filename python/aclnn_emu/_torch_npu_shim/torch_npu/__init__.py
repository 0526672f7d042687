"""Stand-in for ``torch_npu`` (aclnn_emu), found only when its directory is on ``sys.path``.

If a real torch_npu is importable from the rest of ``sys.path`` (or from an
import hook, such as an editable install's), it is loaded in place of this
module; otherwise ``import torch_npu`` gives :mod:`aclnn_emu.torch_npu`
(torch_npu's operators on CPU tensors).
"""

import importlib.machinery
import importlib.util
import os
import sys


def _find_real(name, shim):
    """The spec of ``name`` from anywhere but ``shim`` (None when there is none)."""
    path = [p for p in sys.path if os.path.abspath(p or os.curdir) != shim]
    for finder in sys.meta_path:
        find = getattr(finder, "find_spec", None)
        if find is None:
            continue
        try:
            spec = find(name, path if finder is importlib.machinery.PathFinder else None)
        except Exception:  # a broken hook is not a torch_npu
            continue
        # (a namespace package, origin None, is a directory named torch_npu, not a torch_npu)
        if spec is not None and spec.origin and not spec.origin.startswith(shim + os.sep):
            return spec
    return None


def _load():
    spec = _find_real(__name__, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if spec is not None:  # the real torch_npu: never shadowed
        module = importlib.util.module_from_spec(spec)
        sys.modules[__name__] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            sys.modules.pop(__name__, None)
            raise
        return module
    from aclnn_emu import torch_npu as module

    sys.modules[__name__] = module
    return module


_load()
