# Lets Debian's torch 1.13 launcher accept --redirects/--tee 3 (and 0) on Python 3.11.
# torch 1.13's Std.from_str looks the value up by iterating the Std flag enum; Python 3.11
# no longer yields the composite member ALL (3) or NONE (0) when iterating a Flag, so
# `--tee 3` crashes at start with "AttributeError: 'NoneType' object has no attribute 'get'".
# Only the torchrun launcher process is patched; training workers are left alone.
import sys

if "torch.distributed.run" in getattr(sys, "orig_argv", ()):
    import re
    from torch.distributed.elastic.multiprocessing import api as _api

    def _from_str(vm):
        if re.match(_api._VALUE_REGEX, vm):
            return _api.Std(int(vm))
        return {int(i): _api.Std(int(v)) for i, v in (m.split(":") for m in vm.split(","))}

    _api.Std.from_str = staticmethod(_from_str)
