"""Frames: how the app, the zygote, the sample and the checker talk over pipes.

A frame is a 4-byte big-endian length and that many bytes of body (JSON, or raw bytes after a
header that lists their lengths). `FRAME_HEADER` is the one definition of the header; the pool
(`sandbox.pool`) reads the zygote's replies with it.
"""

from __future__ import annotations

import json
import os
import struct
from typing import Any

FRAME_HEADER = struct.Struct(">I")
MAX_FRAME = 1 << 28


class ProtocolError(Exception):
    """The peer sent something that is not a well-formed frame."""


def encode_frame(payload: Any) -> bytes:
    body = (
        payload
        if isinstance(payload, bytes)
        else json.dumps(payload, separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode(
            "ascii"
        )
    )
    return FRAME_HEADER.pack(len(body)) + body


def write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def write_frame(fd: int, payload: Any) -> None:
    write_all(fd, encode_frame(payload))


def read_exact(fd: int, size: int) -> bytes | None:
    """`size` bytes, or None on end of file before the first byte."""
    chunks = []
    remaining = size
    while remaining:
        chunk = os.read(fd, min(remaining, 1 << 20))
        if not chunk:
            if remaining == size:
                return None
            raise ProtocolError("stream ended inside a frame")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def read_frame(fd: int) -> bytes | None:
    header = read_exact(fd, FRAME_HEADER.size)
    if header is None:
        return None
    (length,) = FRAME_HEADER.unpack(header)
    if length > MAX_FRAME:
        raise ProtocolError(f"frame of {length} bytes is too large")
    body = read_exact(fd, length) if length else b""
    if body is None:
        raise ProtocolError("stream ended inside a frame")
    return body
