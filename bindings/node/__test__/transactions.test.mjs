// transactions(): every set of the parse result, one at a time, from a path,
// a Buffer or a Readable, and memory that stays bounded however large the input.
import test from 'node:test'
import assert from 'node:assert/strict'
import { writeFileSync, mkdtempSync, rmSync, createReadStream } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable } from 'node:stream'
import { pathToFileURL } from 'node:url'
import { generate850, stream850 } from '../bench/gen.mjs'
import { x12kit } from './helpers.mjs'

function setsOf(input, documents = true) {
  const out = []
  for (const i of x12kit.parse(input, { documents }).interchanges) {
    for (const g of i.groups) {
      for (const t of g.transactions) out.push({ interchange: i.header, group: g.header, transaction: t })
    }
  }
  return out
}

async function collect(source, options) {
  const out = []
  for await (const s of x12kit.transactions(source, options)) out.push(s)
  return out
}

const strip = (items) => items.map(({ diagnostics, ...rest }) => rest)

test('transactions(): the sets of parse() from a path, a URL, a Buffer and a Readable', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'x12kit-'))
  try {
    const input = Buffer.concat([generate850(200e3), Buffer.from('\n'), generate850(30e3)])
    const f = join(dir, 'in.edi')
    writeFileSync(f, input)
    for (const documents of [true, false]) {
      const want = setsOf(input, documents)
      assert.ok(want.length > 20)
      for (const source of [f, pathToFileURL(f), input, new Uint8Array(input), createReadStream(f, { highWaterMark: 4099 }), Readable.from([input.subarray(0, 777), input.subarray(777)])]) {
        const got = await collect(source, { documents })
        assert.deepStrictEqual(strip(got), want)
        assert.ok(got.every((s) => s.diagnostics.length === 0))
      }
    }
    const [first] = await collect(input)
    assert.equal(first.transaction.type, '850')
    assert.equal(first.group.functionalId, 'PO')
    assert.equal(typeof first.transaction.document, 'object')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('transactions(): the diagnostics of each set and of the input; break stops the reader', async () => {
  const text = generate850(20e3).toString('latin1')
  const se = text.match(/SE\*\d+\*0002~\n?/)[0]
  const input = Buffer.from(text.replace(se, '') + 'GARBAGE', 'latin1')
  let all
  const got = await collect(input, { onDiagnostics: (d) => (all = d) })
  assert.deepStrictEqual(strip(got), setsOf(input))
  const parsed = x12kit.parse(input)
  assert.deepStrictEqual(all, parsed.diagnostics)
  assert.ok(all.some((d) => d.code === 'SE_MISSING') && all.some((d) => d.code === 'TRAILING_DATA'))
  for (const s of got) for (const d of s.diagnostics) assert.ok(all.some((a) => JSON.stringify(a) === JSON.stringify(d)))
  let n = 0
  for await (const s of x12kit.transactions(generate850(500e3))) {
    if (++n === 3) {
      assert.equal(s.transaction.controlNumber.length > 0, true)
      break
    }
  }
  assert.equal(n, 3)
})

test('transactions(): bad sources and options are typed errors', async () => {
  await assert.rejects(collect(5), (e) => e.code === 'INVALID_ARGUMENT')
  await assert.rejects(collect(join(tmpdir(), 'x12kit-missing-file.edi')), (e) => e.code === 'IO')
  await assert.rejects(collect(Buffer.from('x'), { document: false }), (e) => e.code === 'INVALID_OPTIONS' && e.pointer === '/document')
  await assert.rejects(collect(Readable.from([Buffer.from('x')]), { documents: 'yes' }), (e) => e.code === 'INVALID_OPTIONS')
  assert.deepStrictEqual(await collect(Buffer.from('')), [])
  assert.deepStrictEqual(await collect(Buffer.from('not x12')), [])
})

test('memory stays bounded: transactions() over a 1 GB Readable, documents mapped', async () => {
  global.gc?.()
  const mb = Number(process.env.X12KIT_TRANSACTIONS_MB || 1024)
  const before = process.memoryUsage().rss
  let peak = before
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss)
  }, 5)
  let sets = 0
  let lines = 0
  try {
    for await (const s of x12kit.transactions(Readable.from(stream850(mb * 1e6)))) {
      sets++
      lines += s.transaction.document.lines.length
      if (sets % 1000 === 0) peak = Math.max(peak, process.memoryUsage().rss)
    }
  } finally {
    clearInterval(sampler)
  }
  const grew = (peak - before) / 1e6
  console.log(`# transactions() over ${mb} MB: ${sets} sets, RSS +${grew.toFixed(0)} MB`)
  assert.ok(sets > (mb * 1e6) / 10000, `${sets} sets`)
  assert.ok(lines >= sets)
  assert.ok(grew < 96, `RSS grew by ${grew.toFixed(0)} MB for ${mb} MB of input`)
})

test('transactions(): a set over maxSetBytes comes without its segments, the others whole', async () => {
  const { readFileSync } = await import('node:fs')
  const input = readFileSync(new URL('../../../tests/vectors/inputs/set-too-large.edi', import.meta.url))
  const parsed = x12kit.parse(input, { maxSetBytes: 300 })
  const want = parsed.interchanges[0].groups[0].transactions
  assert.deepStrictEqual(want.map((t) => t.segments.length), [3, 0, 4])
  assert.equal(want[1].document, undefined)
  assert.deepStrictEqual(parsed.diagnostics.map((d) => d.code), ['SET_TOO_LARGE'])
  for (const source of [input, Readable.from([input.subarray(0, 100), input.subarray(100)])]) {
    let all
    const got = await collect(source, { maxSetBytes: 300, onDiagnostics: (d) => (all = d) })
    assert.deepStrictEqual(got.map((s) => s.transaction), want)
    assert.deepStrictEqual(got.map((s) => s.diagnostics.map((d) => d.code)), [[], ['SET_TOO_LARGE'], []])
    assert.deepStrictEqual(all, parsed.diagnostics)
  }
  const free = await collect(input, { maxSetBytes: 0 })
  assert.deepStrictEqual(free.map((s) => s.transaction.segments.length), [3, 14, 4])
})
