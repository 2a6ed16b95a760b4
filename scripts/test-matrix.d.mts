export function runtimeMajors(): number[];
export function dockerfileNodeMajor(): number;
export function nodeBinary(major: number): string;
export function dockerfileEnv(): Record<string, string>;
export function dockerfileNodeFlags(): string[];
export function runtimeEnv(major: number, base?: Record<string, string | undefined>): Record<string, string>;
export function failedTests(json: {
  testResults: {
    name: string;
    status: string;
    message?: string;
    assertionResults: { status: string; fullName: string; failureMessages?: string[] }[];
  }[];
}): string[];
