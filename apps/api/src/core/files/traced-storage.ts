import { inSpan } from "../tracing/tracing";
import type { ByteRange, FileStorage, FileStream, StoredFile } from "./file-storage";

/**
 * A storage backend whose reads and writes are spans of the trace they happen in (issue 36):
 * the operation and the backend, never the key (keys are opaque, but a span is no place to start
 * collecting them). Listing and download URLs pass through untraced.
 */
export class TracedStorage implements FileStorage {
  readonly kind;

  constructor(private readonly inner: FileStorage) {
    this.kind = inner.kind;
  }

  private traced<T>(operation: string, work: () => Promise<T>): Promise<T> {
    return inSpan(
      `storage ${operation}`,
      { "clinsign.storage.operation": operation, "clinsign.storage.kind": this.kind },
      work,
    );
  }

  put(prefix: string, bytes: Buffer): Promise<StoredFile> {
    return this.traced("put", () => this.inner.put(prefix, bytes));
  }
  putStream(prefix: string, chunks: AsyncIterable<Buffer>): Promise<StoredFile> {
    return this.traced("put", () => this.inner.putStream(prefix, chunks));
  }
  putAs(key: string, chunks: AsyncIterable<Buffer>): Promise<StoredFile> {
    return this.traced("put", () => this.inner.putAs(key, chunks));
  }
  get(key: string): Promise<Buffer | null> {
    return this.traced("get", () => this.inner.get(key));
  }
  getStream(key: string, range?: ByteRange): Promise<FileStream | null> {
    return this.traced("open", () => this.inner.getStream(key, range));
  }
  stat(key: string): Promise<{ size: number; sha256?: string } | null> {
    return this.traced("stat", () => this.inner.stat(key));
  }
  delete(key: string): Promise<void> {
    return this.traced("delete", () => this.inner.delete(key));
  }
  list(): AsyncIterable<string> {
    return this.inner.list();
  }
  downloadUrl(key: string, options: { filename: string; contentType: string }): Promise<string | null> {
    return this.inner.downloadUrl(key, options);
  }
}
