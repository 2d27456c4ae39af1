// Wrong JS types and bad values: a clear TypeError (X12kitTypeError) or the
// core's code; never a crash, never a bare napi error.
import test from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { repoRoot, x12kit } from './helpers.mjs'

const acme = JSON.parse(readFileSync(join(repoRoot, 'examples/partners/acme-retail.json'), 'utf8'))

const x12 = 'ISA*00*          *00*          *ZZ*SENDER         *ZZ*RECEIVER       *231114*2213*U*00401*000000001*0*P*>~GS*PO*SENDER*RECEIVER*20231114*2213*1*X*004010~ST*850*0001~BEG*00*SA*PO-1**20231114~PO1*1*10*EA*9.99**VP*WID-1~CTT*1~SE*5*0001~GE*1*1~IEA*1*000000001~'
const partner = { bogus: 1 }

// [name, call, expected code, expected message pattern]
const table = [
  ['parse(number)', () => x12kit.parse(42), 'INVALID_ARGUMENT', /input must be a Buffer, Uint8Array or string, got a number/],
  ['parse(undefined)', () => x12kit.parse(), 'INVALID_ARGUMENT', /got undefined/],
  ['parse(null)', () => x12kit.parse(null), 'INVALID_ARGUMENT', /got null/],
  ['parse(object)', () => x12kit.parse({}), 'INVALID_ARGUMENT', /got an object/],
  ['parse(array)', () => x12kit.parse([1, 2]), 'INVALID_ARGUMENT', /got an array/],
  ['parse unknown option', () => x12kit.parse(x12, { nope: true }), 'INVALID_OPTIONS', /nope/],
  ['parse option of the wrong type', () => x12kit.parse(x12, { documents: 'yes' }), 'INVALID_OPTIONS', /documents|boolean/],
  ['parse options not an object', () => x12kit.parse(x12, 5), 'INVALID_OPTIONS', /object/],
  ['parse options a function', () => x12kit.parse(x12, () => 1), 'INVALID_OPTIONS', /must be an object/],
  ['parseToJson(boolean)', () => x12kit.parseToJson(true), 'INVALID_ARGUMENT', /got a boolean/],
  ['validate(number)', () => x12kit.validate(1), 'INVALID_ARGUMENT', /input must be/],
  ['validate structure: 1', () => x12kit.validate(x12, { structure: 1 }), 'INVALID_OPTIONS', /structure|boolean/],
  ['acknowledge({})', () => x12kit.acknowledge({}), 'INVALID_ARGUMENT', /did not come from x12kit/],
  ['acknowledge kind: 998', () => x12kit.acknowledge(x12, { kind: '998' }), 'INVALID_OPTIONS', /998|kind|variant/],
  ['acknowledge bad date', () => x12kit.acknowledge(x12, { date: '20231399', time: '1200' }), 'INVALID_TIMESTAMP', /./],
  ['acknowledge now: -1', () => x12kit.acknowledge(x12, { now: -1 }), 'INVALID_ARGUMENT', /now/],
  ['acknowledge now: invalid Date', () => x12kit.acknowledge(x12, { now: new Date('x') }), 'INVALID_ARGUMENT', /invalid Date/],
  ['readAcknowledgement(number)', () => x12kit.readAcknowledgement(7), 'INVALID_ARGUMENT', /input must be/],
  ['render unknown type', () => x12kit.render('123', {}, acme), 'UNKNOWN_DOCUMENT_TYPE', /123/],
  ['render type not a string', () => x12kit.render(850, {}, {}), 'INVALID_ARGUMENT', /documentType must be a string/],
  ['render payload a number', () => x12kit.render('850', 3, {}), 'INVALID_ARGUMENT', /payload must be an object or JSON text/],
  ['render payload not JSON', () => x12kit.render('850', '{nope', '{}'), 'INVALID_JSON', /payload/],
  ['render bad partner', () => x12kit.render('850', {}, partner, { date: '20231114', time: '2213' }), 'INVALID_PARTNER', /./],
  ['render circular payload', () => { const o = {}; o.o = o; return x12kit.render('850', o, {}) }, 'INVALID_ARGUMENT', /cannot be written as JSON/],
  ['render bad controlNumbers', () => x12kit.render('850', {}, {}, { controlNumbers: { interchange: 'x' } }), 'INVALID_OPTIONS', /./],
  ['documentSchema(number)', () => x12kit.documentSchema(850), 'INVALID_ARGUMENT', /documentType must be a string/],
  ['documentSchema unknown', () => x12kit.documentSchema('999x'), 'UNKNOWN_DOCUMENT_TYPE', /999x/],
  ['describeSegment(number)', () => x12kit.describeSegment('850', '004010', 5), 'INVALID_ARGUMENT', /segment must be a string/],
  ['describeSegment(undefined setType)', () => x12kit.describeSegment(undefined, '004010', 'BEG'), 'INVALID_ARGUMENT', /setType must be a string/],
  ['describeSegment(null version)', () => x12kit.describeSegment('850', null, 'BEG'), 'INVALID_ARGUMENT', /version must be a string/],
  ['describeSegment lower case', () => x12kit.describeSegment('850', '004010', 'beg'), 'INVALID_ARGUMENT', /not a segment identifier/],
  ['describeSegment bad version', () => x12kit.describeSegment('850', '5010', 'BEG'), 'INVALID_ARGUMENT', /not an X12 version/],
  ['payloadsFromCsv(number)', () => x12kit.payloadsFromCsv('850', 5), 'INVALID_ARGUMENT', /csv must be/],
  ['payloadsFromCsv type not a string', () => x12kit.payloadsFromCsv(850, 'x'), 'INVALID_ARGUMENT', /documentType must be a string/],
  ['payloadsFromCsv unknown type', () => x12kit.payloadsFromCsv('851', 'x'), 'UNKNOWN_DOCUMENT_TYPE', /851/],
  ['payloadsFromCsv bad delimiter', () => x12kit.payloadsFromCsv('850', 'x', { delimiter: '|' }), 'INVALID_OPTIONS', /delimiter/],
  ['payloadsFromCsv broken partner', () => x12kit.payloadsFromCsv('850', 'x', { partner: { sender: {} } }), 'INVALID_PARTNER', /./],
  ['write(number)', () => x12kit.write(5), 'INVALID_ARGUMENT', /parseResult must be an object or JSON text/],
  ['write not JSON', () => x12kit.write('{'), 'INVALID_JSON', /./],
  ['write not a parse result', () => x12kit.write({ interchanges: 5 }), 'INVALID_PARSE_RESULT', /./],
  ['write unknown option', () => x12kit.write(x12kit.parse(x12), { lineBreaks: '\n' }), 'INVALID_OPTIONS', /lineBreaks/],
  ['webhook.sign empty secret', () => x12kit.webhook.sign('', 1, 'b'), 'EMPTY_SECRET', /./],
  ['webhook.sign secret a number', () => x12kit.webhook.sign(5, 1, 'b'), 'INVALID_ARGUMENT', /secret must be a string or Buffer/],
  ['webhook.sign timestamp a string', () => x12kit.webhook.sign('s', '1', 'b'), 'INVALID_ARGUMENT', /timestamp must be whole Unix seconds/],
  ['webhook.sign timestamp 1.5', () => x12kit.webhook.sign('s', 1.5, 'b'), 'INVALID_ARGUMENT', /timestamp/],
  ['webhook.verify no secrets', () => x12kit.webhook.verify([], 'sha256=00', '1', 'b'), 'EMPTY_SECRET', /./],
  ['webhook.verify bad signature', () => x12kit.webhook.verify(['s'], 'nope', '1', 'b', { now: 1 }), 'MALFORMED_SIGNATURE', /./],
  ['webhook.verify missing signature', () => x12kit.webhook.verify(['s'], '', '1', 'b', { now: 1 }), 'MISSING_SIGNATURE', /./],
  ['webhook.verify bad timestamp', () => x12kit.webhook.verify(['s'], 'sha256=' + '0'.repeat(64), 'soon', 'b', { now: 1 }), 'MALFORMED_TIMESTAMP', /./],
  ['webhook.verify unknown option', () => x12kit.webhook.verify(['s'], 'sha256=00', '1', 'b', { tolerence: 5 }), 'INVALID_OPTIONS', /tolerence/],
  ['Verifier secrets not strings', () => new x12kit.Verifier([1]), 'INVALID_ARGUMENT', /secrets\[0\]/],
  ['Verifier.verifyHeaders(null)', () => new x12kit.Verifier('s').verifyHeaders(null, 'b'), 'INVALID_ARGUMENT', /headers must be an object/],
  ['Signer empty secret', () => new x12kit.Signer(''), 'EMPTY_SECRET', /./],
  ['Signer.deliver unknown event', () => new x12kit.Signer('s').deliver('document.eaten', {}, 1), 'UNKNOWN_EVENT', /./],
  ['Signer.deliver bad data', () => new x12kit.Signer('s').deliver('document.validated', { documentId: 1 }, 1), 'MALFORMED_BODY', /./],
  ['segments(number)', () => [...x12kit.segments(3)], 'INVALID_ARGUMENT', /input must be/],
  ['Segment.element(-1)', () => x12kit.segments(x12).next().value.element(-1), 'INVALID_ARGUMENT', /whole number/],
  ['Segment.element(1.5)', () => x12kit.segments(x12).next().value.element(1.5), 'INVALID_ARGUMENT', /whole number/],
  ['StreamValidator.feed(number)', () => new x12kit.StreamValidator().feed(5), 'INVALID_ARGUMENT', /chunk must be/],
  ['StreamValidator finished twice', () => { const v = new x12kit.StreamValidator(); v.finish(); v.finish() }, 'INVALID_ARGUMENT', /finished/],
  ['StreamValidator unknown option', () => new x12kit.StreamValidator({ struct: true }), 'INVALID_OPTIONS', /struct/],
]

const kindOf = new Map(x12kit.errorCodes().map((c) => [c.code, c.kind]))

for (const [name, fn, code, message] of table) {
  test(`bad input: ${name}`, () => {
    assert.throws(fn, (e) => {
      assert.ok(e instanceof x12kit.X12kitError, `not an X12kitError: ${e && e.stack}`)
      assert.equal(e.code, code, e.message)
      assert.equal(e.kind, kindOf.get(code))
      assert.equal(e instanceof TypeError, e.kind === 'invalid_input')
      assert.match(e.message, message)
      return true
    })
  })
}

test('bad input: async calls reject (never throw synchronously)', async () => {
  for (const p of [
    () => x12kit.parseAsync(42),
    () => x12kit.parseAsync('x', { nope: 1 }),
    () => x12kit.validateAsync(null),
    () => x12kit.renderAsync('123', {}, {}),
    () => x12kit.validateStream(42),
  ]) {
    let promise
    assert.doesNotThrow(() => {
      promise = p()
    })
    await assert.rejects(promise, (e) => e instanceof x12kit.X12kitError)
  }
})

test('bad X12 is not an error: it is diagnostics', () => {
  for (const input of ['', 'hello', Buffer.from([0xff, 0xfe, 0]), 'ISA*', x12.slice(0, 120)]) {
    const r = x12kit.parse(input)
    assert.ok(r.diagnostics.length > 0, JSON.stringify(input))
    const v = x12kit.validate(input)
    assert.equal(v.valid, false)
  }
})
