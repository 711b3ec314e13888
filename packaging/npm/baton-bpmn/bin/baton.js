#!/usr/bin/env node
// The `baton` (and `baton-bpmn`) command of the npm package: finds the binary that the platform
// package for this os/cpu carries (an optional dependency, the layout esbuild and biome use) and
// runs it with the same arguments, standard streams and exit status. Every way of not finding a
// runnable binary ends in a message that names the platform and what to install, never a stack
// trace: this file is what a user sees when the install went wrong.
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");
const { spawnSync } = require("child_process");

// Loaded inside the try below, so that a damaged install of this package also ends in one line.
let ownPackage;
let platforms;

// Signals that a Rust binary does not die of unless its file is damaged or not for this machine.
const CRASH_SIGNALS = new Set(["SIGSEGV", "SIGILL", "SIGBUS"]);

class LauncherError extends Error {}

function fail(lines) {
  throw new LauncherError(lines.join("\n"));
}

function platformName(platform, arch) {
  return `${platform} ${arch}`;
}

// Which executable formats and machine codes the binary's first bytes may show, so that a file
// from another platform or one cut short or overwritten is reported before the kernel refuses it
// (or, worse, a shell tries to read it as a script). The expected size, written by the packing
// script, catches a file cut short after its header.
const ELF_MACHINE = { x64: 0x3e, arm64: 0xb7 };
const MACHO_CPU = { x64: 0x01000007, arm64: 0x0100000c };
const PE_MACHINE = { x64: 0x8664, arm64: 0xaa64 };

function headerProblem(header, platform, arch) {
  if (platform === "win32") {
    if (header.length < 64 || header.toString("latin1", 0, 2) !== "MZ") return "it is not a Windows executable";
    const pe = header.readUInt32LE(0x3c);
    if (pe + 6 > header.length || header.toString("latin1", pe, pe + 4) !== "PE\0\0") return "it is not a Windows executable";
    if (header.readUInt16LE(pe + 4) !== PE_MACHINE[arch]) return `it is a Windows executable for another processor, not ${arch}`;
    return null;
  }
  if (platform === "darwin") {
    if (header.length >= 8 && header.readUInt32LE(0) === 0xfeedfacf) {
      return header.readUInt32LE(4) === MACHO_CPU[arch] ? null : `it is a macOS executable for another processor, not ${arch}`;
    }
    if (header.length >= 4 && header.readUInt32BE(0) === 0xcafebabe) return null; // universal binary
    return "it is not a macOS executable";
  }
  if (header.length < 20 || header.readUInt32BE(0) !== 0x7f454c46) return "it is not an ELF executable";
  const machine = header[5] === 2 ? header.readUInt16BE(18) : header.readUInt16LE(18);
  if (ELF_MACHINE[arch] !== undefined && machine !== ELF_MACHINE[arch]) {
    return `it is an executable for another processor (ELF machine ${machine}), not ${arch}`;
  }
  return null;
}

function readHeader(file) {
  const fd = fs.openSync(file, "r");
  try {
    const header = Buffer.alloc(4096);
    const length = fs.readSync(fd, header, 0, header.length, 0);
    return header.subarray(0, length);
  } finally {
    fs.closeSync(fd);
  }
}

function reinstallHint(packageName) {
  return `Reinstall it: delete node_modules/${packageName} and run \`npm install\` again, or \`npm install --save-dev ${packageName}@${ownPackage.version}\`.`;
}

function checkBinary(file, what, expectedSize, platform, arch) {
  let stat;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") fail([`baton-bpmn: the baton binary is missing: ${file} does not exist.`, what]);
    fail([`baton-bpmn: cannot read the baton binary ${file}: ${error.message}.`, what]);
  }
  if (!stat.isFile()) fail([`baton-bpmn: the baton binary ${file} is not a file.`, what]);
  if (expectedSize !== undefined && stat.size !== expectedSize) {
    fail([`baton-bpmn: the baton binary ${file} is damaged: it has ${stat.size} bytes, the package shipped ${expectedSize}.`, what]);
  }
  let header;
  try {
    header = readHeader(file);
  } catch (error) {
    fail([`baton-bpmn: cannot read the baton binary ${file}: ${error.message}.`, what]);
  }
  const problem = headerProblem(header, platform, arch);
  if (problem) fail([`baton-bpmn: the baton binary ${file} is damaged or not for ${platformName(platform, arch)}: ${problem}.`, what]);
  if (platform !== "win32" && (stat.mode & 0o111) === 0) {
    fail([`baton-bpmn: the baton binary ${file} is not executable.`, what]);
  }
}

function supportedList() {
  return Object.values(platforms).map((entry) => entry.name).join(", ");
}

function fromSourceHint() {
  return [
    "Build baton from source instead (a Rust toolchain is needed): `pip install baton-bpmn` builds it from",
    "the source distribution where no wheel fits, or `cargo install --path testing/cli` in a checkout of baton.",
    "Then set BATON_BINARY_PATH to that `baton` and this package runs it.",
  ];
}

// The binary to run and the checks it passed: BATON_BINARY_PATH when set (a build of one's own,
// on a platform without a package), otherwise the platform package's.
function findBinary(platform, arch) {
  const override = process.env.BATON_BINARY_PATH;
  if (override) {
    checkBinary(override, "It is the file that BATON_BINARY_PATH names: point it at a `baton` binary, or unset it.", undefined, platform, arch);
    return override;
  }
  const key = `${platform}-${arch}`;
  const entry = Object.prototype.hasOwnProperty.call(platforms, key) ? platforms[key] : undefined;
  if (!entry) {
    fail([
      `baton-bpmn: there is no baton binary for this platform (${platformName(platform, arch)}).`,
      `baton-bpmn ${ownPackage.version} has binaries for: ${supportedList()}.`,
      ...fromSourceHint(),
    ]);
  }
  const install = `npm install --save-dev ${entry.package}@${ownPackage.version}`;
  let manifestPath;
  try {
    manifestPath = require.resolve(`${entry.package}/package.json`, { paths: [path.join(__dirname, "..")] });
  } catch (error) {
    if (error.code !== "MODULE_NOT_FOUND") throw error;
    fail([
      `baton-bpmn: the package ${entry.package}, which carries the baton binary for ${entry.name} (${platformName(platform, arch)}), is not installed.`,
      "npm installs it as an optional dependency of baton-bpmn, and leaves it out when optional dependencies are",
      "omitted (--omit=optional, --no-optional) or when package-lock.json was written on another platform.",
      `Install it: \`${install}\`, or install again without omitting optional dependencies.`,
    ]);
  }
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(manifestPath, "utf8"));
  } catch (error) {
    fail([`baton-bpmn: cannot read ${manifestPath} (${error.message}).`, reinstallHint(entry.package)]);
  }
  if (manifest.version !== ownPackage.version) {
    fail([
      `baton-bpmn: ${entry.package} is version ${manifest.version}, but baton-bpmn is ${ownPackage.version}; the two are released together.`,
      `Install the matching one: \`${install}\`.`,
    ]);
  }
  const binary = (manifest.baton && manifest.baton.binary) || `bin/${entry.binary}`;
  const size = manifest.baton ? manifest.baton.size : undefined;
  const file = path.join(path.dirname(manifestPath), binary);
  checkBinary(file, reinstallHint(entry.package), size, platform, arch);
  return file;
}

function run() {
  const { platform, arch } = process;
  const binary = findBinary(platform, arch);
  const result = spawnSync(binary, process.argv.slice(2), { stdio: "inherit", windowsHide: true });
  if (result.error) {
    fail([
      `baton-bpmn: could not start the baton binary ${binary} on ${platformName(platform, arch)}: ${result.error.code || result.error.message}.`,
      "The file may be damaged or built for another platform. " + (process.env.BATON_BINARY_PATH ? "It is the file that BATON_BINARY_PATH names." : "Reinstall baton-bpmn (delete node_modules and run `npm install`)."),
    ]);
  }
  if (result.signal && CRASH_SIGNALS.has(result.signal)) {
    fail([
      `baton-bpmn: the baton binary ${binary} crashed (${result.signal}) on ${platformName(platform, arch)}.`,
      "If it happens again, the file may be damaged: " + (process.env.BATON_BINARY_PATH ? "it is the file that BATON_BINARY_PATH names." : "reinstall baton-bpmn (delete node_modules and run `npm install`)."),
    ]);
  }
  if (result.signal) {
    // End the way the binary ended (Ctrl-C, a CI time-out), so that the shell sees the same signal.
    process.kill(process.pid, result.signal);
    return 128 + (os.constants.signals[result.signal] || 0);
  }
  return result.status;
}

try {
  ownPackage = require("../package.json");
  platforms = require("../platforms.json");
  process.exitCode = run();
} catch (error) {
  // A launcher that fails for a reason not foreseen above still answers in one line.
  process.stderr.write((error instanceof LauncherError ? error.message : `baton-bpmn: ${error.message}`) + "\n");
  process.exitCode = 1;
}
