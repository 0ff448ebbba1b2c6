import { chunksOf, type ObjectStorage } from './port';

/** The parts of Workers' R2 binding used here (no @cloudflare/workers-types dependency). */
export interface R2BucketLike {
  put(
    key: string,
    value: ReadableStream | ArrayBuffer | Blob,
    options?: { httpMetadata?: { contentType?: string } },
  ): Promise<unknown>;
  get(
    key: string,
    options?: { range?: { offset: number; length: number } },
  ): Promise<{ body: ReadableStream<Uint8Array>; size: number } | null>;
  delete(key: string): Promise<void>;
  list(options: { prefix: string; cursor?: string }): Promise<{
    objects: { key: string }[];
    truncated: boolean;
    cursor?: string;
  }>;
}

/** workerd's stream of a promised length: what lets R2 take a stream whose length it cannot see. */
declare const FixedLengthStream:
  | (new (
      length: number,
    ) => { readable: ReadableStream<Uint8Array>; writable: WritableStream<Uint8Array> })
  | undefined;

/**
 * An R2 bucket binding (`ATTACHMENTS` in wrangler.toml). A body of stated size streams into the
 * binding through a FixedLengthStream (R2 needs the length up front; our hashing stream hides it);
 * R2 writes an object only when its put completes, so a body that errors midway stores nothing. A
 * body of unstated size is gathered first, bounded by ATTACHMENT_MAX_BYTES.
 */
export function r2Storage(bucket: R2BucketLike): ObjectStorage {
  return {
    kind: 'r2',
    async put(key, body, { size, contentType }) {
      const httpMetadata = { contentType };
      if (size !== null && typeof FixedLengthStream === 'function') {
        const fixed = new FixedLengthStream(size);
        const piped = body.pipeTo(fixed.writable);
        const stored = bucket.put(key, fixed.readable, { httpMetadata });
        // the pipe's error (the cap, the sender gone) is the cause the caller must see
        const [pipe, put] = await Promise.allSettled([piped, stored]);
        if (pipe.status === 'rejected') throw pipe.reason;
        if (put.status === 'rejected') throw put.reason;
        return;
      }
      const parts: Uint8Array[] = [];
      for await (const chunk of chunksOf(body)) parts.push(chunk);
      await bucket.put(key, new Blob(parts as BlobPart[]), { httpMetadata });
    },
    async get(key, range) {
      const object = await bucket.get(key, range ? { range } : undefined);
      // an object's `size` is the whole object's, also when only a range of it is read
      return object ? { body: object.body, size: range ? range.length : object.size } : null;
    },
    async delete(key) {
      await bucket.delete(key);
    },
    async list(prefix) {
      const keys: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const page = await bucket.list(cursor ? { prefix, cursor } : { prefix });
        keys.push(...page.objects.map((o) => o.key));
        if (!page.truncated || !page.cursor) break;
        cursor = page.cursor;
      }
      return keys.sort();
    },
  };
}
