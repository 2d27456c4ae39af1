// Streams a file of any size through x12kit's segment stream and counts the
// segments by identifier, with memory bounded by the longest segment.
//
//   node examples/node/segments.mjs <file.edi>
import { createReadStream, realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { createSegmentStream } from 'x12kit'

export async function countSegments(path) {
  const counts = new Map()
  for await (const s of createReadStream(path).pipe(createSegmentStream())) {
    counts.set(s.id, (counts.get(s.id) || 0) + 1)
  }
  return Object.fromEntries(counts)
}

// realpath: run through a symlinked path, argv[1] is the link, import.meta.url the file
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(await countSegments(process.argv[2]))
}
