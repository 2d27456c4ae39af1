// Validates every X12 file of a folder and writes an acknowledgement
// (997 before 005010, 999 from 005010, TA1 when the interchange needs one)
// next to it as <name>.ack.edi; prints one line per file.
//
//   node examples/node/validate-folder.mjs <folder> [--out <folder>]
//
// Exit status: 0 when every file is valid, 1 when some are not, 2 on usage errors.
import { readdirSync, readFileSync, statSync, writeFileSync, mkdirSync, realpathSync } from 'node:fs'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { acknowledge, validate } from 'x12kit'

/** Validates the files of `dir`; returns one summary per file. */
export function validateFolder(dir, outDir = dir, now = new Date()) {
  mkdirSync(outDir, { recursive: true })
  const results = []
  let control = 1
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name)
    if (!statSync(path).isFile() || name.endsWith('.ack.edi')) continue
    const v = validate(readFileSync(path), { structure: true })
    const ack = acknowledge(v, { kind: 'auto', interchangeControlNumber: control, now })
    let ackFile = null
    if (ack.length > 0) {
      ackFile = join(outDir, `${basename(name)}.ack.edi`)
      writeFileSync(ackFile, ack)
      control++
    }
    results.push({ file: name, valid: v.valid, errors: v.errorCount, warnings: v.warningCount, ack: ackFile })
  }
  return results
}

// realpath: run through a symlinked path, argv[1] is the link, import.meta.url the file
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2)
  const dir = args[0]
  const o = args.indexOf('--out')
  if (!dir) {
    console.error('usage: node validate-folder.mjs <folder> [--out <folder>]')
    process.exit(2)
  }
  const results = validateFolder(dir, o >= 0 ? args[o + 1] : dir)
  for (const r of results) {
    console.log(`${r.valid ? 'valid  ' : 'INVALID'} ${r.file}: ${r.errors} errors, ${r.warnings} warnings${r.ack ? ` -> ${r.ack}` : ''}`)
  }
  // exitCode, not process.exit(): exiting at once would cut off the lines
  // still buffered for a pipe (`... | tee log` of a large folder).
  process.exitCode = results.every((r) => r.valid) ? 0 : 1
}
