// The *Async calls run on the libuv thread pool: timers keep firing while a
// 100 MB input (X12KIT_ASYNC_MB) is validated or parsed, and the results
// equal the sync calls. parseAsync has two phases, tested one by one on the
// same 100 MB file: the core's parse and JSON (plus the split into runs) on a
// pool thread, then the objects, which V8 can only make on the main thread,
// built from runs of at most 256 KB with a yield to the event loop after
// each megabyte of JSON (index.js: parseAsync = native.parseSplitAsync, then
// assemble). Counted, never timed.
import test from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { generate850 } from '../bench/gen.mjs'
import { repoRoot, x12kit } from './helpers.mjs'

const MB = Number(process.env.X12KIT_ASYNC_MB || 100)
const big = generate850(MB * 1e6)
const sets = big.toString('latin1').split('ST*850*').length - 1

/** How many 2 ms interval ticks fire before `promise` settles. */
async function ticksDuring(promise) {
  let ticks = 0
  const t = setInterval(() => ticks++, 2)
  try {
    await promise
  } finally {
    clearInterval(t)
  }
  return ticks
}

test(`validateAsync on ${MB} MB: timers keep firing, result equals validate`, async () => {
  const p = x12kit.validateAsync(big)
  const ticks = await ticksDuring(p)
  assert.ok(ticks >= 5, `only ${ticks} timer ticks`)
  const v = await p
  assert.equal(v.valid, true)
  assert.deepStrictEqual(v, x12kit.validate(big))
})

test('validateAsync with structure equals validate', async () => {
  const input = big.subarray(0, 3e6) // cut mid-set: diagnostics too
  assert.deepStrictEqual(await x12kit.validateAsync(input, { structure: true }), x12kit.validate(input, { structure: true }))
})

test('parseAsync is the pool phase, then the main-thread phase (what the next tests take apart)', async () => {
  const input = big.subarray(0, 1e6)
  for (const o of [undefined, { documents: false }]) {
    const want = await x12kit.parseAsync(input, o)
    assert.deepStrictEqual(await x12kit.__assemble(await x12kit.__native.parseSplitAsync(input, o)), want)
    assert.deepStrictEqual(want, x12kit.parse(input, o))
  }
})

test(`parseAsync on ${MB} MB, pool phase with documents (the default): timers keep firing while the core parses`, async () => {
  // The core's parse, the mapped documents and their JSON (about 4.6 times the
  // X12), and the split into runs: all on a pool thread.
  const pool = x12kit.__native.parseSplitAsync(big, undefined)
  const ticks = await ticksDuring(pool)
  const split = await pool
  assert.ok(ticks >= 5, `only ${ticks} timer ticks`)
  assert.ok(split.json.length > 4 * big.length, `${split.json.length} bytes of JSON`)
  assert.ok(split.runs.length / 2 > 1000, `${split.runs.length / 2} runs`)
})

test(`parseAsync on ${MB} MB, both phases (documents: false): timers fire in each, the objects are built in slices`, async () => {
  const pool = x12kit.__native.parseSplitAsync(big, { documents: false })
  const poolTicks = await ticksDuring(pool)
  const split = await pool
  assert.ok(poolTicks >= 5, `only ${poolTicks} timer ticks while the pool parsed`)
  assert.ok(split.skeleton.length < 64 * 1024, `skeleton of ${split.skeleton.length} characters`)
  // The main thread: JSON.parse of one run (at most 256 KB) at a time,
  // a yield to the event loop after each MB; the loop turns at each one.
  let yields = 0
  let turns = 0
  let spinning = true
  const spin = () => {
    if (!spinning) return
    turns++
    setImmediate(spin)
  }
  setImmediate(spin)
  const building = x12kit.__assemble(split, () => yields++)
  const buildTicks = await ticksDuring(building)
  const doc = await building
  spinning = false
  const json = split.json.length
  assert.ok(yields >= Math.floor(json / ((1 << 20) + 256 * 1024)) - 1, `${yields} yields for ${json} bytes of JSON`)
  assert.ok(turns >= yields, `${turns} loop turns for ${yields} yields`)
  assert.ok(buildTicks >= 5, `only ${buildTicks} timer ticks while the objects were built`)
  // The result: every set, in order, whole (the splice itself equals JSON.parse:
  // the test above, and fast-check on arbitrary JSON in property.test.mjs).
  assert.deepStrictEqual(doc.diagnostics, [])
  const txs = doc.interchanges[0].groups[0].transactions
  assert.equal(txs.length, sets)
  for (const k of [0, 1, Math.floor(sets / 2), sets - 1]) {
    assert.equal(txs[k].controlNumber, String(k + 1).padStart(4, '0'))
    assert.equal(txs[k].segments.length, txs[0].segments.length)
    assert.equal(txs[k].document, undefined)
  }
})

test('the sync call, by contrast, blocks the timers', () => {
  let ticks = 0
  const t = setInterval(() => ticks++, 1)
  x12kit.validate(big)
  clearInterval(t)
  assert.equal(ticks, 0)
})

test('several async calls run at once and each gets its own result', async () => {
  const small = readFileSync(join(repoRoot, 'tests/vectors/inputs/850-basic.edi'))
  const results = await Promise.all([
    x12kit.parseAsync(small),
    x12kit.validateAsync(small),
    x12kit.parseAsync(big.subarray(0, 100000)),
  ])
  assert.deepStrictEqual(results[0], x12kit.parse(small))
  assert.deepStrictEqual(results[1], x12kit.validate(small))
  assert.ok(results[2].diagnostics.length > 0)
})

test('renderAsync: timers keep firing while a 10,000-line 850 renders', async () => {
  // The core renders about 0.3 MB of X12 a second here (render checks the
  // payload against the set's declaration), so a 100 MB render would take
  // minutes: 10,000 lines (336 KB of X12) is the size used.
  const partner = readFileSync(join(repoRoot, 'examples/partners/acme-retail.json'), 'utf8')
  const lines = Array.from({ length: 10_000 }, (_, i) => ({ lineNumber: i + 1, sku: `WID-${i}`, quantity: 1 + (i % 50), unitPrice: 9.25 }))
  const payload = JSON.stringify({ purchaseOrderNumber: 'PO-1', shipTo: { id: '0003947268292', name: 'ACME' }, lines })
  const o = { date: '20231114', time: '2213' }
  const p = x12kit.renderAsync('850', payload, partner, o)
  const ticks = await ticksDuring(p)
  assert.ok(ticks >= 5, `only ${ticks} timer ticks`)
  const out = await p
  assert.equal(out.toString('latin1').split(/~\s*PO1\*/).length - 1, 10_000)
  assert.deepStrictEqual(out, x12kit.render('850', payload, partner, o))
})

test('renderAsync equals render', async () => {
  const partner = readFileSync(join(repoRoot, 'examples/partners/acme-retail.json'), 'utf8')
  const payload = readFileSync(join(repoRoot, 'examples/payloads/850.json'), 'utf8')
  const o = { date: '20231114', time: '2213', controlNumbers: { interchange: 5 } }
  assert.deepStrictEqual(await x12kit.renderAsync('850', payload, partner, o), x12kit.render('850', payload, partner, o))
  await assert.rejects(x12kit.renderAsync('850', '{}', partner, o), (e) => e.code === 'INVALID_PAYLOAD' && e.details.length > 0)
})

test('the input may change after the call: the task owns a copy', async () => {
  const b = Buffer.from(readFileSync(join(repoRoot, 'tests/vectors/inputs/850-basic.edi')))
  const want = x12kit.validate(b)
  const p = x12kit.validateAsync(b)
  b.fill(0)
  assert.deepStrictEqual(await p, want)
})

test('an aborted signal cancels a queued call', async () => {
  const c = new AbortController()
  c.abort()
  await assert.rejects(x12kit.parseAsync(big, { signal: c.signal }), (e) => e.name === 'AbortError')
})
