// sync-versions.mjs on a copy of the checkout's Cargo.toml and npm manifest: a new workspace version
// is reported by --check, then written into baton-bpmn's version and every optional dependency.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

test("a new workspace version is found out of date, then written everywhere npm needs it", (t) => {
  const copy = mkdtempSync(join(tmpdir(), "baton-versions-"));
  t.after(() => rmSync(copy, { recursive: true, force: true }));
  cpSync(join(here, "..", "Cargo.toml"), join(copy, "Cargo.toml"));
  cpSync(join(here, "sync-versions.mjs"), join(copy, "packaging", "sync-versions.mjs"));
  cpSync(join(here, "npm", "baton-bpmn"), join(copy, "packaging", "npm", "baton-bpmn"), { recursive: true });
  const cargo = readFileSync(join(copy, "Cargo.toml"), "utf8");
  const bumped = cargo.replace(/(\[workspace\.package\][^[]*?\nversion\s*=\s*)"[^"]+"/, '$1"7.8.9-rc.1"');
  assert.notEqual(bumped, cargo);
  writeFileSync(join(copy, "Cargo.toml"), bumped);
  const script = join(copy, "packaging", "sync-versions.mjs");
  const manifestPath = join(copy, "packaging", "npm", "baton-bpmn", "package.json");

  const check = spawnSync(process.execPath, [script, "--check"], { cwd: copy, encoding: "utf8" });
  assert.equal(check.status, 1);
  assert.equal(check.stderr, [
    "Cargo.toml is not at the workspace version 7.8.9-rc.1: run `node packaging/sync-versions.mjs`",
    "packaging/npm/baton-bpmn/package.json is not at the workspace version 7.8.9-rc.1: run `node packaging/sync-versions.mjs`",
  ].join("\n") + "\n");

  const sync = spawnSync(process.execPath, [script], { cwd: copy, encoding: "utf8" });
  assert.equal(sync.status, 0, sync.stderr);
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  assert.equal(manifest.version, "7.8.9-rc.1");
  const platforms = JSON.parse(readFileSync(join(copy, "packaging", "npm", "baton-bpmn", "platforms.json"), "utf8"));
  assert.deepEqual(manifest.optionalDependencies, Object.fromEntries(Object.values(platforms).map((p) => [p.package, "7.8.9-rc.1"])));
  // Each workspace crate that another depends on, at the new version (crates.io needs it).
  const paths = [...readFileSync(join(copy, "Cargo.toml"), "utf8").matchAll(/^(baton-[a-z-]+) = \{ path = "[^"]+", version = "([^"]+)"/gm)];
  assert.ok(paths.length >= 3, "the workspace's own crates in [workspace.dependencies]");
  for (const [, name, version] of paths) assert.equal(version, "7.8.9-rc.1", name);

  const again = spawnSync(process.execPath, [script, "--check"], { cwd: copy, encoding: "utf8" });
  assert.equal(again.status, 0, again.stderr);
});
