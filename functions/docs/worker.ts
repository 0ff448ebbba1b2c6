// The docs Worker over documents built ahead of time. Building the two OpenAPI documents needs
// every function's route declarations and schemas (functions/registry.ts); evaluating those was
// most of this Worker's startup, paid on every cold isolate. So the build (scripts/edge/docs-worker.ts)
// builds them once, embeds them as JSON text in a generated entry that calls `docsWorker`, and the
// Worker parses each on its first request. The reference page's content is rendered from the public
// document at build time too (its Markdown by marked, which the Worker then neither carries nor
// evaluates). The answers are byte for byte those of ./app.ts (test/unit/docs-prebuilt.test.ts).
import type { Audience, OpenApiDocument } from '../../shared/http/openapi-doc';
import { edgeWorkerCore } from '../../shared/runtime/edge-core';
import { ACCESS_RULES } from '../manifest';
import type { ReferencePageParts } from './reference-layout';
import { createDocsApp, type Documents, type ReferenceParts } from './site';

/**
 * Both documents and the reference page's parts as JSON text (a string literal costs nothing to
 * evaluate; an object literal would).
 */
export type BuiltDocuments = Readonly<Record<Audience | 'referencePage', string>>;

/** The documents parsed on first use, each once per isolate. */
export function parsedDocuments(built: BuiltDocuments): Documents {
  const parsed: Partial<Record<Audience, OpenApiDocument>> = {};
  return (audience) => {
    parsed[audience] ??= JSON.parse(built[audience]) as OpenApiDocument;
    return parsed[audience];
  };
}

/** The reference page's parts, parsed on the page's first request. */
function parsedReferenceParts(built: BuiltDocuments): ReferenceParts {
  let parts: ReferencePageParts | undefined;
  return () => {
    parts ??= JSON.parse(built.referencePage) as ReferencePageParts;
    return parts;
  };
}

export const docsApp = (built: BuiltDocuments) =>
  createDocsApp(parsedDocuments(built), parsedReferenceParts(built));

export const docsWorker = (built: BuiltDocuments) => edgeWorkerCore(docsApp(built), ACCESS_RULES);
