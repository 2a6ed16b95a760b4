import { tileOneBuffer } from "./joined-views.js";

// Memory given back as soon as its holder is done with it, not at the thread's next garbage collection.

type Releasable = ArrayBuffer & { transfer?: (length: number) => ArrayBuffer; detached?: boolean };

/**
 * Gives a view's memory back now rather than at the thread's next garbage collection: a decoder
 * thread copies each piece of an answer into its reader's own window, and 80 MB of pieces left for the
 * collector were ~80 MB more resident during a poll, and the collections they set off. Detaching is
 * `ArrayBuffer.prototype.transfer(0)` (Node.js 21 and newer); on older runtimes the collector frees it,
 * and so it does memory that cannot be detached (Node's Buffer pool, a WebAssembly memory), where
 * transfer throws: a throw here would end the decoder thread and every answer it was reading.
 */
export function release(view: Uint8Array): void {
  // Only memory the view is all of: a view into a larger buffer leaves its neighbours' bytes alone.
  if (view.byteOffset === 0 && view.byteLength === view.buffer.byteLength) detach(view.buffer);
}

/** The same for views that are between them the whole of one buffer (lib/joined-views.ts), else each alone. */
export function releaseAll(views: readonly Uint8Array[]): void {
  if (tileOneBuffer(views)) detach((views[0] as Uint8Array).buffer);
  else for (const view of views) release(view);
}

function detach(memory: ArrayBufferLike): void {
  const buffer = memory as Releasable;
  if (!(buffer instanceof ArrayBuffer) || typeof buffer.transfer !== "function" || buffer.detached) return;
  try {
    buffer.transfer(0);
  } catch {
    // not detachable: left to the collector
  }
}
