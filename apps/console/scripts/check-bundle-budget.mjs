// The console's budget: the JavaScript a first visit loads (the entry chunk and every chunk it imports
// statically, read from Vite's manifest) is at most 250 KB gzipped. Routes are split off and load later.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const BUDGET_BYTES = 250 * 1024;
const dist = new URL('../dist/', import.meta.url);
const manifest = JSON.parse(readFileSync(new URL('.vite/manifest.json', dist), 'utf8'));

function initialChunks() {
  const seen = new Set();
  const visit = (key) => {
    if (seen.has(key)) return;
    seen.add(key);
    for (const imported of manifest[key].imports ?? []) visit(imported);
  };
  for (const [key, chunk] of Object.entries(manifest)) if (chunk.isEntry) visit(key);
  return [...seen].map((key) => manifest[key].file);
}

const sizes = initialChunks().map((file) => ({ file, gzipped: gzipSync(readFileSync(new URL(file, dist))).length }));
const total = sizes.reduce((sum, { gzipped }) => sum + gzipped, 0);
for (const { file, gzipped } of sizes) console.log(`${(gzipped / 1024).toFixed(1).padStart(7)} KB  ${file}`);
console.log(
  `${(total / 1024).toFixed(1).padStart(7)} KB  initial JavaScript, gzipped (budget ${BUDGET_BYTES / 1024} KB)`,
);
if (sizes.length === 0 || total > BUDGET_BYTES) {
  console.error(sizes.length === 0 ? 'no entry chunk in the manifest' : 'over budget');
  process.exit(1);
}
