export interface WasmModuleBuild {
  source: string;
  target: string;
  constant: string;
  what: string;
  options: Record<string, unknown>;
}
export const MODULES: readonly WasmModuleBuild[];
export function compileModule(module: WasmModuleBuild): Promise<Buffer>;
export function moduleSource(module: WasmModuleBuild, bytes: Buffer): string;
