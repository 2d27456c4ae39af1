// Memory of x12kit-wasm under sustained synchronous use: each operation
// called in a synchronous loop (no event-loop turn, no await) on a generated
// 1 MB 850; the module's linear memory (which grows in 64 KiB pages and
// never shrinks) after N calls, and the process's RSS. Each operation runs
// in its own process (pkg/node), so rows do not share a module. This is the
// table of bindings/wasm/README.md ("Memory") and what tests/soak.test.mjs
// runs with its bounds.
//
//   node bench/memory.mjs [--calls 50,300] [--mb 1] [op ...]
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const PARTNER = readFileSync(join(here, '..', '..', '..', 'examples', 'partners', 'acme-retail.json'), 'utf8');
const FIXED = { controlNumbers: { interchange: 1, group: 1, transaction: 1 }, date: '20231114', time: '2213' };
const NOW = 1700000000;

/** A valid 850 interchange of at least `size` bytes (one group of 10-line sets), as bytes; `seed` varies the control numbers. */
export function x850(size, seed = 1) {
  const isa = String(seed).padStart(9, '0');
  const head = `ISA*00*          *00*          *ZZ*ACMERETAIL     *ZZ*WIDGETCO       *261122*0930*U*00401*${isa}*0*P*>~\nGS*PO*ACMERETAIL*WIDGETCO*20261122*0930*${seed}*X*004010~\n`;
  const parts = [head];
  let total = head.length;
  let n = 0;
  while (total < size - 40 || n === 0) {
    n++;
    const cn = String(n).padStart(4, '0');
    const body = [`BEG*00*SA*PO-${n}**20261122~`, `REF*DP*${n % 97}~`, 'DTM*002*20261215~', `N1*ST*STORE ${n % 500}*92*${String(n % 500).padStart(5, '0')}~`];
    for (let k = 1; k <= 10; k++) body.push(`PO1*${k}*${k * 3}*EA*${k}.25**BP*ITEM-${String(k).padStart(5, '0')}*VP*V${n % 1000}~`, `PID*F****WIDGET NUMBER ${k}~`);
    body.push('CTT*10~');
    const set = [`ST*850*${cn}~`, ...body, `SE*${body.length + 2}*${cn}~`].join('\n') + '\n';
    parts.push(set);
    total += set.length;
  }
  parts.push(`GE*${n}*${seed}~\nIEA*1*${isa}~\n`);
  return new TextEncoder().encode(parts.join(''));
}

/** The JSON text of an 850 payload of about `bytes`. */
function payloadText(bytes) {
  const lines = [];
  for (let i = 0, size = 0; size < bytes; i++) {
    const line = `{"lineNumber":${i + 1},"sku":"WID-${100 + (i % 900)}","quantity":${1 + (i % 50)},"unitPrice":9.25}`;
    lines.push(line);
    size += line.length + 1;
  }
  return `{"purchaseOrderNumber":"PO-10045","shipTo":{"id":"0003947268292","name":"ACME"},"lines":[${lines.join(',')}]}`;
}

/**
 * The operations: `setup(state, x12)` once, then `call(state, x12)` in the
 * loop; `state.input` is the 850 of the size asked (render: a payload of
 * that size; write: a parse result of that size).
 */
export const OPS = {
  parse: { call: (s, x) => x.parse(s.input).interchanges.length },
  'parse-nodocs': { call: (s, x) => x.parse(s.input, { documents: false }).interchanges.length },
  parseToJson: { call: (s, x) => x.parseToJson(s.input).length },
  segments: {
    call: (s, x) => {
      let n = 0;
      for (const seg of x.segments(s.input)) if (seg.id === 'PO1') n++;
      return n;
    },
  },
  'segments-elements': {
    label: 'segments() reading elements',
    call: (s, x) => {
      let n = 0;
      for (const seg of x.segments(s.input)) if (seg.id === 'PO1') n += seg.element(2).length + seg.components(7).length;
      return n;
    },
  },
  'segments-break': {
    call: (s, x) => {
      let n = 0;
      for (const seg of x.segments(s.input)) if (seg.id && ++n === 10) break;
      return n;
    },
  },
  validate: { call: (s, x) => x.validate(s.input).valid },
  'validate-structure': { call: (s, x) => x.validate(s.input, { structure: true }).valid },
  validateToJson: { call: (s, x) => x.validateToJson(s.input).length },
  acknowledge: { label: 'acknowledge(validate(…))', call: (s, x) => x.acknowledge(x.validate(s.input), { kind: '999', now: NOW }).length },
  'acknowledge-input': { call: (s, x) => x.acknowledge(s.input, { kind: '999', now: NOW }).length },
  'stream-validator': {
    label: 'StreamValidator feed (64 KB chunks) + finish + free',
    call: (s, x) => {
      const v = new x.StreamValidator();
      for (let at = 0; at < s.input.length; at += 65536) v.feed(s.input.subarray(at, at + 65536));
      const valid = v.finish().valid;
      v.free();
      return valid;
    },
  },
  readAcknowledgement: { call: (s, x) => Object.keys(x.readAcknowledgement(s.input)).length },
  renderResult: {
    label: 'renderResult (payload of the size)',
    setup: (s) => {
      s.payload = payloadText(s.input.length);
    },
    call: (s, x) => x.renderResult('850', s.payload, PARTNER, FIXED).x12.length,
  },
  write: {
    label: 'write (parse result of the size)',
    setup: (s, x) => {
      s.json = x.parseToJson(x850(s.input.length / 2.4), { documents: false });
    },
    call: (s, x) => x.write(s.json).length,
  },
  webhook: {
    label: 'webhook sign + verify (1 MB body)',
    call: (s, x) => x.webhook.verify('secret', x.webhook.sign('secret', NOW, s.input), NOW, s.input, { now: NOW }).secretIndex,
  },
};

const MiB = 1024 * 1024;

/** Runs `op` in this process on pkg/node: linear memory (MiB) after each checkpoint, RSS and peak RSS. */
export function measure(op, calls, mb) {
  const x = createRequire(import.meta.url)('../pkg/node/x12kit_wasm.js');
  const s = { input: x850(mb * 1e6) };
  if (OPS[op].setup) OPS[op].setup(s, x);
  OPS[op].call(s, x); // warm-up
  const start = x.__memoryBytes() / MiB;
  const at = [];
  let done = 0;
  const t = process.hrtime.bigint();
  for (const n of calls) {
    while (done < n) {
      OPS[op].call(s, x);
      done++;
    }
    at.push(x.__memoryBytes() / MiB);
  }
  const seconds = Number(process.hrtime.bigint() - t) / 1e9;
  return { op, start, at, rss: process.memoryUsage().rss / MiB, peak: process.resourceUsage().maxRSS / 1024, seconds, inputBytes: s.input.length };
}

/** `measure` in a child process: a Promise of its result. */
export function measureInChild(op, calls, mb) {
  return new Promise((resolve, reject) => {
    const args = [fileURLToPath(import.meta.url), '--child', op, '--calls', calls.join(','), '--mb', String(mb)];
    execFile(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${op}: the child failed: ${err.message}\n${stderr}`));
      else resolve(JSON.parse(stdout.trim().split('\n').pop()));
    });
  });
}

async function main(argv) {
  const arg = (name, def) => {
    const i = argv.indexOf(name);
    if (i < 0) return def;
    const v = argv[i + 1];
    argv.splice(i, 2);
    return v;
  };
  const child = arg('--child', null);
  const calls = arg('--calls', '50,300').split(',').map(Number);
  const mb = Number(arg('--mb', '1'));
  if (child) {
    console.log(JSON.stringify(measure(child, calls, mb)));
    return;
  }
  const ops = argv.length ? argv : Object.keys(OPS);
  console.log(`node ${process.version}, pkg/node, inputs of ${mb} MB (generated); wasm linear memory in MiB after the warm-up call and after N calls; RSS of the process in MiB`);
  console.log(`| operation | memory after 1 call | ${calls.map((n) => `after ${n}`).join(' | ')} | RSS at the end | peak RSS | ms/call |`);
  console.log(`|---|---|${calls.map(() => '---|').join('')}---|---|---|`);
  for (const op of ops) {
    if (!OPS[op]) throw new Error(`unknown op ${op}; one of ${Object.keys(OPS).join(', ')}`);
    const r = await measureInChild(op, calls, mb);
    const f = (v) => v.toFixed(1);
    console.log(`| ${OPS[op].label || op} | ${f(r.start)} | ${r.at.map(f).join(' | ')} | ${r.rss.toFixed(0)} | ${r.peak.toFixed(0)} | ${((r.seconds * 1000) / calls[calls.length - 1]).toFixed(1)} |`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(process.argv.slice(2));
