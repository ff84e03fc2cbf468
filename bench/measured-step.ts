/**
 * Child process of the benchmarks: runs one step (synth or build) and prints its own peak RSS
 * (`PEAK_RSS_KB=…`), so each figure belongs to the step alone.
 *   tsx bench/measured-step.ts synth <raw> <cves> <seed>
 *   tsx bench/measured-step.ts build <raw> <data>
 */
process.on('exit', () => console.log(`PEAK_RSS_KB=${process.resourceUsage().maxRSS}`));

const [step, ...args] = process.argv.slice(2);
if (step === 'synth') {
  const { runSynth } = await import('../cli/commands/synth.ts');
  await runSynth({ raw: args[0]!, cves: Number(args[1]), seed: args[2]! });
} else if (step === 'build') {
  const { resolveBuildOptions } = await import('../cli/commands/build.ts');
  const { buildSnapshot } = await import('../cli/build/build.ts');
  await buildSnapshot(await resolveBuildOptions({ raw: args[0]!, data: args[1]!, keep: 1 }));
} else {
  throw new Error(`unknown step ${step}`);
}
