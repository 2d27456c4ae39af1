// Soak tests: memory stays flat under sustained synchronous use (issue 34).
//
// Node frees the native memory of wrapped objects and external buffers only
// when the event loop turns, so a synchronous loop (a batch job, a CLI, a
// worker) used to grow without bound. Each operation here runs in a child
// process (`--expose-gc`, bench/memory.mjs) in a synchronous loop with no
// event-loop turn, and the bounds below are what the test asserts:
//
// - every public operation, 300 calls on a 1 MB input: the process's peak
//   RSS stays under 200 MiB, and the RSS after gc() at call 300 is within
//   48 MiB of the RSS at call 50 (before the fix: +440 MiB for parse);
// - the operations whose result keeps native state (validate, acknowledge
//   of a validation, StreamValidator, segments()), 50,000 calls on a small
//   input: within 24 MiB between call 5,000 and call 50,000 (before: +340 to
//   +630 MiB over 90,000 calls);
// - createSegmentStream over a 256 MB generated stream, never held;
// - examples/node/validate-folder.mjs, synchronous, over a folder of 2,000
//   generated 1 MB files: peak under 200 MiB and within 24 MiB of its peak
//   over 300 of them (before the fix: 97 and 203 MiB).
// A control loop that keeps its results shows that the measurement sees
// memory that is held.
import test from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { Worker } from 'node:worker_threads'
import { linkSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { OPS, measureInChild } from '../bench/memory.mjs'
import { generate850, stream850 } from '../bench/gen.mjs'
import { repoRoot, x12kit } from './helpers.mjs'

const MiB = 1024 * 1024
const PEAK = 200 // MiB
const FLAT = 48 // MiB between call 50 and call 300
const SMALL_FLAT = 24 // MiB between call 5,000 and call 50,000
const mib = (v) => `${v.toFixed(0)} MiB`

// `render` is `renderResult` without the JSON of its document (one native
// call, measured by bench/memory.mjs); `all` repeats the first five.
const LARGE = Object.keys(OPS).filter((op) => !OPS[op].control && op !== 'all' && op !== 'render')
const HANDLES = ['validate', 'acknowledge', 'stream-validator', 'segments', 'segments-break']

test('every operation, 300 calls in a synchronous loop on 1 MB: peak RSS < 200 MiB, flat after 50 calls', { concurrency: 2 }, async (t) => {
  await Promise.all(LARGE.map((op) =>
    t.test(OPS[op].label || op, async () => {
      const r = await measureInChild(op, [50, 300], 1)
      const [at50, at300] = r.at
      console.log(`# soak ${op}: RSS ${mib(r.start)} before, ${mib(at50)} at 50 calls, ${mib(at300)} at 300, peak ${mib(r.peak)}, ${(r.seconds / 300 * 1000).toFixed(1)} ms/call`)
      assert.ok(r.inputBytes >= 1e6)
      assert.ok(r.peak < PEAK, `${op}: peak RSS ${mib(r.peak)} >= ${PEAK} MiB`)
      assert.ok(at300 - at50 < FLAT, `${op}: RSS grew ${mib(at300 - at50)} from call 50 to call 300`)
    }),
  ))
})

test('the handle-owning operations, 50,000 small calls in a synchronous loop: flat', { concurrency: 2 }, async (t) => {
  await Promise.all(HANDLES.map((op) =>
    t.test(OPS[op].label || op, async () => {
      const r = await measureInChild(op, [5_000, 50_000], 0.001)
      const [at5k, at50k] = r.at
      console.log(`# soak ${op} x 50,000 on ${r.inputBytes} bytes: RSS ${mib(at5k)} at 5,000 calls, ${mib(at50k)} at 50,000, peak ${mib(r.peak)}`)
      assert.ok(at50k - at5k < SMALL_FLAT, `${op}: RSS grew ${mib(at50k - at5k)} from call 5,000 to call 50,000`)
    }),
  ))
})

test('worker threads: each has its own registry of handles, dropped when the worker exits', async () => {
  // Validation results, segment cursors and an unfinished StreamValidator in
  // workers that come and go; the main thread's handles keep working.
  const mine = x12kit.validate(generate850(10_000))
  const code = `
    const x = require(${JSON.stringify(join(repoRoot, 'bindings/node/index.js'))})
    const b = require('fs').readFileSync(${JSON.stringify(join(repoRoot, 'examples/x12/purchase-orders-850.edi'))})
    let n = 0
    for (let i = 0; i < 500; i++) {
      n += x.acknowledge(x.validate(b), { kind: '997', now: 1700000000 }).length > 0 ? 1 : 0
      for (const s of x.segments(b)) if (s.id === 'ST') n++
    }
    new x.StreamValidator().feed(b)
    require('worker_threads').parentPort.postMessage(n)
  `
  for (let k = 0; k < 3; k++) {
    const w = new Worker(code, { eval: true })
    const n = await new Promise((resolve, reject) => {
      w.on('message', resolve)
      w.on('error', reject)
    })
    await new Promise((resolve) => w.on('exit', resolve))
    assert.equal(n, 500 * 3)
  }
  assert.ok(x12kit.acknowledge(mine, { kind: '997', now: 1700000000 }).length > 0)
})

test('control: the measurement sees memory a loop keeps', async () => {
  const r = await measureInChild('keeps-results', [50, 300], 1)
  assert.ok(r.at[1] - r.at[0] > 200, `a loop that keeps 250 MiB more grew only ${mib(r.at[1] - r.at[0])}`)
  assert.ok(r.peak > PEAK)
})

test('createSegmentStream over a 256 MB generated stream: memory bounded, the input never held', async () => {
  const mb = Number(process.env.X12KIT_STREAM_MB || 256)
  global.gc?.()
  const before = process.memoryUsage().rss
  // Peak RSS over the first half of the input and over the second.
  const peaks = [before, before]
  let segments = 0
  let po1 = 0
  let fed = 0
  async function* counted() {
    for await (const c of stream850(mb * 1e6)) {
      fed += c.length
      yield c
    }
  }
  await pipeline(Readable.from(counted()), x12kit.createSegmentStream(), async (source) => {
    for await (const s of source) {
      segments++
      if (s.id === 'PO1') po1++
      if ((segments & 0x3fff) === 0) {
        const half = fed < (mb * 1e6) / 2 ? 0 : 1
        peaks[half] = Math.max(peaks[half], process.memoryUsage().rss)
      }
    }
  })
  const grew = (Math.max(...peaks) - before) / MiB
  const secondHalf = (peaks[1] - peaks[0]) / MiB
  console.log(`# createSegmentStream over ${(fed / 1e6).toFixed(0)} MB: ${segments} segments, RSS +${mib(grew)} at most, +${mib(Math.max(0, secondHalf))} over the second half`)
  assert.ok(fed >= mb * 1e6)
  assert.equal(po1 % 200, 0)
  assert.ok(po1 > 0 && segments > po1)
  assert.ok(grew < 128, `RSS grew by ${mib(grew)} over ${mb} MB`)
  assert.ok(secondHalf < 16, `RSS grew by ${mib(secondHalf)} over the second ${mb / 2} MB`)
})

/** Runs examples/node/validate-folder.mjs as a user does; its exit status, output lines and peak RSS (MiB). */
function runFolder(dir, out) {
  const peakFile = join(out, '..', `peak-${Date.now()}-${Math.random()}.json`)
  // A preload that writes the process's peak RSS when it exits (the script
  // is synchronous: no timer could sample it while it runs).
  const preload = join(out, '..', 'peak.cjs')
  writeFileSync(preload, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(peakFile)}, JSON.stringify(process.resourceUsage().maxRSS / 1024)))\n`)
  const script = join(repoRoot, 'examples/node/validate-folder.mjs')
  return new Promise((resolve) => {
    execFile(process.execPath, ['--require', preload, script, dir, '--out', out], { encoding: 'utf8', maxBuffer: 64 << 20 }, (err, stdout, stderr) => {
      resolve({ status: err ? err.code : 0, stderr, lines: stdout.trim().split('\n'), peak: JSON.parse(readFileSync(peakFile, 'utf8')) })
    })
  })
}

test('validate-folder.mjs (synchronous) over 2,000 generated 1 MB files: flat memory', async () => {
  const root = mkdtempSync(join(tmpdir(), 'x12kit-soak-folder-'))
  try {
    // Ten distinct 1 MB files (two with a wrong SE01), each linked 200
    // times: 2,000 files of 1 MB as the script sees them, 10 MB on disk.
    // Purchase orders of 20 lines and 20 notes (N9 + two 250-character
    // MSG): a quarter of the segments of 200-line orders, so that the
    // 2,300 validations with `structure: true` take seconds, not a minute.
    const base = generate850(1e6, { lines: 20, notes: 20 }).toString('latin1')
    const distinct = []
    for (let k = 0; k < 10; k++) {
      let text = base.replace('*000000001*1*T*', `*${String(100 + k).padStart(9, '0')}*1*T*`).replace(`IEA*1*000000001~`, `IEA*1*${String(100 + k).padStart(9, '0')}~`)
      if (k % 5 === 4) text = text.replace(/SE\*(\d+)\*0007~/, (_, n) => `SE*${Number(n) + 1}*0007~`)
      const f = join(root, `distinct-${k}.edi`)
      writeFileSync(f, text, 'latin1')
      distinct.push(f)
    }
    const all = join(root, 'all')
    const some = join(root, 'some')
    mkdirSync(all)
    mkdirSync(some)
    for (let i = 0; i < 2000; i++) {
      const name = `po-${String(i).padStart(4, '0')}.edi`
      linkSync(distinct[i % 10], join(all, name))
      if (i < 300) linkSync(distinct[i % 10], join(some, name))
    }
    const small = await runFolder(some, join(root, 'acks-some'))
    const large = await runFolder(all, join(root, 'acks-all'))
    console.log(`# validate-folder: peak RSS ${mib(small.peak)} over 300 files, ${mib(large.peak)} over 2,000 (2 GB)`)
    assert.equal(large.status, 1, large.stderr) // two files in ten are invalid on purpose
    assert.equal(large.lines.length, 2000)
    assert.equal(large.lines.filter((l) => l.startsWith('INVALID')).length, 400)
    assert.equal(readdirSync(join(root, 'acks-all')).length, 2000)
    assert.ok(large.peak < PEAK, `peak RSS ${mib(large.peak)} over 2,000 files`)
    assert.ok(large.peak - small.peak < 24, `peak RSS ${mib(small.peak)} over 300 files, ${mib(large.peak)} over 2,000`)
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
})
