// fast-check: arbitrary and mutated bytes never crash the process and never
// throw anything but the documented results; parse() is always the contract.
import test from 'node:test'
import assert from 'node:assert/strict'
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { corpusDir, filesUnder, x12kit } from './helpers.mjs'

const dir = corpusDir()
const seeds = (dir ? filesUnder(dir).slice(0, 40) : []).map((f) => readFileSync(f))
seeds.push(Buffer.from('ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *231114*2213*U*00401*000000001*0*P*>~GS*PO*SENDER*RECEIVER*20231114*2213*1*X*004010~ST*850*0001~BEG*00*SA*PO-1**20231114~PO1*1*10*EA*9.99**VP*WID-1~CTT*1~SE*5*0001~GE*1*1~IEA*1*000000001~'))

const runs = Number(process.env.X12KIT_FC_RUNS || 200)

function everything(input) {
  const bytes = Buffer.from(input)
  const doc = x12kit.parse(bytes)
  assert.deepStrictEqual(doc, JSON.parse(x12kit.parseToJson(bytes).toString('utf8')))
  const v = x12kit.validate(bytes, { structure: true })
  assert.equal(typeof v.valid, 'boolean')
  for (const kind of ['auto', 'ta1', '997', '999']) {
    try {
      x12kit.acknowledge(v, { kind, now: 1700000000 })
    } catch (e) {
      // Refusing to acknowledge is allowed, but only with a core error.
      assert.ok(e instanceof x12kit.X12kitError, String(e && e.stack))
      assert.notEqual(e.code, 'INTERNAL', e.message)
    }
  }
  x12kit.readAcknowledgement(bytes)
  let n = 0
  for (const s of x12kit.segments(bytes)) {
    s.id
    s.elements()
    s.element(1)
    s.components(1)
    if (++n > 2000) break
  }
  if (doc.diagnostics.length === 0) {
    assert.ok(x12kit.write(doc).equals(bytes))
  }
  const sv = new x12kit.StreamValidator()
  for (let i = 0; i < bytes.length; i += 5) sv.feed(bytes.subarray(i, i + 5))
  sv.finish()
}

test('property: arbitrary bytes', () => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 600 }), everything), { numRuns: runs })
})

test('property: arbitrary X12-ish text', () => {
  const alphabet = fc.constantFrom(...'ISAGSTEBQ0123456789*~:^>|\n\r '.split(''))
  const text = fc.array(alphabet, { maxLength: 400 }).map((a) => a.join(''))
  fc.assert(fc.property(text, (t) => everything(Buffer.from(t, 'latin1'))), { numRuns: runs })
})

test('property: mutated corpus files', () => {
  const mutation = fc.record({
    seed: fc.nat(seeds.length - 1),
    edits: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }), fc.constantFrom('set', 'delete', 'insert')), {
      minLength: 1,
      maxLength: 8,
    }),
  })
  fc.assert(
    fc.property(mutation, ({ seed, edits }) => {
      let b = Buffer.from(seeds[seed])
      for (const [pos, byte, op] of edits) {
        const p = b.length ? pos % b.length : 0
        if (op === 'set' && b.length) b[p] = byte
        else if (op === 'delete') b = Buffer.concat([b.subarray(0, p), b.subarray(p + 1)])
        else b = Buffer.concat([b.subarray(0, p), Buffer.from([byte]), b.subarray(p)])
      }
      everything(b)
    }),
    { numRuns: runs },
  )
})

test('property: the native JSON-to-objects builder equals JSON.parse', () => {
  const text = fc.oneof(
    fc.jsonValue({ maxDepth: 5 }).map((v) => JSON.stringify(v)),
    fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v, null, 2)),
    fc.string({ unit: 'binary' }).map((s) => JSON.stringify({ [s]: [s, s.slice(0, 3)] })),
  )
  fc.assert(
    fc.property(text, (t) => {
      assert.deepStrictEqual(x12kit.__native.jsonToObjects(Buffer.from(t, 'utf8')), JSON.parse(t))
    }),
    { numRuns: runs },
  )
  // `__proto__` is an own key, as JSON.parse makes it (not the prototype), escaped or not.
  for (const t of ['{"__proto__":["__proto__","__p"]}', '{"a":{"__proto__":{"b":1}}}', '{"\\u005f_proto__":[]}']) {
    const built = x12kit.__native.jsonToObjects(Buffer.from(t, 'utf8'))
    assert.deepStrictEqual(built, JSON.parse(t), t)
    assert.equal(Object.getPrototypeOf(built), Object.prototype, t)
  }
  for (const bad of ['', '{', '[1,]', '{"a" 1}', '"\\x"', 'nul', '[1] 2', '"abc']) {
    assert.throws(() => x12kit.__native.jsonToObjects(Buffer.from(bad)), /malformed/, bad)
  }
})

test('property: JSON split into runs and built slice by slice equals JSON.parse', async () => {
  // Keys with U+0000 are left out: the placeholders use that key, and the
  // core never writes one.
  const value = fc.jsonValue({ maxDepth: 5 }).filter((v) => !JSON.stringify(v).includes('\\u0000'))
  await fc.assert(
    fc.asyncProperty(value, fc.integer({ min: 1, max: 64 }), fc.boolean(), async (v, limit, pretty) => {
      const t = pretty ? JSON.stringify(v, null, 1) : JSON.stringify(v)
      if (t === undefined) return
      const split = x12kit.__native.splitJson(Buffer.from(t, 'utf8'), limit)
      assert.deepStrictEqual(await x12kit.__assemble(split), JSON.parse(t))
    }),
    { numRuns: runs },
  )
})

test('property: arbitrary JSON to write() is a result or a core error', () => {
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 4 }), (v) => {
      try {
        x12kit.write(typeof v === 'object' && v !== null ? v : JSON.stringify(v))
      } catch (e) {
        assert.ok(e instanceof x12kit.X12kitError, String(e && e.stack))
        assert.notEqual(e.code, 'INTERNAL', e.message)
      }
    }),
    { numRuns: runs },
  )
})

test('property: arbitrary payloads to render() are a result or a core error', () => {
  const partner = JSON.parse(readFileSync(new URL('../../../examples/partners/acme-retail.json', import.meta.url), 'utf8'))
  fc.assert(
    fc.property(fc.constantFrom(...x12kit.documentTypes), fc.object({ maxDepth: 3 }), (type, payload) => {
      try {
        x12kit.render(type, payload, partner, { date: '20231114', time: '2213' })
      } catch (e) {
        assert.ok(e instanceof x12kit.X12kitError, String(e && e.stack))
        assert.notEqual(e.code, 'INTERNAL', e.message)
      }
    }),
    { numRuns: runs },
  )
})
