// The real X12 files of the corpus: parse() equals the core's JSON, write()
// gives the bytes back for clean input, segments() and the segment stream
// agree with each other, and streamed validation does not depend on chunking.
import test from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import { Readable } from 'node:stream'
import { corpusDir, corpusMissing, corpusSkip, filesUnder, x12kit } from './helpers.mjs'

const dir = corpusDir()
const files = dir ? filesUnder(dir) : []

// Without the corpus: skipped with the reason, or failed when X12KIT_REQUIRE_CORPUS=1 (CI).
test('corpus is present', { skip: corpusSkip('corpus is present') }, () => {
  assert.ok(dir, `the corpus is required (X12KIT_REQUIRE_CORPUS=1) but ${corpusMissing()}`)
  assert.ok(files.length > 50, `only ${files.length} corpus files`)
})

function ids(iterable) {
  const out = []
  for (const s of iterable) out.push(`${s.index}:${s.offset}:${s.id}:${s.elements().join('|')}`)
  return out
}

async function streamIds(input, chunk) {
  const chunks = []
  for (let i = 0; i < input.length; i += chunk) chunks.push(input.subarray(i, i + chunk))
  const out = []
  for await (const s of Readable.from(chunks).pipe(x12kit.createSegmentStream())) {
    out.push(`${s.index}:${s.offset}:${s.id}:${s.elements().join('|')}`)
  }
  return out
}

for (const f of files) {
  const name = relative(dir, f)
  test(`corpus ${name}`, async () => {
    const input = readFileSync(f)
    const json = x12kit.parseToJson(input)
    const doc = x12kit.parse(input)
    assert.deepStrictEqual(doc, JSON.parse(json.toString('utf8')))
    // Input without diagnostics writes back to the same bytes.
    if (doc.diagnostics.length === 0) {
      assert.ok(x12kit.write(doc).equals(input), 'write(parse(x)) != x')
    }
    const v = x12kit.validate(input, { structure: true })
    assert.equal(typeof v.valid, 'boolean')
    assert.ok(Buffer.isBuffer(x12kit.acknowledge(v, { now: 1700000000 })))
    // Lazy segments == segment stream, whatever the chunk size.
    const whole = ids(x12kit.segments(input))
    assert.deepStrictEqual(await streamIds(input, 7), whole)
    assert.deepStrictEqual(await streamIds(input, 4096), whole)
    // Streamed validation does not depend on how the input is cut.
    const a = await x12kit.validateStream(Readable.from([input]))
    const chunks = []
    for (let i = 0; i < input.length; i += 13) chunks.push(input.subarray(i, i + 13))
    assert.deepStrictEqual(await x12kit.validateStream(chunks), a)
  })
}
