#!/usr/bin/env node
// Packs the npm packages with `npm pack`: baton-bpmn (the launcher, packaging/npm/baton-bpmn) and one
// platform package per binary given, its manifest written here from platforms.json at the
// workspace version, with the binary's size for the launcher's damage check.
//
//   node packaging/pack-npm.mjs --out DIR linux-x64=target/x86_64-unknown-linux-musl/dist/baton [...]
import { copyFileSync, chmodSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { execFileSync } from "node:child_process";
import { expectedManifest, workspaceVersion } from "./sync-versions.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const launcherDir = join(here, "npm", "baton-bpmn");
const platforms = JSON.parse(readFileSync(join(launcherDir, "platforms.json"), "utf8"));

function usage(message) {
  console.error(`pack-npm: ${message}`);
  console.error("usage: node packaging/pack-npm.mjs --out DIR PLATFORM=BINARY [PLATFORM=BINARY ...]");
  console.error(`platforms: ${Object.keys(platforms).join(", ")}`);
  process.exit(2);
}

const args = process.argv.slice(2);
const outIndex = args.indexOf("--out");
if (outIndex < 0 || !args[outIndex + 1]) usage("--out DIR is required");
const out = resolve(args[outIndex + 1]);
const binaries = args.filter((_, i) => i !== outIndex && i !== outIndex + 1);
if (binaries.length === 0) usage("no binary given");

const version = workspaceVersion();
if (readFileSync(join(launcherDir, "package.json"), "utf8") !== expectedManifest(version)) {
  console.error(`pack-npm: packaging/npm/baton-bpmn/package.json is not at the workspace version ${version}: run \`node packaging/sync-versions.mjs\``);
  process.exit(1);
}

function npmPack(dir) {
  const [{ filename }] = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", out], { cwd: dir, encoding: "utf8" }));
  return join(out, filename);
}

const launcher = JSON.parse(readFileSync(join(launcherDir, "package.json"), "utf8"));
mkdirSync(out, { recursive: true });
const tarballs = [npmPack(launcherDir)];
for (const spec of binaries) {
  const [key, binary] = spec.split("=");
  const entry = platforms[key];
  if (!entry || !binary) usage(`${spec}: expected PLATFORM=BINARY with a platform from platforms.json`);
  const stage = join(out, "stage", key);
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(join(stage, "bin"), { recursive: true });
  const target = join(stage, "bin", entry.binary);
  copyFileSync(binary, target);
  chmodSync(target, 0o755);
  const [os, cpu] = key.split("-");
  const manifest = {
    name: entry.package,
    version,
    description: `The baton binary for ${entry.name} (${entry.rustTarget}), run by the baton-bpmn package`,
    license: launcher.license,
    repository: { ...launcher.repository, directory: undefined },
    os: [os],
    cpu: [cpu],
    files: [`bin/${entry.binary}`],
    preferUnplugged: true,
    baton: { binary: `bin/${entry.binary}`, size: statSync(target).size },
    publishConfig: launcher.publishConfig,
  };
  writeFileSync(join(stage, "package.json"), JSON.stringify(manifest, null, 2) + "\n");
  writeFileSync(join(stage, "README.md"), `# ${entry.package}\n\nThe \`baton\` binary for ${entry.name}. Install \`baton-bpmn\`, which depends on this package where it fits.\n`);
  tarballs.push(npmPack(stage));
}
for (const tarball of tarballs) console.log(tarball);
