// The npm launcher's answers when no runnable binary is there, run as a user runs it: the
// `node_modules/.bin/baton` of a project where the packed packages were installed (packaging/test
// makes it and passes it in BATON_NPM_PROJECT). Each case damages its own copy of node_modules.
// An unsupported platform is simulated by a preloaded module that overrides process.platform and
// process.arch, so the launcher itself has no switch for tests.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, cpSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync, writeSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const project = process.env.BATON_NPM_PROJECT;
if (!project) throw new Error("BATON_NPM_PROJECT must name a project with baton-bpmn installed (packaging/test sets it)");
const version = JSON.parse(readFileSync(join(project, "node_modules", "baton-bpmn", "package.json"), "utf8")).version;
const hostKey = `${process.platform}-${process.arch}`;
const hostPackage = `@baton-bpmn/${hostKey}`;

const scratch = mkdtempSync(join(tmpdir(), "baton-launcher-"));
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));
const preload = join(scratch, "platform.cjs");
writeFileSync(preload, [
  'if (process.env.FAKE_PLATFORM) Object.defineProperty(process, "platform", { value: process.env.FAKE_PLATFORM });',
  'if (process.env.FAKE_ARCH) Object.defineProperty(process, "arch", { value: process.env.FAKE_ARCH });',
].join("\n"));

let copies = 0;
function copyOfProject() {
  const dir = join(scratch, `project-${copies++}`);
  cpSync(join(project, "node_modules"), join(dir, "node_modules"), { recursive: true, verbatimSymlinks: true });
  return dir;
}

function binaryIn(dir) {
  return join(dir, "node_modules", "@baton-bpmn", hostKey, "bin", process.platform === "win32" ? "baton.exe" : "baton");
}

function baton(dir, args, env = {}) {
  const result = spawnSync(join(dir, "node_modules", ".bin", "baton"), args, {
    encoding: "utf8",
    env: { ...process.env, NODE_OPTIONS: `--require=${preload}`, BATON_BINARY_PATH: "", ...env },
  });
  return result;
}

// The launcher's own failures: exit 1, nothing on stdout, the message on stderr, no stack trace.
function assertFails(result, expected) {
  assert.equal(result.stdout, "");
  assert.doesNotMatch(result.stderr, /^\s+at /m, "a stack trace");
  assert.equal(result.stderr, expected);
  assert.equal(result.status, 1);
}

const fromSource = [
  "Build baton from source instead (a Rust toolchain is needed): `pip install baton-bpmn` builds it from",
  "the source distribution where no wheel fits, or `cargo install --path testing/cli` in a checkout of baton.",
  "Then set BATON_BINARY_PATH to that `baton` and this package runs it.",
];

test("the installed binary answers through the launcher", () => {
  const result = baton(project, ["--version"]);
  assert.equal(result.stderr, "");
  assert.equal(result.stdout, `baton ${version}\n`);
  assert.equal(result.status, 0);
});

test("an unsupported platform is named, with the platforms that have a binary", () => {
  assertFails(baton(project, ["test", "."], { FAKE_PLATFORM: "aix", FAKE_ARCH: "ppc64" }), [
    "baton-bpmn: there is no baton binary for this platform (aix ppc64).",
    `baton-bpmn ${version} has binaries for: Linux x64, Linux arm64, macOS x64, macOS arm64, Windows x64.`,
    ...fromSource,
  ].join("\n") + "\n");
});

function notInstalled(pkg, name, platform) {
  return [
    `baton-bpmn: the package ${pkg}, which carries the baton binary for ${name} (${platform}), is not installed.`,
    "npm installs it as an optional dependency of baton-bpmn, and leaves it out when optional dependencies are",
    "omitted (--omit=optional, --no-optional) or when package-lock.json was written on another platform.",
    `Install it: \`npm install --save-dev ${pkg}@${version}\`, or install again without omitting optional dependencies.`,
  ].join("\n") + "\n";
}

test("a supported platform whose package npm did not install", () => {
  assertFails(baton(project, ["test", "."], { FAKE_PLATFORM: "darwin", FAKE_ARCH: "arm64" }),
    notInstalled("@baton-bpmn/darwin-arm64", "macOS arm64", "darwin arm64"));
});

test("this platform's package removed from node_modules", () => {
  const dir = copyOfProject();
  rmSync(join(dir, "node_modules", "@baton-bpmn", hostKey), { recursive: true });
  const names = { "linux-x64": "Linux x64", "linux-arm64": "Linux arm64" };
  assertFails(baton(dir, ["test", "."]), notInstalled(hostPackage, names[hostKey], `${process.platform} ${process.arch}`));
});

function reinstall() {
  return `Reinstall it: delete node_modules/${hostPackage} and run \`npm install\` again, or \`npm install --save-dev ${hostPackage}@${version}\`.`;
}

test("the binary missing from the platform package", () => {
  const dir = copyOfProject();
  rmSync(binaryIn(dir));
  assertFails(baton(dir, ["test", "."]), `baton-bpmn: the baton binary is missing: ${binaryIn(dir)} does not exist.\n${reinstall()}\n`);
});

test("a binary cut short", () => {
  const dir = copyOfProject();
  const size = statSync(binaryIn(dir)).size;
  truncateSync(binaryIn(dir), 1000);
  assertFails(baton(dir, ["test", "."]),
    `baton-bpmn: the baton binary ${binaryIn(dir)} is damaged: it has 1000 bytes, the package shipped ${size}.\n${reinstall()}\n`);
});

function overwrite(file, position, bytes) {
  const fd = openSync(file, "r+");
  writeSync(fd, Buffer.from(bytes), 0, bytes.length, position);
  closeSync(fd);
}

test("a binary overwritten from its start", () => {
  const dir = copyOfProject();
  overwrite(binaryIn(dir), 0, [0x23, 0x21, 0x2f, 0x62, 0x69, 0x6e]);
  assertFails(baton(dir, ["test", "."]),
    `baton-bpmn: the baton binary ${binaryIn(dir)} is damaged or not for ${process.platform} ${process.arch}: it is not an ELF executable.\n${reinstall()}\n`);
});

test("a binary for another processor", { skip: process.platform !== "linux" && "ELF only" }, () => {
  const dir = copyOfProject();
  const other = process.arch === "arm64" ? [0x3e, 0x00] : [0xb7, 0x00];
  overwrite(binaryIn(dir), 18, other);
  assertFails(baton(dir, ["test", "."]),
    `baton-bpmn: the baton binary ${binaryIn(dir)} is damaged or not for ${process.platform} ${process.arch}: it is an executable for another processor (ELF machine ${other[0]}), not ${process.arch}.\n${reinstall()}\n`);
});

test("a binary that lost its executable bit", { skip: process.platform === "win32" && "no executable bit" }, () => {
  const dir = copyOfProject();
  chmodSync(binaryIn(dir), 0o644);
  assertFails(baton(dir, ["test", "."]), `baton-bpmn: the baton binary ${binaryIn(dir)} is not executable.\n${reinstall()}\n`);
});

test("a platform package of another version", () => {
  const dir = copyOfProject();
  const manifestPath = join(dir, "node_modules", "@baton-bpmn", hostKey, "package.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  writeFileSync(manifestPath, JSON.stringify({ ...manifest, version: "0.0.1" }));
  assertFails(baton(dir, ["test", "."]), [
    `baton-bpmn: ${hostPackage} is version 0.0.1, but baton-bpmn is ${version}; the two are released together.`,
    `Install the matching one: \`npm install --save-dev ${hostPackage}@${version}\`.`,
  ].join("\n") + "\n");
});

test("BATON_BINARY_PATH naming no file", () => {
  const missing = join(scratch, "no-such-baton");
  assertFails(baton(project, ["test", "."], { BATON_BINARY_PATH: missing }),
    `baton-bpmn: the baton binary is missing: ${missing} does not exist.\nIt is the file that BATON_BINARY_PATH names: point it at a \`baton\` binary, or unset it.\n`);
});

// /bin/sh stands in for a binary of one's own, to see the exit status and signals come through.
const posix = process.platform === "win32" && "needs /bin/sh";

test("BATON_BINARY_PATH's binary runs with the arguments, and its exit status comes back", { skip: posix }, () => {
  const result = baton(project, ["-c", "echo \"$0 $1\"; exit 3", "one", "two"], { BATON_BINARY_PATH: "/bin/sh" });
  assert.equal(result.stdout, "one two\n");
  assert.equal(result.stderr, "");
  assert.equal(result.status, 3);
});

test("a binary that crashes is reported as possibly damaged", { skip: posix }, () => {
  assertFails(baton(project, ["-c", "kill -SEGV $$"], { BATON_BINARY_PATH: "/bin/sh" }), [
    "baton-bpmn: the baton binary /bin/sh crashed (SIGSEGV) on " + `${process.platform} ${process.arch}.`,
    "If it happens again, the file may be damaged: it is the file that BATON_BINARY_PATH names.",
  ].join("\n") + "\n");
});

test("a binary ended by a signal ends the launcher with the same signal", { skip: posix }, () => {
  const result = baton(project, ["-c", "kill -TERM $$"], { BATON_BINARY_PATH: "/bin/sh" });
  assert.equal(result.stderr, "");
  assert.equal(result.signal, "SIGTERM");
});
