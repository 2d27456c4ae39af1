// Streams: validateStream over fs.createReadStream and generated streams,
// createSegmentStream, and memory that stays flat however large the input.
import test from 'node:test'
import assert from 'node:assert/strict'
import { createReadStream, readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { generate850, stream850 } from '../bench/gen.mjs'
import { big850, x12kit } from './helpers.mjs'

test('validateStream(fs.createReadStream) equals validate on the same file', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'x12kit-'))
  try {
    const input = generate850(3e6)
    const f = join(dir, 'big.edi')
    writeFileSync(f, input)
    const streamed = await x12kit.validateStream(createReadStream(f, { highWaterMark: 10007 }), { structure: true })
    assert.deepStrictEqual(streamed, x12kit.validate(readFileSync(f), { structure: true }))
    assert.equal(streamed.valid, true)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('createSegmentStream over fs.createReadStream yields the segments of segments()', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'x12kit-'))
  try {
    const input = generate850(500e3)
    const f = join(dir, 'in.edi')
    writeFileSync(f, input)
    const got = []
    await pipeline(createReadStream(f, { highWaterMark: 333 }), x12kit.createSegmentStream(), async (source) => {
      for await (const s of source) got.push([s.id, s.index, s.offset, s.element(1), s.raw])
    })
    const want = [...x12kit.segments(input)].map((s) => [s.id, s.index, s.offset, s.element(1), s.raw])
    assert.equal(got.length, want.length)
    assert.deepStrictEqual(got, want)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('segments(): lazy views with id, element, components, repetitions', () => {
  const x12 = 'ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *231114*2213*^*00501*000000001*0*P*:~\nGS*HC*S*R*20231114*2213*1*X*005010~\nST*837*0001~\nHI*ABK:I10^ABF:J20~\nSE*3*0001~\nGE*1*1~\nIEA*1*000000001~\n'
  const segs = [...x12kit.segments(x12)]
  assert.deepStrictEqual(segs.map((s) => s.id), ['ISA', 'GS', 'ST', 'HI', 'SE', 'GE', 'IEA'])
  const hi = segs[3]
  assert.equal(hi.element(1), 'ABK:I10^ABF:J20')
  assert.deepStrictEqual(hi.repetitions(1), ['ABK:I10', 'ABF:J20'])
  assert.deepStrictEqual(segs[2].components(1), ['837'])
  assert.equal(hi.element(2), undefined)
  assert.deepStrictEqual(hi.components(9), [])
  assert.equal(hi.raw, 'HI*ABK:I10^ABF:J20')
  assert.equal(segs[0].element(16), ':')
  assert.equal(segs[1].index, 1)
  assert.equal(x12.slice(hi.offset, hi.offset + 2), 'HI')
  assert.deepStrictEqual(JSON.parse(JSON.stringify(segs[2])), { id: 'ST', index: 2, offset: segs[2].offset, elements: ['837', '0001'] })
  // Views stay valid after the iteration moved on.
  assert.equal(segs[2].element(2), '0001')
})

test('segments(): views of every batch stay valid; break releases the iterator', () => {
  // More segments than one native batch (1024), so views span several batches.
  const input = generate850(200e3)
  const all = [...x12kit.segments(input)]
  assert.ok(all.length > 3 * 1024, `${all.length} segments`)
  const text = input.toString('latin1')
  for (const i of [0, 1, 1023, 1024, 1025, 2047, 2048, all.length - 1]) {
    const s = all[i]
    assert.equal(s.index, i)
    assert.equal(text.slice(s.offset, s.offset + s.raw.length), s.raw)
    assert.equal(s.raw.split('*')[0], s.id)
  }
  const it = x12kit.segments(input)
  assert.equal(it[Symbol.iterator](), it)
  let n = 0
  for (const s of it) {
    if (++n === 1500) {
      assert.equal(s.index, 1499)
      break
    }
  }
  assert.deepStrictEqual(it.next(), { value: undefined, done: true })
  // Identifiers are decoded once per distinct one, the same for every view.
  const po1 = all.filter((s) => s.id === 'PO1')
  assert.equal(po1.length, 200 * input.toString('latin1').split('ST*850*').length - 200)
})

test("memory stays flat: validateStream over 256 MB with retain: 'counts', the input never held", async () => {
  // retain: 'counts' is the mode whose memory does not grow with the input
  // (the default 'all' keeps a summary per set: see the retainedBytes test below).
  global.gc?.()
  const mb = Number(process.env.X12KIT_STREAM_MB || 256)
  const before = process.memoryUsage().rss
  let peak = before
  let atHalf = 0
  let peakAfterHalf = 0
  const sample = () => {
    const rss = process.memoryUsage().rss
    peak = Math.max(peak, rss)
    if (fed < (mb * 1e6) / 2) atHalf = rss
    else peakAfterHalf = Math.max(peakAfterHalf, rss)
  }
  const sampler = setInterval(sample, 5)
  let fed = 0
  async function* counted() {
    for await (const c of stream850(mb * 1e6)) {
      fed += c.length
      sample()
      yield c
    }
  }
  const v = await x12kit.validateStream(Readable.from(counted()), { retain: 'counts' })
  clearInterval(sampler)
  assert.equal(v.valid, true, JSON.stringify(v.diagnostics.slice(0, 3)))
  assert.ok(fed >= mb * 1e6)
  assert.equal(v.interchanges.length, 1)
  const grew = (peak - before) / 1e6
  const secondHalf = (peakAfterHalf - atHalf) / 1e6
  console.log(`# RSS over ${mb} MB, retain 'counts': +${grew.toFixed(0)} MB in all, +${secondHalf.toFixed(0)} MB over the second half`)
  assert.ok(grew < 64, `RSS grew by ${grew.toFixed(0)} MB for ${mb} MB of input`)
  // Flat: the second half of the input adds (almost) nothing.
  assert.ok(secondHalf < 16, `RSS grew by ${secondHalf.toFixed(0)} MB over the second ${mb / 2} MB`)
})

/** `sets` one-line 850 sets in one group, fed to `v` in chunks of about 1 MB. */
function feedSmallSets(v, sets, sample) {
  const text = big850(1).toString('latin1')
  const st = text.indexOf('ST*850*')
  const ge = text.indexOf('GE*')
  const set = text.slice(st, ge)
  let pending = text.slice(0, st)
  for (let i = 1; i <= sets; i++) {
    const cn = String(i).padStart(4, '0')
    pending += set.replace('ST*850*0001~', `ST*850*${cn}~`).replace(/SE\*(\d+)\*0001~/, `SE*$1*${cn}~`)
    if (pending.length >= 1 << 20) {
      v.feed(Buffer.from(pending, 'latin1'))
      pending = ''
      sample(i)
    }
  }
  v.feed(Buffer.from(pending + text.slice(ge).replace('GE*1*1~', `GE*${sets}*1~`), 'latin1'))
  return v.finish()
}

test('retain: "counts" keeps the memory of a stream flat (retainedBytes), "all" grows with the sets', () => {
  const sets = 300_000 // past the 100,000 control numbers the duplicate check remembers
  const run = (retain) => {
    const v = new x12kit.StreamValidator({ retain })
    let atHalf = 0
    let peak = 0
    let fed = 0
    const result = feedSmallSets(v, sets, (i) => {
      peak = Math.max(peak, v.retainedBytes)
      fed = v.consumed
      if (i <= sets / 2) atHalf = v.retainedBytes
    })
    return { result, atHalf, peak, fed }
  }
  const counts = run('counts')
  const all = run('all')
  assert.equal(counts.result.valid, true, JSON.stringify(counts.result.diagnostics.slice(0, 3)))
  assert.equal(all.result.valid, true)
  assert.ok(counts.fed > sets * 100, `fed ${counts.fed} bytes`)
  console.log(`# retainedBytes over ${(counts.fed / 1e6).toFixed(0)} MB: counts ${counts.atHalf} at half, peak ${counts.peak}; all ${all.atHalf} at half, peak ${all.peak}`)
  // counts: the second half of the input adds nothing (the control number
  // memory is full at 100,000 sets; no set summaries are kept).
  assert.ok(counts.peak <= counts.atHalf + 64 * 1024, `counts: ${counts.atHalf} bytes at half, peak ${counts.peak}`)
  assert.ok(counts.peak < 8e6, `counts: peak ${counts.peak} bytes`)
  // all: every set's summary is kept, so the second half adds megabytes.
  assert.ok(all.peak > all.atHalf + 4e6, `all: ${all.atHalf} bytes at half, peak ${all.peak}`)
  // The same verdict and counts either way; only the per-set summaries differ.
  assert.equal(counts.result.errorCount, all.result.errorCount)
  assert.equal(counts.result.warningCount, all.result.warningCount)
  assert.equal(counts.result.interchanges.length, all.result.interchanges.length)
})

test('validateStream passes retain to the core: "counts" drops the set summaries', async () => {
  const input = generate850(300e3)
  const all = await x12kit.validateStream(Readable.from([input]))
  const counts = await x12kit.validateStream(Readable.from([input]), { retain: 'counts' })
  assert.equal(counts.valid, true)
  assert.equal(JSON.stringify(all.interchanges[0]).includes('"transactions"'), true)
  assert.notDeepStrictEqual(counts, all)
  assert.ok(JSON.stringify(counts).length < JSON.stringify(all).length / 4)
  assert.throws(() => new x12kit.StreamValidator({ retain: 'some' }), (e) => e.code === 'INVALID_OPTIONS' && e instanceof TypeError)
})

test('acknowledge takes the results of validateStream, StreamValidator and validateAsync', async () => {
  const input = generate850(200e3)
  const now = 1700000000
  const want = x12kit.acknowledge(x12kit.validate(input), { kind: '997', now })
  assert.ok(want.length > 0)
  const streamed = await x12kit.validateStream(Readable.from([input.subarray(0, 1000), input.subarray(1000)]))
  assert.deepStrictEqual(x12kit.acknowledge(streamed, { kind: '997', now }), want)
  const sv = new x12kit.StreamValidator()
  sv.feed(input)
  assert.deepStrictEqual(x12kit.acknowledge(sv.finish(), { kind: '997', now }), want)
  assert.deepStrictEqual(x12kit.acknowledge(await x12kit.validateAsync(input), { kind: '997', now }), want)
  // A copy of the object (JSON round trip) is no longer an x12kit result.
  assert.throws(() => x12kit.acknowledge(JSON.parse(JSON.stringify(streamed))), TypeError)
})
