"""A directory to put on ``PYTHONPATH`` so that ``import torch_npu`` works without the real package.

Its ``torch_npu`` package loads the real torch_npu when one is installed
further along ``sys.path`` (it never shadows one), and
:mod:`aclnn_emu.torch_npu` otherwise::

    PYTHONPATH=$(python -m aclnn_emu._torch_npu_shim) python train.py

Importing this package does nothing (no torch import).
"""

import os

#: The directory to put on ``sys.path`` / ``PYTHONPATH``.
PATH = os.path.dirname(os.path.abspath(__file__))
