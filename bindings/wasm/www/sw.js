// The page's service worker: the page keeps working offline, reload included.
// On install it stores the page's static files (the page, its scripts, the
// samples and the WebAssembly package); on every request for one of this
// origin's files it asks the network first (so a new version shows at once)
// and answers from the stored copy when the network is not there, keeping the
// copy up to date with each successful answer. Nothing is ever uploaded: the
// X12 a person checks is read in the page and its worker, never fetched.
const CACHE = 'x12kit-page-v4';
const FILES = [
  './', './index.html', './style.css', './app.js', './inspector.js', './worker.js',
  './samples/850-valid.x12', './samples/850-wrong-se01.x12', './samples/acme-retail-850.guide.json',
  './pkg/web/x12kit_wasm.js', './pkg/web/x12kit_wasm_bg.wasm',
];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) if (name !== CACHE) await caches.delete(name);
    await self.clients.claim();
  })());
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET' || new URL(req.url).origin !== self.location.origin) return;
  event.respondWith((async () => {
    try {
      const res = await fetch(req);
      if (res.ok && res.status === 200) {
        const copy = res.clone();
        event.waitUntil(caches.open(CACHE).then((c) => c.put(req, copy)));
      }
      return res;
    } catch (e) {
      const hit = await caches.match(req, { ignoreSearch: true });
      if (hit) return hit;
      throw e;
    }
  })());
});
