// Runs every case of tests/vectors/manifest.json through the public API and
// compares the output byte for byte (or the error's code, kind, pointer and details).
import test from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { vectorsDir, x12kit } from './helpers.mjs'

const manifest = JSON.parse(readFileSync(join(vectorsDir, 'manifest.json'), 'utf8'))
const file = (p) => readFileSync(join(vectorsDir, p))
const fileText = (p) => file(p).toString('utf8')

const native = x12kit.__native

/** Runs one case; returns the output bytes. */
function run(c) {
  const a = c.args || {}
  const o = c.options
  const withNow = (opts) => (a.now === undefined ? opts : { ...(opts || {}), now: a.now })
  switch (c.op) {
    case 'parse': {
      const input = file(a.input)
      const bytes = x12kit.parseToJson(input, o)
      // parse() must be exactly the contract: the same objects as the JSON bytes.
      const objects = JSON.parse(bytes.toString('utf8'))
      assert.deepStrictEqual(x12kit.parse(input, o), objects)
      // The native object builder (measured against JSON.parse, see README) agrees.
      assert.deepStrictEqual(x12kit.__native.parseToObjects(input, o), objects)
      return bytes
    }
    case 'validate': {
      const input = file(a.input)
      const v = x12kit.validate(input, o)
      const text = native.validateToString(input, o)
      assert.deepStrictEqual(v, JSON.parse(text))
      return Buffer.from(text)
    }
    case 'acknowledge': {
      const input = file(a.input)
      const ack = x12kit.acknowledge(input, withNow(o))
      // The same through a validation made first (kind and structure as the options say).
      if (o === undefined || (typeof o === 'object' && o !== null && !Array.isArray(o))) {
        const v = x12kit.validate(input, withGuides({ structure: o?.structure ?? true }, o))
        assert.deepStrictEqual(x12kit.acknowledge(v, withNow(o)), ack)
      }
      return ack
    }
    case 'readAcknowledgement': {
      const input = file(a.input)
      const r = x12kit.readAcknowledgement(input)
      const text = native.readAcknowledgementToString(input)
      assert.deepStrictEqual(r, JSON.parse(text))
      return Buffer.from(text)
    }
    case 'render':
      return x12kit.render(a.documentType, fileText(a.payload), fileText(a.partner), withNow(o))
    case 'write': {
      const out = x12kit.write(file(a.input), o)
      // The same from the text and from the objects, when the bytes are UTF-8 JSON.
      const t = fileText(a.input)
      if (Buffer.from(t, 'utf8').equals(file(a.input))) {
        assert.deepStrictEqual(x12kit.write(t, o), out)
      }
      return out
    }
    case 'documentSchema': {
      // Narrowed for a partner profile when the case names one (as text, and as an object).
      const partner = a.partner === undefined ? undefined : fileText(a.partner)
      const s = x12kit.documentSchema(a.documentType, partner)
      const text = native.documentSchemaJson(a.documentType, partner)
      assert.deepStrictEqual(s, JSON.parse(text))
      let profile
      try {
        profile = partner === undefined ? undefined : JSON.parse(partner)
      } catch {
        profile = undefined
      }
      if (profile !== undefined) {
        assert.deepStrictEqual(x12kit.documentSchema(a.documentType, profile), s)
      }
      return Buffer.from(text)
    }
    case 'partnerSchema': {
      const s = x12kit.partnerSchema()
      const text = native.partnerSchemaJson()
      assert.deepStrictEqual(s, JSON.parse(text))
      return Buffer.from(text)
    }
    case 'describeSegment': {
      const d = x12kit.describeSegment(a.setType, a.version, a.segment)
      const text = native.describeSegmentJson(a.setType, a.version, a.segment)
      assert.deepStrictEqual(d, JSON.parse(text))
      return Buffer.from(text)
    }
    case 'payloadsFromCsv': {
      const input = file(a.input)
      const r = x12kit.payloadsFromCsv(a.documentType, input, o)
      const text = native.payloadsFromCsvJson(a.documentType, input, o ?? null)
      assert.deepStrictEqual(r, JSON.parse(text))
      return Buffer.from(text)
    }
    case 'split': {
      const input = file(a.input)
      const r = x12kit.split(input, o)
      const text = native.splitX12Json(input, o ?? null)
      assert.deepStrictEqual(r, JSON.parse(text))
      return Buffer.from(text)
    }
    case 'rebuildPart': {
      const input = file(a.input)
      const r = x12kit.rebuildPart(a.recipe, input)
      const text = native.rebuildPartJson(a.recipe, input)
      assert.deepStrictEqual(r, JSON.parse(text))
      return Buffer.from(text)
    }
    case 'merge':
      return x12kit.merge(a.inputs.map(file), o)
    case 'webhookSign': {
      const body = a.bodyFile !== undefined ? file(a.bodyFile) : a.body
      const sig = x12kit.webhook.sign(a.secret, a.timestamp, body)
      if (typeof a.secret === 'string' && a.secret !== '') {
        assert.equal(new x12kit.Signer(a.secret).sign(a.timestamp, body), sig)
      }
      return Buffer.from(sig)
    }
    case 'webhookVerify': {
      const body = a.bodyFile !== undefined ? file(a.bodyFile) : a.body
      const v = x12kit.webhook.verify(a.secrets, a.signature, a.timestamp, body, withNow(o))
      // The Verifier class gives the same answer.
      const again = new x12kit.Verifier(a.secrets, o).verify(a.signature, a.timestamp, body, a.now)
      assert.deepStrictEqual(again, v)
      return Buffer.from(JSON.stringify(v))
    }
    default:
      throw new Error(`unknown op ${c.op} in case ${c.id}: add it to this runner`)
  }
}

test('the manifest has cases', () => {
  assert.ok(Array.isArray(manifest.cases) && manifest.cases.length > 0)
})

for (const c of manifest.cases) {
  test(`vector ${c.id}`, () => {
    if (c.expect !== undefined) {
      const out = run(c)
      const want = file(c.expect)
      if (!out.equals(want)) {
        assert.equal(out.toString('utf8'), want.toString('utf8'), `${c.id}: output differs from ${c.expect}`)
        assert.fail(`${c.id}: bytes differ from ${c.expect}`)
      }
    } else {
      assert.ok(c.error, `${c.id} has neither expect nor error`)
      let err
      try {
        run(c)
      } catch (e) {
        err = e
      }
      assert.ok(err, `${c.id}: expected the error ${c.error.code}, got a result`)
      assert.ok(err instanceof x12kit.X12kitError, `${c.id}: not an X12kitError: ${err && err.stack}`)
      assert.equal(err.code, c.error.code, `${c.id}: ${err.message}`)
      assert.equal(err.kind, c.error.kind)
      assert.equal(err instanceof TypeError, c.error.kind === 'invalid_input')
      if ('pointer' in c.error) assert.equal(err.pointer, c.error.pointer)
      if ('details' in c.error) assert.deepStrictEqual(err.details, c.error.details)
    }
  })
}

/** The validate options of an acknowledgement made from a validation: its structure setting and guides. */
function withGuides (v, o) {
  if (o?.guides !== undefined) v.guides = o.guides
  return v
}
