// The document types the server renders and reads (GET /api/v1/document-types:
// the core's registry: code, name, functional identifier and the payload field
// that is each type's business reference), loaded once per page view.
import { api } from '../api.js';

let cached = null;

/** `[{code, name, functionalId, referenceField}]`, or `[]` when the server cannot say. */
export function documentTypes() {
  cached = cached || api.get('/api/v1/document-types').then((r) => r.data).catch(() => {
    cached = null;
    return [];
  });
  return cached;
}
