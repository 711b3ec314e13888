#!/usr/bin/env node
// Keeps the npm packages' versions at the Cargo workspace's (`[workspace.package] version` in
// Cargo.toml), the one place a version is written by hand. The PyPI package needs no copy: maturin
// reads the version from Cargo.toml. The platform packages' manifests are written at pack time
// (pack-npm.mjs) with the same version.
//
//   node packaging/sync-versions.mjs          rewrite packaging/npm/baton-bpmn/package.json
//   node packaging/sync-versions.mjs --check  exit 1 if it is out of date
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..");
const manifestPath = join(here, "npm", "baton-bpmn", "package.json");

export function workspaceVersion() {
  const cargo = readFileSync(join(root, "Cargo.toml"), "utf8");
  const section = cargo.split(/^\[/m).find((part) => part.startsWith("workspace.package]"));
  const version = section && /^version\s*=\s*"([^"]+)"/m.exec(section);
  if (!version) throw new Error("Cargo.toml has no [workspace.package] version");
  return version[1];
}

// The main package's manifest as it should be: its version and one exact optional dependency per
// platform package (platforms.json) at the same version.
export function expectedManifest(version) {
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
  const platforms = JSON.parse(readFileSync(join(here, "npm", "baton-bpmn", "platforms.json"), "utf8"));
  manifest.version = version;
  manifest.optionalDependencies = Object.fromEntries(Object.values(platforms).map((entry) => [entry.package, version]));
  return JSON.stringify(manifest, null, 2) + "\n";
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const version = workspaceVersion();
  const expected = expectedManifest(version);
  const shown = relative(process.cwd(), manifestPath);
  if (readFileSync(manifestPath, "utf8") === expected) {
    console.log(`${shown}: at the workspace version ${version}`);
  } else if (process.argv.includes("--check")) {
    console.error(`${shown} is not at the workspace version ${version}: run \`node packaging/sync-versions.mjs\``);
    process.exit(1);
  } else {
    writeFileSync(manifestPath, expected);
    console.log(`${shown}: now at the workspace version ${version}`);
  }
}
