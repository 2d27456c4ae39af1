// What makes up the .wasm: bytes per section, and code bytes per crate/module
// (from the function names of the un-optimized cargo output, so the split is
// approximate: wasm-opt -Oz shrinks everything by roughly the same factor).
//   node bindings/wasm/bench/size.mjs target/wasm32-unknown-unknown/release/x12kit_wasm.wasm
import { readFileSync } from 'node:fs';

const b = readFileSync(process.argv[2]);
let p = 8;
const leb = () => {
  let r = 0, s = 0, x;
  do { x = b[p++]; r += (x & 0x7f) * 2 ** s; s += 7; } while (x & 0x80);
  return r;
};
const names = new Map();
const bodies = [];
const sections = {};
let imported = 0;
const ids = { 0: 'custom', 1: 'type', 2: 'import', 3: 'function', 5: 'memory', 6: 'global', 7: 'export', 10: 'code', 11: 'data', 4: 'table', 9: 'element', 12: 'datacount' };
while (p < b.length) {
  const id = b[p++];
  const size = leb();
  const end = p + size;
  let label = ids[id] || `section ${id}`;
  if (id === 0) {
    const n = leb();
    const name = b.subarray(p, p + n).toString();
    label = `custom "${name}"`;
    p += n;
    if (name === 'name') {
      while (p < end) {
        const sub = b[p++];
        const len = leb();
        const subEnd = p + len;
        if (sub === 1) {
          const count = leb();
          for (let i = 0; i < count; i++) {
            const idx = leb();
            const l = leb();
            names.set(idx, b.subarray(p, p + l).toString());
            p += l;
          }
        }
        p = subEnd;
      }
    }
  } else if (id === 2) {
    const count = leb();
    for (let i = 0; i < count; i++) {
      for (let k = 0; k < 2; k++) { const l = leb(); p += l; }
      const kind = b[p++];
      if (kind === 0) { imported++; leb(); } else if (kind === 1) { p++; const f = b[p++]; leb(); if (f & 1) leb(); } else if (kind === 2) { const f = b[p++]; leb(); if (f & 1) leb(); } else { p += 2; }
    }
  } else if (id === 10) {
    const count = leb();
    for (let i = 0; i < count; i++) { const l = leb(); bodies.push(l); p += l; }
  }
  sections[label] = (sections[label] || 0) + size;
  p = end;
}
const groups = {};
bodies.forEach((size, i) => {
  const n = names.get(i + imported) || '?';
  // Legacy Rust mangling: _ZN<len><ident><len><ident>...17h<hash>E; `<impl>` names start with `_$LT$`.
  const segs = [];
  const q = n.replace(/^_ZN/, '');
  for (let i = 0; i < q.length && segs.length < 3;) {
    const d = q.slice(i).match(/^(\d+)/);
    if (!d) break;
    i += d[1].length;
    segs.push(q.slice(i, i + Number(d[1])).replace(/^_\$LT\$/, ''));
    i += Number(d[1]);
  }
  let key = segs.length ? segs[0].replace(/\.\.[\s\S]*$/, '') : n.split(/[:<$]/)[0] || '?';
  if (key === 'x12kit' && segs[1]) key = `x12kit::${segs[1]}`;
  groups[key] = (groups[key] || 0) + size;
});
console.log('section bytes:', JSON.stringify(sections));
const total = bodies.reduce((a, c) => a + c, 0);
console.log(`code: ${total} bytes in ${bodies.length} functions; by crate / x12kit module:`);
for (const [k, v] of Object.entries(groups).sort((a, c) => c[1] - a[1]).slice(0, 18)) console.log(`  ${k.padEnd(28)} ${String(v).padStart(8)}  ${((100 * v) / total).toFixed(1)}%`);
