import { createGunzip, type Gunzip } from "node:zlib";

// Inflated pieces of 120 KiB: under the image's MALLOC_MMAP_THRESHOLD_ (128 KiB), so each comes from
// memory freed by the pieces before rather than fresh pages. One place for the answers read whole
// (upstream/client.ts) and the streamed ones gunzipped on the decoder thread (poll/answer-input.ts,
// lib/gunzip-sync.ts), which loads no HTTP client: this module imports zlib only.
export const INFLATE_CHUNK_BYTES = 120 * 1024;

/** A gunzip stream handing over its inflated bytes in pieces of INFLATE_CHUNK_BYTES at most. */
export const gunzipInPieces = (): Gunzip => createGunzip({ chunkSize: INFLATE_CHUNK_BYTES });
