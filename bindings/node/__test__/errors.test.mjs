// Every core error code maps to the right JS class; panics become INTERNAL.
import test from 'node:test'
import assert from 'node:assert/strict'
import { x12kit } from './helpers.mjs'

const native = x12kit.__native
const codes = x12kit.errorCodes()

test('the code list is the core list, each with a kind and a meaning', () => {
  assert.ok(codes.length >= 30, `only ${codes.length} codes`)
  const kinds = new Set(['invalid_input', 'rejected', 'io', 'internal'])
  for (const c of codes) {
    assert.match(c.code, /^[A-Z][A-Z0-9_]+$/)
    assert.ok(kinds.has(c.kind), `${c.code}: kind ${c.kind}`)
    assert.ok(c.meaning.length > 0, `${c.code} has no meaning`)
  }
  assert.equal(new Set(codes.map((c) => c.code)).size, codes.length)
  assert.ok(codes.some((c) => c.code === 'INTERNAL' && c.kind === 'internal'))
})

for (const { code, kind } of codes) {
  test(`error code ${code} (${kind}) maps`, () => {
    let err
    try {
      x12kit.__fromNative && (() => {
        try {
          native.errorForCode(code)
        } catch (e) {
          throw x12kit.__fromNative(e)
        }
      })()
    } catch (e) {
      err = e
    }
    assert.ok(err, 'nothing thrown')
    assert.ok(err instanceof x12kit.X12kitError)
    assert.ok(err instanceof Error)
    assert.equal(err.code, code)
    assert.equal(err.kind, kind)
    assert.equal(err.pointer, '/')
    assert.deepStrictEqual(err.details, [])
    if (kind === 'invalid_input') {
      assert.ok(err instanceof TypeError)
      assert.ok(err instanceof x12kit.X12kitTypeError)
      assert.equal(err.name, 'X12kitTypeError')
    } else {
      assert.ok(!(err instanceof TypeError))
      assert.equal(err.name, 'X12kitError')
    }
    assert.deepStrictEqual(err.toJSON(), { code, kind, message: err.message, pointer: '/', details: [] })
  })
}

test('an unknown code name is refused with INVALID_ARGUMENT', () => {
  assert.throws(
    () => {
      try {
        native.errorForCode('NOT_A_CODE')
      } catch (e) {
        throw x12kit.__fromNative(e)
      }
    },
    (e) => e.code === 'INVALID_ARGUMENT' && e instanceof TypeError,
  )
})

test('a panic inside the addon becomes INTERNAL and the process lives on', () => {
  let err
  try {
    native.panicForTest()
  } catch (e) {
    err = x12kit.__fromNative(e)
  }
  assert.ok(err instanceof x12kit.X12kitError)
  assert.equal(err.code, 'INTERNAL')
  assert.equal(err.kind, 'internal')
  assert.match(err.message, /panic_for_test/)
  // Still usable afterwards.
  assert.equal(x12kit.parse('').diagnostics.length > 0, true)
})

test('render refusals carry every problem in details', () => {
  const partner = x12kit.partnerSchema() && { bogus: true }
  assert.throws(
    () => x12kit.render('850', {}, partner, { date: '20231114', time: '2213' }),
    (e) => {
      assert.ok(e instanceof x12kit.X12kitError)
      assert.equal(e.kind, 'rejected')
      assert.ok(Array.isArray(e.details) && e.details.length > 0, JSON.stringify(e.toJSON()))
      for (const d of e.details) {
        assert.deepStrictEqual(Object.keys(d).sort(), ['code', 'message', 'pointer', 'severity'])
      }
      return true
    },
  )
})

test('X12kitError can be built and serialized by users', () => {
  const e = new x12kit.X12kitError('nope', { code: 'SIGNATURE_MISMATCH', kind: 'rejected' })
  assert.equal(e.code, 'SIGNATURE_MISMATCH')
  assert.ok(e instanceof Error)
  assert.equal(JSON.stringify(e), '{"code":"SIGNATURE_MISMATCH","kind":"rejected","message":"nope","details":[]}')
})
