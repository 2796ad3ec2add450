// The registry this project is built against serves only linux-x64 builds of native packages
// (tailwind's oxide, oxlint, rolldown, esbuild, ...), so `npm install` leaves the other
// platforms' optional packages out of package-lock.json — and `npm ci` then refuses the lock as
// out of sync. This adds the missing optional entries (version only; npm skips optional
// packages it cannot or need not install). Run after changing dependencies:
//   npm run lock:fix   (node scripts/fix-lock-optional.mjs)
import { readFileSync, writeFileSync } from "node:fs";

const file = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(file, "utf8"));
const pkgs = lock.packages;
const parentDir = (p) => {
  const i = p.lastIndexOf("/node_modules/");
  return i < 0 ? "" : p.slice(0, i);
};
let added = 0;
const entries = Object.entries(pkgs).sort(([a], [b]) => a.split("/node_modules/").length - b.split("/node_modules/").length);
for (const [path, meta] of entries) {
  for (const [name, version] of Object.entries(meta.optionalDependencies ?? {})) {
    // Platform builds are pinned exactly; a range is an ordinary optional dependency npm resolved.
    if (!/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(version)) continue;
    const candidates = [];
    for (let dir = path; ; dir = parentDir(dir)) {
      candidates.push(dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`);
      if (!dir) break;
    }
    const found = candidates.findIndex((c) => pkgs[c]);
    if (found >= 0 && pkgs[candidates[found]].version === version) continue;
    // Nothing resolvable: hoist as high as possible without shadowing a different version.
    const target = found < 0 ? candidates[candidates.length - 1] : candidates[0];
    if (pkgs[target]) continue;
    pkgs[target] = { version, dev: meta.dev || undefined, optional: true };
    added++;
  }
}
writeFileSync(file, JSON.stringify(lock, null, 2) + "\n");
console.log(`added ${added} optional platform entries`);
