// Worker threads do not inherit the tsx loader of the main thread: register it here, as
// bin/vulnintel.mjs does, then run the TypeScript worker.
import { register } from 'tsx/esm/api';

register();
await import('./stage-worker.ts');
