"""`python -m baton_bpmn ARGS`: runs the installed `baton` with ARGS, or says why it cannot."""

from __future__ import annotations

import os
import subprocess
import sys

from baton_bpmn import BinaryProblem, check_baton_bin, find_baton_bin


def main() -> int:
    try:
        binary = find_baton_bin()
        check_baton_bin(binary)
    except BinaryProblem as problem:
        print(problem, file=sys.stderr)
        return 1
    if os.name == "nt":
        return subprocess.run([binary, *sys.argv[1:]]).returncode
    os.execv(binary, [binary, *sys.argv[1:]])
    return 1  # not reached: execv replaces this process


if __name__ == "__main__":
    sys.exit(main())
