/**
 * `vulnintel`: the command line (DESIGN §2). Each command lives in cli/commands/; this file
 * only declares the options and dispatches, so `--help` documents the whole surface.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { CliError, fileSystemFacts, RawFormatError } from '../lib/errors.ts';
import { printable } from '../lib/terminal-text.ts';
import { sourcesHelp } from './fetch/source-summaries.ts';

/** A whole number from 1 to `max`: past it, a value fails later under another name (a port, DuckDB's threads). */
function positiveInt(name: string, max = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    if (!/^\d+$/.test(value) || Number(value) <= 0) throw new InvalidArgumentError(`${name} must be a positive integer`);
    if (Number(value) > max) throw new InvalidArgumentError(`${name} must be at most ${max}`);
    return Number(value);
  };
}

/**
 * The smallest --memory-limit: DuckDB's per-thread buffers need about 100 MB before any data,
 * and the bundled 83-CVE sample fails at 96MB on 2 threads. Below it (1KB, 1B) every build fails;
 * said once, here, rather than as an out-of-memory error after staging.
 */
const MIN_MEMORY_LIMIT = { bytes: 128e6, text: '128MB' };

/**
 * A DuckDB memory size as DuckDB reads one (a number and a unit: 1500MB, 2GB, 1.5GiB; KB, MB, …
 * are powers of 1000, KiB, MiB, … of 1024): any other text failed inside DuckDB as a bare
 * "Failed to set config", with a stack, after staging.
 */
function memorySize(name: string) {
  const SIZE = /^\s*(\d+(?:\.\d+)?)\s*(?:([KMGT])(i?)B|B|bytes?|(kilo|mega|giga|tera)bytes?)\s*$/i;
  return (value: string): string => {
    const match = SIZE.exec(value);
    if (!match || !(Number(match[1]) > 0)) throw new InvalidArgumentError(`${name} must be a size with its unit, e.g. 1500MB or 2GB`);
    const prefix = (match[2] ?? match[4]?.[0] ?? '').toUpperCase();
    const bytes = Number(match[1]) * (match[3] ? 1024 : 1000) ** ('KMGT'.indexOf(prefix) + 1);
    if (bytes < MIN_MEMORY_LIMIT.bytes) {
      throw new InvalidArgumentError(`${name} must be at least ${MIN_MEMORY_LIMIT.text} (the build's DuckDB cannot run in less), e.g. 1500MB or 2GB`);
    }
    return value.trim();
  };
}

/**
 * A folder option (--data, --raw): a path that names a file is refused at once, naming the
 * option, where each command failed later with a stack (ENOTDIR, EEXIST). A missing folder is
 * each command's own business (build and serve make theirs; fetch makes the raw folder).
 * An empty value (`--data ""`, or `VULNINTEL_DATA=` as a compose file or a shell script writes
 * an unset variable) is refused too: it resolved to the working folder, so build published its
 * snapshots/ and CURRENT there and serve and sql read from there, silently.
 */
function folder(name: string) {
  return (value: string): string => {
    if (value.trim() === '') throw new InvalidArgumentError(`${name} is empty: name a folder`);
    const found = statSync(value, { throwIfNoEntry: false });
    if (found && !found.isDirectory()) throw new InvalidArgumentError(`${name} ${value}: not a folder`);
    return value;
  };
}

/**
 * `--data`, or VULNINTEL_DATA: the variable goes through the same check as the option (a
 * default is not parsed by commander, so VULNINTEL_DATA naming a file failed deep inside each
 * command: EEXIST from build, ENOTDIR from serve).
 */
function dataOption(description: string): Option {
  return new Option('--data <dir>', description).env('VULNINTEL_DATA').default(resolve('data')).argParser(folder('--data'));
}

/**
 * The environment variable of the commands that fetch NVD (DESIGN §2 lists it with the ones
 * shown as `env:` beside their option): without a line in --help nothing there named it.
 */
const nvdKeyHelp = '\nEnvironment: NVD_API_KEY, your NVD API key (sent as its apiKey header): NVD allows 50 requests / 30 s instead of 5';

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** The /pulse options of serve, notify, update and poll (PULSE §4–§6). */
function pulseOptions(command: Command, forDelivery: boolean): Command {
  command
    .addOption(new Option('--pulse-db <url|file>', 'subscription store: postgres://… (several hosts), or a SQLite file, a path or a file: URL (default DATA/pulse/pulse.db)').env('VULNINTEL_PULSE_DB'))
    .addOption(new Option('--smtp <url>', `SMTP server for e-mail ${forDelivery ? 'alerts' : 'confirmations'}, e.g. smtp://user:pass@mail.example.org:587 (smtps:// for TLS)`).env('VULNINTEL_SMTP_URL'))
    .addOption(new Option('--mail-from <address>', 'sender of e-mails (default: vulnintel <pulse@PUBLIC-HOST>)').env('VULNINTEL_MAIL_FROM'))
    .addOption(new Option('--public-url <url>', 'public base URL for links in alerts (default http://localhost:PORT)').env('VULNINTEL_PUBLIC_URL'))
    .option('--pulse-allow-private-webhooks', 'let webhooks reach loopback and private addresses (intranets, tests)');
  return command;
}

const program = new Command();
program
  .name('vulnintel')
  .description('Vulnerability intelligence: fetch every public CVE source, merge and score it in DuckDB, serve it read-only.')
  .showHelpAfterError();

program
  .command('fetch')
  .description('download each upstream source into RAW/<source>/, incrementally where the source allows')
  .option('--sources <list>', 'comma-separated sources (default: all)')
  .option('--raw <dir>', 'raw data folder (default: DATA/raw)', folder('--raw'))
  .addOption(dataOption('data folder'))
  .option('--config <file>', 'source URL overrides (JSON, see config/sources.example.json)')
  .option('--full', 're-download from scratch (NVD: a new full pull, swapped in when complete)')
  .addHelpText('after', () => `${sourcesHelp()}\n${nvdKeyHelp}`)
  .action(async (opts) => (await import('./commands/fetch.ts')).runFetch(opts));

program
  .command('build')
  .description('merge and score the raw sources in DuckDB into a new snapshot, then publish it atomically')
  .option('--raw <dir>', 'raw data folder (default: DATA/raw)', folder('--raw'))
  .addOption(dataOption('data folder (snapshots/ and CURRENT)'))
  .option('--keep <n>', 'published snapshots to keep', positiveInt('--keep'), 3)
  .option('--threads <n>', 'DuckDB threads (default: all cores)', positiveInt('--threads', 1024))
  .option('--memory-limit <size>', 'DuckDB memory limit (the build spills past it), e.g. 2GB', memorySize('--memory-limit'), '1500MB')
  .option('--allow-shrink', 'publish even when a source lost more than half of its records since the published snapshot')
  .action(async (opts) => (await import('./commands/build.ts')).runBuild(opts));

program
  .command('update')
  .description('the nightly job: fetch, then build and publish; exit 0 only when a snapshot was published')
  .option('--sources <list>', 'comma-separated sources (default: all)')
  .option('--raw <dir>', 'raw data folder (default: DATA/raw)', folder('--raw'))
  .addOption(dataOption('data folder'))
  .option('--config <file>', 'source URL overrides (JSON)')
  .option('--keep <n>', 'published snapshots to keep', positiveInt('--keep'), 3)
  .option('--full', 're-download from scratch (NVD: a new full pull, swapped in when complete)')
  .option('--no-notify', 'do not deliver /pulse alerts after publishing')
  .option('--allow-shrink', 'publish even when a source lost more than half of its records since the published snapshot')
  .addHelpText('after', () => `${sourcesHelp()}\n${nvdKeyHelp}`);
pulseOptions(program.commands.at(-1)!, true).action(async (opts) => (await import('./commands/update.ts')).runUpdate(opts));

program
  .command('poll')
  .description('live NVD poller: fetch NVD changes since the watermark, rebuild and publish, every interval')
  .option('--interval <duration>', 'time between polls (e.g. 2h, 30m)', '2h')
  .option('--raw <dir>', 'raw data folder (default: DATA/raw)', folder('--raw'))
  .addOption(dataOption('data folder'))
  .option('--config <file>', 'source URL overrides (JSON)')
  .option('--once', 'poll once and exit (exit 1 if the poll failed)')
  .option('--keep <n>', 'published snapshots to keep', positiveInt('--keep'), 3)
  .option('--no-notify', 'do not deliver /pulse alerts after publishing')
  .addHelpText('after', nvdKeyHelp);
pulseOptions(program.commands.at(-1)!, true).action(async (opts) => (await import('./commands/poll.ts')).runPoll(opts));

program
  .command('serve')
  .description('serve the read API from the current snapshot; picks up new snapshots without a restart')
  .addOption(dataOption('data folder'))
  .option('--host <host>', 'listen address', '0.0.0.0')
  .addOption(new Option('--port <port>', 'listen port').env('PORT').default(8080).argParser(positiveInt('--port', 65535)))
  .addOption(new Option('--redis <url>', 'share per-minute rate counts across replicas through Redis').env('REDIS_URL'))
  .option('--trust-proxy <cidr>', 'a proxy whose appended X-Forwarded-For hop is trusted (repeatable)', collect, [])
  .option('--no-rate-limit', 'turn rate limiting off (benchmarks)');
pulseOptions(program.commands.at(-1)!, false).action(async (opts) => (await import('./commands/serve.ts')).runServe(opts));

pulseOptions(
  program
    .command('notify')
    .description('deliver the published changes to /pulse subscriptions (e-mail, webhooks); update and poll run it after each publish')
    .addOption(dataOption('data folder')),
  true,
).action(async (opts) => (await import('./commands/notify.ts')).runNotifyCommand(opts));

program
  .command('synth')
  .description('write a synthetic corpus in the real upstream formats, at any scale (benchmarks)')
  .option('--cves <n>', 'number of CVEs (a new corpus)', positiveInt('--cves'))
  .requiredOption('--raw <dir>', 'output raw folder', folder('--raw'))
  .option('--seed <s>', 'random seed (same seed, same corpus)', '1')
  .option('--evolve-from <dir>', 'instead: write the raw state of this corpus --days later (new CVEs, KEV, EPSS, rejections, rescorings, advisories)')
  .option('--days <n>', 'with --evolve-from: days of upstream changes', positiveInt('--days'), 1)
  .action(async (opts) => (await import('./commands/synth.ts')).runSynth(opts));

program
  .command('sql')
  .description('run SQL over the current snapshot (views: cves, advisories, affected_packages, …)')
  .argument('<query>', 'SQL query; several statements separated by ; run in turn, the last one\'s result is printed')
  .addOption(dataOption('data folder'))
  .addOption(new Option('--format <format>', 'output format').choices(['table', 'csv', 'json']).default('table'))
  .action(async (query, opts) => (await import('./commands/sql.ts')).runSql(query, opts));

program
  .command('scan')
  .description('check a CycloneDX (1.2-1.7) or SPDX (2.2/2.3) JSON SBOM offline against the current snapshot')
  .argument('<file>', 'SBOM file (JSON, or gzip-compressed JSON); - reads standard input')
  .addOption(dataOption('data folder'))
  .addOption(new Option('--format <format>', 'output format').choices(['table', 'json', 'sarif']).default('table'))
  .addOption(new Option('--fail-on <level>', 'exit 1 when a finding is critical, high (or critical), or in CISA KEV').choices(['critical', 'high', 'kev']))
  // scan's exit 1 means "a finding reaches --fail-on" (cli/commands/scan.ts): a usage error
  // (`--fail-on critcal`, an unknown option, no file) exits 2 like any other scan that could
  // not run, so a CI job does not report vulnerabilities for a typo. Commander has already
  // printed its message; help (code 0) stays 0.
  .exitOverride((err) => process.exit(err.exitCode === 0 ? 0 : 2))
  .action(async (file, opts) => (await import('./commands/scan.ts')).runScan(file, opts));

/** A message for the terminal: it may quote a malformed file, control characters and all (lib/terminal-text.ts). */
const shown = (message: string) => message.split('\n').map(printable).join('\n');

// A reader that stops early (`vulnintel sql … | head`) closes the pipe: the next write failed
// with EPIPE, an 'error' event nobody handled, and Node printed its stack. The rest of the
// output is no longer wanted: stop quietly, with the status a shell gives a program killed by
// SIGPIPE (128 + 13), so `set -o pipefail` still sees a command that did not finish.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(141);
  throw err;
});

/**
 * An environment variable set to nothing (`PORT=` in a compose file or an env file, a template
 * left blank) means "not set", as in most tools: it was taken as the option's value and refused
 * (`--port` '' is not a number) or used (an empty Redis URL). Each option's variable that holds
 * only blanks is removed before the options are read, so its default applies.
 */
function unsetBlankOptionVariables(command: Command): void {
  for (const option of command.options) {
    const name = option.envVar;
    if (name && process.env[name]?.trim() === '') delete process.env[name];
  }
  for (const sub of command.commands) unsetBlankOptionVariables(sub);
}

try {
  unsetBlankOptionVariables(program);
  await program.parseAsync(process.argv);
} catch (err) {
  // A file system refusal (no permission, disk full, a file where a folder goes) is about this
  // machine, not a bug: its message names the path and the call; a stack would add nothing.
  if (err instanceof CliError || err instanceof RawFormatError || fileSystemFacts(err) !== null) {
    process.stderr.write(`vulnintel: ${shown((err as Error).message)}\n`);
    process.exit(err instanceof CliError ? err.exitCode : 1);
  }
  throw err;
}
