export function compileTargetsScan(): Promise<Buffer>;
export function moduleSource(bytes: Buffer): string;
