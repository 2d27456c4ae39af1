// Memory of the addon under sustained synchronous use: each operation called
// in a synchronous loop (no event-loop turn, no await) on a generated 1 MB
// 850, with global.gc() at each checkpoint, RSS (MiB) after N calls. Each
// operation runs in its own process (`--expose-gc`), so rows do not share a
// heap. This is the table of issue 34, and what __test__/soak.test.mjs runs
// with its bounds.
//
//   node bench/memory.mjs [--calls 30,130,230] [--mb 1] [op ...]
//
// With no op, every op of OPS below; `all` calls the issue's five in one loop.
// Prints a Markdown table: RSS after each checkpoint, and the peak RSS of the
// process (getrusage maxrss).
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { generate850 } from './gen.mjs'

const require = createRequire(import.meta.url)
const here = dirname(fileURLToPath(import.meta.url))
const x12kit = require('../index.js')

/** The JSON text of an `850` payload of about `bytes` (made as text, not objects). */
function payloadText(bytes) {
  const lines = []
  for (let i = 0, size = 0; size < bytes; i++) {
    const line = `{"lineNumber":${i + 1},"sku":"WID-${100 + (i % 900)}","quantity":${1 + (i % 50)},"unitPrice":9.25}`
    lines.push(line)
    size += line.length + 1
  }
  return `{"purchaseOrderNumber":"PO-10045","shipTo":{"id":"0003947268292","name":"ACME Distribution Center"},"lines":[${lines.join(',')}]}`
}

const partnerText = () => readFileSync(join(here, '../../../examples/partners/acme-retail.json'), 'utf8')
const FIXED = { controlNumbers: { interchange: 1, group: 1, transaction: 1 }, date: '20231114', time: '2213' }
const NOW = new Date('2026-11-22T10:00:00Z')

/**
 * The operations: `setup(state)` once (not measured), then `call(state)` in
 * the loop. `state.input` is the generated 850 of the size asked (valid);
 * render's input is a payload of that size, write's a parse result of that
 * size. Each result is used (its length or a field read).
 */
export const OPS = {
  parse: { call: (s) => x12kit.parse(s.input).interchanges.length },
  'parse-nodocs': { label: 'parse(…, {documents: false})', call: (s) => x12kit.parse(s.input, { documents: false }).interchanges.length },
  parseToJson: { call: (s) => x12kit.parseToJson(s.input).length },
  segments: {
    label: 'segments() iteration',
    call: (s) => {
      let n = 0
      for (const seg of x12kit.segments(s.input)) if (seg.id === 'PO1') n++
      return n
    },
  },
  'segments-break': {
    label: 'segments(), stopped after 10',
    call: (s) => {
      let n = 0
      for (const seg of x12kit.segments(s.input)) if (seg.id && ++n === 10) break
      return n
    },
  },
  validate: { call: (s) => x12kit.validate(s.input).valid },
  'validate-structure': { label: 'validate(…, {structure: true})', call: (s) => x12kit.validate(s.input, { structure: true }).valid },
  acknowledge: {
    label: 'acknowledge(validate(…))',
    call: (s) => x12kit.acknowledge(x12kit.validate(s.input), { kind: '999', now: NOW }).length,
  },
  'acknowledge-input': { label: 'acknowledge(input)', call: (s) => x12kit.acknowledge(s.input, { kind: '999', now: NOW }).length },
  'stream-validator': {
    label: 'StreamValidator feed (64 KB chunks) + finish',
    call: (s) => {
      const v = new x12kit.StreamValidator()
      for (let at = 0; at < s.input.length; at += 65536) v.feed(s.input.subarray(at, at + 65536))
      return v.finish().valid
    },
  },
  readAcknowledgement: { call: (s) => Object.keys(x12kit.readAcknowledgement(s.input)).length },
  render: {
    label: 'render (payload of the size)',
    setup: (s) => {
      s.payload = payloadText(s.input.length)
      s.partner = partnerText()
    },
    call: (s) => x12kit.render('850', s.payload, s.partner, FIXED).length,
  },
  renderResult: {
    label: 'renderResult (payload of the size)',
    setup: (s) => OPS.render.setup(s),
    call: (s) => x12kit.renderResult('850', s.payload, s.partner, FIXED).x12.length,
  },
  write: {
    label: 'write (parse result of the size)',
    setup: (s) => {
      // documents: false writes about 2.1 bytes of JSON per byte of X12.
      s.json = x12kit.parseToJson(generate850(s.input.length / 2.1), { documents: false })
    },
    call: (s) => x12kit.write(s.json).length,
  },
  webhook: {
    label: 'webhook sign + verify (1 MB body)',
    call: (s) => {
      const sig = x12kit.webhook.sign('secret', 1_700_000_000, s.input)
      return x12kit.webhook.verify('secret', sig, 1_700_000_000, s.input, { now: 1_700_000_000 }).secretIndex
    },
  },
  // Not a use of the API: a loop that keeps every result (1 MiB each), to
  // show that the measurement sees memory that is held (the soak test's control).
  'keeps-results': {
    label: 'control: a loop that keeps each 1 MiB result',
    setup: (s) => {
      s.kept = []
    },
    call: (s) => s.kept.push(Buffer.alloc(1 << 20, 1)),
    control: true,
  },
  all: {
    label: 'the five above in one loop (one call = one round)',
    call: (s) =>
      x12kit.parse(s.input).interchanges.length +
      x12kit.parse(s.input, { documents: false }).interchanges.length +
      x12kit.parseToJson(s.input).length +
      OPS.segments.call(s) +
      (x12kit.validate(s.input).valid ? 1 : 0),
  },
}

const MiB = 1024 * 1024
const rss = () => process.memoryUsage().rss / MiB
// maxRSS is in KiB.
const peak = () => process.resourceUsage().maxRSS / 1024

/**
 * Runs `op` in this process: `calls` checkpoints (ascending). Returns the
 * RSS after gc() at each checkpoint, the RSS before the first call, and the
 * peak RSS. Needs --expose-gc.
 */
export function measure(op, calls, mb) {
  const s = { input: generate850(mb * 1e6) }
  if (OPS[op].setup) OPS[op].setup(s)
  OPS[op].call(s) // warm-up: loads what a first call loads
  global.gc()
  const start = rss()
  const at = []
  let done = 0
  const t = process.hrtime.bigint()
  for (const n of calls) {
    while (done < n) {
      OPS[op].call(s)
      done++
    }
    global.gc()
    at.push(rss())
  }
  const seconds = Number(process.hrtime.bigint() - t) / 1e9
  return { op, start, at, peak: peak(), seconds, inputBytes: s.input.length }
}

/** Runs `op` in a child process (`--expose-gc`): a Promise of its `measure` result. */
export function measureInChild(op, calls, mb) {
  return new Promise((resolve, reject) => {
    const args = ['--expose-gc', fileURLToPath(import.meta.url), '--child', op, '--calls', calls.join(','), '--mb', String(mb)]
    execFile(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`${op}: the child failed: ${err.message}\n${stderr}`))
      else resolve(JSON.parse(stdout.trim().split('\n').pop()))
    })
  })
}

async function main(argv) {
  const arg = (name, def) => {
    const i = argv.indexOf(name)
    if (i < 0) return def
    const v = argv[i + 1]
    argv.splice(i, 2)
    return v
  }
  const child = arg('--child', null)
  const calls = arg('--calls', '30,130,230').split(',').map(Number)
  const mb = Number(arg('--mb', '1'))
  if (child) {
    console.log(JSON.stringify(measure(child, calls, mb)))
    return
  }
  const ops = argv.length ? argv : Object.keys(OPS).filter((op) => !OPS[op].control)
  console.log(`node ${process.version}, inputs of ${mb} MB (generated), RSS in MiB after gc() at each checkpoint; peak = the process's max RSS`)
  console.log(`| operation | before the loop | ${calls.map((n) => `after ${n}`).join(' | ')} | peak | ms/call |`)
  console.log(`|---|---|${calls.map(() => '---|').join('')}---|---|`)
  for (const op of ops) {
    if (!OPS[op]) throw new Error(`unknown op ${op}; one of ${Object.keys(OPS).join(', ')}`)
    const r = await measureInChild(op, calls, mb)
    const f = (v) => v.toFixed(0)
    console.log(`| ${OPS[op].label || op} | ${f(r.start)} | ${r.at.map(f).join(' | ')} | ${f(r.peak)} | ${((r.seconds * 1000) / calls[calls.length - 1]).toFixed(1)} |`)
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main(process.argv.slice(2))
