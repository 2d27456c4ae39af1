// rebuildPart(): every part of a split made again from its recipe and the
// input's bytes in the recipe's ranges, read from the file with fs.readSync.
import test from 'node:test'
import assert from 'node:assert/strict'
import { closeSync, openSync, readFileSync, readSync } from 'node:fs'
import { join } from 'node:path'
import { vectorsDir, x12kit } from './helpers.mjs'

const path = join(vectorsDir, 'inputs/split-850-five-sets.edi')

/** The bytes of a recipe's ranges, read one after the other from an open file. */
function rangesOf(fd, recipe) {
  const size = recipe.ranges.reduce((n, [a, b]) => n + (b - a), 0)
  const buf = Buffer.alloc(size)
  let at = 0
  for (const [a, b] of recipe.ranges) at += readSync(fd, buf, at, b - a, a)
  return buf
}

test('every part of a split, made again from its recipe and the file', () => {
  const fd = openSync(path, 'r')
  try {
    for (const o of [{}, { maxSets: 3 }, { per: 'group' }, { renumber: { interchange: 7, set: 40 } }]) {
      const parts = x12kit.split(readFileSync(path), o).parts
      assert.ok(parts.length > 0)
      for (const p of parts) {
        assert.deepStrictEqual(x12kit.rebuildPart(p.recipe, rangesOf(fd, p.recipe)), p)
        // The bytes as text too, as split takes them.
        assert.deepStrictEqual(x12kit.rebuildPart(p.recipe, rangesOf(fd, p.recipe).toString('latin1')), p)
      }
    }
  } finally {
    closeSync(fd)
  }
})

test('rebuildPart errors: codes and pointers as the core gives them', () => {
  const data = readFileSync(path)
  const p = x12kit.split(data).parts[1]
  const bytes = Buffer.concat(p.recipe.ranges.map(([a, b]) => data.subarray(a, b)))
  const fails = (fn, code, pointer) => {
    assert.throws(fn, (e) => {
      assert.ok(e instanceof x12kit.X12kitTypeError, String(e))
      assert.equal(e.code, code)
      assert.equal(e.kind, 'invalid_input')
      assert.equal(e.pointer, pointer)
      return true
    })
  }
  fails(() => x12kit.rebuildPart(p.recipe, bytes.subarray(1)), 'INVALID_ARGUMENT', undefined)
  fails(() => x12kit.rebuildPart({ ...p.recipe, setsRange: 9 }, bytes), 'INVALID_OPTIONS', '/recipe')
  fails(() => x12kit.rebuildPart({ ...p.recipe, extra: 1 }, bytes), 'INVALID_OPTIONS', '/recipe/extra')
  fails(() => x12kit.rebuildPart({ ...p.recipe, ranges: [[0, -1]] }, bytes), 'INVALID_OPTIONS', '/recipe/ranges/0/1')
  fails(() => x12kit.rebuildPart('recipe', bytes), 'INVALID_OPTIONS', '/recipe')
  fails(() => x12kit.rebuildPart(null, bytes), 'INVALID_OPTIONS', '/recipe')
  fails(() => x12kit.rebuildPart(undefined, bytes), 'INVALID_OPTIONS', '/recipe')
  fails(() => x12kit.rebuildPart(() => 1, bytes), 'INVALID_OPTIONS', '/recipe')
  fails(() => x12kit.rebuildPart(p.recipe, 42), 'INVALID_ARGUMENT', undefined)
})
