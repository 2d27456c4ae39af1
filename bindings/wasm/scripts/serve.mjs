// A static file server on 127.0.0.1 for the page and the browser tests:
//   /            -> bindings/wasm/www/ (the page)
//   /pkg/        -> bindings/wasm/pkg/ (the built package)
//   /tests/      -> bindings/wasm/tests/
//   /repo/       -> the repository (tests/vectors and the files its manifest names)
// Run: node bindings/wasm/scripts/serve.mjs [port]   (default 8080)
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { join, normalize, extname, dirname, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const wasmDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const mounts = [
  ['/pkg/', join(wasmDir, 'pkg')],
  ['/tests/', join(wasmDir, 'tests')],
  ['/repo/', normalize(join(wasmDir, '..', '..'))],
  ['/', join(wasmDir, 'www')],
];
const types = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript',
  '.css': 'text/css', '.json': 'application/json', '.wasm': 'application/wasm', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.ts': 'text/plain', '.webmanifest': 'application/manifest+json',
};

/** Starts the server; resolves to {server, url}. */
export function serve(port = 0) {
  const server = createServer(async (req, res) => {
    try {
      const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      const [prefix, dir] = mounts.find(([p]) => path.startsWith(p));
      let file = normalize(join(dir, path.slice(prefix.length)));
      if (!file.startsWith(dir + sep) && file !== dir) throw Object.assign(new Error('outside'), { status: 403 });
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': types[extname(file)] || 'application/octet-stream', 'cache-control': 'no-store' });
      res.end(body);
    } catch (e) {
      res.writeHead(e.status || 404, { 'content-type': 'text/plain' });
      res.end(e.status ? 'forbidden' : 'not found');
    }
  });
  return new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}` })),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { url } = await serve(Number(process.argv[2] || 8080));
  console.log(`x12kit page: ${url}/  (Ctrl-C to stop)`);
}
