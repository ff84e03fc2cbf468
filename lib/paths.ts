/** Default locations, with the environment equivalents of DESIGN §2. */
import { join, resolve } from 'node:path';

export function defaultDataDir(): string {
  return resolve(process.env.VULNINTEL_DATA ?? 'data');
}

export function defaultRawDir(dataDir = defaultDataDir()): string {
  return join(dataDir, 'raw');
}
