"""Generate the C source of the cffi API-mode extension ``aclnn_emu._aclnn_emu_cffi``.

python/CMakeLists.txt runs this at build time::

    python _cffi_build.py OUT.c

and compiles ``OUT.c`` against ``include/`` and libaclnn_emu. By hand::

    python python/aclnn_emu/_cffi_build.py /tmp/_aclnn_emu_cffi.c
    gcc -fsyntax-only -Iinclude $(python3-config --includes) /tmp/_aclnn_emu_cffi.c

The declarations come from ``_cdef.h`` next to this file. The generated source
includes ``acl/acl.h``, every ``aclnnop/`` header named by a section marker of
``_cdef.h`` and ``aclnn_emu/aclnn_emu.h``, so a new operator header only has to be
added to ``_cdef.h``.
"""

import os
import re
import sys

import cffi

HERE = os.path.dirname(os.path.abspath(__file__))
CDEF_PATH = os.path.join(HERE, "_cdef.h")
MODULE_NAME = "aclnn_emu._aclnn_emu_cffi"

_MARKER = re.compile(r"/\*\s*-{2,}\s*(\S+\.h)\s*-{2,}\s*\*/")


def read_cdef(path=CDEF_PATH):
    """Return the text of the cdef file."""
    with open(path, encoding="utf-8") as f:
        return f.read()


def source_includes(cdef_text):
    """The #include block handed to ``ffi.set_source`` for ``cdef_text``."""
    headers = ["acl/acl.h"]
    headers += [h for h in _MARKER.findall(cdef_text) if h.startswith("aclnnop/") and h != "aclnnop/aclnn_util.h"]
    headers.append("aclnn_emu/aclnn_emu.h")
    return "\n".join('#include "%s"' % h for h in headers)


def make_ffi(cdef_path=CDEF_PATH):
    """Build the ``cffi.FFI`` object (declarations and source) for the extension."""
    text = read_cdef(cdef_path)
    ffi = cffi.FFI()
    ffi.cdef(text)
    ffi.set_source(MODULE_NAME, source_includes(text))
    return ffi


def main(argv=None):
    """Write the generated C file: ``_cffi_build.py [OUT.c] [--cdef PATH]``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    cdef_path = CDEF_PATH
    if "--cdef" in argv:
        i = argv.index("--cdef")
        cdef_path = argv[i + 1]
        del argv[i : i + 2]
    out = argv[0] if argv else "_aclnn_emu_cffi.c"
    ffi = make_ffi(cdef_path)
    tmp = out + ".tmp"
    ffi.emit_c_code(tmp)
    os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
