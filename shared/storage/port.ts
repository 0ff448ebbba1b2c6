/**
 * The storage port: where a file's bytes live (docs/files.md). Postgres keeps the record (name,
 * type, size, sha256, key); an adapter keeps only bytes under a key. Three adapters: an R2 bucket
 * binding on Workers (./r2.ts), an S3-compatible bucket signed with aws4fetch (./s3.ts), a folder
 * under DATA_DIR (./folder.node.ts, Node only).
 */
export interface StoredObject {
  /** the bytes, streamed: never read into memory whole */
  body: ReadableStream<Uint8Array>;
  /** the length of `body`: the object's, or the range's when one was asked for */
  size: number;
}

/** `length` bytes from `offset`, both within the object (an HTTP Range resolved against its size). */
export interface ByteRange {
  offset: number;
  length: number;
}

export interface PutOptions {
  /** the body's length when the request stated it (Content-Length), else null */
  size: number | null;
  contentType: string;
}

export interface ObjectStorage {
  readonly kind: 'r2' | 's3' | 'folder';
  /**
   * Stores `body` under `key`, all or nothing: when the body errors midway (too large, the sender
   * gone) the put rejects and no object is left under `key`.
   */
  put(key: string, body: ReadableStream<Uint8Array>, options: PutOptions): Promise<void>;
  /** the object, or only `range` of it */
  get(key: string, range?: ByteRange): Promise<StoredObject | null>;
  /** removes the object; a missing one is not an error */
  delete(key: string): Promise<void>;
  /** every key under `prefix` (tests and the benchmark check what a refusal left) */
  list(prefix: string): Promise<string[]>;
}

/** An incremental SHA-256: node:crypto on Node, DigestStream on Workers (Web Crypto has no update). */
export interface Hasher {
  /**
   * Called right after the chunk is handed to storage, so hashing runs beside the write; a promise
   * when the hasher is asynchronous: awaited before the next chunk is read (backpressure)
   */
  update(chunk: Uint8Array): void | Promise<void>;
  /** lower-case hex */
  digest(): Promise<string>;
}

/** What the services carry for files: the storage, a hasher maker and the links' HMAC key. */
export interface FileStorage {
  objects: ObjectStorage;
  sha256(): Hasher;
  /** HMAC key of the signed download links (FILES_SIGNING_KEY, else derived: docs/files.md) */
  signingKey: string;
}

/** A stream as an async iterable of chunks (Node's and workerd's streams both read this way). */
export async function* chunksOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}
