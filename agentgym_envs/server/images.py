"""Frames as AgentGym's ``/render`` sends pictures: a base64 PNG, made with the standard library."""

from __future__ import annotations

import base64
import struct
import zlib
from typing import Any


def is_frame(value: Any) -> bool:
    """Whether ``value`` is an RGB frame: an ``(height, width, 3)`` array of ``uint8``."""
    shape = getattr(value, "shape", None)
    return shape is not None and len(shape) == 3 and shape[2] == 3 and str(value.dtype) == "uint8"


def png_base64(frame: Any) -> str:
    """``frame`` (see :func:`is_frame`) as a base64-encoded PNG."""
    height, width, _ = frame.shape
    raw = frame.tobytes()
    stride = width * 3
    # every scanline starts with filter type 0 (none)
    rows = b"".join(b"\x00" + raw[y * stride : (y + 1) * stride] for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
    png = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header)
    png += _chunk(b"IDAT", zlib.compress(rows, 6)) + _chunk(b"IEND", b"")
    return base64.b64encode(png).decode("ascii")


def _chunk(kind: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)
