// The docs function as the embedded server mounts it: its documents built from the route registry
// on first use (./document.ts). The Worker serves the same routes over documents built ahead
// (./worker.ts).
import { openApiDocument } from './document';
import { createDocsApp } from './site';

export { DOCS_CSP, REFERENCE_CSP, ROOT_POINTER } from './site';
export { openApiDocument };

export const app = createDocsApp(openApiDocument);
