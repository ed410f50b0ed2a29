import { createHash } from "node:crypto";
import { Readable, Transform, type TransformCallback } from "node:stream";
import { ZipFile } from "yazl";
import type { FileDigests } from "../fhir/questionnaire-response";
import type { FileStorage } from "./storage";

/** A ZIP entry: a stored file streamed from storage, or bytes made when the entry's turn comes. */
export type ZipSource =
  | {
      path: string;
      /** The storage key. */
      key: string;
      /** Its size as `stat` gave it; the entry fails if the stream brings another number of bytes. */
      size: number;
      /** Called once the file has passed, with the digests taken on the way. */
      passed(digests: FileDigests): void;
    }
  | {
      path: string;
      /** Called after every entry before it has passed (a manifest can list their digests). */
      generate(): Promise<Buffer>;
    };

/** Passes bytes on unchanged while taking their SHA-1 and SHA-256. */
class Digesting extends Transform {
  private readonly sha1 = createHash("sha1");
  private readonly sha256 = createHash("sha256");
  private size = 0;
  constructor(private readonly done: (digests: FileDigests) => void) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.sha1.update(chunk);
    this.sha256.update(chunk);
    this.size += chunk.length;
    callback(null, chunk);
  }
  override _flush(callback: TransformCallback): void {
    this.done({ size: this.size, sha1Base64: this.sha1.digest("base64"), sha256Hex: this.sha256.digest("hex") });
    callback();
  }
}

/**
 * A ZIP (ZIP64 where sizes or offsets need it) written while it is read: entries go out one at a
 * time in the given order, a stored file is opened only when its turn comes and read as the
 * consumer takes the output (yazl pipes it, so back-pressure reaches the storage stream). Stored
 * files are kept as they are (no compression: PDFs and images are compressed already, and stored
 * bytes stay byte for byte); generated entries are deflated. Memory holds one chunk in flight per
 * stage and the generated entries, never a whole stored file or the archive.
 *
 * A storage failure or a file that changed size fails the stream: the consumer sees an error
 * instead of a short archive. Ending the iteration early closes the open storage stream.
 */
/** yazl's callback wants a stream beside an error too; it never reads one it gets with an error. */
const NO_STREAM = Readable.from([]);

export async function* zipStream(storage: FileStorage, sources: ZipSource[], mtime: Date): AsyncGenerator<Buffer> {
  const zip = new ZipFile();
  const out = zip.outputStream as Readable;
  let open: Readable | undefined;
  const fail = (error: Error) => {
    open?.destroy();
    out.destroy(error);
  };
  zip.on("error", fail);
  for (const source of sources) {
    if ("key" in source) {
      zip.addReadStreamLazy(source.path, { size: source.size, compress: false, mtime }, (ready) => {
        storage.getStream(source.key).then(
          (stream) => {
            if (!stream) return ready(new Error(`stored file for ${source.path} is gone`), NO_STREAM);
            const digesting = new Digesting(source.passed);
            stream.body.on("error", (error) => digesting.destroy(error));
            // yazl listens to the stream it is handed for data only: its failure must reach the archive.
            digesting.on("error", fail);
            open = stream.body;
            ready(null, stream.body.pipe(digesting));
          },
          (error: Error) => ready(error, NO_STREAM),
        );
      });
    } else {
      zip.addReadStreamLazy(source.path, { compress: true, mtime }, (ready) => {
        source.generate().then(
          (bytes) => ready(null, Readable.from([bytes])),
          (error: Error) => ready(error, NO_STREAM),
        );
      });
    }
  }
  zip.end();
  try {
    for await (const chunk of out) yield chunk as Buffer;
  } finally {
    open?.destroy();
    out.destroy();
  }
}
