import { joinViews, tileOneBuffer } from "../lib/joined-views.js";

/**
 * Views that can be handed to another thread by moving their memory, and copies of those that can't.
 *
 * Node.js allocates small Buffers (under 4 KiB, `Buffer.allocUnsafe`, `Buffer.from`, `Buffer.concat`)
 * as slices of one shared pool. Node 20 copied such a pool when asked to transfer it; Node 21 and
 * newer refuse (`DataCloneError`), which once failed every poll handed to a decode worker on the
 * image's Node.js. Only a view that owns its whole ArrayBuffer is moved; any other is copied into
 * memory of its own first, which also keeps the pool's neighbours out of the message.
 */
export function ownMemory(view: Uint8Array): Uint8Array {
  const owns = view.byteOffset === 0 && view.byteLength === view.buffer.byteLength;
  return owns && view.buffer instanceof ArrayBuffer ? view : new Uint8Array(view);
}

/**
 * The same for views that go together (a packed family's members): moved as they are if they are
 * between them the whole of one ArrayBuffer, else copied side by side into one of their own.
 */
export function ownMemoryTogether(views: readonly Uint8Array[]): Uint8Array[] {
  const buffer = views[0]?.buffer;
  return buffer instanceof ArrayBuffer && tileOneBuffer(views) ? [...views] : joinViews(views);
}

/** The transfer list for views prepared by `ownMemory` (one entry per distinct ArrayBuffer). */
export function transferList(views: readonly Uint8Array[]): ArrayBuffer[] {
  const list = new Set<ArrayBuffer>();
  for (const view of views) if (view.buffer instanceof ArrayBuffer) list.add(view.buffer);
  return [...list];
}
