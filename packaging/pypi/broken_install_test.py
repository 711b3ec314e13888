"""The wheel's answers to a broken install, run as a user runs them: `python -m baton_bpmn` in a
virtual environment where the wheel was installed (packaging/test passes the wheel in BATON_WHEEL).
Each case breaks its own copy of that environment. Run with: python3 -m unittest packaging/pypi/broken_install_test.py
"""

import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

WHEEL = os.environ.get("BATON_WHEEL", "")
VERSION = re.sub(r"^baton_bpmn-([^-]+)-.*$", r"\1", os.path.basename(WHEEL))
MACHINE = platform.machine()


class BrokenInstall(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not WHEEL:
            raise unittest.SkipTest("BATON_WHEEL must name the wheel (packaging/test sets it)")
        cls.scratch = tempfile.mkdtemp(prefix="baton-wheel-")
        cls.venv = os.path.join(cls.scratch, "venv")
        subprocess.run([sys.executable, "-m", "venv", cls.venv], check=True)
        pip = [cls.python(cls.venv), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--no-index"]
        subprocess.run([*pip, WHEEL], check=True)
        cls.copies = 0

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.scratch, ignore_errors=True)

    @staticmethod
    def python(venv):
        return os.path.join(venv, "Scripts" if os.name == "nt" else "bin", "python")

    def copy_of_venv(self):
        type(self).copies += 1
        copy = os.path.join(self.scratch, f"venv-{self.copies}")
        shutil.copytree(self.venv, copy, symlinks=True)
        return copy

    def binary(self, venv):
        return os.path.join(venv, "Scripts" if os.name == "nt" else "bin", "baton.exe" if os.name == "nt" else "baton")

    def run_module(self, venv, *args):
        return subprocess.run([self.python(venv), "-m", "baton_bpmn", *args], capture_output=True, text=True)

    def assert_fails(self, result, expected):
        self.assertEqual(result.stdout, "")
        self.assertNotIn("Traceback", result.stderr)
        self.assertEqual(result.stderr, expected)
        self.assertEqual(result.returncode, 1)

    def reinstall(self, venv):
        return f"Reinstall it: `pip install --force-reinstall baton-bpmn=={VERSION}` (in this environment: {venv})."

    def test_the_installed_binary_answers_through_the_module(self):
        result = self.run_module(self.venv, "--version")
        self.assertEqual(result.stderr, "")
        self.assertRegex(result.stdout, rf"^baton {re.escape(VERSION)}( \(.*\))?\n$")
        self.assertEqual(result.returncode, 0)

    def test_the_binary_missing(self):
        venv = self.copy_of_venv()
        os.remove(self.binary(venv))
        scripts = os.path.dirname(self.binary(venv))
        self.assert_fails(self.run_module(venv, "--version"),
                          f"baton-bpmn: the baton binary is missing: there is no baton in {scripts}.\n{self.reinstall(venv)}\n")

    @unittest.skipIf(os.name == "nt", "no run bit")
    def test_a_binary_that_lost_its_run_bit(self):
        venv = self.copy_of_venv()
        binary = self.binary(venv)
        os.chmod(binary, 0o644)
        self.assert_fails(self.run_module(venv, "--version"),
                          f"baton-bpmn: the baton binary {binary} is not executable (it lost its run bit).\n"
                          f"Give it back: `chmod +x {binary}`, or reinstall: `pip install --force-reinstall baton-bpmn=={VERSION}`.\n")

    @unittest.skipIf(sys.platform != "linux", "ELF only")
    def test_a_binary_for_another_processor(self):
        venv = self.copy_of_venv()
        binary = self.binary(venv)
        other, name = (b"\x3e\x00", "x86_64") if MACHINE == "aarch64" else (b"\xb7\x00", "aarch64")
        with open(binary, "r+b") as file:
            file.seek(18)
            file.write(other)
        self.assert_fails(self.run_module(venv, "--version"),
                          f"baton-bpmn: the baton binary {binary} is for {name}, but this machine is {MACHINE}.\n"
                          "The wheel was made for another platform (copied from another machine, or installed with pip's --platform).\n"
                          f"{self.reinstall(venv)} pip then picks the wheel for this machine, or builds one from the source distribution.\n")

    def test_a_binary_overwritten(self):
        venv = self.copy_of_venv()
        binary = self.binary(venv)
        with open(binary, "r+b") as file:
            file.write(b"#!/bin/sh\n")
        self.assert_fails(self.run_module(venv, "--version"),
                          f"baton-bpmn: the baton binary {binary} is damaged: it is not an executable.\n{self.reinstall(venv)}\n")

    def test_pip_refuses_a_wheel_for_another_processor(self):
        other = "aarch64" if MACHINE == "x86_64" else "x86_64"
        renamed = os.path.join(self.scratch, re.sub(r"_(x86_64|aarch64)", f"_{other}", os.path.basename(WHEEL)))
        shutil.copy(WHEEL, renamed)
        venv = self.copy_of_venv()
        result = subprocess.run([self.python(venv), "-m", "pip", "install", "--disable-pip-version-check", "--no-index", renamed],
                                capture_output=True, text=True)
        self.assertNotEqual(result.returncode, 0)
        self.assertIn(f"{os.path.basename(renamed)} is not a supported wheel on this platform.", result.stderr)


if __name__ == "__main__":
    unittest.main()
