"""Every implemented operator from Python, driven by the library's own registry.

The C library lists the operators it implements with the arguments of their
phase 1 (``aclnnEmuGetOperatorName`` / ``aclnnEmuGetOperatorSignature``).
:func:`run` calls any of them by name, with keyword arguments named as in
CANN's header::

    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = np.empty_like(x)
    aclnn_emu.run("aclnnAdd", self=x, other=np.ones(3, np.float32), alpha=2.0, out=out)
    aclnn_emu.run("aclnnInplaceExp", selfRef=x)      # in place
    aclnn_emu.operators()["aclnnClamp"]               # the argument list

It runs on the same machine as the numpy functions (:mod:`aclnn_emu.ops`):
tensors are numpy arrays (any view; byte orders and layouts aclnn cannot
describe are staged through a copy) or :class:`~aclnn_emu.DeviceTensor`
objects; outputs (``out`` kinds; ``out?`` ones may be left out) and in-place
tensors (``inout``) are written into, with their strides and offset kept. Scalars are Python
numbers, numpy scalars or ``(value, numpy dtype)`` pairs (a bare float is an
``ACL_FLOAT`` scalar, an int ``ACL_INT64``, a bool ``ACL_BOOL``, as host code
usually makes them); ``dtype`` arguments take a numpy dtype; ``intarray``,
``boolarray`` and ``floatarray`` arguments a sequence; ``tensorlist`` a
sequence of tensors. Failures raise :class:`AclnnError` whose message names
the argument as the header does; Python-side errors (a read-only output, a
missing argument) name it the same way.
"""

from . import ops

__all__ = ["operators", "run"]


def operators():
    """``{api name: [(argument, kind), ...]}`` for every operator the library implements."""
    return ops._signatures()


def run(api, stream=None, **arguments):
    """Runs operator ``api``: phase 1, workspace, phase 2 on ``stream``.

    Args:
        api: the phase-2 name, e.g. ``"aclnnAdd"`` (see :func:`operators`).
        stream: an :class:`aclnn_emu.Stream`, a raw ``aclrtStream`` or None
            (the default stream). numpy results are complete on return; when
            every tensor is a DeviceTensor the launch is queued, and results
            are there after ``stream.synchronize()``.
        arguments: the phase-1 arguments by their header names; optional
            tensors and scalars may be left out.

    Returns:
        The output (or in-place) tensor, or a tuple of those given when there are several.

    Raises:
        ValueError: ``api`` is not implemented, or an output is read-only.
        TypeError: unknown or missing arguments, or values of the wrong kind.
        AclnnError: the library's code and message.
    """
    op = ops._operator(api)
    unknown = arguments.keys() - op.names
    if unknown:
        raise TypeError("%s got unexpected arguments %s; it takes %s"
                        % (api, ", ".join(sorted(unknown)), ", ".join(n for n, _ in op.signature)))
    get = arguments.get
    missing = [n for n in op.required if get(n) is None]
    if missing:
        raise TypeError("%s: missing argument%s %s" % (api, "s" if len(missing) > 1 else "", ", ".join(missing)))
    outputs = tuple([get(n) for n in op.out_names])
    ops._launch(op, tuple([get(n) for n in op.in_names]), outputs, tuple([get(n) for n in op.value_names]), stream)
    written = [y for y in outputs if y is not None]  # optional outputs left out are not returned
    return written[0] if len(written) == 1 else tuple(written)
