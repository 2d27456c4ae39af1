// A webhook receiver on plain node:http that verifies every delivery with
// x12kit before trusting it: the signature over the raw body, the timestamp
// within the tolerance, several secrets accepted while one is rotated out.
//
//   WEBHOOK_SECRETS=new-secret,old-secret PORT=8787 node examples/node/webhook-receiver.mjs
//
// It answers 204 to an authentic delivery, 401 to anything else (with the
// x12kit error code), 413 to a body over 1 MiB.
import { createServer } from 'node:http'
import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Verifier, X12kitError } from 'x12kit'

const MAX_BODY = 1 << 20

/** A request handler; `onEvent` gets each authentic, parsed delivery. */
export function createReceiver({ secrets, tolerance = 300, onEvent = () => {} }) {
  const verifier = new Verifier(secrets, { tolerance })
  return async function handle(req, res) {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end()
      return
    }
    const chunks = []
    let size = 0
    for await (const chunk of req) {
      size += chunk.length
      if (size > MAX_BODY) {
        res.writeHead(413).end()
        req.destroy()
        return
      }
      chunks.push(chunk)
    }
    const body = Buffer.concat(chunks) // the raw bytes: verify before parsing
    try {
      const verified = verifier.verifyHeaders(req.headers, body)
      onEvent(JSON.parse(body.toString('utf8')), verified)
      res.writeHead(204).end()
    } catch (e) {
      if (e instanceof X12kitError) {
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: e.code }))
      } else {
        res.writeHead(500).end()
      }
    }
  }
}

// realpath: run through a symlinked path, argv[1] is the link, import.meta.url the file
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const secrets = (process.env.WEBHOOK_SECRETS || '').split(',').filter(Boolean)
  if (secrets.length === 0) {
    console.error('set WEBHOOK_SECRETS (comma-separated; the newest first)')
    process.exit(2)
  }
  const port = Number(process.env.PORT || 8787)
  createServer(createReceiver({ secrets, onEvent: (e) => console.log(e.event, JSON.stringify(e.data)) })).listen(
    port,
    '127.0.0.1',
    () => console.log(`listening on http://127.0.0.1:${port}`),
  )
}
