"""Test support: an SGLang-Omni-compatible server with a scripted decoder."""

from .server import Faults, TestServer
from .session import Session, make_session_audio, write_session_audio

__all__ = ["TestServer", "Faults", "Session", "make_session_audio", "write_session_audio"]
