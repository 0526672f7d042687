"""``python -m aclnn_emu``: print where the installed C library, headers and CMake files are.

    cmake -Daclnn_emu_DIR="$(python -m aclnn_emu --cmake-dir)" ...
    cc $(python -m aclnn_emu --cflags) main.c $(python -m aclnn_emu --libs)
    cc -I"$(python -m aclnn_emu --include-dir)" -I"$(python -m aclnn_emu --include-dir)/aclnnop" \\
       -L"$(python -m aclnn_emu --lib-dir)" -lascendcl -lnnopbase -lopapi ...

The include folder holds ``acl/acl.h`` and ``aclnnop/aclnn_<op>.h``; put its
``aclnnop`` subfolder on the include path too, as CANN's does, for programs
that write ``#include "aclnn_<op>.h"`` (the CMake target does).

The prefix is laid out like a CANN toolkit (``include/``, ``lib64/``, and
``lib/``), so CANN's own CMake files take it as it is:

    cmake -DCANN_INSTALL_DIR="$(python -m aclnn_emu --prefix)" ...
"""

import argparse
import importlib.util
import os
import shlex
import sys

from . import __version__ as VERSION


def prefix():
    """The install prefix of the C side: the folder holding the compiled cffi module, lib/, lib64/ and include/."""
    spec = importlib.util.find_spec("aclnn_emu._aclnn_emu_cffi")
    if spec is not None and spec.origin:
        return os.path.dirname(os.path.abspath(spec.origin))
    return os.path.dirname(os.path.abspath(__file__))


def include_dir():
    """Folder of the public headers (``acl/acl.h`` ...)."""
    return os.path.join(prefix(), "include")


def include_dirs():
    """Both folders a compiler needs: ``include`` and ``include/aclnnop`` (for ``#include "aclnn_silu.h"``)."""
    return [include_dir(), os.path.join(include_dir(), "aclnnop")]


def lib_dir():
    """Folder of ``libaclnn_emu.so``."""
    return os.path.join(prefix(), "lib")


def cmake_dir():
    """Folder of ``aclnn_emuConfig.cmake`` (for ``aclnn_emu_DIR``)."""
    return os.path.join(lib_dir(), "cmake", "aclnn_emu")


def cflags():
    """Compiler flags for the headers: ``-I<include> -I<include>/aclnnop``."""
    return " ".join(shlex.quote("-I" + d) for d in include_dirs())


def libs():
    """Linker flags for CANN's link names, with an RPATH to the library."""
    lib = lib_dir()
    return " ".join([shlex.quote("-L" + lib), "-lascendcl", "-lnnopbase", "-lopapi", shlex.quote("-Wl,-rpath," + lib)])


def main(argv=None):
    """Parse the command line and print the requested paths, one per line."""
    parser = argparse.ArgumentParser(
        prog="python -m aclnn_emu",
        description="Print where the installed aclnn_emu C library, headers and CMake package files are.",
    )
    # Each flag appends its name to args.asked, so the paths print in the order asked.
    def flag(name, help_text):
        parser.add_argument("--" + name, dest="asked", action="append_const", const=name, help=help_text)

    flag("prefix", "the installation prefix, laid out like CANN's (include/, lib64/): "
                   "give it as CANN_INSTALL_DIR or ASCEND_TOOLKIT_HOME")
    flag("include-dir", "the directory of the C headers (put its aclnnop/ subdirectory on the include "
                        "path too, for #include \"aclnn_xxx.h\"; --cflags gives both)")
    flag("lib-dir", "the directory of libaclnn_emu")
    flag("cmake-dir", "the directory of aclnn_emuConfig.cmake")
    flag("cflags", "compiler flags: -I<include-dir> -I<include-dir>/aclnnop")
    flag("libs", "linker flags: -L<lib-dir> -lascendcl -lnnopbase -lopapi -Wl,-rpath,<lib-dir>")
    parser.add_argument("--version", action="version", version=VERSION)
    args = parser.parse_args(argv)
    # name -> (what prints, the folder that must exist, a file that must be in it)
    answers = {
        "prefix": (prefix, prefix, os.path.join("include", "acl", "acl.h")),
        "include-dir": (include_dir, include_dir, os.path.join("acl", "acl.h")),
        "lib-dir": (lib_dir, lib_dir, None),
        "cmake-dir": (cmake_dir, cmake_dir, "aclnn_emuConfig.cmake"),
        "cflags": (cflags, include_dir, None),
        "libs": (libs, lib_dir, None),
    }
    if not args.asked:
        parser.print_help()
        return 0
    status = 0
    for name in args.asked:
        answer, folder_of, marker = answers[name]
        folder = folder_of()
        if not os.path.isdir(folder) or (marker and not os.path.exists(os.path.join(folder, marker))):
            print("aclnn_emu: %s not found (is the package installed from a wheel?)" % folder, file=sys.stderr)
            status = 1
        print(answer())
    return status


if __name__ == "__main__":
    sys.exit(main())
