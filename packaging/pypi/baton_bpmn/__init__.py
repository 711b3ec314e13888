"""The `baton` command of the baton-bpmn wheel, for Python.

pip puts the `baton` binary itself on the PATH (the wheel's scripts), so `baton ...` runs it with
nothing in between. `python -m baton_bpmn ...` runs the same binary after checking it, and where it
cannot run (a binary missing, without its run bit, or for another platform) says why and what to do.
"""

from __future__ import annotations

import os
import platform
import struct
import sys
import sysconfig

__all__ = ["BinaryProblem", "find_baton_bin"]

# ELF machine codes, Mach-O CPU types and PE machine types of the platforms baton has wheels for.
_ELF_MACHINES = {0x3E: "x86_64", 0xB7: "aarch64"}
_MACHO_CPUS = {0x01000007: "x86_64", 0x0100000C: "arm64"}
_PE_MACHINES = {0x8664: "AMD64", 0xAA64: "ARM64"}
_SAME_MACHINE = {"amd64": "x86_64", "arm64": "aarch64"}


class BinaryProblem(Exception):
    """Why the installed binary cannot run, in words for the user."""


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("baton-bpmn")
    except Exception:  # an install without its metadata: the advice still holds without a version
        return ""


def _reinstall_command() -> str:
    pinned = f"baton-bpmn=={_version()}" if _version() else "baton-bpmn"
    return f"pip install --force-reinstall {pinned}"


def _reinstall() -> str:
    return f"Reinstall it: `{_reinstall_command()}` (in this environment: {sys.prefix})."


def find_baton_bin() -> str:
    """The path of the `baton` binary this package installed (the scripts folder of its scheme)."""
    exe = "baton" + (sysconfig.get_config_var("EXE") or "")
    schemes = [sysconfig.get_path("scripts")]
    user_scheme = f"{os.name}_user"
    if user_scheme in sysconfig.get_scheme_names():
        schemes.append(sysconfig.get_path("scripts", scheme=user_scheme))
    for scripts in schemes:
        candidate = os.path.join(scripts, exe)
        if os.path.lexists(candidate):
            return candidate
    raise BinaryProblem(
        f"baton-bpmn: the baton binary is missing: there is no {exe} in {schemes[0]}.\n{_reinstall()}"
    )


def _machine_of(header: bytes) -> str | None:
    """The processor a binary is for, from its first bytes; None when it is no executable known here."""
    if header[:4] == b"\x7fELF" and len(header) >= 20:
        order = ">" if header[5] == 2 else "<"
        return _ELF_MACHINES.get(struct.unpack(order + "H", header[18:20])[0], "another processor")
    if header[:4] == b"\xcf\xfa\xed\xfe" and len(header) >= 8:
        return _MACHO_CPUS.get(struct.unpack("<I", header[4:8])[0], "another processor")
    if header[:4] == b"\xca\xfe\xba\xbe":
        return "universal"
    if header[:2] == b"MZ" and len(header) >= 64:
        pe = struct.unpack("<I", header[0x3C:0x40])[0]
        if header[pe : pe + 4] == b"PE\0\0":
            return _PE_MACHINES.get(struct.unpack("<H", header[pe + 4 : pe + 6])[0], "another processor")
    return None


def check_baton_bin(path: str) -> None:
    """Raises BinaryProblem when the binary at path cannot run on this machine."""
    if not os.path.isfile(path):
        raise BinaryProblem(f"baton-bpmn: the baton binary is missing: {path} does not exist.\n{_reinstall()}")
    with open(path, "rb") as file:
        header = file.read(4096)
    machine = _machine_of(header)
    here = platform.machine()
    if machine is None:
        raise BinaryProblem(f"baton-bpmn: the baton binary {path} is damaged: it is not an executable.\n{_reinstall()}")
    if machine != "universal" and _SAME_MACHINE.get(machine.lower(), machine.lower()) != _SAME_MACHINE.get(here.lower(), here.lower()):
        raise BinaryProblem(
            f"baton-bpmn: the baton binary {path} is for {machine}, but this machine is {here}.\n"
            "The wheel was made for another platform (copied from another machine, or installed with pip's --platform).\n"
            f"{_reinstall()} pip then picks the wheel for this machine, or builds one from the source distribution."
        )
    if os.name != "nt" and not os.access(path, os.X_OK):
        raise BinaryProblem(
            f"baton-bpmn: the baton binary {path} is not executable (it lost its run bit).\n"
            f"Give it back: `chmod +x {path}`, or reinstall: `{_reinstall_command()}`."
        )
