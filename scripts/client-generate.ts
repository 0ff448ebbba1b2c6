// `npm run client:generate`: writes clients/typescript/generated/* from the document /api/v1/openapi.json
// serves (built in-process, as functions/docs does).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateClientSources } from '../clients/typescript/generate';
import { openApiDocument } from '../functions/docs/app';

export const GENERATED_DIR = join(import.meta.dirname, '..', 'clients', 'typescript', 'generated');

const files = await generateClientSources(openApiDocument());
mkdirSync(GENERATED_DIR, { recursive: true });
for (const [name, text] of Object.entries(files)) {
  writeFileSync(join(GENERATED_DIR, name), text);
  console.log(`wrote clients/typescript/generated/${name}`);
}
