// What is used of the global WebAssembly (its types are in TypeScript's DOM library, not Node's types).
export type WasmModule = { readonly kind: "WebAssembly.Module" };
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => WasmModule;
  Instance: new (module: WasmModule, imports: object) => { exports: unknown };
  Memory: new (descriptor: { initial: number; maximum?: number; shared?: boolean }) => WasmMemory;
};

/** A WebAssembly memory: its bytes (a SharedArrayBuffer when shared), and grow() in 64 KiB pages. */
export interface WasmMemory {
  readonly buffer: ArrayBuffer | SharedArrayBuffer;
  grow(pages: number): number;
}

/** A new shared memory of `initial` pages, at most `maximum`. Throws when none can be made. */
export const sharedMemory = (initial: number, maximum: number): WasmMemory =>
  new WebAssembly.Memory({ initial, maximum, shared: true });

/**
 * A committed module (base64), compiled the first time it is asked for in a thread; null where
 * WebAssembly (or a feature the module uses, such as SIMD) is not available, e.g. `node --jitless`.
 */
export function compiledOnce(base64: string): () => WasmModule | null {
  let compiled: WasmModule | null | undefined;
  return () => {
    if (compiled === undefined) {
      try {
        compiled = new WebAssembly.Module(Buffer.from(base64, "base64"));
      } catch {
        compiled = null;
      }
    }
    return compiled;
  };
}

/** A new instance of a module; its exports as the caller types them. Throws when none can be made. */
export const instantiate = <E>(module: WasmModule, imports: object = {}): E =>
  new WebAssembly.Instance(module, imports).exports as E;
