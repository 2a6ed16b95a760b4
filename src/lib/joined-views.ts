// Views kept side by side in one buffer of their own. A large family's gzip members (~60 KB each at
// level 1, under glibc's 128 KiB mmap threshold) were each an allocation in the malloc arena, held from
// one poll to the next among a poll's short-lived buffers; freed, they left holes the arena kept. One
// buffer a family is one mapping above the threshold, given back whole when freed.

/** Copies of `views` side by side in one new buffer, as views of it in the same order. */
export function joinViews(views: readonly Uint8Array[]): Uint8Array[] {
  let total = 0;
  for (const view of views) total += view.byteLength;
  const all = new Uint8Array(total);
  let at = 0;
  return views.map((view) => {
    all.set(view, at);
    at += view.byteLength;
    return all.subarray(at - view.byteLength, at);
  });
}

/** Whether the views are, in order and without gaps or overlaps, the whole of one ArrayBuffer. */
export function tileOneBuffer(views: readonly Uint8Array[]): boolean {
  const buffer = views[0]?.buffer;
  if (buffer === undefined) return false;
  let at = 0;
  for (const view of views) {
    if (view.buffer !== buffer || view.byteOffset !== at) return false;
    at += view.byteLength;
  }
  return at === buffer.byteLength;
}
