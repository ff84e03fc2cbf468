import { writeServingFiles } from './cli/build/serving.ts';
const t = performance.now();
try { const r = await writeServingFiles(process.argv[2]!); console.log(r.manifest, ((performance.now() - t) / 1000).toFixed(1), 's'); } catch (e) { console.log(String(e).slice(0, 300)); }
