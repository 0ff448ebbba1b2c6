// The docs Worker over documents built ahead of time. Building the two OpenAPI documents needs
// every function's route declarations and schemas (functions/registry.ts); evaluating those was
// most of this Worker's startup, paid on every cold isolate. So the build (scripts/edge/docs-worker.ts)
// builds them once, embeds them as JSON text in a generated entry that calls `docsWorker`, and the
// Worker parses each on its first request. The answers are byte for byte those of ./app.ts
// (test/unit/docs-prebuilt.test.ts).
import type { Audience, OpenApiDocument } from '../../shared/http/openapi-doc';
import { edgeWorkerCore } from '../../shared/runtime/edge-core';
import { ACCESS_RULES } from '../manifest';
import { createDocsApp, type Documents } from './site';

/** Both documents as JSON text (a string literal costs nothing to evaluate; an object literal would). */
export type BuiltDocuments = Readonly<Record<Audience, string>>;

/** The documents parsed on first use, each once per isolate. */
export function parsedDocuments(built: BuiltDocuments): Documents {
  const parsed: Partial<Record<Audience, OpenApiDocument>> = {};
  return (audience) => {
    parsed[audience] ??= JSON.parse(built[audience]) as OpenApiDocument;
    return parsed[audience];
  };
}

export const docsApp = (built: BuiltDocuments) => createDocsApp(parsedDocuments(built));

export const docsWorker = (built: BuiltDocuments) => edgeWorkerCore(docsApp(built), ACCESS_RULES);
