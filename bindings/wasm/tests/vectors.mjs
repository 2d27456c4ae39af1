// The tests/vectors runner shared by Node (pkg/node) and Chromium (pkg/web):
// runs one manifest case through this package's API and says whether the
// output equals the expected bytes (or the expected error).
//   api:  the x12kit-wasm module
//   read: async (path relative to tests/vectors) => Uint8Array

const utf8 = new TextEncoder();
const text = (bytes) => new TextDecoder().decode(bytes);

/** The inputs of a case, files read as bytes (or as text where the op takes text). */
async function call(api, c, read) {
  const a = c.args || {};
  const o = c.options;
  // "now" rides in the options object, as in the Node addon.
  const withNow = a.now === undefined ? o : { ...(o || {}), now: a.now };
  switch (c.op) {
    case 'parse':
      return api.parseToJson(await read(a.input), o);
    case 'validate':
      return api.validateToJson(await read(a.input), o);
    case 'acknowledge': {
      const input = await read(a.input);
      const ack = api.acknowledge(input, withNow);
      // The same through a validation made first, as in the Node addon's runner
      // (acknowledge takes a validation result; structure as the options say).
      if (o === undefined || (typeof o === 'object' && o !== null && !Array.isArray(o))) {
        const v = api.validate(input, withGuides({ structure: o?.structure ?? true }, o));
        const again = api.acknowledge(v, withNow);
        if (!sameBytes(again, ack)) throw new Error(`acknowledge(validate(input)) ${firstDifference(again, ack)}`);
      }
      return ack;
    }
    case 'readAcknowledgement':
      return api.readAcknowledgementToJson(await read(a.input));
    case 'render': {
      // JSON files are passed as their bytes (JSON text); the core reads the text.
      const payload = await read(a.payload);
      const partner = await read(a.partner);
      return api.render(a.documentType, payload, partner, withNow);
    }
    case 'write':
      return api.write(await read(a.input), o);
    case 'documentSchema':
      if (a.partner !== undefined) {
        // Narrowed for a partner profile (given as its bytes, as a file reads).
        return utf8.encode(JSON.stringify(api.documentSchema(a.documentType, await read(a.partner))));
      }
      return utf8.encode(JSON.stringify(api.documentSchema(a.documentType)));
    case 'partnerSchema':
      return utf8.encode(JSON.stringify(api.partnerSchema()));
    case 'describeSegment':
      return utf8.encode(JSON.stringify(api.describeSegment(a.setType, a.version, a.segment)));
    case 'split': {
      const input = await read(a.input);
      const json = api.splitToJson(input, o);
      const same = JSON.stringify(api.split(input, o)) === text(json);
      if (!same) throw new Error('split and splitToJson disagree');
      return json;
    }
    case 'rebuildPart': {
      // A part as splitStream gives it (its bytes, not its text): the split
      // JSON's part is the same object with the bytes as `x12` text.
      const { bytes, ...rest } = api.rebuildPart(a.recipe, await read(a.input));
      return utf8.encode(JSON.stringify({ ...rest, x12: text(bytes) }));
    }
    case 'merge': {
      const inputs = [];
      for (const p of a.inputs) inputs.push(await read(p));
      return api.merge(inputs, o);
    }
    case 'payloadsFromCsv': {
      const input = await read(a.input);
      const json = api.payloadsFromCsvToJson(a.documentType, input, o);
      const same = JSON.stringify(api.payloadsFromCsv(a.documentType, input, o)) === text(json);
      if (!same) throw new Error('payloadsFromCsv and payloadsFromCsvToJson disagree');
      return json;
    }
    case 'webhookSign': {
      const body = a.bodyFile !== undefined ? await read(a.bodyFile) : a.body;
      return utf8.encode(api.webhook.sign(a.secret, a.timestamp, body));
    }
    case 'webhookVerify': {
      const body = a.bodyFile !== undefined ? await read(a.bodyFile) : a.body;
      return utf8.encode(JSON.stringify(api.webhook.verify(a.secrets, a.signature, a.timestamp, body, withNow)));
    }
    default:
      throw new Error(`the runner does not know the op ${JSON.stringify(c.op)}`);
  }
}

function sameBytes(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function firstDifference(got, want) {
  let i = 0;
  while (i < got.length && i < want.length && got[i] === want[i]) i++;
  const show = (b) => JSON.stringify(text(b.subarray(Math.max(0, i - 40), i + 40)));
  return `differs at byte ${i} (got ${got.length} bytes, expected ${want.length}): got ${show(got)} expected ${show(want)}`;
}

/** Runs one case: `{id, ok, message}` (message says what differed). */
export async function runCase(api, c, read) {
  let out;
  try {
    out = await call(api, c, read);
  } catch (e) {
    if (!c.error) return { id: c.id, ok: false, message: `threw ${e && e.name}: ${e && e.code} ${e && e.message}` };
    const want = c.error;
    const problems = [];
    if (e.code !== want.code) problems.push(`code ${e.code} != ${want.code}`);
    if (e.kind !== want.kind) problems.push(`kind ${e.kind} != ${want.kind}`);
    const wantClass = want.kind === 'invalid_input' ? 'X12kitTypeError' : 'X12kitError';
    if (e.name !== wantClass) problems.push(`name ${e.name} != ${wantClass}`);
    if ('pointer' in want && e.pointer !== want.pointer) problems.push(`pointer ${e.pointer} != ${want.pointer}`);
    if ('details' in want && JSON.stringify(e.details) !== JSON.stringify(want.details))
      problems.push(`details ${JSON.stringify(e.details)} != ${JSON.stringify(want.details)}`);
    if (!(e instanceof Error)) problems.push('not an Error');
    if ((want.kind === 'invalid_input') !== (e instanceof TypeError)) problems.push('TypeError only for invalid_input');
    return { id: c.id, ok: problems.length === 0, message: problems.join('; ') };
  }
  if (c.error) return { id: c.id, ok: false, message: `expected error ${c.error.code}, got a result` };
  const want = await read(c.expect);
  const got = out instanceof Uint8Array ? out : utf8.encode(String(out));
  return sameBytes(got, want)
    ? { id: c.id, ok: true, message: '' }
    : { id: c.id, ok: false, message: firstDifference(got, want) };
}

/** Runs every case of the manifest. */
export async function runAll(api, manifest, read) {
  const results = [];
  for (const c of manifest.cases) results.push(await runCase(api, c, read));
  return results;
}

/** The validate options of an acknowledgement made from a validation: its structure setting and guides. */
function withGuides(v, o) {
  if (o?.guides !== undefined) v.guides = o.guides;
  return v;
}
