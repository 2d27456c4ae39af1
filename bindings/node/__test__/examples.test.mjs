// The examples of examples/node run as tests: the webhook receiver answers
// real HTTP requests on 127.0.0.1, the folder validator writes 997/999s, and
// `x12kit` resolves as a package from both ESM and CommonJS.
import test from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { createServer } from 'node:http'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { pkgDir, repoRoot, x12kit } from './helpers.mjs'

const examples = join(repoRoot, 'examples/node')
// `x12kit` resolves from the examples through node_modules/x12kit -> bindings/node.
const link = join(examples, 'node_modules/x12kit')
if (!existsSync(link)) {
  mkdirSync(join(examples, 'node_modules'), { recursive: true })
  symlinkSync(pkgDir, link, 'dir')
}
const { createReceiver } = await import(pathToFileURL(join(examples, 'webhook-receiver.mjs')))
const { validateFolder } = await import(pathToFileURL(join(examples, 'validate-folder.mjs')))

async function withServer(handler, fn) {
  const server = createServer(handler)
  await new Promise((r) => server.listen(0, '127.0.0.1', r))
  try {
    return await fn(`http://127.0.0.1:${server.address().port}/`)
  } finally {
    await new Promise((r) => server.close(r))
  }
}

const data = { documentId: 'doc_1', partnerId: 'partner_acme', documentTypeCode: '850', status: 'validated' }

test('webhook receiver: authentic deliveries in, forgeries out (real requests)', async () => {
  const events = []
  const handler = createReceiver({ secrets: ['new-secret', 'old-secret'], onEvent: (e, v) => events.push([e, v]) })
  await withServer(handler, async (url) => {
    const now = Math.floor(Date.now() / 1000)
    const post = (d, body = d.body, headers = d.headers) => fetch(url, { method: 'POST', headers, body })

    const fresh = new x12kit.Signer('new-secret').deliver('document.validated', data, now)
    let r = await post(fresh)
    assert.equal(r.status, 204)
    assert.equal(events.length, 1)
    assert.equal(events[0][0].event, 'document.validated')
    assert.deepStrictEqual(events[0][0].data, data)
    assert.equal(events[0][1].secretIndex, 0)

    // A delivery signed with the secret being rotated out is still accepted.
    const old = new x12kit.Signer('old-secret').deliver('document.routed', data, now)
    r = await post(old)
    assert.equal(r.status, 204)
    assert.equal(events[1][1].secretIndex, 1)

    // Tampered body.
    r = await post(fresh, Buffer.from(fresh.body.toString().replace('doc_1', 'doc_2')))
    assert.equal(r.status, 401)
    assert.deepStrictEqual(await r.json(), { error: 'SIGNATURE_MISMATCH' })

    // Unknown secret.
    r = await post(new x12kit.Signer('someone-else').deliver('document.validated', data, now))
    assert.deepStrictEqual(await r.json(), { error: 'SIGNATURE_MISMATCH' })

    // Replayed an hour later.
    r = await post(new x12kit.Signer('new-secret').deliver('document.validated', data, now - 3600))
    assert.equal(r.status, 401)
    assert.deepStrictEqual(await r.json(), { error: 'TIMESTAMP_OUT_OF_TOLERANCE' })

    // No signature at all.
    r = await fetch(url, { method: 'POST', body: fresh.body })
    assert.deepStrictEqual(await r.json(), { error: 'MISSING_SIGNATURE' })

    r = await fetch(url)
    assert.equal(r.status, 405)
    assert.equal(events.length, 2)
  })
})

test('validate-folder: one acknowledgement per file, 997 for 004010 and 999 for 005010', () => {
  const dir = mkdtempSync(join(tmpdir(), 'x12kit-folder-'))
  try {
    const inputs = join(repoRoot, 'tests/vectors/inputs')
    const picked = readdirSync(inputs).filter((n) => n.endsWith('.edi')).slice(0, 12)
    assert.ok(picked.length > 3)
    for (const n of picked) copyFileSync(join(inputs, n), join(dir, n))
    const out = join(dir, 'acks')
    const results = validateFolder(dir, out, new Date(1700000000000))
    assert.equal(results.length, picked.length)
    for (const r of results) {
      if (r.ack === null) continue
      const ack = readFileSync(r.ack)
      assert.match(ack.toString('latin1'), /^ISA/)
      // The acknowledgement is itself X12 that x12kit reads back.
      const read = x12kit.readAcknowledgement(ack)
      assert.ok(read && typeof read === 'object')
      const v = x12kit.validate(ack)
      assert.equal(v.errorCount, 0, `${r.ack}: ${JSON.stringify(v.diagnostics)}`)
    }
    assert.ok(results.some((r) => r.ack && /\*(997|999)\*/.test(readFileSync(r.ack, 'latin1'))))
    // The script itself, as a user runs it.
    let out2
    try {
      out2 = execFileSync(process.execPath, [join(examples, 'validate-folder.mjs'), dir, '--out', join(dir, 'cli')], { encoding: 'utf8' })
    } catch (e) {
      assert.equal(e.status, 1, e.stderr) // some inputs are invalid on purpose
      out2 = e.stdout
    }
    assert.equal(out2.trim().split('\n').length, picked.length)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('segments example counts segments by identifier', () => {
  const out = execFileSync(process.execPath, [join(examples, 'segments.mjs'), join(repoRoot, 'tests/vectors/inputs/850-basic.edi')], {
    encoding: 'utf8',
  })
  assert.match(out, /ISA: 1/)
  assert.match(out, /PO1: 1/)
})

test('the package resolves as `x12kit` from ESM (import) and CommonJS (require)', async () => {
  const esm = await import('x12kit')
  const cjs = createRequire(join(examples, 'x.js'))('x12kit')
  assert.equal(typeof esm.parse, 'function')
  assert.equal(esm.parse, cjs.parse)
  assert.equal(esm.default.validate, cjs.validate)
  assert.equal(esm.X12kitError, cjs.X12kitError)
})
