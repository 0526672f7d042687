"""``python -m aclnn_emu``: print where the installed C library, headers and CMake files are.

    cmake -Daclnn_emu_DIR="$(python -m aclnn_emu --cmake-dir)" ...
    cc -I"$(python -m aclnn_emu --include-dir)" -L"$(python -m aclnn_emu --lib-dir)" -laclnn_emu ...
"""

import argparse
import importlib.util
import os
import sys

from . import __version__ as VERSION


def prefix():
    """The install prefix of the C side: the folder holding the compiled cffi module, lib/ and include/."""
    spec = importlib.util.find_spec("aclnn_emu._aclnn_emu_cffi")
    if spec is not None and spec.origin:
        return os.path.dirname(os.path.abspath(spec.origin))
    return os.path.dirname(os.path.abspath(__file__))


def include_dir():
    """Folder of the public headers (``acl/acl.h`` ...)."""
    return os.path.join(prefix(), "include")


def lib_dir():
    """Folder of ``libaclnn_emu.so``."""
    return os.path.join(prefix(), "lib")


def cmake_dir():
    """Folder of ``aclnn_emuConfig.cmake`` (for ``aclnn_emu_DIR``)."""
    return os.path.join(lib_dir(), "cmake", "aclnn_emu")


def main(argv=None):
    """Parse the command line and print the requested paths, one per line."""
    parser = argparse.ArgumentParser(
        prog="python -m aclnn_emu",
        description="Print where the installed aclnn_emu C library, headers and CMake package files are.",
    )
    parser.add_argument("--prefix", action="store_true", help="the installation prefix")
    parser.add_argument("--include-dir", action="store_true", help="the directory of the C headers")
    parser.add_argument("--lib-dir", action="store_true", help="the directory of libaclnn_emu")
    parser.add_argument("--cmake-dir", action="store_true", help="the directory of aclnn_emuConfig.cmake")
    parser.add_argument("--version", action="version", version=VERSION)
    args = parser.parse_args(argv)
    requests = [
        (args.prefix, prefix, None),
        (args.include_dir, include_dir, os.path.join("acl", "acl.h")),
        (args.lib_dir, lib_dir, None),
        (args.cmake_dir, cmake_dir, "aclnn_emuConfig.cmake"),
    ]
    if not any(flag for flag, _, _ in requests):
        parser.print_help()
        return 0
    status = 0
    for flag, fn, marker in requests:
        if not flag:
            continue
        path = fn()
        if not os.path.isdir(path) or (marker and not os.path.exists(os.path.join(path, marker))):
            print("aclnn_emu: %s not found (is the package installed from a wheel?)" % path, file=sys.stderr)
            status = 1
        print(path)
    return status


if __name__ == "__main__":
    sys.exit(main())
