"""``python -m aclnn_emu._torch_npu_shim`` prints the directory to put on PYTHONPATH."""

from . import PATH

print(PATH)
