export function runtimeMajors(): number[];
export function dockerfileNodeMajor(): number;
