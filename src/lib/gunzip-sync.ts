import { constants, createGunzip, type Gunzip } from "node:zlib";
import { INFLATE_CHUNK_BYTES } from "./gunzip-pieces.js";

// Gunzips on the calling thread, piece by piece as the pieces come. Node's zlib streams do each piece's
// work in the thread pool: on a decoder thread, which has nothing else to do meanwhile, queueing ~60
// pieces a poll there and waking for each result cost more than the inflating itself (measured on
// Node 24, a 100k-target gzip answer: libuv's threads ~60 ms a poll, the decoder thread's own time no
// lower; done here, 20-60 ms less CPU a poll in four alternated pairs, ~55 in three). Node has no
// public synchronous streaming zlib: this drives the stream's native handle as Node's own gunzipSync
// does (processChunkSync in lib/zlib.js of Node 20 and 24) and as npm's minizlib does, keeping the
// handle open between pieces. minizlib is not used: it cannot tell where a member followed by padding
// ended. Where a Node.js lacks what this needs, `syncGunzip` says so and the stream is used instead.

/** The native zlib handle's synchronous side (node_zlib.cc). */
export interface NativeZlib {
  writeSync(
    flush: number,
    input: Uint8Array,
    inOffset: number,
    inLength: number,
    output: Uint8Array,
    outOffset: number,
    outLength: number,
  ): void;
  onerror: (message: string, errno: number, code?: string) => void;
}

/** What a zlib stream holds in Node 20 and 24: its native handle and the [availOut, availIn] the handle writes back. */
interface StreamInternals {
  _handle?: NativeZlib | null;
  _writeState?: Uint32Array;
}

/** Why gunzipping failed: zlib's message and code ("incorrect header check", Z_DATA_ERROR). */
export class GunzipError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
  }
}

/**
 * A gzip stream gunzipped synchronously: each write hands its inflated bytes to `piece` before it
 * returns, as views of one buffer that is written again once `piece` returned: what is kept must be copied.
 */
export class SyncGunzip {
  private readonly output = Buffer.allocUnsafeSlow(INFLATE_CHUNK_BYTES);
  private outputUsed = 0;
  private error: GunzipError | undefined;
  private closed = false;
  /**
   * Whether the gzip data ended before the bytes written did: zlib stops at zero bytes after a member
   * (gzip's padding) and reads nothing after them.
   */
  ended = false;

  constructor(
    private readonly stream: Gunzip,
    private readonly handle: NativeZlib,
    private readonly state: Uint32Array,
    private readonly piece: (bytes: Buffer) => boolean,
  ) {
    // Reported during writeSync (node_zlib.cc). Taken here rather than by the stream, which would
    // close the handle and emit the error a tick later.
    this.handle.onerror = (message, _errno, code) => {
      this.error ??= new GunzipError(message, code);
    };
  }

  /** Inflates `input`; throws GunzipError on data that is not gzip. Stops early when `piece` returns false. */
  write(input: Uint8Array): void {
    this.run(input, constants.Z_NO_FLUSH);
  }

  /** The last bytes were written: throws GunzipError when the gzip data is cut short. */
  end(): void {
    this.run(new Uint8Array(0), constants.Z_FINISH);
    this.close();
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stream.destroy();
  }

  private run(input: Uint8Array, flush: number): void {
    if (this.closed || this.ended) return;
    let inOffset = 0;
    let inLength = input.byteLength;
    for (;;) {
      const room = this.output.byteLength - this.outputUsed;
      this.handle.writeSync(flush, input, inOffset, inLength, this.output, this.outputUsed, room);
      if (this.error) {
        const error = this.error;
        this.close();
        throw error;
      }
      const outLeft = this.state[0] as number;
      const inLeft = this.state[1] as number;
      inOffset += inLength - inLeft;
      inLength = inLeft;
      const made = room - outLeft;
      let more = true;
      if (made > 0) {
        const bytes = this.output.subarray(this.outputUsed, this.outputUsed + made);
        // Read before `piece` returns (a chunk decoder keeps nothing of a chunk): a full buffer is
        // written again from its start, so a poll inflates into the same memory throughout.
        this.outputUsed = outLeft === 0 ? 0 : this.outputUsed + made;
        more = this.piece(bytes);
      }
      if (!more) return;
      if (outLeft === 0) continue; // more to come from this input
      // Room left and input too: zlib was done with the gzip data before the input was.
      if (inLength > 0) this.ended = true;
      return;
    }
  }
}

/**
 * A synchronous gunzip handing its inflated bytes to `piece` (false: stop for now), or undefined when
 * this Node.js does not have what it drives (the caller uses a zlib stream then).
 */
export function syncGunzip(piece: (bytes: Buffer) => boolean): SyncGunzip | undefined {
  // The stream's own output buffer is never used: the smallest zlib allows.
  const stream = createGunzip({ chunkSize: constants.Z_MIN_CHUNK });
  const internals = stream as unknown as StreamInternals;
  const handle = internals._handle;
  const state = internals._writeState;
  if (!handle || typeof handle.writeSync !== "function" || !(state instanceof Uint32Array) || state.length < 2) {
    stream.destroy();
    return undefined;
  }
  const gunzip = new SyncGunzip(stream, handle, state, piece);
  if (!writesBack(handle, state)) {
    gunzip.close();
    return undefined;
  }
  return gunzip;
}

/**
 * Whether the handle says what it did where this reads it: a write of nothing into 16 bytes of room
 * leaves all 16 and no input. A handle that wrote elsewhere would leave `run` waiting for room forever.
 */
export function writesBack(handle: NativeZlib, state: Uint32Array): boolean {
  state[0] = 0;
  state[1] = 1;
  try {
    handle.writeSync(constants.Z_NO_FLUSH, new Uint8Array(0), 0, 0, new Uint8Array(16), 0, 16);
  } catch {
    return false;
  }
  return state[0] === 16 && state[1] === 0;
}
