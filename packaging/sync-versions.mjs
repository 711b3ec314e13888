#!/usr/bin/env node
// Keeps every copy of the version at the Cargo workspace's (`[workspace.package] version` in
// Cargo.toml), the one place a version is written by hand: the npm package's manifest, and the
// `version` beside each `path` of the workspace's own crates in `[workspace.dependencies]` (which
// crates.io needs). The PyPI package needs no copy: maturin reads the version from Cargo.toml. The
// platform packages' manifests are written at pack time (pack-npm.mjs) with the same version.
//
//   node packaging/sync-versions.mjs          rewrite the copies that are out of date
//   node packaging/sync-versions.mjs --check  exit 1 if one is out of date
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const manifestPath = join(here, "npm", "baton-bpmn", "package.json");
const cargoPath = join(root, "Cargo.toml");

function workspacePackage(key) {
  const cargo = readFileSync(cargoPath, "utf8");
  const section = cargo.split(/^\[/m).find((part) => part.startsWith("workspace.package]"));
  const value = section && new RegExp(`^${key}\\s*=\\s*"([^"]+)"`, "m").exec(section);
  if (!value) throw new Error(`Cargo.toml has no [workspace.package] ${key}`);
  return value[1];
}

export function workspaceVersion() {
  return workspacePackage("version");
}

// The repository, written once in Cargo.toml: npm's provenance is checked against it.
export function workspaceRepository() {
  return workspacePackage("repository");
}

// The main package's manifest as it should be: its version and one exact optional dependency per
// platform package (platforms.json) at the same version.
export function expectedManifest(version) {
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  const platforms = JSON.parse(readFileSync(join(here, "npm", "baton-bpmn", "platforms.json"), "utf8"));
  manifest.version = version;
  manifest.repository.url = `git+${workspaceRepository()}.git`;
  manifest.optionalDependencies = Object.fromEntries(Object.values(platforms).map((entry) => [entry.package, version]));
  return JSON.stringify(manifest, null, 2) + "\n";
}

// Cargo.toml as it should be: each workspace crate in `[workspace.dependencies]` (a `path` with a
// `version`) at the workspace version.
export function expectedCargo(version) {
  const cargo = readFileSync(cargoPath, "utf8");
  return cargo.replace(/^(baton-[a-z-]+ = \{ path = "[^"]+", version = ")[^"]*(")/gm, `$1${version}$2`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const version = workspaceVersion();
  let stale = false;
  for (const [path, expected] of [[cargoPath, expectedCargo(version)], [manifestPath, expectedManifest(version)]]) {
    const shown = relative(process.cwd(), path);
    if (readFileSync(path, "utf8") === expected) {
      console.log(`${shown}: at the workspace version ${version}`);
    } else if (process.argv.includes("--check")) {
      console.error(`${shown} is not at the workspace version ${version}: run \`node packaging/sync-versions.mjs\``);
      stale = true;
    } else {
      writeFileSync(path, expected);
      console.log(`${shown}: now at the workspace version ${version}`);
    }
  }
  if (stale) process.exit(1);
}
