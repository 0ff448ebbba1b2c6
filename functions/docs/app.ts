// The docs function as the embedded server mounts it: its documents built from the route registry
// on first use (./document.ts). The Worker serves the same routes over documents built ahead
// (./worker.ts). The reference page's content is rendered once, on its first request.
import { openApiDocument } from './document';
import type { ReferencePageParts } from './reference-layout';
import { referencePageParts } from './reference-page';
import { createDocsApp } from './site';

export { DOCS_CSP, REFERENCE_CSP, ROOT_POINTER } from './site';
export { openApiDocument };

let parts: ReferencePageParts | undefined;
export const app = createDocsApp(openApiDocument, () => {
  parts ??= referencePageParts(openApiDocument('public'));
  return parts;
});
