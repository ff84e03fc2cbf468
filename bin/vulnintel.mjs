#!/usr/bin/env node
// The package runs its TypeScript through tsx, so `npx vulnintel` works straight after `npm ci`
// with no compile step (DESIGN §2).
import { register } from 'tsx/esm/api';

register();
await import('../cli/main.ts');
