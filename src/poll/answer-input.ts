import type { Gunzip } from "node:zlib";
import { gunzipInPieces } from "../lib/gunzip-pieces.js";
import { GunzipError, type SyncGunzip, syncGunzip } from "../lib/gunzip-sync.js";
import { LastBytes } from "../lib/last-bytes.js";
import { release } from "../lib/release-memory.js";
import type { StreamedEncoding } from "../upstream/client.js";
import type { FailureReason } from "../upstream/poll-error.js";
import type { ChunkDecoder } from "./decode-types.js";
import { TAIL_BYTES } from "./flavor-clues.js";

// An answer's bytes as a decoder thread takes them: a gzip answer comes as it came over the wire and
// is gunzipped here, piece by piece, each inflated piece read as soon as zlib hands it over: on this
// thread (lib/gunzip-sync.ts), or where a Node.js lacks what that needs, by a zlib stream in Node's
// thread pool. Gunzipped on the main thread, a 100k-target answer crossed to this
// thread in ~700 pieces of ~120 KiB, each a zlib callback, a stream turn, a copy or a move and a share
// of a message there: ~95 ms more of the main thread's CPU per poll than the ~60 pieces of the answer's
// gzip bytes, and the whole process ~80 ms (~9%) more: this thread's share of the zlib callbacks is small.

/** How the answer's pieces come (what the fetch says of them). */
export type InputEncoding = StreamedEncoding;

/** Why an answer's bytes cannot be read. */
export interface InputFailure {
  reason: FailureReason;
  message: string;
}

/**
 * One answer's input: pieces in, the decoder fed. `consumed` is told of every piece's bytes once they
 * are read (a gzip piece: once zlib took it), and whether more are wanted.
 */
export class AnswerInput {
  private sync: SyncGunzip | undefined;
  private inflate: Gunzip | undefined;
  private inflated = 0;
  private maxBytes = Number.POSITIVE_INFINITY;
  private tooLarge = "";
  private readonly last = new LastBytes(TAIL_BYTES);
  private stopped = false;
  /** Whether the last piece was written (end). */
  private ending = false;
  /** Why the answer cannot be read (not valid gzip, too large once gunzipped), once known. */
  failure: InputFailure | undefined;

  /** `gunzip`: "stream" gunzips in Node's thread pool even where this thread could (tests). */
  constructor(
    private readonly decoder: ChunkDecoder,
    private readonly consumed: (bytes: number, more: boolean) => void,
    private readonly gunzip: "here" | "stream" = "here",
  ) {}

  /** Says how the pieces come; before the first piece (a fetch tried again may say it anew). */
  encoding({ gzip }: InputEncoding): void {
    this.sync?.close();
    this.sync = undefined;
    this.inflate?.destroy();
    this.inflate = undefined;
    if (!gzip) return;
    this.maxBytes = gzip.maxBytes;
    this.tooLarge = gzip.tooLarge;
    if (this.gunzip === "here") {
      this.sync = syncGunzip((piece) => {
        this.read(piece);
        return !this.stopped;
      });
      if (this.sync) return;
    }
    const inflate = gunzipInPieces();
    inflate.on("data", (piece: Buffer) => {
      this.read(piece);
      release(piece); // the stream's own buffer, read
    });
    // zlib ends the answer early at zero bytes after a member (gzip's padding): what follows is not read,
    // nor fetched (as when the main thread gunzipped), and the answer is what came before.
    inflate.on("end", () => {
      if (!this.ending) this.drop();
    });
    inflate.on("error", (error: Error) => this.notGzip(error));
    this.inflate = inflate;
  }

  /** The answer's last bytes (gunzipped), as text: for the flavor clue at its end (flavor-clues.ts). */
  get tail(): string {
    return this.last.bytes().toString("latin1");
  }

  write(piece: Uint8Array): void {
    const bytes = piece.byteLength;
    if (this.stopped) {
      release(piece);
      this.consumed(bytes, false);
    } else if (this.sync) {
      try {
        this.sync.write(piece);
        // zlib's end of the gzip data before the answer's (gzip's padding): what follows is not read.
        if (this.sync.ended) this.drop();
      } catch (error) {
        this.notGzip(error);
      }
      release(piece);
      this.consumed(bytes, !this.stopped);
    } else if (this.inflate) {
      this.inflate.write(piece, () => {
        release(piece);
        this.consumed(bytes, !this.stopped);
      });
    } else {
      this.read(piece);
      release(piece);
      this.consumed(bytes, !this.stopped);
    }
  }

  /** The last piece was written: `done` once every byte was read (or the answer failed). */
  end(done: () => void): void {
    this.ending = true;
    if (this.sync && !this.stopped) {
      try {
        this.sync.end();
      } catch (error) {
        this.notGzip(error);
      }
    }
    const inflate = this.inflate;
    if (!inflate || this.stopped) {
      done();
      return;
    }
    let called = false;
    const once = () => {
      if (!called) done();
      called = true;
    };
    // A gzip answer cut short fails as it ends ("unexpected end of file"), and closes.
    inflate.once("end", once);
    inflate.once("close", once);
    inflate.end();
  }

  /** Forgets the answer: nothing more is read, or wanted. */
  drop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.sync?.close();
    this.inflate?.destroy();
    this.consumed(0, false); // the rest need not be sent
  }

  /**
   * Reads a piece: copied into the reader's window, or carried, so not needed once this returns. Its
   * owner frees it then; the synchronous gunzip writes its next piece into the same memory.
   */
  private read(piece: Uint8Array): void {
    if (this.stopped) return;
    this.inflated += piece.byteLength;
    if ((this.sync || this.inflate) && this.inflated > this.maxBytes) {
      this.fail({ reason: "too_large", message: this.tooLarge });
      return;
    }
    this.last.keep(piece);
    if (!this.decoder.write(piece)) this.drop(); // nothing more to gunzip either
  }

  /** zlib's refusal fails the answer; anything else thrown (by the reader) is not about the bytes. */
  private notGzip(error: unknown): void {
    if (!(error instanceof Error) || (this.sync && !(error instanceof GunzipError))) throw error;
    this.fail({ reason: "invalid_json", message: `answer is not valid gzip: ${error.message}` });
  }

  private fail(failure: InputFailure): void {
    if (this.stopped) return;
    this.failure = failure;
    this.drop();
  }
}
