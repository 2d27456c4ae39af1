// A TypeScript service using x12kit: parse, validate, acknowledge, render and
// verify a webhook, type-checked with `tsc --noEmit --strict` by the Node suite.
import { readFileSync } from 'node:fs'
import {
  acknowledge,
  parse,
  render,
  validate,
  Verifier,
  webhook,
  X12kitError,
  type ParseResult,
  type ValidationResult,
  type Verified,
} from 'x12kit'

export function summarize(x12: Buffer): { sets: number; valid: boolean; ack: Buffer } {
  const doc: ParseResult = parse(x12)
  let sets = 0
  for (const ic of doc.interchanges) for (const g of ic.groups) sets += g.transactions.length
  const v: ValidationResult = validate(x12, { structure: true })
  const ack: Buffer = acknowledge(v, { kind: 'auto', now: new Date() })
  return { sets, valid: v.valid, ack }
}

export function outbound(partnerFile: string): Buffer | string {
  const partner: unknown = JSON.parse(readFileSync(partnerFile, 'utf8'))
  try {
    return render('850', { purchaseOrderNumber: 'PO-1', lines: [] }, partner as object, {
      controlNumbers: { interchange: 7 },
    })
  } catch (e) {
    if (e instanceof X12kitError) {
      return e.details.map((d) => `${d.code} ${d.pointer}: ${d.message}`).join('\n')
    }
    throw e
  }
}

export function receive(headers: Record<string, string | string[] | undefined>, body: Buffer): Verified | null {
  const verifier = new Verifier([process.env.WEBHOOK_SECRET ?? 'dev-secret'], { tolerance: 300 })
  try {
    return verifier.verifyHeaders(headers, body)
  } catch (e) {
    if (e instanceof X12kitError && e.kind === 'rejected') return null
    throw e
  }
}

export const signature: string = webhook.sign('dev-secret', 1700000000, '{}')
