// The *Async calls run on the libuv thread pool: timers keep firing while a
// large input is parsed or validated, and the results equal the sync calls.
import test from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { generate850 } from '../bench/gen.mjs'
import { repoRoot, x12kit } from './helpers.mjs'

const big = generate850(Number(process.env.X12KIT_ASYNC_MB || 20) * 1e6)

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

test('validateAsync: timers keep firing, result equals validate', async () => {
  const started = process.hrtime.bigint()
  const p = x12kit.validateAsync(big, { structure: true })
  const ticks = await ticksDuring(p)
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  assert.ok(ticks >= 5, `only ${ticks} timer ticks in ${ms.toFixed(0)} ms`)
  assert.equal(JSON.stringify(await p), JSON.stringify(x12kit.validate(big, { structure: true })))
})

test('parseAsync: timers keep firing while the core parses, result equals parse', async () => {
  const p = x12kit.parseAsync(big, { documents: false })
  const ticks = await ticksDuring(p)
  assert.ok(ticks >= 5, `only ${ticks} timer ticks`)
  const doc = await p
  assert.equal(doc.interchanges.length, 1)
  assert.equal(JSON.stringify(doc), x12kit.parseToJson(big, { documents: false }).toString('utf8'))
})

test('parseAsync builds the objects in slices: the event loop turns between them (counted, not timed)', async () => {
  // The objects can only be made on the main thread; parseAsync builds them
  // from runs of at most 256 KB of JSON and yields after each megabyte.
  const json = x12kit.parseToJson(big)
  const split = x12kit.__native.splitJson(json, 256 * 1024)
  assert.ok(split.runs.length / 2 > 100, `${split.runs.length / 2} runs`)
  assert.ok(split.skeleton.length < 64 * 1024, `skeleton of ${split.skeleton.length} characters`)
  let yields = 0
  let turns = 0
  let spinning = true
  const spin = () => {
    if (!spinning) return
    turns++
    setImmediate(spin)
  }
  setImmediate(spin)
  const built = await x12kit.__assemble(split, () => yields++)
  spinning = false
  // A yield after each MB of runs (a run of up to 256 KB may overshoot it),
  // and the loop ran at each one.
  assert.ok(yields >= Math.floor(json.length / ((1 << 20) + 256 * 1024)) - 1, `${yields} yields for ${json.length} bytes of JSON`)
  assert.ok(turns >= yields, `${turns} loop turns for ${yields} yields`)
  assert.equal(built.interchanges[0].groups[0].transactions.length, big.toString('latin1').split('ST*850*').length - 1)
})

test('parseAsync with documents equals parse (objects spliced back from the runs)', async () => {
  const input = big.subarray(0, 3e6) // cut mid-set: diagnostics too
  const want = x12kit.parse(input)
  assert.deepStrictEqual(await x12kit.parseAsync(input), want)
  assert.deepStrictEqual(await x12kit.parseAsync(input, { documents: false }), x12kit.parse(input, { documents: false }))
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
