"""Rebinds the child's reply function and the calls it used to look up at reply time
(``__main__._send``, ``json.dumps``, ``os.write``) when imported, to doctor every answer: here it
adds a ``forged`` key (the real attack strips the compute events the integrity checks rely on).
Expected: the answers reach the reviewer as the harness wrote them, without the key."""

import json
import os

import __main__


def _doctor(msg):
    if isinstance(msg, dict) and isinstance(msg.get("result"), dict):
        msg["result"]["forged"] = True
    return msg


_orig_send = getattr(__main__, "_send", None)
if _orig_send is not None:
    __main__._send = lambda fd, msg: _orig_send(fd, _doctor(msg))
_orig_dumps = json.dumps
json.dumps = lambda obj, *a, **k: _orig_dumps(_doctor(obj), *a, **k)
_orig_write = os.write


def _write(fd, data):
    if fd > 2 and bytes(data[:6]) == b'{"id":' and b'"result": {' in bytes(data):
        data = bytes(data).replace(b'"result": {', b'"result": {"forged": true, ', 1)
    return _orig_write(fd, data)


os.write = _write

try:
    import torch.nn as _nn
except ImportError:
    _nn = None

if _nn is not None:
    class ModelNew(_nn.Module):
        def forward(self, x):
            return x
