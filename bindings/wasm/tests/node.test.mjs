// x12kit-wasm in Node (the pkg/node output): every tests/vectors case byte for
// byte, the bad-input table, the mapping of every core error code, the
// streaming validator, and the shared corpus. Run by bindings/wasm/test.sh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync, existsSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCase } from './vectors.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..');
const x12 = createRequire(import.meta.url)('../pkg/node/x12kit_wasm.js');
const vectors = join(root, 'tests', 'vectors');
const corpus = process.env.X12KIT_CORPUS || join(root, '..', 'shared', 'corpus');
const dec = new TextDecoder();

const SAMPLE = readFileSync(join(here, '..', 'www', 'samples', '850-valid.x12'));
const BAD_SE01 = readFileSync(join(here, '..', 'www', 'samples', '850-wrong-se01.x12'));

// ---------------------------------------------------------------- vectors
const manifest = JSON.parse(readFileSync(join(vectors, 'manifest.json'), 'utf8'));
test('the manifest has cases', () => assert.ok(manifest.cases.length > 0));
for (const c of manifest.cases) {
  test(`vector ${c.id}`, async () => {
    const r = await runCase(x12, c, async (p) => new Uint8Array(readFileSync(join(vectors, p))));
    assert.ok(r.ok, r.message);
  });
}

/** The streaming validation of b fed in chunks of `size` bytes. */
function streamed(b, size, options) {
  const s = new x12.StreamValidator(options);
  for (let off = 0; off < b.length; off += size) s.feed(b.subarray(off, off + size));
  return s.finishToJson();
}
const PARTNER = readFileSync(join(vectors, 'partners', readdirSync(join(vectors, 'partners')).sort()[0]), 'utf8');

// ---------------------------------------------------------------- bad inputs
/** Asserts that f throws the package's error with this code, kind and class. */
function throwsCode(f, code, { kind, pointer } = {}) {
  let caught;
  try {
    f();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof Error, `expected an Error with code ${code}, got ${caught}`);
  assert.equal(caught.code, code, caught.message);
  const k = kind ?? x12.errorCodes().find((c) => c.code === code).kind;
  assert.equal(caught.kind, k);
  assert.equal(caught.name, k === 'invalid_input' ? 'X12kitTypeError' : 'X12kitError');
  if (k === 'invalid_input') assert.ok(caught instanceof TypeError);
  assert.ok(Array.isArray(caught.details));
  assert.ok(caught.message.length > 0);
  if (pointer !== undefined) assert.equal(caught.pointer, pointer);
  return caught;
}

const badInputs = [
  ['parse: a number', () => x12.parse(42), 'INVALID_ARGUMENT'],
  ['parse: null', () => x12.parse(null), 'INVALID_ARGUMENT'],
  ['parse: undefined', () => x12.parse(), 'INVALID_ARGUMENT'],
  ['parse: a plain object', () => x12.parse({ length: 3 }), 'INVALID_ARGUMENT'],
  ['parse: an array of numbers', () => x12.parse([73, 83, 65]), 'INVALID_ARGUMENT'],
  ['parse: unknown option', () => x12.parse(SAMPLE, { document: true }), 'INVALID_OPTIONS'],
  ['parse: option of the wrong type', () => x12.parse(SAMPLE, { documents: 'yes' }), 'INVALID_OPTIONS'],
  ['parse: options not an object', () => x12.parse(SAMPLE, 'documents'), 'INVALID_OPTIONS'],
  ['parse: options a function', () => x12.parse(SAMPLE, () => 1), 'INVALID_ARGUMENT'],
  ['validate: unknown option', () => x12.validate(SAMPLE, { strict: true }), 'INVALID_OPTIONS'],
  ['validate: a boolean', () => x12.validate(true), 'INVALID_ARGUMENT'],
  ['acknowledge: unknown kind', () => x12.acknowledge(SAMPLE, { kind: '998' }), 'INVALID_OPTIONS'],
  ['acknowledge: bad date', () => x12.acknowledge(SAMPLE, { date: '20261340', time: '0930' }), 'INVALID_TIMESTAMP'],
  ['acknowledge: negative now', () => x12.acknowledge(SAMPLE, { now: -5 }), 'INVALID_ARGUMENT'],
  ['acknowledge: fractional now', () => x12.acknowledge(SAMPLE, { now: 1.5 }), 'INVALID_ARGUMENT'],
  ['acknowledge: invalid Date', () => x12.acknowledge(SAMPLE, { now: new Date('nope') }), 'INVALID_ARGUMENT'],
  ['acknowledge: options an array', () => x12.acknowledge(SAMPLE, []), 'INVALID_OPTIONS'],
  ['acknowledge: an object that is not a validation result', () => x12.acknowledge({ valid: true }), 'INVALID_ARGUMENT'],
  ['acknowledge: a number', () => x12.acknowledge(42), 'INVALID_ARGUMENT'],
  ['write: bytes that are not UTF-8', () => x12.write(new Uint8Array([123, 0xff, 125])), 'INVALID_UTF8'],
  ['readAcknowledgement: a number', () => x12.readAcknowledgement(7), 'INVALID_ARGUMENT'],
  ['write: not JSON', () => x12.write('{"interchanges": ['), 'INVALID_JSON'],
  ['write: not a parse result', () => x12.write({ hello: 'world' }), 'INVALID_PARSE_RESULT'],
  ['write: a number', () => x12.write(5), 'INVALID_ARGUMENT'],
  ['write: unknown option', () => x12.write(x12.parse(SAMPLE), { linebreak: '\n' }), 'INVALID_OPTIONS'],
  ['render: unknown document type', () => x12.render('999', {}, PARTNER, { date: '20261122', time: '0930' }), 'UNKNOWN_DOCUMENT_TYPE'],
  ['render: unknown option', () => x12.render('850', {}, PARTNER, { dates: '20261122' }), 'INVALID_OPTIONS'],
  ['render: bad time', () => x12.render('850', {}, PARTNER, { date: '20261122', time: '2500' }), 'INVALID_TIMESTAMP'],
  ['render: empty payload', () => x12.render('850', {}, PARTNER, { date: '20261122', time: '0930' }), 'INVALID_PAYLOAD'],
  ['render: type not a string', () => x12.render(850, {}, {}), 'INVALID_ARGUMENT'],
  ['render: payload not JSON', () => x12.render('850', '{oops', '{}'), 'INVALID_JSON'],
  ['render: payload a number', () => x12.render('850', 3, '{}'), 'INVALID_ARGUMENT'],
  ['render: partner bytes not UTF-8', () => x12.render('850', '{}', new Uint8Array([0xc3, 0x28])), 'INVALID_UTF8'],
  ['documentSchema: unknown type', () => x12.documentSchema('123'), 'UNKNOWN_DOCUMENT_TYPE'],
  ['documentSchema: not a string', () => x12.documentSchema(850), 'INVALID_ARGUMENT'],
  ['webhook.sign: empty secret', () => x12.webhook.sign('', 1700000000, 'body'), 'EMPTY_SECRET'],
  ['webhook.sign: timestamp a string', () => x12.webhook.sign('s', 'now', 'body'), 'INVALID_ARGUMENT'],
  ['webhook.verify: no secrets', () => x12.webhook.verify([], 'sha256=00', '1700000000', 'b', { now: 1700000000 }), 'EMPTY_SECRET'],
  ['webhook.verify: wrong signature', () => x12.webhook.verify(['s'], 'sha256=' + '0'.repeat(64), '1700000000', 'b', { now: 1700000000 }), 'SIGNATURE_MISMATCH'],
  ['webhook.verify: malformed timestamp', () => x12.webhook.verify(['s'], x12.webhook.sign('s', 1700000000, 'b'), 'yesterday', 'b', { now: 1700000000 }), 'MALFORMED_TIMESTAMP'],
  ['webhook.verify: unknown option', () => x12.webhook.verify(['s'], 'sha256=00', '1', 'b', { tolerence: 5 }), 'INVALID_OPTIONS'],
  ['StreamValidator: unknown option', () => new x12.StreamValidator({ structures: true }), 'INVALID_OPTIONS'],
  ['StreamValidator: feed a number', () => new x12.StreamValidator().feed(12), 'INVALID_ARGUMENT'],
];
for (const [name, f, code] of badInputs) test(`bad input: ${name} -> ${code}`, () => throwsCode(f, code));

test('bad input: an unknown option names its key in the pointer', () => {
  const e = throwsCode(() => x12.validate(SAMPLE, { structure: true, strict: true }), 'INVALID_OPTIONS');
  assert.match(e.pointer ?? '', /strict/);
});

test('bad input: render problems come as details', () => {
  const e = throwsCode(() => x12.render('850', {}, '{}', { date: '20261122', time: '0930' }), 'INVALID_PARTNER');
  assert.ok(e.details.length > 0);
  for (const d of e.details) assert.deepEqual(Object.keys(d).sort(), ['code', 'message', 'pointer', 'severity']);
});

test('bad input: X12 garbage is diagnostics, never an exception', () => {
  for (const input of ['', 'hello', 'ISA*', 'ISA'.padEnd(106, '*'), new Uint8Array([0, 255, 254, 7]), '~~~~']) {
    const p = x12.parse(input);
    assert.ok(Array.isArray(p.diagnostics));
    const v = x12.validate(input);
    assert.equal(typeof v.valid, 'boolean');
    assert.ok(Array.isArray([...x12.segments(input)]));
  }
});

test('bad input: 3000 random and mutated inputs never throw', () => {
  let seed = 12345;
  const rnd = (n) => ((seed = (seed * 1103515245 + 12345) >>> 0) % n);
  const base = new Uint8Array(BAD_SE01);
  const alphabet = [42, 126, 62, 58, 94, 10, 13, 73, 83, 65, 71, 69, 48, 49];
  for (let i = 0; i < 3000; i++) {
    let b;
    if (i % 3 === 0) {
      b = new Uint8Array(rnd(300));
      for (let j = 0; j < b.length; j++) b[j] = rnd(2) ? alphabet[rnd(alphabet.length)] : rnd(256);
    } else {
      b = base.slice(0, rnd(base.length + 1));
      for (let k = rnd(8); k >= 0 && b.length; k--) b[rnd(b.length)] = rnd(2) ? alphabet[rnd(alphabet.length)] : rnd(256);
    }
    x12.parseToJson(b);
    const whole = dec.decode(x12.validateToJson(b, { structure: true }));
    for (const seg of x12.segments(b)) seg.elements();
    // Any chunking of the stream gives exactly the whole validation's result.
    assert.equal(dec.decode(streamed(b, 17, { structure: true })), whole);
    assert.equal(dec.decode(streamed(b, b.length + 1, { structure: true })), whole);
    try {
      x12.acknowledge(b, { now: 1700000000 });
    } catch (e) {
      assert.ok(typeof e.code === 'string', `acknowledge threw a non-x12kit error: ${e}`);
    }
  }
});

// ---------------------------------------------------------------- error model
test('every core error code maps to an Error with its code and kind', () => {
  const codes = x12.errorCodes();
  assert.ok(codes.length >= 20);
  for (const { code, kind } of codes) {
    const e = x12.errorForCode(code);
    assert.ok(e instanceof Error);
    assert.equal(e.code, code);
    assert.equal(e.kind, kind);
    assert.equal(e.name, kind === 'invalid_input' ? 'X12kitTypeError' : 'X12kitError');
    assert.ok(x12.errorCodes().find((c) => c.code === code).meaning.length > 0);
    assert.equal(e instanceof TypeError, kind === 'invalid_input');
    assert.deepEqual(e.details, []);
  }
  throwsCode(() => x12.errorForCode('NOT_A_CODE'), 'INVALID_ARGUMENT');
});

// ---------------------------------------------------------------- API behaviour
test('parse returns the same object as JSON.parse(parseToJson)', () => {
  assert.deepEqual(x12.parse(SAMPLE), JSON.parse(dec.decode(x12.parseToJson(SAMPLE))));
  assert.deepEqual(x12.parse(SAMPLE.toString('latin1')), x12.parse(SAMPLE));
  assert.deepEqual(x12.parse(SAMPLE.buffer.slice(SAMPLE.byteOffset, SAMPLE.byteOffset + SAMPLE.length)), x12.parse(SAMPLE));
  const noDocs = x12.parse(SAMPLE, { documents: false });
  assert.equal(noDocs.interchanges[0].groups[0].transactions[0].document, undefined);
  assert.ok(x12.parse(SAMPLE).interchanges[0].groups[0].transactions[0].document);
});

test('validate: the sample is valid, the wrong SE01 is an SE01_COUNT error', () => {
  assert.equal(x12.validate(SAMPLE).valid, true);
  const v = x12.validate(BAD_SE01);
  assert.equal(v.valid, false);
  assert.equal(v.diagnostics[0].code, 'SE01_COUNT');
  assert.equal(v.diagnostics[0].segmentId, 'SE');
  assert.equal([...x12.segments(BAD_SE01)][v.diagnostics[0].segmentIndex].id, 'SE');
  assert.equal(dec.decode(BAD_SE01).slice(v.diagnostics[0].offset, v.diagnostics[0].offset + 3), '19*');
});

test('acknowledge: a 997 for the wrong SE01 that parses clean and says R', () => {
  const ack = x12.acknowledge(BAD_SE01, { kind: '997', now: 1700000000 });
  assert.deepEqual(x12.acknowledge(BAD_SE01, { kind: '997', now: new Date(1700000000 * 1000) }), ack);
  const s = new x12.StreamValidator();
  s.feed(BAD_SE01);
  s.finish();
  assert.deepEqual(s.acknowledge({ kind: '997', structure: false, now: 1700000000 }), x12.acknowledge(BAD_SE01, { kind: '997', structure: false, now: 1700000000 }));
  const p = x12.parse(ack);
  assert.deepEqual(p.diagnostics, []);
  assert.equal(p.interchanges[0].groups[0].transactions[0].type, '997');
  const read = x12.readAcknowledgement(ack);
  assert.ok(JSON.stringify(read).includes('"R"'));
  // the date comes from `now` (2023-11-14 22:13 UTC)
  assert.match(dec.decode(ack), /\*231114\*2213\*/);
});

test('acknowledge takes the results of validate and StreamValidator.finish, as in the Node addon', () => {
  const now = 1700000000;
  for (const input of [SAMPLE, BAD_SE01]) {
    for (const kind of ['997', '999', 'auto']) {
      const want = x12.acknowledge(input, { kind, now });
      const v = x12.validate(input, { structure: true });
      assert.deepEqual(x12.acknowledge(v, { kind, now }), want);
      // Twice, and frozen (e.g. in an immutable store): the validation is kept, not used up.
      assert.deepEqual(x12.acknowledge(Object.freeze(v), { kind, now }), want);
      const s = new x12.StreamValidator({ structure: true });
      s.feed(input.subarray(0, 100));
      s.feed(input.subarray(100));
      const finished = s.finish();
      assert.deepEqual(finished, v);
      assert.deepEqual(x12.acknowledge(finished, { kind, now }), want);
    }
  }
  // The result is the plain JSON object: the kept validation is not enumerable, JSON has none.
  const v = x12.validate(BAD_SE01);
  assert.deepEqual(Object.keys(v), Object.keys(JSON.parse(dec.decode(x12.validateToJson(BAD_SE01)))));
  assert.equal(JSON.stringify(v), dec.decode(x12.validateToJson(BAD_SE01)));
  // Acknowledge options still apply (and are still checked) with a validation.
  assert.match(dec.decode(x12.acknowledge(v, { kind: '997', now: new Date(now * 1000) })), /\*231114\*2213\*/);
  throwsCode(() => x12.acknowledge(v, { kind: '998' }), 'INVALID_OPTIONS');
  throwsCode(() => x12.acknowledge(v, { now: -1 }), 'INVALID_ARGUMENT');
  // Copies did not come from x12kit: refused as in Node (not validated as X12 text).
  for (const copy of [JSON.parse(JSON.stringify(v)), { ...v }, structuredClone(v), {}, []]) {
    const e = throwsCode(() => x12.acknowledge(copy, { now }), 'INVALID_ARGUMENT');
    assert.match(e.message, /did not come from x12kit/);
  }
  // Bytes of any view are still input.
  const dv = new DataView(BAD_SE01.buffer, BAD_SE01.byteOffset, BAD_SE01.length);
  assert.deepEqual(x12.acknowledge(dv, { now }), x12.acknowledge(BAD_SE01, { now }));
});

test('acknowledge: without now the date is today (Date.now())', () => {
  const ack = dec.decode(x12.acknowledge(SAMPLE, { kind: '997' }));
  const d = new Date();
  const yymmdd = d.toISOString().slice(2, 10).replaceAll('-', '');
  assert.ok(ack.includes(`*${yymmdd}*`), ack.slice(0, 120));
});

test('write(parse(x)) gives back x', () => {
  assert.equal(Buffer.compare(Buffer.from(x12.write(x12.parse(SAMPLE))), SAMPLE), 0);
  assert.equal(Buffer.compare(Buffer.from(x12.write(dec.decode(x12.parseToJson(SAMPLE)))), SAMPLE), 0);
});

test('segments: offsets and lengths point at each segment of the input', () => {
  const segs = [...x12.segments(SAMPLE)];
  const t = SAMPLE.toString('latin1');
  assert.equal(segs[0].id, 'ISA');
  assert.equal(segs.at(-1).id, 'IEA');
  segs.forEach((s, i) => {
    assert.equal(s.index, i);
    assert.equal(s.raw, [s.id, ...s.elements()].join('*'));
    assert.equal(t.slice(s.offset, s.offset + s.length), s.raw);
  });
});

test('segments: a lazy iterator (nothing is built up front) of views like the Node addon\'s', () => {
  const it = x12.segments(SAMPLE);
  assert.equal(typeof it.next, 'function');
  assert.equal(it[Symbol.iterator](), it);
  const isa = it.next();
  assert.equal(isa.done, false);
  assert.equal(isa.value.id, 'ISA');
  assert.equal(isa.value.element(1), '00');
  assert.equal(isa.value.element(16), isa.value.elements()[15]);
  assert.equal(isa.value.element(0), undefined);
  assert.equal(isa.value.element(99), undefined);
  const gs = it.next().value;
  assert.equal(gs.id, 'GS');
  assert.deepEqual(gs.toJSON(), { id: 'GS', index: 1, offset: gs.offset, elements: gs.elements() });
  assert.equal(JSON.stringify(gs), JSON.stringify(gs.toJSON()));
  // The rest: counted without views, then the iterator stays done.
  const total = [...x12.segments(SAMPLE)].length;
  assert.equal(it.skipRest(), total - 2);
  assert.deepEqual(it.next(), { value: undefined, done: true });
  // Components and repetitions are split by the core on demand.
  const comp = [...x12.segments('ISA*00*          *00*          *ZZ*A              *ZZ*B              *230101*1200*^*00501*000000001*0*T*:~GS*PO*A*B*20230101*1200*1*X*005010~ST*850*0001~REF*AA*1^2*X:Y:Z~')].at(-1);
  assert.equal(comp.id, 'REF');
  assert.deepEqual(comp.repetitions(2), ['1', '2']);
  assert.deepEqual(comp.components(3), ['X', 'Y', 'Z']);
  assert.deepEqual(comp.components(9), []);
  for (const bad of [-1, 1.5, '2', null]) throwsCode(() => comp.element(bad), 'INVALID_ARGUMENT');
  // A view keeps working after its iterator is gone (it shares the one copy of the input).
  const kept = x12.segments(SAMPLE).next().value;
  assert.equal(kept.id, 'ISA');
});

test('segments: 200 000 segments iterate in bounded steps (the views are made one at a time)', () => {
  const body = Array.from({ length: 200_000 }, (_, i) => `REF*ZZ*${i}~`).join('');
  const it = x12.segments(`ISA*00*          *00*          *ZZ*A              *ZZ*B              *230101*1200*U*00401*000000001*0*T*:~${body}`);
  let n = 0;
  for (let r = it.next(); !r.done; r = it.next()) {
    if (n === 100_000) assert.equal(r.value.element(2), '99999');
    if (++n === 150_000) break;
  }
  assert.equal(it.skipRest(), 200_001 - 150_000);
  assert.deepEqual(it.next(), { value: undefined, done: true });
});

test('segments: break out of for…of closes the iterator (return(), as in the Node addon), and the views stay valid', () => {
  const it = x12.segments(SAMPLE);
  const seen = [];
  for (const s of it) {
    seen.push(s);
    if (seen.length === 3) break;
  }
  // The iterator let go of its tokenizer and input; the views keep the input.
  assert.deepEqual(it.next(), { value: undefined, done: true });
  assert.equal(it.skipRest(), 0);
  assert.deepEqual(seen.map((s) => s.id), ['ISA', 'GS', 'ST']);
  assert.equal(seen[2].element(1), '850');
  assert.deepEqual(it.return('v'), { value: 'v', done: true });
  // A view is a plain object: no wasm memory, free() is a no-op, JSON is toJSON.
  assert.equal(seen[0].free(), undefined);
  assert.equal(seen[0].element(1), '00');
  assert.deepEqual(Object.keys(seen[1]), ['id', 'index', 'offset', 'length']);
  assert.throws(() => Object.getPrototypeOf(seen[0]).element.call({}, 1), (e) => e.code === 'INVALID_ARGUMENT');
});

test('render and documentSchema: every document type has a schema; render gives X12 that maps back', () => {
  const types = x12.documentTypes();
  assert.equal(types.length, 18);
  for (const t of types) assert.equal(typeof x12.documentSchema(t), 'object');
  assert.equal(typeof x12.partnerSchema(), 'object');
  const payload = readFileSync(join(root, 'examples', 'payloads', '850.json'), 'utf8');
  const opts = { date: '20261122', time: '0930' };
  const r = x12.renderResult('850', JSON.parse(payload), JSON.parse(PARTNER), opts);
  assert.deepEqual(r.x12, x12.render('850', payload, PARTNER, opts));
  const back = x12.parse(r.x12);
  assert.deepEqual(back.diagnostics, []);
  assert.deepEqual(back.interchanges[0].groups[0].transactions[0].document, r.document);
  assert.ok(Array.isArray(r.warnings));
});

test('payloadsFromCsv: documents, problems at their rows, refusals of unusable calls', () => {
  const r = x12.payloadsFromCsv('850', '/purchaseOrderNumber,/lines/*/sku,/lines/*/quantity\nPO-1,A,1\nPO-1,B,many\n');
  assert.deepEqual(r.documents.map((d) => [d.key, d.reference, d.rows]), [['PO-1', 'PO-1', [2, 3]]]);
  assert.deepEqual(r.problems.map((p) => [p.row, p.column, p.pointer, p.code]), [[3, '/lines/*/quantity', '/lines/1/quantity', 'INVALID_FIELD']]);
  assert.throws(() => x12.payloadsFromCsv('851', 'x'), (e) => e.code === 'UNKNOWN_DOCUMENT_TYPE');
  assert.throws(() => x12.payloadsFromCsv('850', 'x', { delimiter: '|' }), (e) => e.code === 'INVALID_OPTIONS' && e.pointer === '/delimiter');
  assert.throws(() => x12.payloadsFromCsv('850', 5), (e) => e.code === 'INVALID_ARGUMENT');
});

test('describeSegment: names, numbers and code meanings from the core', () => {
  const beg = x12.describeSegment('850', '004010', 'BEG');
  assert.equal(beg.setName, 'Purchase Order');
  assert.equal(beg.segmentName, 'Beginning Segment for Purchase Order');
  assert.equal(beg.elements[0].number, '353');
  assert.equal(beg.elements[0].name, 'Transaction Set Purpose Code');
  assert.deepEqual(beg.elements[0].meanings.find((m) => m.code === '00'), { code: '00', meaning: 'Original' });
  assert.equal(beg.elements[2].field, 'purchaseOrderNumber');
  assert.match(beg.elements[1].description, /purchase order type/);
  const gs = x12.describeSegment('', '004010', 'GS');
  assert.equal(gs.segmentName, 'Functional Group Header');
  assert.equal(gs.set, null);
  assert.equal(gs.elements[7].name, 'Version / Release / Industry Identifier Code');
  assert.equal(x12.describeSegment('', '00501', 'ISA').elements[10].number, 'I65');
  assert.equal(x12.describeSegment('850', '004010', 'ZZZ'), null);
  assert.equal(x12.describeSegment('123', '004010', 'BEG'), null);
  // Not a segment identifier, not a version, not a string: INVALID_ARGUMENT (a TypeError).
  for (const args of [['850', '004010', 'beg'], ['850', '5010', 'BEG'], ['850', '004010', 5], [null, '004010', 'BEG']]) {
    assert.throws(() => x12.describeSegment(...args), (e) => e instanceof TypeError && e.code === 'INVALID_ARGUMENT');
  }
});

test('webhook: sign, then verify with the clock from Date.now()', () => {
  const now = Math.floor(Date.now() / 1000);
  const sig = x12.webhook.sign('secret-1', now, '{"a":1}');
  assert.match(sig, /^sha256=[0-9a-f]{64}$/);
  assert.deepEqual(x12.webhook.verify(['old', 'secret-1'], sig, String(now), '{"a":1}'), { timestamp: now, secretIndex: 1 });
  assert.deepEqual(x12.webhook.verify('secret-1', sig, String(now), new TextEncoder().encode('{"a":1}')), { timestamp: now, secretIndex: 0 });
  const old = now - 3600;
  const oldSig = x12.webhook.sign('secret-1', old, 'b');
  throwsCode(() => x12.webhook.verify(['secret-1'], oldSig, String(old), 'b'), 'TIMESTAMP_OUT_OF_TOLERANCE');
  assert.deepEqual(x12.webhook.verify(['secret-1'], oldSig, old, 'b', { tolerance: 7200 }), { timestamp: old, secretIndex: 0 });
  assert.deepEqual(x12.webhook.verify(['secret-1'], oldSig, String(old), 'b', { now: new Date(old * 1000) }), { timestamp: old, secretIndex: 0 });
});

test('StreamValidator: any chunking gives the result of validate', () => {
  for (const input of [SAMPLE, BAD_SE01]) {
    const whole = dec.decode(x12.validateToJson(input));
    for (const size of [1, 2, 7, 64, 4096, input.length]) {
      const s = new x12.StreamValidator();
      for (let off = 0; off < input.length; off += size) s.feed(input.subarray(off, off + size));
      assert.equal(s.fed, input.length);
      assert.equal(dec.decode(s.finishToJson()), whole, `chunks of ${size}`);
    }
    const s = new x12.StreamValidator();
    s.feed(input);
    assert.deepEqual(s.finish(), x12.validate(input));
    throwsCode(() => s.finish(), 'INVALID_ARGUMENT');
    throwsCode(() => s.feed('x'), 'INVALID_ARGUMENT');
  }
});

// ---------------------------------------------------------------- corpus
function* files(dir) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) yield* files(p);
    else if (!/\.(md|tsv)$/.test(name)) yield p;
  }
}
test('the corpus is there', () => assert.ok(existsSync(corpus), `no corpus at ${corpus} (set X12KIT_CORPUS)`));
if (existsSync(corpus)) {
  for (const f of files(corpus)) {
    test(`corpus ${f.slice(corpus.length + 1)}`, () => {
      const b = readFileSync(f);
      const p = x12.parse(b);
      assert.ok(Array.isArray(p.interchanges));
      const v = x12.validate(b, { structure: true });
      assert.equal(typeof v.valid, 'boolean');
      assert.equal(dec.decode(streamed(b, 1000, { structure: true })), dec.decode(streamed(b, 7, { structure: true })));
      if (p.interchanges.length && p.diagnostics.length === 0) {
        assert.equal(Buffer.compare(Buffer.from(x12.write(p)), b), 0, 'write(parse(file)) differs from the file');
      }
    });
  }
}

// ---------------------------------------------------------------- TypeScript
test('types: tsc --strict compiles tests/types/check.ts against the generated declarations', () => {
  const tsc = join(here, '..', 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', join(here, 'types', 'tsconfig.json')], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
});

/** The members of an exported interface or type alias of a .d.ts, normalized (comments, quotes, separators, order). */
function members(dts, name) {
  const start = dts.search(new RegExp(`export (?:declare )?(?:interface|type) ${name}\\b`));
  assert.ok(start >= 0, `${name} is not declared`);
  let body;
  const rest = dts.slice(start);
  const alias = rest.match(/^[^{=]*=\s*([^\n]+)/);
  if (alias && (rest.indexOf('{') < 0 || rest.indexOf('=') < rest.indexOf('{'))) {
    body = alias[1];
  } else {
    let depth = 0;
    let i = rest.indexOf('{');
    const open = i;
    for (; i < rest.length; i++) {
      if (rest[i] === '{') depth++;
      else if (rest[i] === '}' && --depth === 0) break;
    }
    body = rest.slice(open + 1, i);
  }
  return body
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replaceAll("'", '"')
    .split(/[;\n]/)
    .map((m) => m.trim().replace(/\s+/g, ' '))
    .filter(Boolean)
    .sort();
}

test('types: the result and option types are the Node addon\'s (bindings/node/index.d.ts)', () => {
  const node = readFileSync(join(root, 'bindings', 'node', 'index.d.ts'), 'utf8');
  for (const t of ['web', 'node', 'bundler']) {
    const wasm = readFileSync(join(here, '..', 'types', `${t}.d.ts`), 'utf8');
    for (const name of ['Element', 'SegmentJson', 'Diagnostic', 'Transaction', 'Group', 'Interchange', 'ParseResult',
      'ValidationResult', 'Acknowledgements', 'Problem', 'ParseOptions', 'ValidateOptions', 'WriteOptions']) {
      assert.deepEqual(members(wasm, name), members(node, name), `${name} in types/${t}.d.ts`);
    }
    for (const [fn, ret] of [['parse', 'ParseResult'], ['validate', 'ValidationResult'], ['readAcknowledgement', 'Acknowledgements']]) {
      assert.match(wasm, new RegExp(`export function ${fn}\\([^)]*\\): ${ret};`), `${fn} in types/${t}.d.ts`);
    }
    assert.match(wasm, /export function acknowledge\(validationOrInput: ValidationResult \| X12Input/);
    // Internal exports stay out of the API (web.d.ts lists every raw wasm export in InitOutput, as wasm-bindgen does).
    assert.doesNotMatch(wasm, /export (function|class) __|export function start/);
  }
});

// ---------------------------------------------------------------- panics (last: they reset the module)
// A Rust panic aborts a wasm32 instance; the package's hook makes it an
// INTERNAL X12kitError and has the module re-instantiated before the next
// call (README, Panics). `__panicForTests` is internal (not in the .d.ts).
/** The error a call throws (fails when it returns). */
function thrown(f) {
  try {
    f();
  } catch (e) {
    return e;
  }
  assert.fail('expected a throw');
}

test('panic: a panic is an INTERNAL X12kitError, and the calls after it work', () => {
  const sv = new x12.StreamValidator();
  sv.feed(SAMPLE.subarray(0, 200));
  const it = x12.segments(SAMPLE);
  const seg = it.next().value;

  const e = thrown(() => x12.__panicForTests('a deliberate panic'));
  assert.ok(e instanceof Error, String(e));
  assert.ok(!(e instanceof WebAssembly.RuntimeError));
  assert.equal(e.name, 'X12kitError');
  assert.equal(e.code, 'INTERNAL');
  assert.equal(e.kind, 'internal');
  assert.deepEqual(e.details, []);
  assert.match(e.message, /^x12kit panicked \(a bug; please report it\): a deliberate panic \(at .*lib\.rs:\d+\)$/);

  // The first call after the panic passes a string into the new instance.
  assert.equal(x12.errorForCode('INVALID_JSON').code, 'INVALID_JSON');
  assert.equal(x12.validate(SAMPLE).valid, true);
  assert.deepEqual(x12.parse(SAMPLE), JSON.parse(dec.decode(x12.parseToJson(SAMPLE))));
  assert.equal(x12.validate(BAD_SE01).diagnostics[0].code, 'SE01_COUNT');
  // Panics in a row: each one reports its own message, then the module works.
  for (const m of ['second', 'third']) assert.match(thrown(() => x12.__panicForTests(m)).message, new RegExp(`: ${m} \\(at `));
  assert.equal(x12.describeSegment('850', '004010', 'BEG').segmentName, 'Beginning Segment for Purchase Order');

  // Objects of the discarded instance: INTERNAL, and free() is harmless. A
  // segment view holds no wasm state: it keeps working.
  assert.equal(seg.id, 'ISA');
  assert.equal(seg.element(1), '00');
  assert.ok(seg.raw.startsWith('ISA*00*'));
  for (const stale of [() => sv.feed(SAMPLE.subarray(200)), () => sv.finish(), () => it.next()]) {
    const s = thrown(stale);
    assert.equal(s.code, 'INTERNAL', s.message);
    assert.match(s.message, /made before an internal error/);
  }
  sv.free();
  seg.free();
  it.free();
  const fresh = new x12.StreamValidator();
  fresh.feed(SAMPLE);
  assert.deepEqual(fresh.finish(), x12.validate(SAMPLE));
  assert.equal([...x12.segments(SAMPLE)][0].id, 'ISA');
});

test('panic: the bundler build cannot re-instantiate, so every call after a panic is INTERNAL', () => {
  // Node runs the bundler output with --experimental-wasm-modules (the .wasm imported as an ES module).
  const script = `
    import * as x from ${JSON.stringify(join(here, '..', 'pkg', 'bundler', 'x12kit_wasm.js'))};
    const out = [x.validate('ISA').valid];
    for (const f of [() => x.__panicForTests('in the bundler build'), () => x.validate('ISA'), () => x.parse('ISA')]) {
      try { f(); out.push(null); } catch (e) { out.push({ name: e.name, code: e.code, message: e.message }); }
    }
    console.log(JSON.stringify(out));`;
  const r = spawnSync(process.execPath, ['--experimental-wasm-modules', '--disable-warning=ExperimentalWarning', '--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, '');
  const [valid, panic, ...after] = JSON.parse(r.stdout);
  assert.equal(valid, false);
  assert.deepEqual([panic.name, panic.code], ['X12kitError', 'INTERNAL']);
  assert.match(panic.message, /panicked .*: in the bundler build/);
  for (const a of after) {
    assert.deepEqual([a.name, a.code], ['X12kitError', 'INTERNAL']);
    assert.match(a.message, /bundler build cannot re-instantiate/);
  }
});
